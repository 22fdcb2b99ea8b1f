/**
 * GPU decisions for the ssh-gpu executor, pure: reading the probe's table, which GPUs are free,
 * which free GPUs each task gets (on one server, or across a pool), and whether the next wave may
 * start.
 */

/** The probe when the manifest names none; its output is what `parseProbe` reads. */
export const DEFAULT_PROBE = 'nvidia-smi --query-gpu=index,uuid,memory.used,memory.total --format=csv,noheader,nounits';

export interface GpuReading {
  index: number;
  uuid: string;
  usedMiB: number;
  totalMiB: number;
}

/** A line of the probe's output that names no usable GPU, and why. */
export interface Unusable {
  index?: number;
  line: string;
  why: string;
}

export interface ProbeTable {
  gpus: GpuReading[];
  unusable: Unusable[];
}

const NUMBER = /^\d+(\.\d+)?$/;
const UUID = /^[A-Za-z0-9][A-Za-z0-9-]*$/;

/**
 * `index, uuid, memory.used, memory.total` per line, in MiB, as `nvidia-smi
 * --query-gpu=index,uuid,memory.used,memory.total --format=csv,noheader,nounits` prints them. A
 * value nvidia-smi could not read (`[N/A]`, `[Unknown Error]`, …) makes that GPU unusable, never
 * a crash.
 */
export function parseProbe(text: string): ProbeTable {
  const gpus: GpuReading[] = [];
  const unusable: Unusable[] = [];
  const seen = new Set<string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const fields = line.split(',').map((f) => f.trim());
    const index = /^\d+$/.test(fields[0] ?? '') ? Number(fields[0]) : undefined;
    const at = index === undefined ? {} : { index };
    if (fields.length !== 4 || index === undefined) {
      unusable.push({ ...at, line, why: 'not "index, uuid, memory.used, memory.total"' });
      continue;
    }
    const [, uuid, used, total] = fields as [string, string, string, string];
    if (!UUID.test(uuid)) unusable.push({ index, line, why: `uuid is "${uuid}"` });
    else if (!NUMBER.test(used)) unusable.push({ index, line, why: `memory.used is "${used}"` });
    else if (!NUMBER.test(total)) unusable.push({ index, line, why: `memory.total is "${total}"` });
    else if (seen.has(`i${index}`) || seen.has(`u${uuid}`)) unusable.push({ index, line, why: 'listed twice' });
    else {
      seen.add(`i${index}`).add(`u${uuid}`);
      gpus.push({ index, uuid, usedMiB: Number(used), totalMiB: Number(total) });
    }
  }
  return { gpus, unusable };
}

export interface FreeInput {
  table: ProbeTable;
  /** The GPU indices the manifest allows (cluster.gpus); undefined: every GPU listed. */
  allowed?: readonly number[];
  /** A GPU is free when its used memory is below this. */
  freeBelowMiB: number;
  /** UUIDs held by tasks of this campaign (running, or launched and not yet using memory). */
  held: ReadonlySet<string>;
  /** UUIDs held by a live `campaign shell` (of any campaign of the workdir), which may use no memory yet. */
  shells?: ReadonlySet<string>;
}

export interface GpuStatus {
  index: number;
  free: boolean;
  uuid?: string;
  /** Why it is not free, in plain words. */
  why?: string;
}

/** Every allowed GPU, free or with the reason it is not; in index order. */
export function gpuStatus(input: FreeInput): GpuStatus[] {
  const { table, freeBelowMiB, held } = input;
  const indices = input.allowed ?? [...table.gpus.map((g) => g.index), ...table.unusable.flatMap((u) => u.index ?? [])];
  const out: GpuStatus[] = [];
  for (const index of [...new Set(indices)].sort((a, b) => a - b)) {
    const g = table.gpus.find((x) => x.index === index);
    const bad = table.unusable.find((u) => u.index === index);
    if (!g) out.push({ index, free: false, why: bad ? `unusable: ${bad.why}` : 'not listed by the probe' });
    else if (held.has(g.uuid)) out.push({ index, uuid: g.uuid, free: false, why: 'held by a task of this campaign' });
    else if (input.shells?.has(g.uuid)) out.push({ index, uuid: g.uuid, free: false, why: 'held by a campaign shell' });
    else if (g.usedMiB >= freeBelowMiB)
      out.push({ index, uuid: g.uuid, free: false, why: `${g.usedMiB} MiB in use (free below ${freeBelowMiB} MiB)` });
    else out.push({ index, uuid: g.uuid, free: true });
  }
  return out;
}

