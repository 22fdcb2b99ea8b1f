/**
 * `smoke.full_run`: the smoke tasks are full runs, so their results count and the full stage
 * releases only the other cells; every cell runs exactly once.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readState, runCli, useBuiltCliAndTemp, writeManifest } from '../helpers/cli.js';

const tempRoot = useBuiltCliAndTemp('full-run');

describe('a smoke stage of full runs', () => {
  it('counts the smoke results and runs only the other cells in the full stage', async () => {
    const dir = join(tempRoot(), 'campaign');
    await mkdir(join(dir, 'work'), { recursive: true });
    const manifest = await writeManifest(
      dir,
      `campaign: full-run
cluster: { executor: local, name: here }
workdir: work
phases:
  - name: p
    grid: { seed: [1, 2, 3, 4] }
    command: >
      printf '%s\\n' \${seed} >> ledger.txt; printf '{"seed": %s}\\n' \${seed} > \${output}
    output: results/seed\${seed}.jsonl
    walltime: 1m
    smoke:
      tasks: 2
      full_run: true
      trigger:
        - check: distinct_outputs
`,
    );
    const r = await runCli(['run', manifest, '--state-dir', join(dir, 'state'), '--poll', '0.2']);
    expect(r.code, r.stderr).toBe(0);
    const ledger = (await readFile(join(dir, 'work', 'ledger.txt'), 'utf8')).trim().split('\n').sort();
    expect(ledger).toEqual(['1', '2', '3', '4']);
    const state = await readState(join(dir, 'state'));
    expect(Object.keys(state.tasks).sort()).toEqual(['p/seed1', 'p/seed2', 'p/seed3', 'p/seed4']);
    for (const t of Object.values(state.tasks)) expect(t.attempts).toHaveLength(1);
    expect(await readFile(join(dir, 'work', 'results', 'seed1.jsonl'), 'utf8')).toBe('{"seed": 1}\n');
  });
});
