/**
 * A full task's output must hold what its phase expects of it: one record per unit where the
 * cost model counts records, with the fields the smoke checklist names. An exit 0 whose output
 * falls short is unverified and retried like a failure, never completed. Local executor, run
 * through the CLI as a user runs it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readState, runCli, useBuiltCliAndTemp, writeManifest } from '../../helpers/cli.js';

const tempRoot = useBuiltCliAndTemp('records');

/** k=2 writes one record too few on its first attempt; k=3 always leaves out the loss. */
const WRITER = `k=$1 units=$2 attempt=$3 out=$4
n=$units
if [ "$k" = 2 ] && [ "$attempt" = 1 ]; then n=$((units - 1)); fi
mkdir -p "$(dirname "$out")"
for ((i = 1; i <= n; i++)); do
  if [ "$k" = 3 ]; then printf '{"step": %d}\\n' "$i"; else printf '{"step": %d, "loss": 0.5}\\n' "$i"; fi
done > "$out"
`;

describe('full outputs checked for their records at completion (local executor)', () => {
  it('a short output is unverified and retried, one lacking a field stays failed; the rest complete', async () => {
    const dir = join(tempRoot(), 'short');
    const workdir = join(dir, 'work');
    await mkdir(workdir, { recursive: true });
    await writeFile(join(workdir, 'write.sh'), WRITER);
    const manifest = await writeManifest(
      dir,
      `campaign: records
cluster: { executor: local, name: here, max_parallel: 3 }
workdir: work
phases:
  - name: p
    grid: { k: [1, 2, 3] }
    command: bash write.sh \${k} \${units} \${attempt} \${output}
    output: out/\${k}.jsonl
    flush: per_step
    cost: { unit: step, units: 3, per_unit: 0.1s, measured_on: here, progress: { records: true } }
    retry: { failed: { attempts: 1 } }
    smoke:
      tasks: { k: [1] }
      overrides: { units: 2 }
      trigger:
        - check: records
          count: 2
          fields: [step, loss]
`,
    );
    const stateDir = join(dir, 'state');
    const r = await runCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.2'], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(1);
    const state = await readState(stateDir);
    const t = (k: number) => state.tasks[`p/k${k}`]!;
    expect(t(1).attempts.map((a) => a.class)).toEqual(['completed']);
    expect(t(2).attempts.map((a) => [a.class, a.reason])).toEqual([
      ['unverified', 'exit 0 but out/2.jsonl: 2 records, expected 3'],
      ['completed', undefined],
    ]);
    expect(t(3).status).toBe('failed');
    expect(t(3).attempts.map((a) => [a.class, a.reason])).toEqual([
      ['unverified', 'exit 0 but out/3.jsonl: record 1 lacks loss'],
      ['unverified', 'exit 0 but out/3.jsonl: record 1 lacks loss'],
    ]);
  }, 90_000);
});
