/**
 * The ssh-gpu executor's look at a server: one command that runs the GPU probe (with a timeout)
 * and reads the state of the attempts asked about, and what the probe's table says of the
 * server's GPUs. A probe that fails is said once and waited for; one that cannot work (not
 * found, or missing a GPU the manifest names) is a mistake to fix.
 */
import { UserError } from '../../errors.js';
import { parseDuration, parseSize } from '../../manifest/units.js';
import { DEFAULT_PROBE, gpuStatus, parseProbe, type GpuStatus } from '../../decide/gpu.js';
import { renderQuery } from '../../render/ssh-gpu.js';
import { noteKey, type Notes } from './notes.js';
import { shellHolds, waveFile } from './paths.js';
import type { Server, SshGpuCluster, View } from './server.js';

const MIB = 1024 * 1024;
const DEFAULT_FREE_BELOW_MIB = 500;
const DEFAULT_PROBE_TIMEOUT_S = 20;

/** How a look at a server probes it, and when its GPUs count as free. */
export interface ProbeSettings {
  /** The probe command (cluster.probe, or nvidia-smi's query). */
  command: string;
  timeoutS: number;
  /** A GPU is free when its used memory is below this (cluster.gpu_free_below). */
  freeBelowMiB: number;
  campaign: string;
}

/** The probe settings of the manifest's cluster, with their defaults. */
export function probeSettings(cluster: SshGpuCluster, campaign: string): ProbeSettings {
  const below = cluster.gpu_free_below;
  const timeout = cluster.probe_timeout;
  return {
    command: cluster.probe ?? DEFAULT_PROBE,
    timeoutS: timeout === undefined ? DEFAULT_PROBE_TIMEOUT_S : parseDuration(timeout)!,
    freeBelowMiB: below === undefined ? DEFAULT_FREE_BELOW_MIB : parseSize(below)! / MIB,
    campaign,
  };
}

export class Prober {
  constructor(
    readonly settings: ProbeSettings,
    private readonly notes: Notes,
  ) {}

  /**
   * Runs the server's probe and reads the attempts in `dirs`: one command. What the probe saw
   * becomes the server's view; the attempts' states are returned by their index in `dirs`.
   */
  async look(s: Server, dirs: readonly string[]): Promise<Map<number, string>> {
    const { command, timeoutS, campaign } = this.settings;
    const r = await s.transport.exec(renderQuery(command, timeoutS, await waveFile(s, campaign), await shellHolds(s)), {
      stdin: dirs.map((d) => `${d}\n`).join(''),
      timeoutMs: (timeoutS + 60) * 1000,
    });
    if (r.code !== 0)
      throw new UserError({
        message: `reading the GPU server${s.name === undefined ? '' : ` ${s.name}`} failed (exit ${r.code}): ${r.stderr.trim()}`,
        fix: 'check that the probe (nvidia-smi, or cluster.probe) runs on the server as the login user',
      });
    const { view, attempts } = readAnswer(r.stdout, timeoutS);
    s.view = view;
    s.probeFailures = view.error ? s.probeFailures + 1 : 0;
    const probeKey = noteKey(s, 'probe');
    if (view.error)
      this.notes.say(
        probeKey,
        s.name === undefined
          ? `${view.error}; no task starts until it answers`
          : `${view.error} on ${s.name}; no task starts there until it answers`,
      );
    else this.notes.forget(probeKey);
    for (const u of view.table?.unusable ?? []) {
      this.notes.say(
        noteKey(s, `unusable${u.index ?? u.line}`),
        `GPU ${u.index ?? '?'}${s.name === undefined ? '' : ` of ${s.name}`} is not used: ${u.why} (probe line "${u.line}")`,
      );
    }
    return attempts;
  }

  /** The server's GPUs from its last probe; throws a UserError for a probe that cannot work or GPUs it lacks. */
  judge(s: Server): GpuStatus[] {
    const view = s.view!;
    if (view.error && !view.error.includes('did not answer')) {
      throw new UserError({
        message: `${view.error} on ${s.where} (probe: ${this.settings.command})`,
        fix: 'install nvidia-smi on the server, or set cluster.probe to a command that prints the same table',
      });
    }
    const listed = new Set(
      [...(view.table?.gpus ?? []), ...(view.table?.unusable ?? [])].flatMap((g) => g.index ?? []),
    );
    const unknown = (s.gpus ?? []).filter((i) => view.table && !listed.has(i));
    if (unknown.length > 0) {
      const key = s.name === undefined ? 'cluster.gpus' : `the gpus of ${s.name}`;
      throw new UserError({
        message: `${key} names GPU ${unknown.join(', ')}, which the probe on ${s.where} does not list (it lists ${[...listed].sort((a, b) => a - b).join(', ')})`,
        fix: `list only the GPUs the server has in ${s.name === undefined ? 'cluster.gpus' : 'its gpus'}`,
      });
    }
    return this.status(s, new Set());
  }

  /** Every allowed GPU of the server as its last probe saw it, free or why not; none when the probe gave no table. */
  status(s: Server, held: ReadonlySet<string>): GpuStatus[] {
    const table = s.view?.table;
    return table
      ? gpuStatus({
          table,
          ...(s.gpus ? { allowed: s.gpus } : {}),
          freeBelowMiB: this.settings.freeBelowMiB,
          held,
          shells: s.view!.shells,
        })
      : [];
  }
}

/** How many GPUs the server has, as its last probe listed them (usable or not). */
export function gpuCount(s: Server): number {
  const t = s.view?.table;
  return t ? t.gpus.length + t.unusable.length : 0;
}

/** The lines of the look's answer (render/ssh-gpu.ts, renderQuery): the server's view, and each attempt's state by its index. */
function readAnswer(stdout: string, timeoutS: number): { view: View; attempts: Map<number, string> } {
  const attempts = new Map<number, string>();
  const view: View = { at: Date.now(), wave: [], shells: new Set() };
  for (const line of stdout.split('\n')) {
    const [kind, a = '', b = '', c = ''] = line.split(' ');
    if (kind === 'probe') {
      const out = Buffer.from(b, 'base64').toString('utf8');
      const err = Buffer.from(c, 'base64').toString('utf8').trim();
      if (a === '137') view.error = `the GPU probe did not answer within ${timeoutS}s`;
      else if (a !== '0') view.error = `the GPU probe exited ${a}${err ? `: ${err.split('\n')[0]}` : ''}`;
      else {
        const table = parseProbe(out);
        if (table.gpus.length + table.unusable.length === 0) view.error = 'the GPU probe listed no GPU';
        else view.table = table;
      }
    } else if (kind === 'wave') view.wave = a.split(',').filter(Boolean);
    else if (kind === 'hold') view.shells.add(a);
    else if (kind === 'a') attempts.set(Number(a), line.split(' ').slice(2).join(' '));
  }
  return { view, attempts };
}
