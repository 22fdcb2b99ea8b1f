/** What a person watching a campaign reads: the progress line per phase, and the summary. */
import { describe, expect, it } from 'vitest';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { planCampaign } from '../../src/plan/plan.js';
import { emptyState, type CampaignState, type TaskState } from '../../src/state/state.js';
import { progressLine, renderSummary } from '../../src/report/summary.js';
import { phaseCounts } from '../../src/state/phase-counts.js';

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
    const text = renderSummary({
      plan,
      state,
      tails: new Map([['p/n1', { text: 'Traceback: the model diverged', path: '/w/p/n1/log' }]]),
    });
    expect(text).toContain('**The campaign did not complete:**');
    expect(text).toContain('### p/n1\n\n`failed: FAILED (exit 3)` (1 attempt)');
    expect(text).toContain('The end of its log (/w/p/n1/log):\n\n```\nTraceback: the model diverged\n```');
  });

  it('an empty log says so and where it is, and times from two clocks never make a negative wall time', () => {
    // The task failed at once: the cluster's clock put its start and end a little before this
    // machine's clock put its submission.
    const state = stateWith({
      'p/n1': {
        status: 'failed',
        reason: 'failed: exit 1',
        attempts: [
          {
            n: 1,
            submittedAt: '2026-01-01T00:00:00.500Z',
            startedAt: '2026-01-01T00:00:00.250Z',
            endedAt: '2026-01-01T00:00:00.380Z',
            class: 'failed',
            exitCode: 1,
          },
        ],
      },
    });
    const text = renderSummary({ plan, state, tails: new Map([['p/n1', { text: '\n', path: '/w/logs/0.log' }]]) });
    expect(text).toContain('Its log is empty (/w/logs/0.log): the task printed nothing before it ended.');
    expect(text).not.toContain('```');
    expect(text).not.toMatch(/-\d/);
    expect(text).toMatch(/^\| p \| .* \| 0\.13s \|/m);
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
      tails: new Map([['p/n1', { text: tail }]]),
    });
    // The fence is longer than any run of backticks in the log, so nothing in it closes the block.
    expect(text).toContain(`\`\`\`\`\`\n${tail}\n\`\`\`\`\``);
    expect(text).toMatch(/^\| p \| failed: `x \\\| y z` \| 5 \|/m);
  });
});
