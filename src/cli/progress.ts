/**
 * Live progress of `campaign run`. On a terminal it is redrawn in place: the time elapsed, an
 * estimate of the time left from the cost model, and one line per phase, each cut to the
 * terminal's width (a line that wraps would garble the next redraw). Without a terminal, or
 * with TERM=dumb, it writes a plain line whenever a phase's line changes.
 */
import { formatDuration } from '../manifest/units.js';
import type { Plan } from '../plan/plan.js';
import { ACTIVE, TERMINAL, type CampaignState } from '../state/state.js';
import { expectedSeconds } from '../decide/poll.js';
import { progressLine } from '../report/summary.js';
import { phaseCounts } from '../state/phase-counts.js';
import { terminalText } from '../report/terminal.js';
import { rawWrite } from '../exec/terminal.js';

/** What the display writes to: a stream, and whether it is a terminal of how many columns. */
export interface ProgressOut {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

export class Progress {
  private drawn = 0;
  private last = new Map<string, string>();
  private readonly started: number;
  /** Expected seconds of each task whose phase has a cost model. */
  private readonly expected: ReadonlyMap<string, number>;

  constructor(
    private readonly out: ProgressOut,
    private readonly plan: Plan,
    private readonly opts: { now?: () => number; term?: string } = {},
  ) {
    this.started = this.now();
    this.expected = expectedSeconds(plan);
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  update(state: CampaignState): void {
    // A phase's reason may quote a task: its control characters go before lines are cut to fit.
    const lines = phaseCounts(this.plan, state).map((c) => terminalText(progressLine(c)));
    const term = 'term' in this.opts ? this.opts.term : process.env.TERM;
    if (this.out.isTTY && term !== 'dumb') {
      const width = Math.max(1, (this.out.columns ?? 80) - 1);
      const shown = [this.clockLine(state), ...lines].map((l) => fit(l, width));
      // The display's own escapes: up to its first line, and each line erased before it is drawn.
      if (this.drawn > 0) rawWrite(this.out, `\x1b[${this.drawn}A`);
      for (const l of shown) rawWrite(this.out, `\x1b[2K${l}\n`);
      this.drawn = shown.length;
      return;
    }
    for (const [i, l] of lines.entries()) {
      const phase = this.plan.phases[i]!.name;
      if (this.last.get(phase) !== l) this.out.write(`[campaign ${formatDuration(this.elapsed())}] ${l}\n`);
      this.last.set(phase, l);
    }
  }

  private elapsed(): number {
    return Math.round((this.now() - this.started) / 1000);
  }

  /**
   * The time elapsed, and the time left from the cost model: the expected seconds of the
   * unfinished tasks that have one, shared among the tasks running now.
   */
  private clockLine(state: CampaignState): string {
    let left = 0;
    let running = 0;
    let unknown = 0;
    for (const phase of this.plan.phases)
      for (const task of [...phase.smoke, ...phase.tasks]) {
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
    return `elapsed ${formatDuration(this.elapsed())}${estimate}`;
  }
}

/** `line` cut to `width` characters (code points), an ellipsis marking the cut. */
export function fit(line: string, width: number): string {
  const chars = Array.from(line);
  return chars.length <= width ? line : `${chars.slice(0, width - 1).join('')}…`;
}
