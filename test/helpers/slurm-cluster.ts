/**
 * The real single-node Slurm test cluster (scripts/cluster/up, started by the suite's runner
 * before vitest): whether it is up, its environment, and what `sacct` says about a campaign.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sshd } from '../exec/transport/sshd.js';
import { REPO, startCli, waitUntil, writeManifest } from './cli.js';
import { groupOfRun } from './test-groups.js';

export const CLUSTER_DIR = process.env.CAMPAIGN_CLUSTER_DIR ?? '/tmp/campaign-cluster';

/**
 * The test cluster's licenses of one (scripts/cluster/up), one for each test whose jobs must run
 * one at a time: the rest of its jobs wait in the queue without holding any other test's jobs,
 * as jobs taking the whole node would. Two tests sharing one would wait on each other.
 */
export const ONE_AT_A_TIME = {
  behindItsBack: 'one_at_a_time_1',
  diskFull: 'one_at_a_time_2',
  gpuShortfall: 'one_at_a_time_3',
} as const;

/** True when the cluster answers; otherwise the caller's tests skip, and this says so loudly. */
export function clusterIsUp(who: string): boolean {
  if (groupOfRun() === 'without-cluster') {
    throw new Error(
      `${who}: uses the Slurm cluster, in the group of tests that run while the fault tests break it: import test/helpers/slurm-cluster.js in the test file itself, so that it is counted among the cluster's (test/helpers/test-groups.ts)`,
    );
  }
  // Long enough for a busy controller: under the whole suite's load the check took over 30 s.
  const check = spawnSync('bash', [join(REPO, 'scripts', 'cluster', 'up'), '--check'], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (check.status === 0) return true;
  const said = `${check.stdout ?? ''}${check.stderr ?? ''}`.trim() || check.error?.message || `exit ${check.status}`;
  console.warn(
    [
      '',
      `!!! ${who} SKIPPED: no test Slurm cluster is up.`,
      `!!! 'scripts/cluster/up --check' said: ${said}`,
      '!!! Start it with scripts/cluster/up (as root, or with sudo), then run the tests again.',
      '',
    ].join('\n'),
  );
  return false;
}

/** The variables of the env file `up` writes (lines of `export NAME='value'`): SLURM_CONF and PATH. */
export function clusterEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(join(CLUSTER_DIR, 'env'), 'utf8').split('\n')) {
    const m = /^export ([A-Za-z_][A-Za-z0-9_]*)='(.*)'$/.exec(line);
    if (m) env[m[1]!] = m[2]!.replaceAll(`'\\''`, `'`);
  }
  return env;
}

/** A Slurm command on this machine, with the cluster's environment. */
export function slurm(command: string, args: readonly string[]): string {
  return execFileSync(command, args, { encoding: 'utf8', env: { ...process.env, ...clusterEnv() } });
}

/**
 * The campaign's jobs (one per sbatch, however many array tasks each has), by job id: those in
 * `sacct` and those slurmctld still holds (`squeue -t all`), which slurmdbd may record seconds
 * after a campaign that judged its last tasks by the queue has exited.
 */
