/** Adaptations on record (DESIGN rule 9): what sacct says a task was granted, against what it asked, and where it shows. */
import { describe, expect, it } from 'vitest';
import { parseSacct, shortfalls } from '../../src/exec/slurm/accounting.js';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { planCampaign } from '../../src/plan/plan.js';
import { emptyState, type CampaignState } from '../../src/state/state.js';
import { renderSummary } from '../../src/report/summary.js';
import { applyEvents } from '../../src/decide/apply.js';

const line = (limit: string, partition: string, req: string, alloc: string): string =>
  `77_3|c~k|COMPLETED|0:0|1764493200|1764493260|vm|None|${limit}|${partition}|${req}|${alloc}`;

describe('shortfalls from accounting', () => {
  it('reads the time limit, partition and GPUs a task ran with', () => {
    const [r] = parseSacct(line('00:05:00', 'short', 'cpu=1,gres/gpu=2,mem=200M', 'cpu=1,gres/gpu=1,mem=200M'), 'c~');
    expect(r).toMatchObject({ timelimit: 300, partition: 'short', reqGpus: 2, allocGpus: 1 });
    expect(shortfalls(r!, { seconds: 600, partition: 'debug' }).map((s) => s.words)).toEqual([
      'a time limit of 5m instead of 10m',
      '1 GPU instead of 2',
      'partition short instead of debug',
    ]);
  });

  it('says nothing when the task got what it asked, or more', () => {
    const [r] = parseSacct(line('1-00:00:00', 'debug', 'cpu=1,gres/gpu=1', 'cpu=1,gres/gpu=1'), 'c~');
    expect(r!.timelimit).toBe(86400);
    expect(shortfalls(r!, { seconds: 600, partition: 'debug' })).toEqual([]);
    const [u] = parseSacct(line('UNLIMITED', 'debug', 'cpu=1', ''), 'c~');
    expect(u!.timelimit).toBeUndefined();
    expect(shortfalls(u!, { seconds: 600 })).toEqual([]);
  });
});

describe('the record and the summary', () => {
  it('keep the adaptation next to the result', () => {
    const m = manifestSchema.parse({
      campaign: 'c',
      cluster: { executor: 'slurm', name: 'x' },
      workdir: 'w',
      phases: [{ name: 'p', grid: { n: [1, 2] }, command: 'true', walltime: '10m' }],
    });
    const plan = planCampaign(m);
    const at = '2026-11-30T09:00:00.000Z';
    let state: CampaignState = {
      ...emptyState('c', at),
      phases: { p: { status: 'full' } },
      tasks: {
        'p/n1': { status: 'running', attempts: [{ n: 1, submittedAt: at, startedAt: at, handle: '77_0' }] },
        'p/n2': { status: 'completed', attempts: [{ n: 1, submittedAt: at, class: 'completed' }] },
      },
    };
    state = applyEvents(
      state,
      [
        {
          type: 'finished',
          task: 'p/n1',
          attempt: 1,
          at,
          class: 'completed',
          adapted: ['a time limit of 5m instead of 10m'],
        },
      ],
      () => ({ attempts: 0, delaySeconds: 0 }),
    );
    expect(state.tasks['p/n1']!.attempts[0]!.adapted).toEqual(['a time limit of 5m instead of 10m']);
    const text = renderSummary({ plan, state, tails: new Map() });
    expect(text).toContain(
      '## Tasks that ran with less than they asked\n\n| task | attempt | result | ran with |\n| --- | ---: | --- | --- |\n| p/n1 | 1 | completed | a time limit of 5m instead of 10m |',
    );
    expect(text).not.toContain('| p/n2 |');
  });
});
