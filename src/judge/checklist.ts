/**
 * The smoke stage's trigger checklist, evaluated over facts the adapters collected (logs,
 * output files, check commands). A failed check carries its `otherwise` interpretation.
 */
import { compilePattern } from '../manifest/pattern.js';
import type { TaskSpec } from '../manifest/expand.js';
import type { Check, Manifest, Phase } from '../manifest/schema.js';
import type { CheckResult, TaskState } from '../state/state.js';

export interface OutputFacts {
  exists: boolean;
  /** Written after the attempt was submitted. */
  fresh: boolean;
  /** Where the output really is when a symlink puts it elsewhere (then it is never fresh). */
  linkedTo?: string;
  /** A content digest, to tell distinct outputs from copies. */
  digest?: string;
  /** The text, for `records` (read only when that check is declared). */
  text?: string;
}

export interface SmokeFacts {
  task: TaskSpec;
  state: TaskState;
  log: string;
  output?: OutputFacts;
  /** Exit status of each `command` check, by its index in the checklist. */
  commands: Record<number, { exitCode: number; tail: string }>;
}

/**
 * The checklist as a key to compare: the same checks give the same key, however their fields
 * are ordered in the manifest. A gate keeps the key of the checklist it was judged by.
 */
export function checklistKey(checks: readonly Check[]): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v)
              .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
              .map(([k, x]) => [k, sorted(x)]),
          )
        : v;
  return JSON.stringify(sorted(effectiveChecklist(checks)));
}

/** The checklist as evaluated: `all_completed` is always part of it. */
export function effectiveChecklist(checks: readonly Check[]): Check[] {
  return checks.some((check) => check.check === 'all_completed')
    ? [...checks]
    : [{ check: 'all_completed' }, ...checks];
}

export function evaluateChecklist(checks: readonly Check[], facts: readonly SmokeFacts[]): CheckResult[] {
  // A smoke task refused its output path because another campaign owns it ran nothing: every
  // check it fails says so, not the interpretation written for a program that ran.
  const owners = [...new Set(facts.flatMap((f) => foreignOwner(f.state)?.campaign ?? []))];
  const owned =
    owners.length === 0
      ? undefined
      : `the output paths belong to campaign ${owners.join(', ')}: give this campaign its own workdir (or output paths naming it)`;
  return effectiveChecklist(checks).map((check) => {
    const failures = evaluate(check, facts, checks);
    const otherwise = failures.length > 0 && owned ? owned : check.otherwise;
    return {
      check: check.check,
      passed: failures.length === 0,
      detail:
        failures.length === 0
          ? passDetail(facts)
          : failures.slice(0, 3).join('; ') + (failures.length > 3 ? `; and ${failures.length - 3} more` : ''),
      ...(otherwise ? { otherwise } : {}),
    };
  });
}

/** The output gate's refusal of a path another campaign's task claimed (render/task-script.ts words it). */
const FOREIGN_OUTPUT = /gate output: .* belongs to task (\S+) of campaign (\S+?): /;

/** Who owns the output a task was refused at its output gate, where that is why it failed. */
export function foreignOwner(state: TaskState): { task: string; campaign: string } | undefined {
  const reason = state.attempts.at(-1)?.reason ?? state.reason ?? '';
  const found = FOREIGN_OUTPUT.exec(reason);
  return found ? { task: found[1]!, campaign: found[2]! } : undefined;
}

function passDetail(facts: readonly SmokeFacts[]): string {
  return `${facts.length} smoke task${facts.length === 1 ? '' : 's'} ok`;
}

