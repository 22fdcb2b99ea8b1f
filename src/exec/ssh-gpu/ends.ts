/**
 * How the ssh-gpu executor sees its attempts start and end: each pass, one command per server
 * runs the probe and reads the pid and exit marker of every active attempt there, and each end
 * found is classed (judge/attempt-end.ts) from its marker, its log and its output. In a pool,
 * each attempt is looked at through its own server; one whose server does not answer keeps its
 * state until it does.
 */
import type { Pattern } from '../../manifest/pattern.js';
import { classifyEnd } from '../../judge/attempt-end.js';
import type { TaskEvent } from '../../state/events.js';
import { shellQuote } from '../../render/shell.js';
import { parseExitMarker } from '../../render/wrapper.js';
import type { ActiveAttempt } from '../executor.js';
import { LinkError } from '../transport/transport.js';
import { attemptDir } from './paths.js';
import type { Pool } from './pool.js';
import { gpusOfHandle, outOfPoolReason, serverOfHandle, type Server } from './server.js';

/** Logs up to this size are read whole; larger ones are searched on the server. */
export const LOG_LIMIT = 64 * 1024 * 1024;

/** What classing an end needs beside the servers. */
export interface EndsSettings {
  campaign: string;
  /** The manifest's out-of-memory patterns, with the built-in ones. */
  oomPatterns: Pattern[];
  now: () => string;
}

export class EndsObserver {
  constructor(
    private readonly pool: Pool,
    private readonly settings: EndsSettings,
  ) {}

  /** The starts and ends of the active attempts, on every server that answers; throws a LinkError when none does. */
  async observe(active: readonly ActiveAttempt[]): Promise<TaskEvent[]> {
    const { pool } = this;
    if (!pool.pooled) return (await this.observeOn(pool.servers[0]!, active))!;
    const names = new Set(pool.servers.map((s) => s.name!));
    const events: TaskEvent[] = [];
    const on = new Map<Server, ActiveAttempt[]>(pool.servers.map((s) => [s, []]));
    for (const a of active) {
      const reason = outOfPoolReason(a.attempt.handle, names);
      if (reason)
        events.push({
          type: 'finished',
          task: a.task.id,
          attempt: a.attempt.n,
          at: this.settings.now(),
          class: 'lost',
          reason,
        });
      else on.get(pool.byName(serverOfHandle(a.attempt.handle))!)!.push(a);
    }
    const seen = await Promise.all([...on].map(([s, list]) => this.observeOn(s, list)));
    if (seen.every((e) => e === undefined)) {
      throw new LinkError(
        `no server of cluster.servers answers (${pool.servers.map((s) => `${s.where}: ${s.out?.why ?? 'no answer yet'}`).join('; ')})`,
      );
    }
    return [...events, ...seen.flatMap((e) => e ?? [])];
  }

  /** The events of the attempts on one server; undefined when a pool's server does not answer. */
  private async observeOn(s: Server, active: readonly ActiveAttempt[]): Promise<TaskEvent[] | undefined> {
    if (this.pool.sitsOut(s)) {
      s.running = active.length;
      return undefined;
    }
    const result = await this.pool.answered(s, async () => {
      const dirs = await Promise.all(active.map((a) => attemptDir(s, this.settings.campaign, a.task.id, a.attempt.n)));
      return this.endsOn(s, active, dirs, await this.pool.prober.look(s, dirs));
    });
    if (result === undefined) s.running = active.length;
    return result;
  }

  /** What the server's answer says of each attempt, with the class of each end. */
  private async endsOn(
    s: Server,
    active: readonly ActiveAttempt[],
    dirs: readonly string[],
    seen: ReadonlyMap<number, string>,
  ): Promise<TaskEvent[]> {
    const { now, oomPatterns } = this.settings;
    const events: TaskEvent[] = [];
    const held = new Set<string>();
    let running = 0;
    for (const [i, { task, attempt, walltimeSeconds }] of active.entries()) {
      const base = { task: task.id, attempt: attempt.n };
      const what = seen.get(i) ?? 'gone';
      if (what === 'running') {
        running++;
        gpusOfHandle(attempt.handle).forEach((u) => held.add(u));
        if (!attempt.startedAt) events.push({ type: 'started', ...base, at: now() });
        continue;
      }
      if (!what.startsWith('exit ')) {
        events.push({
          type: 'finished',
          ...base,
          at: now(),
          class: 'lost',
          reason: 'the wrapper is gone and left no exit marker',
        });
        continue;
      }
      const marker = parseExitMarker(what.slice(5), now());
      const started = marker.startedAt ?? marker.at;
      if (!attempt.startedAt) events.push({ type: 'started', ...base, at: started });
      const log = await this.logForClassifying(s, dirs[i]!);
      const output = task.output === undefined ? undefined : await s.workdir.freshness(task, s.workdir.since(attempt));
      const records = output && marker.code === 0 ? await s.workdir.records(task, output) : undefined;
      const { cls, reason } = classifyEnd({
        marker,
        log,
        walltimeSeconds,
        oomPatterns,
        output,
        ...(records ? { records } : {}),
      });
      events.push({
        type: 'finished',
        ...base,
        at: marker.at,
        class: cls,
        exitCode: marker.code,
        ...(reason ? { reason } : {}),
      });
    }
    s.held = held;
    s.running = running;
    return events;
  }

  /**
   * The whole log of the attempt in `dir`; one too large to read is searched on the server, for
   * its gate line and the patterns.
   */
  private async logForClassifying(s: Server, dir: string): Promise<string> {
    try {
      return (await s.transport.readFile(`${dir}/log`, { maxBytes: LOG_LIMIT })) ?? '';
    } catch {
      const log = shellQuote(`${dir}/log`);
      const args = this.settings.oomPatterns.map((p) => `-e ${shellQuote(p.source)}`).join(' ');
      const r = await s.transport.exec(
        `head -c 1048576 ${log}; echo; grep -a -m 5 -P ${args} ${log}; echo; tail -c 1048576 ${log}`,
      );
      return r.stdout;
    }
  }
}
