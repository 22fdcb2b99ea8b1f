/**
 * What made a result (DESIGN rule 11): one record per completed output, written beside it as a
 * hidden sidecar `.<name>.provenance.json` in the output's directory (hidden, so that a glob over
 * the results never takes it for one; beside the output, so that it travels with it), and
 * gathered from the state into the campaign's `provenance.jsonl` index for the summary.
 */
import { posix } from 'node:path';
import { z } from 'zod';
import type { TaskSpec } from '../manifest/expand.js';
import { codeDigest, underPaths } from '../plan/code.js';
import type { Plan } from '../plan/plan.js';
import { placement } from './placement.js';
import { continuations } from './continuation.js';
import { definitionOf, type Attempt, type CampaignState } from './state.js';

export const PROVENANCE_VERSION = 1;

export const provenanceSchema = z.object({
  provenance: z.literal(PROVENANCE_VERSION),
  campaign: z.string(),
  phase: z.string(),
  task: z.string(),
  stage: z.enum(['smoke', 'full']),
  values: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  output: z.string(),
  /** The digest of the definition the attempt ran under. */
  definition: z.string().nullable(),
  /** Later definitions the result was kept for by the user's choice, with what had changed. */
  kept: z.array(z.object({ definition: z.string(), at: z.string(), changed: z.array(z.string()) })),
  attempt: z.number().int(),
  /** The executor's handle: a Slurm job and array index (`1234_5`), or a process (`pid:…`). */
  handle: z.string().nullable(),
  node: z.string().nullable(),
  gpus: z.array(z.string()),
  log: z.string().nullable(),
  submitted: z.string(),
  started: z.string().nullable(),
  ended: z.string().nullable(),
  exit_status: z.number().int().nullable(),
  /** Where the cluster granted less than asked, adapted to (DESIGN rule 9). */
  adapted: z.array(z.string()),
  /** The manifest's git commit when the attempt was sent, where it was in a git checkout. */
  commit: z.string().nullable(),
  /** The code it ran, where the manifest declares code (plan/code.ts); absent in records from before. */
  code: z
    .object({
      /** The snapshot's id: its folder is `<workdir>/.campaign/code/<id>/`. */
      snapshot: z.string(),
      /** The digest of the files under the phase's code paths: a part of the task's definition. */
      digest: z.string().nullable(),
      /** The repository's commit the snapshot was taken at. */
      commit: z.string().nullable(),
      /** The phase's code files whose content differed from that commit (uncommitted edits). */
      dirty: z.array(z.string()),
    })
    .nullable()
    .optional(),
  /**
   * Where the task was continued from a checkpoint: how each attempt before ended and what each
   * continuation did, as their records show it (state/continuation.ts); absent in records from before.
   */
  continued: z.array(z.string()).optional(),
});
export type Provenance = z.infer<typeof provenanceSchema>;

/** Where the record of an output lives: beside it, hidden. */
export function provenancePath(output: string): string {
  const norm = posix.normalize(output).replace(/\/+$/, '');
  return posix.join(posix.dirname(norm), `.${posix.basename(norm)}.provenance.json`);
}

/** The code of a record, as the attempt ran it: null where the manifest declared none. */
export type ProvenanceCode = Provenance['code'];

/**
 * What the state knows of the code each attempt ran, for the records of a plan's phases: the
 * phase's digest over the snapshot it ran, computed once per snapshot and phase.
 */
export function codeOfAttempts(plan: Plan, state: CampaignState): (task: TaskSpec, attempt: Attempt) => ProvenanceCode {
  const made = new Map<string, ProvenanceCode>();
  return (task, attempt) => {
    if (attempt.code === undefined) return null;
    const key = `${attempt.code}\u0000${task.phase}`;
    let code = made.get(key);
    if (code === undefined) {
      const snapshot = state.code?.[attempt.code];
      const paths = plan.phases.find((p) => p.name === task.phase)?.code?.paths;
      code = {
        snapshot: attempt.code,
        digest: snapshot && paths ? codeDigest(snapshot.files, paths) : null,
        commit: snapshot?.commit ?? null,
        dirty: snapshot && paths ? snapshot.dirty.filter((f) => underPaths(f, paths)) : [],
      };
      made.set(key, code);
    }
    return code;
  };
}

export function provenanceRecord(
  campaign: string,
  task: TaskSpec,
  attempt: Attempt,
  code: ProvenanceCode = null,
  /** The task's attempts, this one among them: what continued from a checkpoint says so. */
  attempts: readonly Attempt[] = [attempt],
): Provenance {
  const continued = continuations(attempts, attempts.indexOf(attempt));
  return {
    provenance: PROVENANCE_VERSION,
    campaign,
    phase: task.phase,
    task: task.id,
    stage: task.stage,
    values: { ...task.values },
    output: task.output ?? '',
    definition: attempt.definition ?? null,
    kept: (attempt.kept ?? []).map(({ definition, at, changed }) => ({ definition, at, changed })),
    attempt: attempt.n,
    handle: attempt.handle ?? null,
    node: attempt.node ?? null,
    gpus: attempt.gpus ?? [],
    log: attempt.log ?? null,
    submitted: attempt.submittedAt,
    started: attempt.startedAt ?? null,
    ended: attempt.endedAt ?? null,
    exit_status: attempt.exitCode ?? null,
    adapted: attempt.adapted ?? [],
    commit: attempt.commit ?? null,
    code,
    ...(continued.length > 0 ? { continued } : {}),
  };
}

/** The sidecar files of these tasks' completed attempts, ready to be written in the workdir. */
export function provenanceFiles(
  plan: Plan,
  state: CampaignState,
  taskIds: Iterable<string>,
): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const codeOf = codeOfAttempts(plan, state);
  for (const id of taskIds) {
    const spec = placement(plan, id)?.spec;
    const last = state.tasks[id]?.attempts.at(-1);
    if (!spec?.output || last?.class !== 'completed') continue;
    out.push({
      path: provenancePath(spec.output),
      text:
        JSON.stringify(
          provenanceRecord(plan.campaign, spec, last, codeOf(spec, last), state.tasks[id]!.attempts),
          null,
          2,
        ) + '\n',
    });
  }
  return out;
}

/**
 * Every completed result of the plan's tasks, one JSON line each with its newline: the campaign's
 * provenance index. Given line by line, to be written in pieces: at a million tasks the index is
 * 500 MB, about the longest string V8 makes.
 */
export function* provenanceIndex(plan: Plan, state: CampaignState): Generator<string> {
  const codeOf = codeOfAttempts(plan, state);
  const line = (spec: TaskSpec): string | undefined => {
    const last = state.tasks[spec.id]?.attempts.at(-1);
    if (!spec.output || last?.class !== 'completed' || definitionOf(last) !== spec.definition) return undefined;
    const attempts = state.tasks[spec.id]!.attempts;
    return JSON.stringify(provenanceRecord(plan.campaign, spec, last, codeOf(spec, last), attempts)) + '\n';
  };
  for (const phase of plan.phases) {
    // A smoke task of full runs is a full task itself: its line is written once, in its smoke place.
    const smoke = new Set(phase.smoke.map((t) => t.id));
    for (const t of phase.smoke) {
      const text = line(t);
      if (text !== undefined) yield text;
    }
    for (const t of phase.tasks) {
      const text = smoke.has(t.id) ? undefined : line(t);
      if (text !== undefined) yield text;
    }
  }
}
