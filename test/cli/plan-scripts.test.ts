/**
 * `campaign plan --scripts DIR` writes each batch script and task table as the first
 * submission would send them, without a cluster: every Slurm option of the manifest is in
 * them (per stratum where it varies), shellcheck finds nothing, and slurm_args that name an
 * option campaign manages are refused by lint with the reason.
 */
import { spawnSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useBuiltCliAndTemp, writeManifest } from '../helpers/cli.js';

const tempRoot = useBuiltCliAndTemp('plan-scripts');

const HEAD = `campaign: opts
cluster:
  executor: slurm
  login: alice@login.example:22
  host_key: SHA256:9pQ5dI2tGZ0yQ4m7m0n3k0r2iV2d3vH4bqS8Yx1xZtA
  account: def-lab
  partitions: [ { name: gpu, max_time: 24h } ]
environment:
  modules: [StdEnv/2023, python/3.11]
  conda: distill
workdir: ~/scratch/opts
defaults:
  resources: { gpus: 2, gpu_type: h100, cpus: 8, mem: 64G, qos: normal, constraint: cascade }
  slurm_args: ["--mail-type=END", "--exclusive"]
`;

const PHASES = `phases:
  - name: train
    grid: { N: [384, 512], seed: [1, 2] }
    strata: [N]
    command: python train.py --n \${N} --seed \${seed} --out \${output}
    output: runs/N\${N}_s\${seed}.json
    walltime: 2h
    resources:
      gpu_type: { N=384: a100, N=512: h100 }
      reservation: lab-week
      exclude: node[1-3],node7
      account: { N=512: def-big }
  - name: evaluate
    depends_on: [train]
    command: python eval.py > \${output}
    output: eval.txt
    walltime: 20m
    resources: { gpus: 0, cpus: 2, mem_per_cpu: 4G }
    slurm_args: []
`;

/** Every file under dir, relative to it. */
async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

describe('campaign plan --scripts', () => {
  it('writes every batch script and task table, with every option, shellcheck-clean', async () => {
    const dir = tempRoot();
    const manifest = await writeManifest(dir, HEAD + PHASES);
    const out = join(dir, 'scripts');
    const r = await runCli(['plan', manifest, '--scripts', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^wrote 6 files for 3 arrays to .*scripts \(workdir \/home\/alice\/scratch\/opts\)$/m);
    const written = await files(out);
    expect(written).toEqual([
      'evaluate.full.all/job.sh',
      'evaluate.full.all/table.tsv',
      'train.full.N=384/job.sh',
      'train.full.N=384/table.tsv',
      'train.full.N=512/job.sh',
      'train.full.N=512/table.tsv',
    ]);
    const header = async (array: string) =>
      (await readFile(join(out, array, 'job.sh'), 'utf8')).split('\n').filter((l) => l.startsWith('#SBATCH'));
    const n384 = await header('train.full.N=384');
    expect(n384).toEqual(
      expect.arrayContaining([
        '#SBATCH --account=def-lab',
        '#SBATCH --qos=normal',
        '#SBATCH --constraint=cascade',
        '#SBATCH --reservation=lab-week',
        '#SBATCH --gres=gpu:a100:2',
        '#SBATCH --cpus-per-task=8',
        '#SBATCH --mem=65536M',
        '#SBATCH --exclude=node[1-3],node7',
        '#SBATCH --mail-type=END',
        '#SBATCH --exclusive',
        '#SBATCH --partition=gpu',
        '#SBATCH --chdir=/home/alice/scratch/opts',
        '#SBATCH --array=0-1',
      ]),
    );
    const n512 = await header('train.full.N=512');
    expect(n512).toEqual(expect.arrayContaining(['#SBATCH --account=def-big', '#SBATCH --gres=gpu:h100:2']));
    // The environment is activated in the script itself, before the setup.
    const body = await readFile(join(out, 'train.full.N=384', 'job.sh'), 'utf8');
    expect(body).toMatch(/^module purge /m);
    expect(body).toMatch(/^module load StdEnv\/2023 /m);
    expect(body).toMatch(/^module load python\/3\.11 /m);
    expect(body).toMatch(/^conda activate distill /m);
    const evaluate = await header('evaluate.full.all');
    expect(evaluate).toEqual(expect.arrayContaining(['#SBATCH --mem-per-cpu=4096M', '#SBATCH --cpus-per-task=2']));
    expect(evaluate.join('\n')).not.toMatch(/--gres|--mail-type|--mem=|--exclusive/);
    // Each table names its submission, then has a row per task of its array.
    const [named, ...rows] = (await readFile(join(out, 'train.full.N=384', 'table.tsv'), 'utf8')).trim().split('\n');
    expect(named).toMatch(/^# submission [0-9a-f]{12}$/);
    expect(rows).toHaveLength(2);
    const scripts = written.filter((f) => f.endsWith('.sh')).map((f) => join(out, f));
    const sc = spawnSync('shellcheck', ['-s', 'bash', '-S', 'warning', ...scripts], { encoding: 'utf8' });
    expect(sc.error, 'shellcheck must be installed (scripts/ensure-tools)').toBeUndefined();
    expect(sc.stdout + sc.stderr).toBe('');
    expect(sc.status).toBe(0);
  });

  it('shows a workdir under ~ in the home of the user an alias of the SSH config logs in as', async () => {
    const dir = tempRoot();
    await writeFile(join(dir, 'ssh_config'), 'Host narval\n  HostName login.narval.example\n  User bob\n');
    const manifest = await writeManifest(
      dir,
      HEAD.replace('  login: alice@login.example:22\n', '  login: narval\n  ssh_config: ssh_config\n') + PHASES,
    );
    const r = await runCli(['plan', manifest, '--scripts', join(dir, 'scripts')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\(workdir \/home\/bob\/scratch\/opts\)$/m);
  });

  it('lint refuses a slurm_args option campaign manages, and a short option, each with the reason', async () => {
    const dir = tempRoot();
    const manifest = await writeManifest(
      dir,
      HEAD.replace('["--mail-type=END", "--exclusive"]', '["--time=5:00", "-p", "--qos=high"]') + PHASES,
    );
    const r = await runCli(['lint', manifest]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/campaign\.yml:14:\d+: error .*--time is campaign's to set: the walltime comes from/);
    expect(r.stdout).toMatch(/campaign\.yml:14:\d+: error .*"-p" is a short option: write its long form/);
    expect(r.stdout).toMatch(/campaign\.yml:14:\d+: error .*--qos is campaign's to set: use resources\.qos/);
  });
});
