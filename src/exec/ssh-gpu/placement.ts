/**
 * Which GPUs, and in a pool which server, the ssh-gpu executor gives each task or shell, from
 * each server's last probe and what this campaign holds there; and, when none can be given,
 * why. The choice itself is the core's (decide/gpu.ts); this is what the servers tell it.
 */
import { UserError } from '../../errors.js';
import { placeInPool, placeTasks } from '../../decide/gpu.js';
import type { Transport } from '../transport/transport.js';
import { shellHolds } from './paths.js';
import type { Pool } from './pool.js';
import { gpuCount } from './probe.js';
import { gpusOfHandle, isUnanswered, serverOfHandle, type Server } from './server.js';

/** A task that asks for GPUs: those its previous attempt ran on (`avoid`, on the server `beforeOn`) are taken last. */
export interface PlacementRequest {
  key: string;
  gpus: number;
  avoid: string[];
  beforeOn: string | undefined;
}

/** Tasks the server may run at once. */
export function tasksAtOnce(s: Server): number {
  return s.maxParallel ?? s.gpus?.length ?? Math.max(1, gpuCount(s));
}

/** Which server and GPUs each request gets (on the single server: which of its GPUs). */
export function place(
  pool: Pool,
  requests: readonly PlacementRequest[],
  up: readonly Server[],
  held: ReadonlyMap<Server, ReadonlySet<string>>,
): Map<string, { server: Server; gpus: string[] }> {
  if (!pool.pooled) {
    const s = pool.servers[0]!;
    const placed = placeTasks(requests, pool.prober.status(s, held.get(s)!));
    return new Map([...placed].map(([key, gpus]) => [key, { server: s, gpus }]));
  }
  const placed = placeInPool(
    requests.map((r) => ({
      key: r.key,
      gpus: r.gpus,
      avoid: r.avoid.map((uuid) => ({ server: r.beforeOn ?? '', uuid })),
    })),
    up.map((s) => ({
      server: s.name!,
      status: pool.prober.status(s, held.get(s)!),
      slots: s.maxParallel === undefined ? Infinity : s.maxParallel - s.running,
    })),
  );
  return new Map([...placed].map(([key, p]) => [key, { server: pool.byName(p.server)!, gpus: p.gpus }]));
}

/** Why no GPU could be found: on the single server, its busy GPUs; in a pool, each server's. */
export function whyWaiting(pool: Pool, held: ReadonlyMap<Server, ReadonlySet<string>>): string {
  const busy = (s: Server): string[] =>
    pool.prober
      .status(s, held.get(s)!)
      .filter((g) => !g.free)
      .map((g) => `GPU ${g.index}: ${g.why}`);
  if (!pool.pooled) {
    const s = pool.servers[0]!;
    const list = busy(s);
    return s.view!.error ?? (list.length > 0 ? list.join('; ') : 'no GPU is free');
  }
  return pool.servers
    .map((s) => {
      if (s.out || s.pending) return `${s.where}: does not answer`;
      if (s.view?.error) return `${s.where}: ${s.view.error}`;
      if (s.maxParallel !== undefined && s.running >= s.maxParallel)
        return `${s.where}: runs its max_parallel of ${s.maxParallel}`;
      const list = busy(s);
      return `${s.where}: ${list.length > 0 ? list.join(', ') : 'no GPU is free'}`;
    })
    .join('; ');
}

/** The GPUs a shell is given, on which server, and where it marks that it holds them. */
export interface ShellGpus {
  transport: Transport;
  workdir: string;
  gpus: string[];
  holds: string;
}

/**
 * `count` free GPUs of one server for a shell in a task's place (`campaign shell`): none that
 * a running task of this campaign holds (`active`: their handles, from the stored state), or
 * another shell, or anything else uses memory on; the first server of a pool that has them.
 * The shell holds them itself from its start (render/shell-script.ts); a UserError when no
 * server has so many free now.
 */
export async function gpusForShell(pool: Pool, count: number, active: readonly string[]): Promise<ShellGpus> {
  const busy: string[] = [];
  for (const s of pool.servers) {
    try {
      await pool.prober.look(s, []);
    } catch (e) {
      if (!pool.pooled || !isUnanswered(e)) throw e;
      busy.push(`${s.where}: does not answer`);
      continue;
    }
    const held = new Set(
      active.filter((h) => !pool.pooled || serverOfHandle(h) === s.name).flatMap((h) => gpusOfHandle(h)),
    );
    const status = pool.prober
      .judge(s)
      .map((g) =>
        g.uuid !== undefined && held.has(g.uuid) ? { ...g, free: false, why: 'held by a task of this campaign' } : g,
      );
    const gpus = count === 0 ? [] : placeTasks([{ key: 'shell', gpus: count, avoid: [] }], status).get('shell');
    if (gpus) return { transport: s.transport, workdir: await s.workdir.path(), gpus, holds: await shellHolds(s) };
    const why = status.filter((g) => !g.free).map((g) => `GPU ${g.index}: ${g.why}`);
    busy.push(`${pool.pooled ? `${s.where}: ` : ''}${why.length > 0 ? why.join('; ') : 'no GPU is free'}`);
  }
  throw new UserError({
    message: `the task asks for ${count} GPU${count === 1 ? '' : 's'}, and no server has so many free now (${busy.join('; ')})`,
    fix: 'run campaign shell again once a GPU is free (campaign check lists what holds them)',
  });
}
