/** Live progress per phase: redrawn in place on a terminal, one line per change otherwise. */
import type { Plan } from '../plan/plan.js';
import type { CampaignState } from '../queue/state.js';
import { phaseCounts, progressLine } from '../queue/summary.js';

export class Progress {
  private drawn = 0;
  private last = new Map<string, string>();

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly plan: Plan,
  ) {}

  update(state: CampaignState): void {
    const lines = phaseCounts(this.plan, state).map(progressLine);
    if (this.out.isTTY) {
      if (this.drawn > 0) this.out.write(`\x1b[${this.drawn}A`);
      for (const l of lines) this.out.write(`\x1b[2K${l}\n`);
      this.drawn = lines.length;
      return;
    }
    for (const [i, l] of lines.entries()) {
      const phase = this.plan.phases[i]!.name;
      if (this.last.get(phase) !== l) this.out.write(`[campaign] ${l}\n`);
      this.last.set(phase, l);
    }
  }
}
