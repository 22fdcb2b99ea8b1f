/**
 * The controller's own bookkeeping between passes: it keeps the active attempts from pass to pass
 * and updates them for the tasks that changed, and the store writes only the tasks the core says
 * changed; so each pass must still hand the executor every active attempt and only those, and a
 * fresh load must find exactly the state the pass returned. A recording executor stands in for a real one here: what is under
 * test is what the controller asks, not how an executor answers (the executors' own tests run
 * real processes, Slurm and SSH).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CampaignController } from '../../src/exec/controller.js';
import type { ActiveAttempt, Executor } from '../../src/exec/executor.js';
import type { Workdir } from '../../src/exec/workdir.js';
import { FileStateStore } from '../../src/exec/store/file-store.js';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { planCampaign } from '../../src/plan/plan.js';
import type { TaskEvent } from '../../src/state/events.js';
import { ACTIVE, emptyState, type CampaignState } from '../../src/state/state.js';
import { rng } from '../helpers/random.js';

const roots: string[] = [];
afterAll(() => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

/** Records what each observe is given, and answers at random: a task starts, ends one way or another, or waits. */
class RecordingExecutor implements Executor {
  readonly observed: string[][] = [];
  private job = 1;
  constructor(
    private readonly random: (n: number) => number,
    private readonly slots: number,
  ) {}
  capacity(active: number): number {
    return Math.max(0, this.slots - active);
  }
  submit(...[subs]: Parameters<Executor['submit']>): ReturnType<Executor['submit']> {
    const at = new Date().toISOString();
    return Promise.resolve(
      subs.map(
        (s) => ({ type: 'submitted', task: s.task.id, attempt: s.attempt, at, handle: `${this.job++}` }) as const,
      ),
    );
  }
  observe(active: readonly ActiveAttempt[]): Promise<TaskEvent[]> {
    this.observed.push(active.map((a) => `${a.task.id}:${a.attempt.n}`).sort());
    const at = new Date().toISOString();
    const out: TaskEvent[] = [];
    for (const { task, attempt } of active) {
      const roll = this.random(4);
      if (roll === 0 && attempt.startedAt === undefined)
        out.push({ type: 'started', task: task.id, attempt: attempt.n, at });
      else if (roll === 1)
        out.push({ type: 'finished', task: task.id, attempt: attempt.n, at, class: 'completed', exitCode: 0 });
      else if (roll === 2)
        out.push({ type: 'finished', task: task.id, attempt: attempt.n, at, class: 'node_fail', exitCode: 1 });
    }
    return Promise.resolve(out);
  }
  readLog(): Promise<string> {
    return Promise.resolve('');
  }
  logPath(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }
  private recorded: string | undefined;
  readonly workdir: Workdir = {
    path: () => Promise.resolve('/work'),
    outputFacts: () => Promise.resolve({ exists: true, fresh: true, digest: 'd' }),
    runCheck: () => Promise.resolve({ exitCode: 0, tail: '' }),
    missing: () => Promise.resolve([]),
    writeFiles: () => Promise.resolve([]),
    readFile: () => Promise.resolve(undefined),
    gather: () => Promise.resolve(),
    generation: {
      read: (): Promise<string | undefined> => Promise.resolve(this.recorded),
      record: (generation: string): Promise<string> => Promise.resolve((this.recorded ??= generation)),
      replace: (generation: string): Promise<void> => {
        this.recorded = generation;
        return Promise.resolve();
      },
    },
    setAside: (dest) => Promise.resolve({ outputs: 0, attempts: false, dest }),
    shipCode: () => Promise.resolve(),
    removeCode: () => Promise.resolve([]),
  };
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The active attempts a fresh look at the state finds. */
function activeIn(state: CampaignState): string[] {
  return Object.entries(state.tasks)
    .filter(([, t]) => ACTIVE.has(t.status))
    .map(([id, t]) => `${id}:${t.attempts.at(-1)!.n}`)
    .sort();
}

describe('the controller between passes (a recording executor stands in)', () => {
  it('hands the executor every active attempt and only those, and saves each pass whole, pass after pass, also after a reload', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer(),
        async (n, slots, seed) => {
          const root = await mkdtemp(join(tmpdir(), 'campaign-controller-'));
          roots.push(root);
          const manifest = manifestSchema.parse({
            campaign: 'c',
            cluster: { executor: 'local' },
            workdir: '.',
            phases: [
              {
                name: 'a',
                grid: { k: Array.from({ length: n }, (_, i) => i) },
                command: 'x',
                output: 'a${k}',
                retry: { node_fail: { attempts: 2 } },
              },
              { name: 'b', depends_on: ['a'], grid: { k: [1, 2] }, command: 'x', output: 'b${k}' },
            ],
          });
          const plan = planCampaign(manifest);
          const random = rng(seed);
          const executor = new RecordingExecutor(random, slots);
          // Every save goes to the journal, where only the tasks the core says it set are written.
          const store = new FileStateStore(root, { journalAbove: 1 });
          const controller = new CampaignController({ manifest, plan, executor, store });
          let state = emptyState('c', new Date().toISOString());
          for (let pass = 0; pass < 60; pass++) {
            // Now and then the state comes as a load would give it: equal, but made elsewhere.
            if (random(5) === 0) state = structuredClone(state);
            const expected = activeIn(state);
            const r = await controller.pass(state);
            expect(executor.observed.at(-1)).toEqual(expected);
            state = r.state;
            if (random(3) === 0) await store.compactIfDue();
            expect(await new FileStateStore(root).load()).toEqual(JSON.parse(JSON.stringify(state)));
            if (r.atRest) break;
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
