/**
 * The garbage collection the run loop makes in its wait between passes (src/app/heap.ts), in
 * this very process: V8's own collector, reached the way the loop reaches it.
 */
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { collectIfWorthIt, worthCollecting } from '../../src/app/heap.js';

const MB = 1024 * 1024;

/** Makes about 64 MB of small objects, all garbage once it returns; says how many. */
function leaveGarbage(): number {
  const made = Array.from({ length: 16 }, (_, i) =>
    Array.from({ length: 40_000 }, (_, j) => ({ n: j, s: `task-${i}-${j}-${'x'.repeat(40)}` })),
  );
  return made.reduce((n, list) => n + list.length, 0);
}

describe('garbage collection between passes', () => {
  it('is worth it once the garbage is a tenth of what was live, and at least 16 MB', () => {
    expect(worthCollecting(20 * MB, 10 * MB)).toBe(false); // 10 MB of garbage on a small heap
    expect(worthCollecting(27 * MB, 10 * MB)).toBe(true);
    expect(worthCollecting(125 * MB, 110 * MB)).toBe(false); // 15 MB: under the floor
    expect(worthCollecting(140 * MB, 120 * MB)).toBe(true); // a pass's garbage at 100,000 tasks
    expect(worthCollecting(600 * MB, 550 * MB)).toBe(false); // under a tenth of a large heap
    expect(worthCollecting(610 * MB, 550 * MB)).toBe(true);
  });

  it('collects the garbage a pass left, and not again until there is more', () => {
    collectIfWorthIt(); // whatever the tests before left
    // About 64 MB of small objects, dropped: what a pass leaves of the tasks it replaced.
    expect(leaveGarbage()).toBe(16 * 40_000);
    const before = getHeapStatistics().used_heap_size;
    expect(collectIfWorthIt()).toBe(true);
    expect(getHeapStatistics().used_heap_size).toBeLessThan(before - 32 * MB);
    expect(collectIfWorthIt()).toBe(false);
  });
});
