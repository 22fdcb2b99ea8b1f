/**
 * The SSH private key and its passphrase, given to campaign through its environment, never
 * show up in anything it produces: its output, the state, the event log, the summary and its
 * pictures, the scripts, task tables and logs on the cluster, or what tasks can see. Every
 * task here prints its whole environment, as a debugging user would. Runs for real: over SSH
 * to the test cluster, with sbatch on this machine, and on the local executor.
 */
import { readdir, readFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, useBuiltCliAndTemp, writeManifest, type CliResult } from '../helpers/cli.js';
import { clusterEnv, clusterIsUp } from '../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from './transport/sshd.js';

const clusterUp = clusterIsUp('secret-leak tests on Slurm');
const tempRoot = useBuiltCliAndTemp('secrets');
const PASSPHRASE = 'correct horse battery staple 7f3a';
let sshd: Sshd | undefined;
let keyText = '';

beforeAll(async () => {
  sshd = await sshdUp();
  if (sshd) keyText = await readFile(sshd.keyFile, 'utf8');
}, 300_000);

/** What a GitHub runner holds beside the key: the action's inputs, the job's tokens, its service credentials. */
const RUNNER = {
  'INPUT_SSH-PASSPHRASE': 'input passphrase 4c1e9d0b77',
  INPUT_TOKEN: 'ghs_inputtoken0123456789abcdef',
  GITHUB_TOKEN: 'ghs_githubtoken0123456789abcdef',
  ACTIONS_RUNTIME_TOKEN: 'runtime-token-9a8b7c6d5e4f3a2b',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'id-token-request-1f2e3d4c5b6a',
};

/** Pieces of the secrets long enough to mean a leak: each base64 line of the key, the passphrase, the runner's tokens. */
const secretPieces = (): string[] => [
  ...keyText.split('\n').filter((l) => l.length >= 16 && !l.startsWith('-----')),
  PASSPHRASE,
  ...Object.values(RUNNER),
];

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** Fails naming the file and the piece when any secret piece is in the output or any file under the dirs. */
async function expectNoSecret(r: CliResult, dirs: string[]): Promise<number> {
  const texts: [string, string][] = [
    ['stdout', r.stdout],
    ['stderr', r.stderr],
  ];
  for (const dir of dirs) for (const f of await filesUnder(dir)) texts.push([f, await readFile(f, 'latin1')]);
  for (const [where, text] of texts) {
    for (const piece of secretPieces()) expect(text.includes(piece), `a secret is in ${where}`).toBe(false);
  }
  return texts.length;
}

const phase = `phases:
  - name: p
    grid: { k: [1, 2] }
    command: env > \${output}; env
    output: env_\${k}.txt
    walltime: 5m
    smoke:
      tasks: 1
      trigger:
        - check: command
          run: env > check_env.txt
`;

async function setup(label: string, cluster: string) {
  const dir = join(tempRoot(), label);
  const workdir = join(dir, 'work');
  await mkdir(workdir, { recursive: true });
  const manifest = await writeManifest(
    dir,
    `campaign: ${label}-${Date.now().toString(36)}\n${cluster}workdir: ${workdir}\ndefaults:\n  resources: { cpus: 1, mem: 100M }\n${phase}`,
  );
  return { dir, workdir, manifest, stateDir: join(dir, 'state') };
}

describe('secrets never leak into what campaign produces', () => {
  it('local executor: tasks do not inherit the key or passphrase from campaign', async (ctx) => {
    if (!sshd) return ctx.skip();
    const s = await setup('local', 'cluster: { executor: local }\n');
    const r = await runCli(['run', s.manifest, '--state-dir', s.stateDir], {
      timeoutMs: 120_000,
      env: {
        ...process.env,
        ...RUNNER,
        'INPUT_SSH-KEY': keyText,
        CAMPAIGN_SSH_KEY: keyText,
        CAMPAIGN_SSH_PASSPHRASE: PASSPHRASE,
      },
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // The tasks and the check command did print their environment: the scan reads real dumps.
    expect(await readFile(join(s.workdir, 'env_1.txt'), 'utf8')).toMatch(/^CAMPAIGN_TASK=p\//m);
    expect(await readFile(join(s.workdir, 'check_env.txt'), 'utf8')).toMatch(/^CAMPAIGN_TASK=p\/smoke\//m);
    expect(await expectNoSecret(r, [s.dir])).toBeGreaterThan(5);
  });

  it.runIf(clusterUp)(
    'slurm over SSH with the key in CAMPAIGN_SSH_KEY: output, state, summary, scripts, tables and logs hold none of it',
    async (ctx) => {
      if (!sshd) return ctx.skip();
      const s = await setup(
        'ssh',
        `cluster:\n  executor: slurm\n  name: campaign-test\n  login: ${sshd.target}\n  host_key: ${sshd.fingerprint}\n  partitions: [{ name: debug, max_time: 30m }]\n`,
      );
      const env: NodeJS.ProcessEnv = { ...process.env, CAMPAIGN_SSH_KEY: keyText, CAMPAIGN_SSH_PASSPHRASE: PASSPHRASE };
      delete env.CAMPAIGN_SSH_KEY_FILE;
      const r = await runCli(['run', s.manifest, '--state-dir', s.stateDir, '--poll', '1'], {
        timeoutMs: 300_000,
        env,
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(await readFile(join(s.workdir, 'env_2.txt'), 'utf8')).toMatch(/^SLURM_JOB_ID=/m);
      expect(await expectNoSecret(r, [s.dir])).toBeGreaterThan(10);
    },
    400_000,
  );

  it.runIf(clusterUp)(
    'slurm with sbatch on this machine: the batch jobs do not inherit the key from campaign',
    async (ctx) => {
      if (!sshd) return ctx.skip();
      const s = await setup(
        'sbatch',
        'cluster:\n  executor: slurm\n  name: campaign-test\n  partitions: [{ name: debug, max_time: 30m }]\n',
      );
      const r = await runCli(['run', s.manifest, '--state-dir', s.stateDir, '--poll', '1'], {
        timeoutMs: 300_000,
        env: {
          ...process.env,
          ...clusterEnv(),
          ...RUNNER,
          CAMPAIGN_SSH_KEY: keyText,
          CAMPAIGN_SSH_PASSPHRASE: PASSPHRASE,
        },
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(await readFile(join(s.workdir, 'env_1.txt'), 'utf8')).toMatch(/^SLURM_JOB_ID=/m);
      expect(await expectNoSecret(r, [s.dir])).toBeGreaterThan(10);
    },
    400_000,
  );

  it('a refused key or passphrase is named by its variable in the error, never shown', async (ctx) => {
    if (!sshd) return ctx.skip();
    const s = await setup(
      'refused',
      `cluster:\n  executor: slurm\n  name: campaign-test\n  login: ${sshd.target}\n  host_key: ${sshd.fingerprint}\n  partitions: [{ name: debug, max_time: 30m }]\n`,
    );
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      CAMPAIGN_SSH_KEY: keyText.replace(/[A-Z]/, 'x'),
      CAMPAIGN_SSH_PASSPHRASE: PASSPHRASE,
    };
    delete env.CAMPAIGN_SSH_KEY_FILE;
    const r = await runCli(['run', s.manifest, '--state-dir', s.stateDir], { timeoutMs: 120_000, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('CAMPAIGN_SSH_KEY');
    await expectNoSecret(r, [s.dir]);
  });
});
