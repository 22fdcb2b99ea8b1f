/**
 * The script `campaign shell` runs in a task's place, and the salloc line around it
 * (render/shell-script.ts): shellcheck-clean, manifest values that look like code reach bash as
 * values, and the allocation asks for exactly what the task's sbatch asks for.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { manifest as manifestSchema, type Manifest } from '../../src/manifest/schema.js';
import { planCampaign } from '../../src/plan/plan.js';
import { shellBudget, shellTask } from '../../src/plan/shell-task.js';
import { allocationOptions, renderSbatch } from '../../src/render/sbatch.js';
import { renderShellScript, sallocLine, shellJobName } from '../../src/render/shell-script.js';

const root = mkdtempSync(join(tmpdir(), 'campaign-shell-script-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const odd = `it's "odd" $(touch ${root}/pwned) \`touch ${root}/pwned\``;

function manifestOf(cluster: Manifest['cluster']): Manifest {
  return manifestSchema.parse({
    campaign: 'sh',
    cluster,
    workdir: '/w',
    environment: { modules: ['python/3.11'], venv: '.venv' },
    setup: 'export NOTE=${tag}',
    gates: { imports: ['json'], capability: 'true' },
    phases: [
      {
        name: 'p',
        grid: { word: [odd, 'plain'] },
        command: 'echo ${word} > ${output}',
        output: 'o/${tag}.txt',
        preconditions: [{ exists: 'in/${tag}' }],
        walltime: '2h',
        resources: { cpus: 3, mem: '1G', gpus: 1, qos: 'high' },
        smoke: { tasks: 1, overrides: { walltime: '10m' } },
        checkpoint: { signal: 'USR1', before: '1m' },
      },
    ],
  });
}

function shellcheck(file: string): string[] {
  const r = spawnSync('shellcheck', ['-s', 'bash', '-S', 'warning', '-f', 'gcc', file], { encoding: 'utf8' });
  if (r.error) throw r.error;
  return r.stdout.split('\n').filter(Boolean);
}

describe('the shell script', () => {
  const manifest = manifestOf({ executor: 'ssh-gpu', login: 'u@h' });
  const plan = planCampaign(manifest);
  const task = plan.phases[0]!.tasks[0]!;
  const base = { manifest, task, attempt: 2, workdir: `${root}/work dir`, gpus: 1 };
  const scripts = {
    interactive: renderShellScript({
      ...base,
      code: 'abc123',
      devices: { uuids: ['GPU-1234-ab'], holds: `${root}/${odd}` },
    }),
    command: renderShellScript({ ...base, code: 'abc123', command: 'echo "$CAMPAIGN_TASK"' }),
  };
  for (const [name, text] of Object.entries(scripts))
    it(`${name} passes shellcheck`, () => {
      const file = join(root, `${name}.sh`);
      writeFileSync(file, text);
      expect(shellcheck(file)).toEqual([]);
    });

  it('carries a value that looks like code as a value, from the variables to the command', () => {
    const file = join(root, 'run.sh');
    writeFileSync(file, renderShellScript({ ...base, command: 'printf "%s\\n" "$CAMPAIGN_AXIS_word" > value' }));
    spawnSync('mkdir', ['-p', `${root}/work dir`]);
    const r = spawnSync('bash', [file], { encoding: 'utf8' });
    expect(r.stderr).toMatch(/\[campaign\] gate devices: FAIL asked for 1 GPUs, got 0/);
    expect(r.stderr).not.toMatch(/awk|module/);
    expect(r.stderr).toMatch(/the shell opens anyway/);
    expect(readFileSync(`${root}/work dir/value`, 'utf8')).toBe(`${odd}\n`);
    expect(spawnSync('test', ['-e', `${root}/pwned`]).status).not.toBe(0);
  });
});

describe('the allocation', () => {
  const manifest = manifestOf({
    executor: 'slurm',
    account: 'lab',
    partitions: [
      { name: 'debug', max_time: '30m' },
      { name: 'long', max_time: '1d' },
    ],
  });
  const plan = planCampaign(manifest);

  it("asks for the task's resources as its sbatch does, for the phase's smoke walltime by default", () => {
    const chosen = shellTask(manifest, plan, 'p/wordplain', 'c.yml');
    const budget = shellBudget(manifest, chosen);
    expect(budget).toMatchObject({ seconds: 600, partition: 'debug' });
    const line = sallocLine(allocationOptions(manifest, chosen.array, { budget }), shellJobName('sh'), '/w/s.sh', true);
    expect(line).toBe(
      'salloc --job-name=campaign-shell.sh --time=00:10:00 --partition=debug --account=lab --qos=high --nodes=1 --ntasks=1 --cpus-per-task=3 --gres=gpu:1 --mem=1024M srun --ntasks=1 --cpus-per-task=3 --pty bash /w/s.sh',
    );
    // The same options, as the task's own batch script has them.
    const { script } = renderSbatch({
      manifest,
      array: chosen.array,
      jobName: 'j',
      key: 'k',
      submission: 's',
      rows: [{ index: 0, task: chosen.task, attempt: 1 }],
      workdir: '/w',
      tablePath: '/w/t',
      logDir: '/w/l',
      markerDir: '/w/m',
    });
    for (const option of [
      '--qos=high',
      '--nodes=1',
      '--cpus-per-task=3',
      '--gres=gpu:1',
      '--mem=1024M',
      '--account=lab',
    ])
      expect(script).toContain(`#SBATCH ${option}\n`);
  });

  it('fits a --time into the partitions, and refuses one no partition holds', () => {
    const chosen = shellTask(manifest, plan, 'p/wordplain', 'c.yml');
    expect(shellBudget(manifest, chosen, '3h')).toMatchObject({ seconds: 10800, partition: 'long' });
    expect(() => shellBudget(manifest, chosen, '3d')).toThrow(/above the largest partition cap/);
    expect(() => shellBudget(manifest, chosen, 'soon')).toThrow(/--time soon is not a duration/);
  });

  it('answers an unknown task with the nearest ids', () => {
    expect(() => shellTask(manifest, plan, 'wordplain', 'c.yml')).toThrow(
      /has no task wordplain; the nearest: p\/wordplain/,
    );
    expect(() => shellTask(manifest, plan, 'p/wordplian', 'c.yml')).toThrow(/the nearest: p\/wordplain/);
  });
});
