/** The campaign's tracked state: every task and every attempt, and what each phase decided. */
import { z } from 'zod';
import { JOB_STAGES } from '../manifest/expand.js';
import { codeSnapshotSchema } from '../plan/code.js';

export const FAILURE_CLASSES = [
  'failed',
  'timeout',
  'out_of_memory',
  'node_fail',
  'preempted',
  'gate',
  'unverified',
  'lost',
  'cancelled',
  'disk_full',
  'unschedulable',
  'shortfall',
] as const;
export const failureClass = z.enum(FAILURE_CLASSES);
export type FailureClass = z.infer<typeof failureClass>;

/** How an attempt ended, as judge/attempt-end.ts classes it: its class, and why where there is more to say. */
export interface EndClass {
  cls: 'completed' | FailureClass;
  reason?: string;
}

export const attemptSchema = z.object({
  n: z.number().int().positive(),
  /** Taken before launch: outputs older than this are not this attempt's. */
  submittedAt: z.string(),
  handle: z.string().optional(),
  startedAt: z.string().optional(),
  endedAt: z.string().optional(),
  exitCode: z.number().int().optional(),
  class: z.union([z.literal('completed'), failureClass]).optional(),
  reason: z.string().optional(),
  memBytes: z.number().optional(),
  log: z.string().optional(),
  /** The node it ran on, where the executor knows it. */
  node: z.string().optional(),
  /** The GPUs (UUIDs) it ran on, where the executor chose them. */
  gpus: z.array(z.string()).optional(),
  /** The walltime it was submitted with, in seconds. */
  walltimeSeconds: z.number().optional(),
  /** Where the scheduler granted less than asked (time, GPUs, partition), in plain words. */
  adapted: z.array(z.string()).optional(),
  /** It continued from the checkpoint of the attempt before (sent with CAMPAIGN_RESUME=1). */
  resumed: z.boolean().optional(),
  /** How its walltime was chosen where it is not the plan's (a continuation's remaining work, a grown retry). */
  retimed: z.string().optional(),
  /**
   * The units its log's first progress line said, in a checkpointing phase whose progress lines
   * carry them: past the first attempt's, a continuation started from a checkpoint.
   */
  unitsFrom: z.number().optional(),
  /**
   * It never started: the element it was packed in ended before its turn. Recorded (as
   * `cancelled`) so that its number is never sent again, but no retry is counted for it.
   */
  unstarted: z.literal(true).optional(),
  /** The digest of the task's definition it ran under (plan/definition.ts). */
  definition: z.string().optional(),
  /** Its stage's definition (an id of the state's `definitions`): which parts a later change touched. */
  stageDefinition: z.string().optional(),
  /** Later definitions its result was kept for by the user's choice (`run --keep-changed`), oldest first. */
  kept: z
    .array(
      z.object({
        definition: z.string(),
        stageDefinition: z.string(),
        at: z.string(),
        changed: z.array(z.string()),
      }),
    )
    .optional(),
  /** The git commit of the manifest when the attempt was sent, where it is in a git checkout. */
  commit: z.string().optional(),
  /** The code snapshot it ran (plan/code.ts), where the manifest declares code. */
  code: z.string().optional(),
});
export type Attempt = z.infer<typeof attemptSchema>;

export const TASK_STATUSES = [
  'pending',
  'submitted',
  'running',
  'completed',
  'failed',
  'retrying',
  'blocked',
  'stuck',
] as const;
export const taskStatus = z.enum(TASK_STATUSES);
export type TaskStatus = z.infer<typeof taskStatus>;

export const taskStateSchema = z.object({
  status: taskStatus,
  attempts: z.array(attemptSchema),
  /** For a retry: not before this time. */
  notBefore: z.string().optional(),
  /** Memory for the next attempt after an out-of-memory failure. */
  nextMemBytes: z.number().optional(),
  /** The walltime of the next attempt after a timeout or preemption, with how it was chosen. */
  nextWalltime: z.object({ seconds: z.number(), partition: z.string().optional(), why: z.string() }).optional(),
  /** The next attempt continues from the task's checkpoint. */
  resume: z.boolean().optional(),
  reason: z.string().optional(),
  /** Why a submitted task is not running yet, in plain words. */
  waiting: z.string().optional(),
  /** Attempts up to this number were before a `--retry-failed` reset: retries count after it. */
  retryFrom: z.number().int().optional(),
});
export type TaskState = z.infer<typeof taskStateSchema>;

export const checkResultSchema = z.object({
  check: z.string(),
  passed: z.boolean(),
  detail: z.string(),
  otherwise: z.string().optional(),
});
export type CheckResult = z.infer<typeof checkResultSchema>;

export const PHASE_STATUSES = ['waiting', 'smoke', 'gate', 'full', 'completed', 'failed', 'blocked'] as const;
export type PhaseStatus = (typeof PHASE_STATUSES)[number];

export const phaseStateSchema = z.object({
  status: z.enum(PHASE_STATUSES),
  reason: z.string().optional(),
  gate: z
    .object({
      passed: z.boolean(),
      at: z.string(),
      results: z.array(checkResultSchema),
      /** The checklist it was judged by (checklistKey); absent in states from before it was kept. */
      checklist: z.string().optional(),
      /** The definitions of the smoke tasks it judged (definitionsDigest): it holds for those only. */
      definitions: z.string().optional(),
    })
    .optional(),
  preconditions: z.object({ at: z.string(), missing: z.array(z.string()) }).optional(),
});
export type PhaseState = z.infer<typeof phaseStateSchema>;

export const STATE_VERSION = 1;

export const campaignStateSchema = z.object({
  version: z.literal(STATE_VERSION),
  campaign: z.string(),
  created: z.string(),
  updated: z.string(),
  /**
   * The campaign's generation this state follows, as the workdir records it (decide/generation.ts);
   * absent in a state that has not run since generations were recorded.
   */
  generation: z.string().optional(),
  phases: z.record(z.string(), phaseStateSchema),
  tasks: z.record(z.string(), taskStateSchema),
  /** Stage definitions attempts ran under, by id: each part's hash (plan/definition.ts). */
  definitions: z.record(z.string(), z.record(z.string(), z.string())).optional(),
  /** The code snapshots attempts ran, by id (plan/code.ts): which files a later change touched. */
  code: z.record(z.string(), codeSnapshotSchema).optional(),
  /**
   * The scopes whose jobs ended with tasks still out and nothing due for a while (parked), for
   * a scheduled resume to drive; `since`: the last change they saw.
   */
  parked: z
    .object({
      scopes: z.array(z.object({ phase: z.string().optional(), stage: z.enum(JOB_STAGES) })),
      since: z.string(),
    })
    .optional(),
});
export type CampaignState = z.infer<typeof campaignStateSchema>;

export function emptyState(campaign: string, now: string): CampaignState {
  return { version: STATE_VERSION, campaign, created: now, updated: now, phases: {}, tasks: {} };
}

/** The definition a task's attempt counts for now: the last it was kept for, else the one it ran under. */
export function definitionOf(a: Attempt): string | undefined {
  return a.kept?.at(-1)?.definition ?? a.definition;
}

/** Its stage definition, likewise. */
export function stageDefinitionOf(a: Attempt): string | undefined {
  return a.kept?.at(-1)?.stageDefinition ?? a.stageDefinition;
}

export const ACTIVE: ReadonlySet<TaskStatus> = new Set(['submitted', 'running']);
export const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'blocked', 'stuck']);
