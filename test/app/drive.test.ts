/**
 * The one loop that drives a campaign for both the CLI and the action (src/app/drive.ts), run
 * in-process on a fake clock: passes until the campaign is at rest, waits as the pacer says
 * with the state compacted in each wait, ends at the deadline, and stops at once on a cancel.
 */
import { describe, expect, it } from 'vitest';
import { driveCampaign, systemClock, type Clock, type DriveParts } from '../../src/app/drive.js';
import { emptyState, type CampaignState } from '../../src/state/state.js';

/** A clock whose sleeps pass at once and add to its time; it records each wait. */
function fakeClock(): Clock & { waits: number[]; t: number } {
  const clock = {
    t: 1_000_000,
    waits: [] as number[],
    now: () => clock.t,
    sleep: async (ms: number, signal?: AbortSignal) => {
      clock.waits.push(ms);
      clock.t += ms;
      await Promise.resolve();
      void signal;
    },
  };
  return clock;
}

/** A controller at rest after `restAfter` passes, each taking `passMs` on the clock; it logs what happens. */
function parts(clock: ReturnType<typeof fakeClock>, restAfter: number, passMs = 0, waitSeconds = 30) {
  const log: string[] = [];
  let n = 0;
  const p: DriveParts = {
    controller: {
      pass: async (state: CampaignState) => {
        n++;
        log.push(`pass ${n} at ${clock.t - 1_000_000}`);
        clock.t += passMs;
        return { state, atRest: n >= restAfter };
      },
    },
    store: {
      compactIfDue: async () => {
        log.push('compact');
        return false;
      },
    },
    pacer: { next: () => waitSeconds },
    clock,
  };
  return { p, log };
}

const state = emptyState('c', '2026-01-01T00:00:00.000Z');

describe('driveCampaign (fake clock)', () => {
  it('passes until the campaign is at rest, waiting as the pacer says and compacting in each wait', async () => {
    const clock = fakeClock();
    const { p, log } = parts(clock, 3, 2_000);
    const seen: number[] = [];
    const r = await driveCampaign(state, { ...p, onPass: () => seen.push(clock.t) });
    expect(r).toMatchObject({ atRest: true, passes: 3 });
    // The pacer's 30 s count from the end of a pass (each takes 2 s here).
    expect(log).toEqual(['pass 1 at 0', 'compact', 'pass 2 at 32000', 'compact', 'pass 3 at 64000']);
    expect(clock.waits).toEqual([30_000, 30_000]);
    expect(seen).toHaveLength(3);
  });

  it('starts no pass after the deadline, and cuts the last wait at it', async () => {
    const clock = fakeClock();
    const { p, log } = parts(clock, 100, 1_000);
    const r = await driveCampaign(state, { ...p, deadline: clock.t + 70_000 });
    expect(r).toMatchObject({ atRest: false, passes: 4 });
    expect(log.filter((l) => l.startsWith('pass'))).toEqual([
      'pass 1 at 0',
      'pass 2 at 31000',
      'pass 3 at 62000',
      'pass 4 at 70000',
    ]);
    expect(clock.waits.at(-1)).toBe(7_000);
  });

  it('a cancel during a wait ends the loop without another pass; one during a pass, after it; one before, at once', async () => {
    const clock = fakeClock();
    const during = new AbortController();
    const { p, log } = parts(clock, 100);
    const r = await driveCampaign(state, {
      ...p,
      clock: { ...clock, sleep: async (ms) => (clock.waits.push(ms), during.abort()) },
      signal: during.signal,
    });
    expect(r).toMatchObject({ atRest: false, passes: 1 });
    expect(log).toEqual(['pass 1 at 0', 'compact']);

    const inPass = new AbortController();
    const second = parts(fakeClock(), 100);
    const pass = second.p.controller.pass;
    const r2 = await driveCampaign(state, {
      ...second.p,
      controller: { pass: async (s) => (inPass.abort(), pass(s)) },
      signal: inPass.signal,
    });
    expect(r2).toMatchObject({ atRest: false, passes: 1 });
    expect(second.log).toEqual(['pass 1 at 0']);

    // Cancelled before the loop began: not a single pass.
    const before = new AbortController();
    before.abort();
    const third = parts(fakeClock(), 100);
    expect(await driveCampaign(state, { ...third.p, signal: before.signal })).toMatchObject({ passes: 0 });
    expect(third.log).toEqual([]);
  });

  it("the system clock's sleep ends early when its signal aborts", async () => {
    const stop = new AbortController();
    const slept = systemClock.sleep(60_000, stop.signal);
    stop.abort();
    await expect(slept).resolves.toBeUndefined();
    const aborted = new AbortController();
    aborted.abort();
    await expect(systemClock.sleep(60_000, aborted.signal)).resolves.toBeUndefined();
  });
});
