/**
 * The GPU server the ssh-gpu tests drive: this machine over real SSH (the test sshd on
 * loopback), with the nvidia-smi stand-in (scripts/gpu-stand-in) installed in a directory of the
 * test's own, reporting the memory table the test sets plus the memory our tasks hold through
 * `gpu-hold`. Tasks write `start`/`end` lines to a ledger, in the order things happened.
 */
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { readState, runCli, writeManifest, type CliResult } from '../../helpers/cli.js';
import type { CampaignState } from '../../../src/state/state.js';
import { DEFAULT_PROBE } from '../../../src/decide/gpu.js';
import { sshdUp, type Sshd } from '../transport/sshd.js';

const STAND_IN = resolve(import.meta.dirname, '../../../scripts/gpu-stand-in');

export { sshdUp, type Sshd };

/** A GPU of the stand-in's table: index, UUID, used MiB (or a value such as `[N/A]`). */
export type Row = [number, string, number | string];

export const uuidOf = (i: number): string => `GPU-${String(i).padStart(8, '0')}-aaaa-4bbb-8ccc-${'d'.repeat(12)}`;
export const fourGpus = (): Row[] => [0, 1, 2, 3].map((i) => [i, uuidOf(i), 3]);

export class StandIn {
  readonly bin: string;
  constructor(readonly dir: string) {
    this.bin = join(dir, 'bin');
  }

  static async install(dir: string, rows: Row[]): Promise<StandIn> {
    const s = new StandIn(dir);
    await mkdir(join(dir, 'holders'), { recursive: true });
    await mkdir(s.bin, { recursive: true });
    for (const f of ['nvidia-smi', 'gpu-hold']) await copyFile(join(STAND_IN, f), join(s.bin, f));
    await s.setTable(rows);
    return s;
  }

  /** The probe command a manifest names to query this stand-in exactly as nvidia-smi. */
  get probe(): string {
    return `${this.bin}/${DEFAULT_PROBE}`;
  }

  setTable(rows: Row[]): Promise<void> {
    return writeFile(join(this.dir, 'table'), rows.map(([i, u, m]) => `${i}, ${u}, ${m}, 81559\n`).join(''));
  }

  async hang(on: boolean): Promise<void> {
    if (on) await writeFile(join(this.dir, 'hang'), '');
    else await rm(join(this.dir, 'hang'), { force: true });
  }

  async probes(): Promise<number> {
    return (await readFile(join(this.dir, 'probes'), 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
  }
  /** Queries the stand-in was sent, answered or not. */
  async asked(): Promise<number> {
    return (await readFile(join(this.dir, 'asked'), 'utf8').catch(() => '')).split('\n').length - 1;
  }

  /** What the probe prints now. */
  async read(): Promise<string> {
    const { execFileSync } = await import('node:child_process');
    return execFileSync(`${this.bin}/nvidia-smi`, DEFAULT_PROBE.split(' ').slice(1), { encoding: 'utf8' });
  }

  get ledger(): string {
    return join(this.dir, 'ledger');
  }

  /** The ledger's lines, split into words. */
  async entries(): Promise<string[][]> {
    const text = await readFile(this.ledger, 'utf8').catch(() => '');
    return text
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' '));
  }

  async mark(word: string): Promise<void> {
    await writeFile(this.ledger, `${word}\n`, { flag: 'a' });
  }

  /** Shell lines for a task's command: a ledger line `<word> <GPUs> <task id>`. */
  log(word: string): string {
    return `printf '${word} %s %s\\n' "$CUDA_VISIBLE_DEVICES" "$CAMPAIGN_TASK" >> ${this.ledger}`;
  }
}

/** A campaign directory under the test file's temp root, with its workdir and a stand-in of its own. */
export function campaignDirs(
  tempRoot: () => string,
): (name: string, rows?: Row[]) => Promise<{ dir: string; gpus: StandIn; workdir: string }> {
  return async (name, rows = fourGpus()) => {
    const dir = join(tempRoot(), name);
    const workdir = join(dir, 'work');
    await mkdir(workdir, { recursive: true });
    return { dir, workdir, gpus: await StandIn.install(join(dir, 'gpus'), rows) };
  };
}

/** The cluster block for the test sshd and a stand-in. */
export function cluster(sshd: Sshd, gpus: StandIn, extra = ''): string {
  return `cluster:
  executor: ssh-gpu
  login: ${sshd.target}
  host_key: ${sshd.fingerprint}
  probe: ${gpus.probe}
  probe_timeout: 3s
  gpu_free_below: 500MiB
${extra}`;
}

export interface Ran {
  result: CliResult;
  state: CampaignState;
  stateDir: string;
}

/** Writes the manifest into `dir` and runs `campaign run` on it to its end. */
export async function runCampaign(dir: string, yaml: string, timeoutMs = 120_000): Promise<Ran> {
  const manifest = await writeManifest(dir, yaml);
  const stateDir = join(dir, 'state');
  const result = await runCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.3'], { timeoutMs });
  if (/internal error|bug in campaign/i.test(result.stderr)) throw new Error(result.stderr);
  return { result, state: await readState(stateDir), stateDir };
}

/**
 * Checks from the ledger that no two tasks held one GPU at once: per GPU, starts and ends
 * alternate. Returns the GPUs seen.
 */
export function expectOnePerGpu(entries: string[][]): Set<string> {
  const holder = new Map<string, string>();
  for (const [word, gpus = '', task = ''] of entries) {
    for (const gpu of gpus.split(',').filter(Boolean)) {
      if (word === 'start') {
        if (holder.has(gpu)) throw new Error(`${task} started on ${gpu} while ${holder.get(gpu)} held it`);
        holder.set(gpu, task);
      } else if (word === 'end') holder.delete(gpu);
    }
  }
  return new Set(entries.filter((e) => e[0] === 'start').flatMap((e) => (e[1] ?? '').split(',')));
}
