/**
 * How the ssh-gpu executor starts attempts on a server: each attempt's files written apart and
 * put in place whole by one command that starts them all, each as a session of its own under the
 * shared wrapper (render/wrapper.ts), pinned by `CUDA_VISIBLE_DEVICES` (GPU UUIDs, exported for
 * the whole task) to the GPUs it was given. An attempt an earlier pass launched (and a crash kept
 * from saving) is found by its files and reported, never launched again.
 */
import type { Manifest } from '../../manifest/schema.js';
import type { Submission, TaskEvent } from '../../state/events.js';
import { manifestTaskEnv } from '../../render/task-env.js';
import { exportLines, shellQuote } from '../../render/shell.js';
import { renderLaunch } from '../../render/ssh-gpu.js';
import { phaseOf, renderTaskScript, resumeEnv, scriptInputFor } from '../../render/task-script.js';
import { checkpointOf, renderWrapper } from '../../render/wrapper.js';
import { tempPathFor } from '../transport/transport.js';
import { attemptDir } from './paths.js';
import type { Pool } from './pool.js';
import { handleOf, isUnanswered, type Server } from './server.js';

/** What a launch needs beside the servers. */
export interface LaunchSettings {
  manifest: Manifest;
  /** Seconds between SIGTERM and SIGKILL, at the walltime or a cancel. */
  killAfterS: number;
  now: () => string;
  warn: (message: string) => void;
}

/** What an earlier pass left of an attempt, and where the task's previous attempt ran. */
export interface EarlierLaunch {
  /** The attempt launched already: when, its pid, its GPUs and, in a pool, its server. */
  launch?: { at: string; pid: string; gpus: string[]; server?: string };
  /** The GPUs the previous attempt ran on, and in a pool its server. */
  before: string[];
  beforeServer?: string;
}

export class Launcher {
  constructor(
    private readonly pool: Pool,
    private readonly settings: LaunchSettings,
  ) {}

  /**
   * What an earlier pass left of this attempt (a launch, read back with its pid, GPUs and, in a
   * pool, server; a launch cut short gets 3 s to write its pid), and the GPUs (and server) the
   * task's previous attempt ran on. Read through `via`: a pool's servers share the workdir.
   */
  async earlierLaunch(via: Server, sub: Submission, dir: string): Promise<EarlierLaunch> {
    // A file that cannot be read counts as absent: launching again is safe, as the wrapper's
    // claim lets only one launch of an attempt run.
    const read = (path: string): Promise<string | undefined> => via.transport.readFile(path).catch(() => undefined);
    const list = (text: string | undefined): string[] => (text ?? '').trim().split(',').filter(Boolean);
    const server = async (d: string): Promise<{ server?: string }> => {
      const name = this.pool.pooled ? (await read(`${d}/server`))?.trim() : undefined;
      return name ? { server: name } : {};
    };
    const { campaign } = this.settings.manifest;
    const prev = sub.attempt > 1 ? await attemptDir(via, campaign, sub.task.id, sub.attempt - 1) : undefined;
    const beforeOn = prev === undefined ? {} : await server(prev);
    const before = {
      before: prev === undefined ? [] : list(await read(`${prev}/gpus`)),
      ...(beforeOn.server === undefined ? {} : { beforeServer: beforeOn.server }),
    };
    const launched = await read(`${dir}/launched`);
    if (launched === undefined) return before;
    // Left under another definition by a state lost before the manifest changed: not this attempt.
    const ranUnder = (await read(`${dir}/definition`))?.trim() ?? '';
    if (sub.task.definition !== undefined && ranUnder !== sub.task.definition) {
      await via.transport.exec(`mv -- ${shellQuote(dir)} ${shellQuote(`${dir}.superseded-${Date.now()}`)}`);
      return before;
    }
    let pid: string | undefined;
    for (let waited = 0; waited <= 3000; waited += 100) {
      pid = (await read(`${dir}/pid`))?.trim();
      if (pid) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!pid) return before;
    const gpus = list(await read(`${dir}/gpus`));
    return {
      launch: { at: msToIso(launched.trim(), this.settings.now()), pid, gpus, ...(await server(dir)) },
      ...before,
    };
  }

