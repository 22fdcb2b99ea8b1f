/**
 * What a user does after a campaign stopped short: fix the cause, then run again. A new run
 * re-checks missing preconditions, re-evaluates a failed checklist (a new smoke stage where the
 * checklist changed), and fails completed tasks whose outputs are gone; `--retry-failed` runs
 * failed tasks (and the smoke stage of a failed checklist) again with fresh retry allowances.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readState, runCli, writeManifest, useBuiltCliAndTemp } from '../helpers/cli.js';

const tempRoot = useBuiltCliAndTemp('rerun');

async function setup(name: string, yaml: string): Promise<{ manifest: string; stateDir: string; workdir: string }> {
  const dir = join(tempRoot(), name);
  const workdir = join(dir, 'work');
  await mkdir(workdir, { recursive: true });
  return { manifest: await writeManifest(dir, yaml), stateDir: join(dir, 'state'), workdir };
}

const run = (manifest: string, stateDir: string, ...extra: string[]) =>
  runCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.2', ...extra], { timeoutMs: 60_000 });

const header = `campaign: rerun
cluster: { executor: local, name: here }
workdir: work
`;

describe('a new run after the cause is fixed', () => {
  it('re-checks preconditions that were missing', async () => {
    const c = await setup(
      'preconditions',
      `${header}phases:
  - name: use
    preconditions: [{ exists: input.txt }]
    command: cp input.txt \${output}
    output: out.txt
    walltime: 1m
`,
    );
    const first = await run(c.manifest, c.stateDir);
    expect(first.code).toBe(1);
    expect((await readState(c.stateDir)).phases.use?.reason).toMatch(/precondition missing: input.txt/);

    await writeFile(join(c.workdir, 'input.txt'), 'data\n');
    const second = await run(c.manifest, c.stateDir);
    expect(second.code).toBe(0);
    expect((await readState(c.stateDir)).tasks['use/task']?.status).toBe('completed');
  });

  it('runs the smoke stage again under a checklist changed in the manifest, never judging the old results by it', async () => {
    const yaml = (count: number) => `${header}phases:
  - name: p
    grid: { seed: [1, 2] }
    command: >
      printf '{"seed": %s}\\n' \${seed} > \${output}
    output: out_\${seed}.jsonl
    walltime: 1m
    smoke:
      tasks: 1
      trigger:
        - check: records
          count: ${count}
          otherwise: "the record count is wrong"
`;
    const c = await setup('checklist', yaml(5));
    const first = await run(c.manifest, c.stateDir);
    expect(first.code).toBe(1);
    const blocked = await readState(c.stateDir);
    expect(blocked.phases.p?.status).toBe('blocked');
    expect(blocked.tasks['p/seed2']?.status).toBe('blocked');

    // Loosened to what the smoke task wrote: judged again, the old result would now pass.
    await writeFile(c.manifest, yaml(1));
    const second = await run(c.manifest, c.stateDir);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain(
      'phase p: its checklist changed after it failed the smoke stage; the smoke stage runs again under the new one',
    );
    const done = await readState(c.stateDir);
    expect(done.tasks['p/smoke/seed1']?.attempts.map((a) => a.class)).toEqual(['completed', 'completed']);
    expect(done.tasks['p/seed1']?.status).toBe('completed');
    expect(done.tasks['p/seed2']?.status).toBe('completed');
  });

  it('leaves failed tasks alone without --retry-failed, and runs them again with it', async () => {
    const c = await setup(
      'retry',
      `${header}defaults:
  retry:
    failed: { attempts: 1 }
phases:
  - name: p
    grid: { n: [1, 2] }
    command: test -e fixed && echo ok > \${output}
    output: out_\${n}.txt
    walltime: 1m
    smoke:
      tasks: 1
      trigger: [{ check: output_exists }]
`,
    );
    expect((await run(c.manifest, c.stateDir)).code).toBe(1);
    const failed = await readState(c.stateDir);
    expect(failed.tasks['p/smoke/n1']?.status).toBe('failed');
    expect(failed.tasks['p/smoke/n1']?.attempts).toHaveLength(2);

    expect((await run(c.manifest, c.stateDir)).code).toBe(1);
    expect((await readState(c.stateDir)).tasks['p/smoke/n1']?.attempts).toHaveLength(2);

    await writeFile(join(c.workdir, 'fixed'), '');
    expect((await run(c.manifest, c.stateDir, '--retry-failed')).code).toBe(0);
    const done = await readState(c.stateDir);
    expect(done.tasks['p/smoke/n1']?.attempts.map((a) => a.class)).toEqual(['failed', 'failed', 'completed']);
    expect(done.tasks['p/n1']?.status).toBe('completed');
    expect(done.tasks['p/n2']?.status).toBe('completed');
  });

  it('fails a completed task whose output is gone (a scratch purge), says so, and --retry-failed runs it again', async () => {
    const c = await setup(
      'purged',
      `${header}phases:
  - name: p
    grid: { n: [1, 2, 3] }
    command: echo \${n} > \${output}
    output: out/\${n}.txt
    walltime: 1m
`,
    );
    expect((await run(c.manifest, c.stateDir)).code).toBe(0);
    await rm(join(c.workdir, 'out/2.txt'));

    const resumed = await run(c.manifest, c.stateDir);
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toContain(
      '1 completed task no longer has its output (p/n2: out/2.txt): marked failed; run again with --retry-failed to run it again',
    );
    const state = await readState(c.stateDir);
    expect(state.tasks['p/n2']).toMatchObject({
      status: 'failed',
      reason: 'its output out/2.txt was gone when the run resumed',
    });
    expect(state.tasks['p/n1']?.status).toBe('completed');
    expect(state.tasks['p/n3']?.status).toBe('completed');

    expect((await run(c.manifest, c.stateDir, '--retry-failed')).code).toBe(0);
    const done = await readState(c.stateDir);
    expect(done.tasks['p/n2']?.attempts.map((a) => a.class)).toEqual(['completed', 'completed']);
    expect(await readFile(join(c.workdir, 'out/2.txt'), 'utf8')).toBe('2\n');
    expect(done.tasks['p/n1']?.attempts).toHaveLength(1);
  });
});

// What the executor contract holds of a changed definition (test/exec/contract/battery.ts) runs
// in the process; these are what the command line adds to it.
describe('a changed definition on the command line', () => {
  const twoPhases = (version: string) => `${header}phases:
  - name: a
    grid: { seed: [1, 2] }
    command: printf '%s %s\\n' ${version} \${seed} > \${output}
    output: out/a_\${seed}.txt
    walltime: 1m
  - name: b
    command: echo b > \${output}
    output: out/b.txt
    walltime: 1m
`;

  it('plan says which tasks it runs again, and run says so on stderr', async () => {
    const c = await setup('changed', twoPhases('v1'));
    expect((await run(c.manifest, c.stateDir)).code).toBe(0);
    await writeFile(c.manifest, twoPhases('v2'));
    const plan = await runCli(['plan', c.manifest, '--state-dir', c.stateDir]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/phase a: command changed: 2 tasks will run again/);
    const changed = await run(c.manifest, c.stateDir);
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stderr).toMatch(/^campaign: phase a: command changed: 2 tasks will run again$/m);
    expect(changed.stderr).not.toMatch(/phase b/);
    expect(await readFile(join(c.workdir, 'out', 'a_1.txt'), 'utf8')).toBe('v2 1\n');
  });

  it('--fresh with --keep-changed is refused before anything is touched', async () => {
    const c = await setup('fresh-refused', twoPhases('v1'));
    expect((await run(c.manifest, c.stateDir)).code).toBe(0);
    const both = await run(c.manifest, c.stateDir, '--fresh', '--keep-changed');
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--fresh and --keep-changed contradict each other/);
    expect(await readdir(join(c.workdir, '.campaign'))).not.toContain('aside');
  });
});
