/** What a person watching a campaign reads: the progress line per phase, and the summary. */
import { describe, expect, it } from 'vitest';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { planCampaign } from '../../src/plan/plan.js';
import { emptyState, type CampaignState, type TaskState } from '../../src/queue/state.js';
import { phaseCounts, progressLine, renderSummary } from '../../src/queue/summary.js';

const m = manifestSchema.parse({
  campaign: 'c',
  cluster: { executor: 'slurm', name: 'x' },
  workdir: 'w',
  phases: [{ name: 'p', grid: { n: [1, 2, 3, 4, 5] }, command: 'true', walltime: '5m' }],
});
const plan = planCampaign(m);
const at = '2026-11-30T00:00:00.000Z';
const submitted = (waiting?: string): TaskState => ({
  status: 'submitted',
  attempts: [{ n: 1, submittedAt: at }],
  ...(waiting ? { waiting } : {}),
});

function stateWith(tasks: Record<string, TaskState>): CampaignState {
  return { ...emptyState('c', at), phases: { p: { status: 'full' } }, tasks };
}

describe('progress', () => {
  it('tells queued from running, with the reason most queued tasks wait for', () => {
    const state = stateWith({
      'p/n1': { status: 'running', attempts: [{ n: 1, submittedAt: at, startedAt: at }] },
      'p/n2': submitted('waiting for resources to free up'),
      'p/n3': submitted('waiting for resources to free up'),
      'p/n4': submitted('waiting behind jobs of higher priority'),
      'p/n5': { status: 'completed', attempts: [{ n: 1, submittedAt: at, class: 'completed' }] },
    });
    expect(progressLine(phaseCounts(plan, state)[0]!)).toBe(
      'p [full] 1/5 done, 1 running, 3 queued (waiting for resources to free up), 0 pending, 0 failed',
    );
  });
});

describe('summary', () => {
  it('lists a task that did not complete with its reason and log tail', () => {
    const state = stateWith({
      'p/n1': {
        status: 'failed',
        reason: 'failed: FAILED (exit 3)',
        attempts: [{ n: 1, submittedAt: at, endedAt: at, class: 'failed', exitCode: 3 }],
      },
    });
    const text = renderSummary({ plan, state, tails: new Map([['p/n1', 'Traceback: the model diverged']]) });
    expect(text).toContain('**The campaign did not complete:**');
    expect(text).toContain('### p/n1\n\nfailed: FAILED (exit 3) (1 attempt)');
    expect(text).toContain('```\nTraceback: the model diverged\n```');
  });

  it('a log that holds backticks stays inside its code block, and a reason with | and line breaks stays one cell', () => {
    const state = stateWith({
      'p/n1': {
        status: 'failed',
        reason: 'failed: a | b\nc',
        attempts: [{ n: 1, submittedAt: at, endedAt: at, class: 'failed', exitCode: 3 }],
      },
    });
    const tail = 'before\n```\n# Injected heading\n````\nafter';
    const text = renderSummary({
      plan,
      state: { ...state, phases: { p: { status: 'failed', reason: 'x | y\nz' } } },
      tails: new Map([['p/n1', tail]]),
    });
    // The fence is longer than any run of backticks in the log, so nothing in it closes the block.
    expect(text).toContain(`\`\`\`\`\`\n${tail}\n\`\`\`\`\``);
    expect(text).toMatch(/^\| p \| failed: x \\\| y z \| 5 \|/m);
  });
});
