/**
 * The benches that drive the real controller on a stand-in cluster (bench/stand-in-executor.mjs)
 * are plain JavaScript, which no type check reads: when the executor's interface changes, only a
 * run tells whether their stand-in still fits it. Run here at a small size, to their end.
 */
import { describe, expect, it } from 'vitest';
import { ensureBuilt, runProgram } from '../helpers/cli.js';

describe('benches on a stand-in cluster', () => {
  it('bench/million plans, drives and summarises 2,000 tasks to their end', async () => {
    await ensureBuilt();
    const r = await runProgram(process.execPath, ['bench/million.mjs', '2000']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // The grid's 2,002 tasks (two smoke tasks), every one completed: the stand-in fails none at this size.
    expect(r.stdout).toMatch(/^tasks +2002 \(completed 2002\), 2002 attempts$/m);
    expect(r.stdout).toMatch(/^summary text +\d+ KiB/m);
  });

  it('bench/runner-minutes drives its day of campaign, parked and not', async () => {
    await ensureBuilt();
    const r = await runProgram(process.execPath, ['bench/runner-minutes.mjs']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^jobs drive until the budget runs out .* runner minutes billed/m);
    expect(r.stdout).toMatch(/^jobs park, a resume every 15 min: .* runner minutes billed/m);
  });
});