function evaluate(check: Check, facts: readonly SmokeFacts[], declared: readonly Check[]): string[] {
  const name = (f: SmokeFacts): string => f.task.tag;
  switch (check.check) {
    case 'all_completed':
      return facts
        .filter((f) => f.state.status !== 'completed')
        .map((f) => `${name(f)} ${f.state.status}${f.state.reason ? ` (${f.state.reason})` : ''}`);
    case 'log_contains': {
      const re = compilePattern(check.pattern);
      return facts.filter((f) => !re.test(f.log)).map((f) => `${name(f)}: log has no line matching /${check.pattern}/`);
    }
    case 'output_exists':
      return facts.flatMap((f) => outputProblem(f));
    case 'distinct_outputs': {
      const missing = facts.flatMap((f) => outputProblem(f));
      if (missing.length > 0) return missing;
      if (facts.length < 2) return ['only one smoke task: nothing to compare'];
      const seen = new Map<string, string>();
      const same: string[] = [];
      for (const f of facts) {
        const other = seen.get(f.output!.digest ?? '');
        if (other) same.push(`${other} and ${name(f)} wrote identical outputs`);
        else seen.set(f.output!.digest ?? '', name(f));
      }
      return same;
    }
    case 'records':
      return facts.flatMap((f) => {
        const problem = outputProblem(f);
        if (problem.length > 0) return problem;
        return recordProblems(f.output!.text ?? '', check.count, check.fields ?? []).map((p) => `${name(f)}: ${p}`);
      });
    case 'command': {
      const position = declared.indexOf(check);
      return facts.flatMap((f) => {
        const r = f.commands[position];
        if (!r) return [`${name(f)}: check command did not run`];
        return r.exitCode === 0
          ? []
          : [
              `${name(f)}: \`${check.run}\` exited ${r.exitCode}${r.tail ? `: ${r.tail.trim().split('\n').pop()}` : ''}`,
            ];
      });
    }
  }
}

function outputProblem(f: SmokeFacts): string[] {
  if (f.task.output === undefined) return [`${f.task.tag}: the phase declares no output`];
  const owner = foreignOwner(f.state);
  if (owner)
    return [
      `${f.task.tag}: ${f.task.output} belongs to task ${owner.task} of campaign ${owner.campaign} (it did not run)`,
    ];
  if (!f.output?.exists) return [`${f.task.tag}: ${f.task.output} does not exist`];
  if (f.output.linkedTo) return [`${f.task.tag}: ${f.task.output} is a symlink to ${f.output.linkedTo}`];
  if (!f.output.fresh) return [`${f.task.tag}: ${f.task.output} is older than the attempt (a stale file)`];
  return [];
}

/** Records in a JSON-lines file (or one JSON document): count and fields. */
export function recordProblems(text: string, count: number | undefined, fields: readonly string[]): string[] {
  let records: unknown[];
  try {
    const whole: unknown = JSON.parse(text);
    records = Array.isArray(whole) ? whole : [whole];
  } catch {
    records = [];
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    for (let i = 0; i < lines.length; i++) {
      try {
        records.push(JSON.parse(lines[i]!));
      } catch {
        return [`line ${i + 1} is not JSON${i === lines.length - 1 ? ' (a record cut off mid-write?)' : ''}`];
      }
    }
  }
  const problems: string[] = [];
  if (count !== undefined && records.length !== count) problems.push(`${records.length} records, expected ${count}`);
  for (const [i, r] of records.entries()) {
    const missing = fields.filter((k) => r === null || typeof r !== 'object' || !(k in r));
    if (missing.length > 0) {
      problems.push(`record ${i + 1} lacks ${missing.join(', ')}`);
      break;
    }
  }
  return problems;
}

/** What a full task's output must hold for its completion to count (see fullRecordExpectation). */
export interface RecordExpectation {
  count?: number;
  fields: readonly string[];
}

/** The fields the phase's smoke `records` checks require of every record. */
export function recordedFields(phase: Phase): string[] {
  const checks = phase.smoke?.trigger ?? [];
  return [...new Set(checks.flatMap((check) => (check.check === 'records' ? (check.fields ?? []) : [])))];
}

/**
 * What a full task's output must hold: the fields its phase's smoke `records` checks name, and
 * one record per unit where the cost model counts records (`progress: { records: true }`).
 * Undefined where the phase declares neither. Smoke tasks are judged by their checklist instead.
 */
export function fullRecordExpectation(manifest: Manifest, task: TaskSpec): RecordExpectation | undefined {
  if (task.stage !== 'full' || task.output === undefined) return undefined;
  const phase = manifest.phases.find((p) => p.name === task.phase);
  const fields = phase === undefined ? [] : recordedFields(phase);
  const count = phase?.cost?.progress?.records === true ? task.units : undefined;
  if (fields.length === 0 && count === undefined) return undefined;
  return { fields, ...(count === undefined ? {} : { count }) };
}
