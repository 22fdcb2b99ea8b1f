/**
 * `campaign run --format json`: the run as one JSON object per line (NDJSON) on stdout, for a
 * program to follow. A `start` event, then after each pass a `task` event for each task whose
 * status or attempt changed and a `phase` event for each phase whose counts changed, then an
 * `end` event with the counts, the stopped tasks and where the summary is.
 */
import type { Plan } from '../plan/plan.js';
import { progressLine } from './summary.js';
import { phaseCounts, type PhaseCounts } from '../state/phase-counts.js';
import type { CampaignState } from '../state/state.js';

export type RunEvent =
  | { event: 'start'; time: string; campaign: string; phases: string[]; tasks: number }
  | {
      event: 'task';
      time: string;
      task: string;
      phase: string;
      stage: 'smoke' | 'full';
      status: string;
      attempt: number;
      reason?: string;
    }
  | ({ event: 'phase'; time: string } & PhaseCounts)
  | {
      event: 'end';
      time: string;
      complete: boolean;
      summary: string;
      phases: PhaseCounts[];
      stopped: { id: string; status: string; reason?: string }[];
    };

export class RunEvents {
  private readonly tasks: ReadonlyMap<string, { phase: string; stage: 'smoke' | 'full' }>;
  private readonly seen = new Map<string, string>();
  private readonly phases = new Map<string, string>();

  constructor(
    private readonly plan: Plan,
    private readonly emit: (e: RunEvent) => void,
    private readonly now: () => string = () => new Date().toISOString(),
  ) {
    const tasks = new Map<string, { phase: string; stage: 'smoke' | 'full' }>();
    for (const p of plan.phases) {
      for (const t of p.smoke) tasks.set(t.id, { phase: p.name, stage: 'smoke' });
      for (const t of p.tasks) tasks.set(t.id, { phase: p.name, stage: 'full' });
    }
    this.tasks = tasks;
  }

  /** The start, with what the state already holds (a resumed run's tasks are not news). */
  start(state: CampaignState): void {
    this.emit({
      event: 'start',
      time: this.now(),
      campaign: this.plan.campaign,
      phases: this.plan.phases.map((p) => p.name),
      tasks: this.tasks.size,
    });
    this.update(state);
  }

  update(state: CampaignState): void {
    const time = this.now();
    for (const [id, where] of this.tasks) {
      const task = state.tasks[id];
      if (task === undefined) continue;
      const key = `${task.status} ${task.attempts.length}`;
      if (this.seen.get(id) === key) continue;
      this.seen.set(id, key);
      this.emit({
        event: 'task',
        time,
        task: id,
        ...where,
        status: task.status,
        attempt: task.attempts.length,
        ...(task.reason === undefined ? {} : { reason: task.reason }),
      });
    }
    for (const counts of phaseCounts(this.plan, state)) {
      const line = progressLine(counts);
      if (this.phases.get(counts.phase) === line) continue;
      this.phases.set(counts.phase, line);
      this.emit({ event: 'phase', time, ...counts });
    }
  }

  end(
    record: { complete: boolean; phases: PhaseCounts[]; stopped: { id: string; status: string; reason?: string }[] },
    summary: string,
  ): void {
    const stopped = record.stopped.map(({ id, status, reason }) => ({
      id,
      status,
      ...(reason === undefined ? {} : { reason }),
    }));
    this.emit({ event: 'end', time: this.now(), complete: record.complete, summary, phases: record.phases, stopped });
  }
}
