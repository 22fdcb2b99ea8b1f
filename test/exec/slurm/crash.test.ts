/**
 * `campaign run` killed with SIGKILL after `sbatch` has submitted but before the controller
 * heard the job id and saved it: the next run finds the job instead of submitting it again.
 * The kill lands inside that window for certain because an `sbatch` wrapper first on PATH
 * submits for real, says so in a file, and holds its answer back until the test has killed
 * the controller. The executor runs `sbatch` on this machine (no `login:`), on the real test
 * cluster.
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readState, runCli, startCli, useBuiltCliAndTemp, waitUntil, writeManifest } from '../../helpers/cli.js';
import { clusterEnv, clusterIsUp, jobsNamed, slurm } from '../../helpers/slurm-cluster.js';

const clusterUp = clusterIsUp('Slurm crash tests');
const tempRoot = useBuiltCliAndTemp('slurm-crash');
const LONG = 400_000;

describe.runIf(clusterUp)('a controller killed between sbatch and the state save (real cluster)', () => {
  it(
    'submits each array once: the rerun finds the job by its name and key, sacct counts one',
    async () => {
      const dir = join(tempRoot(), 'crash');
      const workdir = join(dir, 'work');
      const wrappers = join(dir, 'bin');
      await mkdir(workdir, { recursive: true });
      await mkdir(wrappers);
      const env = clusterEnv();
      const realSbatch = slurm('bash', ['-c', 'command -v sbatch']).trim();
      const submitted = join(dir, 'submitted');
      await writeFile(
        join(wrappers, 'sbatch'),
        `#!/bin/bash
# The pre-flight's sbatch --test-only submits nothing: it passes straight through.
case " $* " in *" --test-only "*) exec ${realSbatch} "$@" ;; esac
out=$(${realSbatch} "$@"); rc=$?
printf '%s %s\\n' "$$" "$out" > ${submitted}.tmp && mv ${submitted}.tmp ${submitted}
sleep 120
printf '%s\\n' "$out"
exit "$rc"
`,
      );
      await chmod(join(wrappers, 'sbatch'), 0o755);

      const name = `crash-${Date.now().toString(36)}`;
      const manifest = await writeManifest(
        dir,
        `campaign: ${name}
cluster:
  executor: slurm
  name: campaign-test
  partitions: [{ name: debug, max_time: 30m }]
workdir: ${workdir}
defaults:
  resources: { cpus: 1, mem: 100M }
phases:
  - name: p
    grid: { n: [1, 2, 3] }
    command: echo \${n} > \${output}
    output: o_\${n}.txt
    walltime: 5m
`,
      );
      const stateDir = join(dir, 'state');
      const args = ['run', manifest, '--state-dir', stateDir, '--poll', '1'];
      const first = startCli(args, { env: { ...process.env, ...env, PATH: `${wrappers}:${process.env.PATH}` } });
      const [wrapperPid] = await waitUntil(
        'the sbatch wrapper to report a submission',
        async () => (await readFile(submitted, 'utf8').catch(() => undefined))?.split(' '),
        120_000,
      );
      first.child.kill('SIGKILL');
      await first.done;
      process.kill(Number(wrapperPid), 'SIGKILL');
      // The accounting database hears of a job a moment after sbatch returns.
      await waitUntil('sacct to list the job', async () => (jobsNamed(`${name}~`).length > 0 ? true : undefined));
      expect(jobsNamed(`${name}~`), await readFile(submitted, 'utf8')).toHaveLength(1);

      const second = await runCli(args, { timeoutMs: 300_000, env: { ...process.env, ...env } });
      expect(second.code, second.stdout + second.stderr).toBe(0);
      expect(jobsNamed(`${name}~`)).toHaveLength(1);
      const state = await readState(stateDir);
      for (const t of Object.values(state.tasks)) expect(t.attempts).toHaveLength(1);
      for (const n of [1, 2, 3]) expect((await readFile(join(workdir, `o_${n}.txt`), 'utf8')).trim()).toBe(String(n));
    },
    LONG,
  );
});
