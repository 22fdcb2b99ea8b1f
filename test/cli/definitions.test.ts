/**
 * A result deserves its name (DESIGN rule 11), on the local executor through the real CLI: a
 * changed definition runs exactly its tasks again and says so first, `--keep-changed` keeps
 * them by a recorded choice, an unchanged run sends nothing, a second campaign never adopts or
 * overwrites the first one's outputs, and `--fresh` starts over without deleting anything.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CampaignState } from '../../src/state/state.js';
import { readState, runCli, useBuiltCliAndTemp, writeManifest } from '../helpers/cli.js';

const tempRoot = useBuiltCliAndTemp('definitions');

const run = (manifest: string, stateDir: string, ...extra: string[]) =>
  runCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.2', ...extra], { timeoutMs: 60_000 });

/**
 * Two phases: `a` writes its version into each output, `b` (independent) writes its own. The
 * cost model's rate is in milliseconds, as the method measures them.
 */
const manifest = (
  opts: { campaign?: string; version?: string; bVersion?: string; smokeArgs?: string } = {},
) => `campaign: ${opts.campaign ?? 'defs'}
cluster: { executor: local, name: here, max_parallel: 4 }
workdir: work
phases:
  - name: a
    grid: { seed: [1, 2] }
    command: printf '%s %s\\n' ${opts.version ?? 'v1'} \${seed} > \${output}
    output: out/a_\${seed}.txt
    cost: { unit: step, units: 3, per_unit: 179ms, margin: 20, measured_on: here }
${
  opts.smokeArgs === undefined
    ? ''
    : `    smoke:
      tasks: 1
      overrides: { args: '${opts.smokeArgs}' }
      trigger: [{ check: all_completed }, { check: output_exists }]
`
}  - name: b
    grid: { seed: [1, 2] }
    command: printf '%s %s\\n' ${opts.bVersion ?? 'b1'} \${seed} > \${output}
    output: out/b_\${seed}.txt
    walltime: 1m
`;

async function setup(name: string) {
  const dir = join(tempRoot(), name);
  await mkdir(join(dir, 'other'), { recursive: true });
  return {
    dir,
    file: await writeManifest(dir, manifest()),
    stateDir: join(dir, 'state'),
    workdir: join(dir, 'work'),
    write: (text: string) => writeFile(join(dir, 'campaign.yml'), text),
  };
}

const attempts = (s: CampaignState): Record<string, number> =>
  Object.fromEntries(Object.entries(s.tasks).map(([id, t]) => [id, t.attempts.length]));

const output = (workdir: string, name: string) => readFile(join(workdir, 'out', name), 'utf8');

describe('a changed definition', () => {
  it('runs exactly the changed tasks again, says so before submitting, and the outputs hold the new results', async () => {
    const c = await setup('changed');
    expect((await run(c.file, c.stateDir)).code).toBe(0);
    const first = attempts(await readState(c.stateDir));
    expect(first).toEqual({ 'a/seed1': 1, 'a/seed2': 1, 'b/seed1': 1, 'b/seed2': 1 });

    // The same manifest again: nothing is sent.
    const same = await run(c.file, c.stateDir);
    expect(same.code).toBe(0);
    expect(same.stderr).not.toMatch(/will run again/);
    expect(attempts(await readState(c.stateDir))).toEqual(first);

    await c.write(manifest({ version: 'v2' }));
    const plan = await runCli(['plan', c.file, '--state-dir', c.stateDir]);
    expect(plan.stdout).toMatch(/phase a: command changed: 2 tasks will run again/);
    const changed = await run(c.file, c.stateDir);
    expect(changed.code).toBe(0);
    expect(changed.stderr).toMatch(/campaign: phase a: command changed: 2 tasks will run again/);
    expect(changed.stderr).not.toMatch(/phase b/);
    const state = await readState(c.stateDir);
    expect(attempts(state)).toEqual({ 'a/seed1': 2, 'a/seed2': 2, 'b/seed1': 1, 'b/seed2': 1 });
    expect(await output(c.workdir, 'a_1.txt')).toBe('v2 1\n');
    expect(await output(c.workdir, 'b_1.txt')).toBe('b1 1\n');
    // The attempts ran under different definitions, each recorded.
    const [old, now] = state.tasks['a/seed1']!.attempts;
    expect(old!.definition).toMatch(/^[0-9a-f]{16}$/);
    expect(now!.definition).not.toBe(old!.definition);
  });

  it('--keep-changed keeps the results, records the choice in the state and the provenance, and sends nothing', async () => {
    const c = await setup('keep');
    expect((await run(c.file, c.stateDir)).code).toBe(0);
    await c.write(manifest({ version: 'v2' }));
    const kept = await run(c.file, c.stateDir, '--keep-changed');
    expect(kept.code).toBe(0);
    expect(kept.stderr).toMatch(/phase a: command changed: 2 completed tasks kept as they are, by --keep-changed/);
    const state = await readState(c.stateDir);
    expect(attempts(state)).toEqual({ 'a/seed1': 1, 'a/seed2': 1, 'b/seed1': 1, 'b/seed2': 1 });
    const last = state.tasks['a/seed1']!.attempts[0]!;
    expect(last.kept).toEqual([expect.objectContaining({ changed: ['command'] })]);
    expect(await output(c.workdir, 'a_1.txt')).toBe('v1 1\n');
    const record = JSON.parse(await readFile(join(c.workdir, 'out', '.a_1.txt.provenance.json'), 'utf8'));
    expect(record.kept).toEqual([
      expect.objectContaining({ definition: last.kept![0]!.definition, changed: ['command'] }),
    ]);
    // Kept for this definition, the next run has nothing to say of it.
    const again = await run(c.file, c.stateDir);
    expect(again.stderr).not.toMatch(/changed/);
    expect(attempts(await readState(c.stateDir))).toEqual(attempts(state));
  });

  it('a smoke stage whose definition changed runs again and is judged again; the full tasks it did not touch stay', async () => {
    const c = await setup('smoke');
    await c.write(manifest({ smokeArgs: '# one' }));
    expect((await run(c.file, c.stateDir)).code).toBe(0);
    const before = await readState(c.stateDir);
    await c.write(manifest({ smokeArgs: '# two' }));
    const r = await run(c.file, c.stateDir);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/phase a \(smoke stage\): command changed: 1 task will run again/);
    const after = await readState(c.stateDir);
    expect(after.tasks['a/smoke/seed1']!.attempts).toHaveLength(2);
    expect(after.tasks['a/seed1']!.attempts).toHaveLength(1);
    expect(after.phases.a!.gate!.at > before.phases.a!.gate!.at).toBe(true);
    expect(after.phases.a!.gate!.definitions).not.toBe(before.phases.a!.gate!.definitions);
  });
});