export interface PlacementRequest {
  key: string;
  gpus: number;
  /** UUIDs to take only when no other free GPU is left (where the task's last attempt ran). */
  avoid: readonly string[];
}

/**
 * Which free GPUs each request gets, in request order: all it asks for or none (it waits for the
 * next pass). A request prefers GPUs outside its `avoid` list, lowest index first.
 */
export function placeTasks(requests: readonly PlacementRequest[], free: readonly GpuStatus[]): Map<string, string[]> {
  const left = free.filter((g) => g.free && g.uuid !== undefined).map((g) => g.uuid!);
  const placed = new Map<string, string[]>();
  for (const r of requests) {
    if (r.gpus > left.length) continue;
    const avoid = new Set(r.avoid);
    const order = [...left.filter((u) => !avoid.has(u)), ...left.filter((u) => avoid.has(u))];
    const take = order.slice(0, r.gpus);
    placed.set(r.key, take);
    for (const u of take) left.splice(left.indexOf(u), 1);
  }
  return placed;
}

/**
 * Whether the next wave may start: no task of this campaign is running, and every GPU the last
 * wave used reads below the threshold again (memory is freed a moment after a process ends).
 */
export function waveMayStart(input: {
  active: number;
  lastWave: readonly string[];
  table: ProbeTable | undefined;
  freeBelowMiB: number;
}): { ok: true } | { ok: false; why: string } {
  if (input.active > 0) return { ok: false, why: `${input.active} task(s) of the current wave still running` };
  for (const uuid of input.lastWave) {
    const g = input.table?.gpus.find((x) => x.uuid === uuid);
    if (!g) return { ok: false, why: `GPU ${uuid} of the last wave has no reading` };
    if (g.usedMiB >= input.freeBelowMiB)
      return { ok: false, why: `GPU ${g.index} of the last wave still has ${g.usedMiB} MiB in use` };
  }
  return { ok: true };
}

/** One server of a pool as placement sees it: its GPUs, and how many more tasks it may run. */
export interface ServerGpus {
  server: string;
  status: readonly GpuStatus[];
  /** Tasks it may still start (its max_parallel less what runs there); Infinity without a cap. */
  slots: number;
}

export interface PoolRequest {
  key: string;
  gpus: number;
  /** GPUs to take only when no other will do (where the task's last attempt ran), by server. */
  avoid: readonly { server: string; uuid: string }[];
}

/**
 * Which server and free GPUs each request gets, in request order: all its GPUs on one server,
 * or none (it waits). A request goes where it can keep clear of its `avoid` GPUs, then to the
 * server with the most free GPUs left (so that tasks spread over the pool), then in list order;
 * on that server, GPUs outside `avoid` first, lowest index first.
 */
export function placeInPool(
  requests: readonly PoolRequest[],
  servers: readonly ServerGpus[],
): Map<string, { server: string; gpus: string[] }> {
  const left = servers.map((s) => ({
    server: s.server,
    slots: s.slots,
    uuids: s.status.filter((g) => g.free && g.uuid !== undefined).map((g) => g.uuid!),
  }));
  const placed = new Map<string, { server: string; gpus: string[] }>();
  for (const r of requests) {
    // Higher is better: keeps clear of `avoid`, then most free GPUs left; ties keep list order.
    const rank = (s: (typeof left)[number]): number => {
      const avoid = new Set(r.avoid.filter((a) => a.server === s.server).map((a) => a.uuid));
      const clear = s.uuids.filter((u) => !avoid.has(u)).length >= r.gpus;
      return (clear ? 1e6 : 0) + s.uuids.length;
    };
    let best: (typeof left)[number] | undefined;
    for (const s of left) {
      if (s.slots < 1 || s.uuids.length < r.gpus) continue;
      if (!best || rank(s) > rank(best)) best = s;
    }
    if (!best) continue;
    const avoid = new Set(r.avoid.filter((a) => a.server === best.server).map((a) => a.uuid));
    const take = [...best.uuids.filter((u) => !avoid.has(u)), ...best.uuids.filter((u) => avoid.has(u))].slice(
      0,
      r.gpus,
    );
    placed.set(r.key, { server: best.server, gpus: take });
    best.uuids = best.uuids.filter((u) => !take.includes(u));
    best.slots -= 1;
  }
  return placed;
}