  /**
   * Writes each attempt's files and starts them all on the server with one command. An attempt
   * whose answer was lost gets no event: the next pass finds it launched, or launches it.
   */
  async launch(s: Server, placed: readonly { sub: Submission; gpus: string[] }[]): Promise<TaskEvent[]> {
    if (placed.length === 0) return [];
    const { manifest, killAfterS, now, warn } = this.settings;
    const t = s.transport;
    const workdir = await s.workdir.path();
    const items = await Promise.all(
      placed.map(async (p) => ({ ...p, dir: await attemptDir(s, manifest.campaign, p.sub.task.id, p.sub.attempt) })),
    );
    const events: TaskEvent[] = [];
    const ready: ((typeof items)[number] & { staging: string })[] = [];
    let unanswered: Error | undefined;
    await Promise.all(
      items.map(async (it) => {
        const { sub, dir, gpus } = it;
        const env = {
          ...manifestTaskEnv(manifest, sub.task, sub.attempt, workdir),
          ...resumeEnv(phaseOf(manifest, sub.task), sub.resume),
          CUDA_VISIBLE_DEVICES: gpus.join(','),
        };
        const script = renderTaskScript(scriptInputFor(manifest, sub.task, sub.index, gpus.length, sub.code));
        const wrapper = renderWrapper({
          dir,
          walltimeSeconds: sub.array.budget.seconds,
          killAfterSeconds: killAfterS,
          envFile: true,
          checkpoint: checkpointOf(phaseOf(manifest, sub.task)?.checkpoint),
        });
        // Written apart, put in place whole by the launch: another controller's never mixes with them.
        const staging = tempPathFor(dir);
        try {
          await t.mkdirp(staging);
          await Promise.all([
            t.writeFile(`${staging}/task.sh`, script, { mode: 0o755 }),
            t.writeFile(`${staging}/env.sh`, `${exportLines(env)}\n`),
            t.writeFile(`${staging}/gpus`, `${gpus.join(',')}\n`),
            t.writeFile(`${staging}/definition`, `${sub.task.definition ?? ''}\n`),
            ...(s.name === undefined ? [] : [t.writeFile(`${staging}/server`, `${s.name}\n`)]),
            t.writeFile(`${staging}/wrapper.sh`, wrapper, { mode: 0o755 }),
          ]);
          ready.push({ ...it, staging });
        } catch (e) {
          // A pool's server that stops answering fails no task: it waits for another pass.
          if (this.pool.pooled && isUnanswered(e)) unanswered = e as Error;
          else events.push(submitFailed(sub, now(), `cannot write the attempt's files: ${(e as Error).message}`));
        }
      }),
    );
    if (unanswered) {
      this.pool.leaveOut(s, unanswered.message);
      return events;
    }
    if (ready.length === 0) return events;
    let r;
    try {
      r = await t.exec(renderLaunch(), {
        stdin: ready.map((it) => `${it.staging}\t${it.dir}\n`).join(''),
        timeoutMs: 120_000,
      });
    } catch (e) {
      const where = s.name === undefined ? '' : ` on ${s.name}`;
      warn(`launching ${ready.length} task(s)${where}: ${(e as Error).message}; the next pass looks again`);
      return events;
    }
    const answered = new Set<number>();
    for (const line of r.stdout.split('\n')) {
      const [kind, n = '', at = '', pid = '', ranGpus = '', ranOn = ''] = line.split(' ');
      const it = ready[Number(n)];
      if (!it || (kind !== 'l' && kind !== 'f')) continue;
      answered.add(Number(n));
      if (kind === 'l' && /^\d+$/.test(pid)) {
        // Put in place by another controller first: it runs where, and on the GPUs, that one chose.
        const gpus = ranGpus === '' ? it.gpus : ranGpus.split(',');
        const on = (ranOn === '' ? undefined : this.pool.byName(ranOn)) ?? s;
        events.push(submitted(it.sub, it.dir, msToIso(at, now()), pid, gpus, on.name));
        on.running++;
      } else events.push(submitFailed(it.sub, now(), line.split(' ').slice(2).join(' ') || 'the launch failed'));
    }
    if (answered.size < ready.length) {
      warn(`the launch command exited ${r.code} (${r.stderr.trim()}); the next pass looks again`);
    }
    return events;
  }
}

/** The event of an attempt started on `server` (a pool's; undefined for the single server). */
export function submitted(
  sub: Submission,
  dir: string,
  at: string,
  pid: string,
  gpus: readonly string[],
  server: string | undefined,
): TaskEvent {
  return {
    type: 'submitted',
    task: sub.task.id,
    attempt: sub.attempt,
    at,
    handle: handleOf(pid, gpus, server),
    log: `${dir}/log`,
    gpus: [...gpus],
    ...(sub.memBytes === undefined ? {} : { memBytes: sub.memBytes }),
  };
}

/** The event of an attempt that could not be started. */
export function submitFailed(sub: Submission, at: string, reason: string): TaskEvent {
  return { type: 'submit_failed', task: sub.task.id, attempt: sub.attempt, at, reason };
}

/** The server's epoch milliseconds as ISO; `fallback` when unreadable. */
function msToIso(ms: string, fallback: string): string {
  const n = Number(ms);
  return Number.isFinite(n) && n > 0 ? new Date(n).toISOString() : fallback;
}
