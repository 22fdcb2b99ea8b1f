/**
 * Live progress of `campaign run`. On a terminal it is redrawn in place: the time elapsed, an
 * estimate of the time left from the cost model, and one line per phase, each cut to the
 * terminal's width (a line that wraps would garble the next redraw). Without a terminal, or
 * with TERM=dumb, it writes a plain line whenever a phase's line changes.
 */
import { formatDuration } from '../manifest/units.js';
import type { Plan } from '../plan/plan.js';
import type { CampaignState } from '../state/state.js';
import { ProgressText } from '../report/progress.js';
import { rawWrite } from '../app/terminal.js';

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
  private readonly text: ProgressText;

  constructor(
    private readonly out: ProgressOut,
    private readonly plan: Plan,
    private readonly opts: { now?: () => number; term?: string } = {},
  ) {
    this.started = this.now();
    this.text = new ProgressText(plan);
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  update(state: CampaignState): void {
    const lines = this.text.phaseLines(state);
    const term = 'term' in this.opts ? this.opts.term : process.env.TERM;
    if (this.out.isTTY && term !== 'dumb') {
      const width = Math.max(1, (this.out.columns ?? 80) - 1);
      const shown = [this.text.clockLine(state, this.elapsed()), ...lines].map((l) => fit(l, width));
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
}

/** `line` cut to `width` characters (code points), an ellipsis marking the cut. */
export function fit(line: string, width: number): string {
  const chars = Array.from(line);
  return chars.length <= width ? line : `${chars.slice(0, width - 1).join('')}…`;
}