describe('campaigns never share results', () => {
  it('a second campaign on the same outputs is refused with the owner named, and the results of the first are untouched', async () => {
    const c = await setup('two');
    expect((await run(c.file, c.stateDir)).code).toBe(0);
    const firstA = await output(c.workdir, 'a_1.txt');
    const other = await writeManifest(
      join(c.dir, 'other'),
      manifest({ campaign: 'other', version: 'x9', bVersion: 'y9' }),
    );
    // The same workdir: the other manifest lives one directory down.
    await writeFile(other, (await readFile(other, 'utf8')).replace('workdir: work', 'workdir: ../work'));
    const r = await run(other, join(c.dir, 'other-state'));
    expect(r.code).toBe(1);
    const state = await readState(join(c.dir, 'other-state'));
    expect(state.tasks['a/seed1']!.status).toBe('failed');
    expect(state.tasks['a/seed1']!.reason).toMatch(/gate output:.*belongs to task a\/seed1 of campaign defs/);
    expect(await output(c.workdir, 'a_1.txt')).toBe(firstA);
    expect(await output(c.workdir, 'b_2.txt')).toBe('b1 2\n');
    // Its attempts live apart: the first campaign's are not its own.
    expect((await readdir(join(c.workdir, '.campaign', 'local'))).sort()).toEqual(['defs', 'other']);
  });
});

describe('starting over', () => {
  it('--fresh moves the earlier state, attempts and outputs aside, deletes nothing, and runs everything anew', async () => {
    const c = await setup('fresh');
    expect((await run(c.file, c.stateDir)).code).toBe(0);
    const r = await run(c.file, c.stateDir, '--fresh');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /started afresh: the earlier state is in .*previous.*; 4 outputs and the attempts moved to/,
    );
    const state = await readState(c.stateDir);
    expect(Object.values(state.tasks).map((t) => t.attempts.length)).toEqual([1, 1, 1, 1]);
    const [stamp] = await readdir(join(c.workdir, '.campaign', 'aside', 'defs'));
    const aside = join(c.workdir, '.campaign', 'aside', 'defs', stamp!);
    expect(await readFile(join(aside, 'outputs', 'out', 'a_1.txt'), 'utf8')).toBe('v1 1\n');
    expect(await readFile(join(aside, 'outputs', 'out', '.a_1.txt.provenance.json'), 'utf8')).toMatch(/"attempt": 1/);
    expect((await readdir(join(aside, 'executor', 'attempts'))).sort()).toEqual(['a', 'b']);
    expect((await readdir(join(c.stateDir, 'previous'))).length).toBe(1);
    expect(await output(c.workdir, 'a_1.txt')).toBe('v1 1\n');
  });

  it('--fresh with --keep-changed is refused before anything is touched', async () => {
    const c = await setup('fresh-refused');
    expect((await run(c.file, c.stateDir)).code).toBe(0);
    const both = await run(c.file, c.stateDir, '--fresh', '--keep-changed');
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--fresh and --keep-changed contradict each other/);
    expect(await readdir(join(c.workdir, '.campaign'))).not.toContain('aside');
  });
});
