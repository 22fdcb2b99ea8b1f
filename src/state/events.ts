/** What the adapters observe and report back to the core, and what the core asks them to do. */
import type { TaskSpec } from '../manifest/expand.js';
import type { ArrayPlan } from '../plan/plan.js';
import type { CheckResult, FailureClass } from './state.js';

/** What a sent attempt ran under (added by the controller from its submission). */
export interface Defined {
  definition?: string;
  stageDefinition?: string;
  commit?: string;
  /** The code snapshot it runs (plan/code.ts). */
  code?: string;
}

export type TaskEvent =
  | ({
      type: 'submitted';
      task: string;
      attempt: number;
      at: string;
      handle: string;
      memBytes?: number;
      log?: string;
      /** The walltime it was submitted with, in seconds. */
      walltimeSeconds?: number;
      /** The GPUs (UUIDs) it runs on, where the executor chose them. */
      gpus?: string[];
    } & Defined)
  | ({ type: 'submit_failed'; task: string; attempt: number; at: string; reason: string } & Defined)
  | { type: 'started'; task: string; attempt: number; at: string; node?: string }
  /**
   * A packed task whose element ended before its turn came (a time limit, a cancel, a node
   * lost): it never ran, so it goes back to pending with no retry spent (exec/slurm).
   */
  | { type: 'unstarted'; task: string; attempt: number; at: string; reason: string }
  | { type: 'queued'; task: string; attempt: number; at: string; waiting: string }
  | {
      type: 'finished';
      task: string;
      attempt: number;
      at: string;
      class: 'completed' | FailureClass;
      exitCode?: number;
      reason?: string;
      node?: string;
      /** Where the scheduler granted less than asked, in plain words. */
      adapted?: string[];
      /** When it really started, where the scheduler's records say so better than the first sight of it did. */
      startedAt?: string;
      /** The units of work its log or output says were done, where a checkpointing phase declares its progress. */
      units?: number;
      /** The units its log's first progress line says, where a checkpointing phase's progress lines carry them. */
      unitsFrom?: number;
    };

export type PhaseEvent =
  /** `checklist`: the checklist evaluated, as checklistKey gives it. */
  | {
      type: 'gate';
      phase: string;
      at: string;
      results: CheckResult[];
      checklist: string;
      /** The definitions of the smoke tasks judged (definitionsDigest). */
      definitions: string;
    }
  | { type: 'preconditions'; phase: string; at: string; missing: string[] };

export type CampaignEvent = TaskEvent | PhaseEvent;

export interface Submission {
  task: TaskSpec;
  attempt: number;
  array: ArrayPlan;
  /** Index of the task in its array (the `[campaign] task N -> ...` line). */
  index: number;
  memBytes?: number;
  /** Nodes an earlier attempt failed on: submit elsewhere. */
  avoidNodes?: string[];
  /** The id of the task's stage definition, as the plan gives it (the task's own digest is `task.definition`). */
  stageDefinition?: string;
  /** It continues from the task's checkpoint (CAMPAIGN_RESUME=1); `array.budget` is then its remaining work's. */
  resume?: boolean;
  /** The code snapshot it runs in, where the manifest declares code: queued work keeps it. */
  code?: string;
}

/**
 * The submissions that share one sbatch (exec/slurm sends each such group as one array): one
 * array, one walltime, one memory, one set of nodes to avoid; packed, retries apart from first
 * attempts, so that a retry never shares an element with tasks that succeeded. The room a pass
 * has, counted in jobs, counts a packed group's elements by it (decide/step.ts).
 */
export function submissionGroup(s: Submission): string {
  const retry = s.array.packing !== undefined && s.attempt > 1 ? '\u0000retry' : '';
  return `${s.array.id}\u0000${s.array.budget.seconds}\u0000${s.memBytes ?? ''}\u0000${(s.avoidNodes ?? []).join(',')}${retry}`;
}

/**
 * Attempts still waiting in a scheduler's queue, taken out of it while the campaign is paused:
 * ended as `disk_full` with the reason, their retries not spent.
 */
export interface Hold {
  tasks: { task: string; attempt: number }[];
  reason: string;
}

export type Action =
  | { type: 'submit'; submissions: Submission[] }
  | { type: 'check_preconditions'; phase: string }
  | { type: 'evaluate_gate'; phase: string }
  | ({ type: 'hold' } & Hold);
