/**
 * What the live display of `campaign run` says (cli/progress.ts draws it): a line per phase,
 * and the time elapsed with an estimate of the time left from the cost model.
 */
import { formatDuration } from '../manifest/units.js';
import type { Plan } from '../plan/plan.js';
import { expectedSeconds } from '../decide/poll.js';
import { phaseCounts } from '../state/phase-counts.js';
import { ACTIVE, TERMINAL, type CampaignState } from '../state/state.js';
import { progressLine } from './summary.js';
import { terminalText } from './terminal.js';

export class ProgressText {
  /** Expected seconds of each task whose phase has a cost model. */
  private readonly expected: ReadonlyMap<string, number>;

  constructor(private readonly plan: Plan) {
    this.expected = expectedSeconds(plan);
  }

  /** A line per phase, in the plan's order. */
  phaseLines(state: CampaignState): string[] {
    // A phase's reason may quote a task: its control characters go before lines are cut to fit.
    return phaseCounts(this.plan, state).map((counts) => terminalText(progressLine(counts)));
  }

  /**
   * The time elapsed (`elapsed` seconds), and the time left from the cost model: the expected seconds of the
   * unfinished tasks that have one, shared among the tasks running now.
   */
  clockLine(state: CampaignState, elapsed: number): string {
    let left = 0;
    let running = 0;
    let unknown = 0;
    // Each list in turn: a copy of both, made on every redraw, was one array of every task.
    for (const phase of this.plan.phases)
      for (const tasks of [phase.smoke, phase.tasks])
        for (const task of tasks) {
          const status = state.tasks[task.id]?.status;
          if (status !== undefined && TERMINAL.has(status)) continue;
          const seconds = this.expected.get(task.id);
          if (seconds === undefined) unknown++;
          else left += seconds;
          if (status !== undefined && ACTIVE.has(status)) running++;
        }
    const without = unknown === 0 ? '' : ` (and ${unknown} task${unknown === 1 ? '' : 's'} without a cost model)`;
    const estimate =
      left === 0 ? '' : `, about ${formatDuration(Math.ceil(left / Math.max(1, running)))} left${without}`;
    return `elapsed ${formatDuration(elapsed)}${estimate}`;
  }
}
