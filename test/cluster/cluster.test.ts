/**
 * The real single-node Slurm cluster the integration tests run against (scripts/cluster/up,
 * started by the suite's runner before vitest). These tests pin down the scheduler behaviour
 * the product relies on: the states and exit codes sacct reports, the partition caps, the
 * array size limit, GPU scheduling and memory enforcement. Without a cluster they are skipped,
 * loudly.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_DIR, clusterEnv, clusterIsUp } from '../helpers/slurm-cluster.js';

const clusterUp = clusterIsUp('test/cluster');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Terminal states: a job in one of them will not change any more. */
const FINAL = new Set(['COMPLETED', 'FAILED', 'TIMEOUT', 'OUT_OF_MEMORY', 'CANCELLED', 'NODE_FAIL', 'DEADLINE']);

interface Rec {
  jobId: string;
  name: string;
  state: string;
  exitCode: string;
}

describe.skipIf(!clusterUp)('the test Slurm cluster', () => {
  let env: NodeJS.ProcessEnv;
  let work: string;
  let mode: string;
  const tag = `ct${process.pid}x${Date.now().toString(36)}`;
  const name = (what: string): string => `${tag}-${what}`;

  function run(cmd: string, args: string[]): Promise<Run> {
    return new Promise((done) => {
      execFile(cmd, args, { env, cwd: work, timeout: 30_000 }, (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        done({ code, stdout, stderr });
      });
    });
  }

  async function ok(cmd: string, args: string[]): Promise<string> {
    const r = await run(cmd, args);
    if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}`);
    return r.stdout;
  }

  /** Submits a batch job named `name(what)`, its log in `work`, and returns its id. */
  async function submit(what: string, args: string[]): Promise<string> {
    const log = args.some((a) => a.startsWith('--array')) ? '%x-%A_%a.out' : '%x-%j.out';
    const out = await ok('sbatch', [
      '--parsable',
      `--job-name=${name(what)}`,
      `--chdir=${work}`,
      `--output=${join(work, log)}`,
      ...args,
    ]);
    return out.trim().split(';')[0]!;
  }

  /** The allocation records (-X) of the jobs with this name, as the product queries them. */
  async function records(what: string): Promise<Rec[]> {
    const out = await ok('sacct', [
      '-n',
      '-P',
      '-X',
      `--name=${name(what)}`,
      '--starttime=now-1hour',
      '-o',
      'JobID,JobName,State,ExitCode',
    ]);
    return out
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => {
        const [jobId = '', jobName = '', state = '', exitCode = ''] = l.split('|');
        // "CANCELLED by 0" carries who cancelled it.
        return { jobId, name: jobName, state: state.split(' ')[0]!, exitCode };
      });
  }

  /** Polls sacct until `count` records of this name are all in a final state. */
  async function settled(what: string, count: number, timeoutMs: number): Promise<Rec[]> {
    const deadline = Date.now() + timeoutMs;
    let last: Rec[] = [];
    while (Date.now() < deadline) {
      last = await records(what);
      if (last.length >= count && last.every((r) => FINAL.has(r.state))) return last;
      await sleep(500);
    }
    const queue = await run('squeue', ['-t', 'all', '-n', name(what), '-o', '%i %T %r']);
    throw new Error(
      `jobs named ${name(what)} not settled after ${timeoutMs} ms; sacct: ${JSON.stringify(last)}; squeue: ${queue.stdout}`,
    );
  }

  // Every job is submitted up front so that they overlap. (The cluster's TIMEOUT, a minute at
  // least, is tested through the executors: test/exec/slurm/slurm.test.ts, and restricted.)
  const submitted = new Map<string, Promise<string>>();
  const job = (what: string): Promise<string> => submitted.get(what)!;

  beforeAll(async () => {
    env = { ...process.env, ...clusterEnv() };
    mode = (await readFile(join(CLUSTER_DIR, 'mode'), 'utf8')).trim();
    work = await mkdtemp(join(tmpdir(), 'campaign-cluster-test-'));
    const plan: [string, string[]][] = [
      ['array', ['--array=0-2', '--wrap', 'echo task $SLURM_ARRAY_TASK_ID']],
      ['exit3', ['--wrap', 'exit 3']],
      ['gres', ['--gres=gpu:1', '--wrap', 'echo "gpus=$CUDA_VISIBLE_DEVICES"']],
      ['gpus', ['--gpus=1', '--wrap', 'true']],
      // Holds 600 MB for 10 s (tail keeps a line with no newline in memory until EOF): the kernel
      // kills it at once under a cgroup limit; the fallback's sampler (every 2 s) kills it too.
      ['oom', ['--mem=100M', '--wrap', '{ head -c 600M /dev/zero; sleep 10; } | tail -n 1 >/dev/null']],
    ];
    for (const [what, args] of plan) {
      const p = submit(what, args);
      p.catch(() => undefined); // the test that awaits it reports the error
      submitted.set(what, p);
    }
    await Promise.allSettled(submitted.values());
  });

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('runs an array of 3 tasks to 3 COMPLETED records, found by job name', async () => {
    const id = await job('array');
    const recs = await settled('array', 3, 90_000);
    expect(recs.map((r) => r.jobId).sort()).toEqual([`${id}_0`, `${id}_1`, `${id}_2`]);
    for (const r of recs) {
      expect(r).toMatchObject({ name: name('array'), state: 'COMPLETED', exitCode: '0:0' });
    }
    expect(await readFile(join(work, `${name('array')}-${id}_2.out`), 'utf8')).toBe('task 2\n');
  }, 120_000);

  it('reports exit 3 as FAILED with ExitCode 3:0', async () => {
    await job('exit3');
    const [rec, ...rest] = await settled('exit3', 1, 90_000);
    expect(rest).toEqual([]);
    expect(rec).toMatchObject({ state: 'FAILED', exitCode: '3:0' });
  }, 120_000);

  it('shows the partitions with their walltime caps, debug the default', async () => {
    const out = await ok('scontrol', ['show', 'partition', '-o']);
    const parts = new Map(
      out
        .split('\n')
        .filter((l) => l.startsWith('PartitionName='))
        .map((l) => {
          const fields = new Map(l.split(' ').map((kv) => [kv.split('=')[0]!, kv.slice(kv.indexOf('=') + 1)]));
          return [fields.get('PartitionName')!, fields] as const;
        }),
    );
    expect(parts.get('debug')?.get('MaxTime')).toBe('00:30:00');
    expect(parts.get('debug')?.get('Default')).toBe('YES');
    expect(parts.get('short')?.get('MaxTime')).toBe('03:00:00');
    expect(parts.get('long')?.get('MaxTime')).toBe('1-00:00:00');
  });

  it('accepts a walltime above the partition cap but never starts it (PartitionTimeLimit)', async () => {
    // No EnforcePartLimits, as on many clusters: sbatch succeeds and the job waits forever, so
    // the planner must refuse such a walltime itself.
    const id = await submit('overcap', ['-p', 'debug', '--time=31', '--wrap', 'true']);
    try {
      // The reason reads PartitionConfig for the first seconds, then PartitionTimeLimit.
      let seen = '';
      const deadline = Date.now() + 20_000;
      while (seen !== 'PENDING PartitionTimeLimit' && Date.now() < deadline) {
        seen = (await ok('squeue', ['-h', '-j', id, '-o', '%T %r'])).trim();
        expect(seen).toMatch(/^PENDING /);
        await sleep(250);
      }
      expect(seen).toBe('PENDING PartitionTimeLimit');
    } finally {
      await run('scancel', [id]);
    }
  });

  it('shows MaxArraySize in the configuration', async () => {
    const out = await ok('scontrol', ['show', 'config']);
    expect(out).toMatch(/^MaxArraySize\s*=\s*1001$/m);
  });

  it('schedules a --gres=gpu:1 job and a --gpus=1 job, and refuses more GPUs than the node has', async () => {
    const id = await job('gres');
    const [rec] = await settled('gres', 1, 90_000);
    expect(rec?.state).toBe('COMPLETED');
    expect(await readFile(join(work, `${name('gres')}-${id}.out`), 'utf8')).toMatch(/^gpus=\d\n$/);
    const tres = await ok('sacct', ['-n', '-P', '-X', '-j', id, '-o', 'AllocTRES']);
    expect(tres).toContain('gres/gpu=1');
    await job('gpus');
    const [gpus] = await settled('gpus', 1, 90_000);
    expect(gpus?.state).toBe('COMPLETED');
    const gpuCount = Number(env.CAMPAIGN_CLUSTER_GPUS ?? '4');
    const r = await run('sbatch', [
      `--gres=gpu:${gpuCount + 1}`,
      `--chdir=${work}`,
      '-o',
      '/dev/null',
      '--wrap',
      'true',
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Requested node configuration is not available/);
  }, 120_000);

  it('ends a job over its --mem as OUT_OF_MEMORY (cgroup mode) or FAILED (fallback)', async () => {
    await job('oom');
    const [rec] = await settled('oom', 1, 90_000);
    if (mode === 'cgroup') {
      expect(rec?.state).toBe('OUT_OF_MEMORY');
    } else {
      console.warn(
        `!!! cluster in '${mode}' mode: no cgroup memory limit, so OUT_OF_MEMORY is not tested; expecting FAILED`,
      );
      expect(rec?.state).toBe('FAILED');
    }
  }, 120_000);
});