export function jobsNamed(prefix: string): string[] {
  const acct = slurm('sacct', ['-X', '-n', '-P', '-S', 'now-3hours', '-o', 'JobID,JobName']);
  // An ended array's leftover range line (`12_[2%3]`, not pending) is no job of its own: its
  // task is listed under the id accounting gives it.
  const queue = slurm('squeue', ['-h', '-t', 'all', '-o', '%i|%j|%T'])
    .split('\n')
    .filter((l) => !/^\d+_\[/.test(l) || l.endsWith('|PENDING'));
  const jobs = [...acct.split('\n'), ...queue].flatMap((l) => {
    const [id, name] = l.split('|');
    return name?.startsWith(prefix) ? [id!.split('_')[0]!] : [];
  });
  return [...new Set(jobs)].sort((a, b) => Number(a) - Number(b));
}

/**
 * The campaign's jobs once `sacct` lists `count` of them. A campaign on a restricted node never
 * reads the accounting, so slurmdbd may still be catching up with its last job when it exits.
 */
export async function jobsRecorded(prefix: string, count: number): Promise<string[]> {
  return waitUntil(
    `sacct to list ${count} jobs named ${prefix}*`,
    async () => {
      const jobs = jobsNamed(prefix);
      return jobs.length >= count ? jobs : undefined;
    },
    30_000,
    500,
  ).catch(() => jobsNamed(prefix));
}

/**
 * The campaign's array tasks once `sacct` lists `count` of them, none pending or running:
 * slurmdbd may record the last ends seconds after a campaign that judged them by the queue.
 */
export async function arrayTasksRecorded(prefix: string, count: number): Promise<ReturnType<typeof arrayTasksNamed>> {
  return waitUntil(
    `sacct to record ${count} ended tasks named ${prefix}*`,
    async () => {
      const tasks = arrayTasksNamed(prefix);
      const ended = tasks.length >= count && tasks.every((t) => t.state !== 'PENDING' && t.state !== 'RUNNING');
      return ended ? tasks : undefined;
    },
    30_000,
    500,
  );
}

/** The campaign's array tasks in `sacct`: job id, array index, state and node, one per line. */
export function arrayTasksNamed(prefix: string): { job: string; index: string; state: string; node: string }[] {
  const out = slurm('sacct', ['-X', '-n', '-P', '-S', 'now-3hours', '-o', 'JobID,JobName,State,NodeList']);
  return out.split('\n').flatMap((l) => {
    const [id, name, state, node] = l.split('|');
    if (!name?.startsWith(prefix)) return [];
    const [job, index = ''] = id!.split('_');
    return [{ job: job!, index, state: state!.split(' ')[0]!, node: node ?? '' }];
  });
}

/** The partitions a test campaign declares, as scripts/cluster/up makes them. */
const TEST_PARTITIONS = ['{ name: debug, max_time: 30m }', '{ name: short, max_time: 3h }'];

/** The head of a manifest for the test cluster over SSH: everything up to `phases:`. */
export function slurmManifestHead(
  sshd: Sshd,
  name: string,
  workdir: string,
  extra = '',
  maxParallel = 2,
  partitions: readonly string[] = TEST_PARTITIONS,
): string {
  return `campaign: ${name}
cluster:
  executor: slurm
  name: campaign-test
  login: ${sshd.target}
  host_key: ${sshd.fingerprint}
  partitions:
${partitions.map((p) => `    - ${p}\n`).join('')}  max_parallel: ${maxParallel}
${extra}workdir: ${workdir}
defaults:
  resources: { cpus: 1, mem: 200M }
`;
}

export interface SlurmCampaign {
  /** Unique to this run: sacct remembers earlier runs' jobs. */
  name: string;
  dir: string;
  workdir: string;
  manifest: string;
  stateDir: string;
}

/** A campaign on the test cluster over SSH, in its own directory under `root`: its workdir made, its manifest written. */
export async function slurmCampaign(
  root: string,
  label: string,
  sshd: Sshd,
  phases: string,
  maxParallel = 2,
  partitions?: readonly string[],
): Promise<SlurmCampaign> {
  const dir = join(root, label);
  const workdir = join(dir, 'work');
  await mkdir(workdir, { recursive: true });
  const name = `${label}-${Date.now().toString(36)}`;
  const manifest = await writeManifest(
    dir,
    `${slurmManifestHead(sshd, name, workdir, '', maxParallel, partitions)}phases:\n${phases}`,
  );
  return { name, dir, workdir, manifest, stateDir: join(dir, 'state') };
}

/** A campaign on the test cluster, started by the CLI with a 1 s poll and the test sshd's key. */
export async function runSlurmCampaign(root: string, label: string, sshd: Sshd, phases: string, maxParallel = 4) {
  const c = await slurmCampaign(root, label, sshd, phases, maxParallel);
  const run = startCli(['run', c.manifest, '--state-dir', c.stateDir, '--poll', '1'], {
    env: { ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd.keyFile },
  });
  return { ...c, run };
}

/** A phase `p` whose tasks sleep, then write their `k` to o_<k>.txt. */
export const sleepingPhase = (sleep: number, ks: number[]): string => `  - name: p
    grid: { k: [${ks.join(', ')}] }
    command: sleep ${sleep}; echo \${k} > \${output}
    output: o_\${k}.txt
    walltime: 5m
`;

/** The state of the test cluster's node `node`, as sinfo says it. */
const nodeState = (node: string): string => slurm('sinfo', ['-h', '-n', node, '-o', '%T']).trim();

/** Sets the node DOWN (every job on it is killed: fault tests only) or back in service. */
const setNode = (node: string, state: 'down' | 'resume'): string =>
  slurm('scontrol', [
    'update',
    `nodename=${node}`,
    `state=${state}`,
    ...(state === 'down' ? ['reason=node-fault-test'] : []),
  ]);

/**
 * Sets the node DOWN under a running campaign until accounting records NODE_FAIL for one of its
 * array tasks named `prefix` (of `job`, where given), then puts it back in service.
 */
export async function failNode(node: string, prefix: string, job?: string): Promise<void> {
  setNode(node, 'down');
  try {
    await waitUntil(
      'sacct to record NODE_FAIL',
      async () =>
        arrayTasksNamed(prefix).some((t) => (job === undefined || t.job === job) && t.state === 'NODE_FAIL')
          ? true
          : undefined,
      60_000,
      500,
    );
  } finally {
    setNode(node, 'resume');
  }
}

/** Puts the node back in service if a fault test left it down, for whoever uses the cluster next. */
export function resumeNode(node: string): void {
  if (/down|drain|fail/.test(nodeState(node))) setNode(node, 'resume');
}
