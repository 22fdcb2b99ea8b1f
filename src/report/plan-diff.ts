/**
 * A plan against the plan of the branch a pull request merges into: which tasks it adds,
 * removes and runs again because their definition changed (and which part of it), and what the
 * walltime and GPU-hours were and become, per phase and in all. Rendered as the Markdown of one
 * pull-request comment, found again by its hidden marker line, so it is updated, never repeated.
 */
import type { TaskSpec } from '../manifest/expand.js';
import { changedParts } from '../plan/definition.js';
import type { PhasePlan, Plan } from '../plan/plan.js';
import { codeBlock, tableCell } from './markdown.js';

/** What a plan's phase costs: its tasks, their walltimes summed, their GPU-hours (smoke stages included). */
export interface PlanCost {
  tasks: number;
  walltimeHours: number;
  gpuHours: number;
}

export interface PhaseDiff {
  phase: string;
  /** Task ids only the head plan has. */
  added: string[];
  /** Task ids only the base plan has. */
  removed: string[];
  /** Task ids in both whose definition differs: they run again. */
  changed: string[];
  unchanged: number;
  /** The parts of the definition that changed (command, upstream results, …), in the definition's order. */
  parts: string[];
  /** Undefined where the phase is not in that plan. */
  before?: PlanCost;
  after?: PlanCost;
}

export interface PlanDiff {
  campaign: string;
  /** The head plan's phases in its order, then those only the base had. */
  phases: PhaseDiff[];
  /** Undefined where there is no base plan (a manifest new in the pull request). */
  before?: PlanCost;
  after: PlanCost;
}

/** A phase's tasks, each once: a full-run smoke task is a full task itself (its stage says so). */
function tasksOf(phase: PhasePlan): TaskSpec[] {
  return [...phase.tasks, ...phase.smoke.filter((t) => t.stage === 'smoke')];
}

function costOf(phase: PhasePlan): PlanCost {
  return {
    tasks: phase.tasks.length + phase.smoke.filter((t) => t.stage === 'smoke').length,
    walltimeHours: phase.arrays.reduce((h, a) => h + (a.budget.seconds * a.tasks.length) / 3600, 0),
    gpuHours: phase.gpuHours + phase.smokeGpuHours,
  };
}

const sum = (costs: readonly PlanCost[]): PlanCost => ({
  tasks: costs.reduce((n, planCost) => n + planCost.tasks, 0),
  walltimeHours: costs.reduce((n, planCost) => n + planCost.walltimeHours, 0),
  gpuHours: costs.reduce((n, planCost) => n + planCost.gpuHours, 0),
});

/** `base` is undefined where the manifest is new: every task is added. */
export function diffPlans(base: Plan | undefined, head: Plan): PlanDiff {
  const baseByName = new Map((base?.phases ?? []).map((p) => [p.name, p]));
  const headNames = new Set(head.phases.map((p) => p.name));
  const phases: PhaseDiff[] = head.phases.map((h) => {
    const b = baseByName.get(h.name);
    const d: PhaseDiff = {
      phase: h.name,
      added: [],
      removed: [],
      changed: [],
      unchanged: 0,
      parts: [],
      after: costOf(h),
    };
    if (b) d.before = costOf(b);
    const was = new Map((b ? tasksOf(b) : []).map((t) => [t.id, t]));
    const stages = new Set<TaskSpec['stage']>();
    for (const t of tasksOf(h)) {
      const old = was.get(t.id);
      if (old === undefined) d.added.push(t.id);
      else if (old.definition === t.definition) d.unchanged++;
      else {
        d.changed.push(t.id);
        stages.add(t.stage);
      }
      was.delete(t.id);
    }
    d.removed = [...was.keys()];
    // The parts are the stage definitions' (a phase's templates), which name what changed for all its tasks.
    const parts = new Set<string>();
    for (const stage of stages)
      for (const p of changedParts(b!.definitions[stage].parts, h.definitions[stage].parts)) parts.add(p);
    d.parts = [...parts];
    return d;
  });
  for (const b of base?.phases ?? []) {
    if (headNames.has(b.name)) continue;
    phases.push({
      phase: b.name,
      added: [],
      removed: tasksOf(b).map((t) => t.id),
      changed: [],
      unchanged: 0,
      parts: [],
      before: costOf(b),
    });
  }
  return {
    campaign: head.campaign,
    phases,
    ...(base === undefined ? {} : { before: sum(base.phases.map(costOf)) }),
    after: sum(head.phases.map(costOf)),
  };
}

/** True when the pull request changes nothing of what runs or what it costs. */
export function unchangedPlan(d: PlanDiff): boolean {
  return (
    d.before !== undefined &&
    d.phases.every((p) => p.added.length + p.removed.length + p.changed.length === 0) &&
    d.before.walltimeHours === d.after.walltimeHours &&
    d.before.gpuHours === d.after.gpuHours
  );
}

/** GitHub refuses an issue comment longer than this (characters). */
export const COMMENT_LIMIT = 65_536;

/** The hidden first line the comment of a campaign is found by. Campaign names hold no `>` (schema NAME). */
export const commentMarker = (campaign: string): string => `<!-- campaign-plan: ${campaign} -->`;

export interface CommentOptions {
  /** The manifest's path in the repository. */
  file: string;
  /** Why one side has no plan: the manifest is new or deleted in the pull request, or its base does not load. */
  missing?: 'new' | 'deleted' | 'base does not load';
  /** The most characters the comment may hold (GitHub's limit unless a test asks for less). */
  limit?: number;
}

const MISSING: Record<NonNullable<CommentOptions['missing']>, string> = {
  new: 'is new in this pull request: every task is counted as added',
  deleted: 'is deleted in this pull request: every task is counted as removed',
  'base does not load': 'does not load at the base commit: every task is counted as added',
};

/** Inline code no backtick in the text can end (CommonMark: a longer run of backticks, padded). */
function code(text: string): string {
  const flat = text.replace(/\r?\n|\r/g, ' ');
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${longest > 0 ? ` ${flat} ` : flat}${fence}`;
}

const hours = (h: number): string => h.toFixed(1);

/** `12.0 → 14.5 (+2.5)`, `12.0`, or `- → 3.0` where a side has none. */
function beforeAfter(before: number | undefined, after: number | undefined): string {
  if (before === undefined) return after === undefined ? '-' : `- → ${hours(after)}`;
  if (after === undefined) return `${hours(before)} → -`;
  const delta = after - before;
  if (Math.abs(delta) < 0.05) return hours(after);
  return `${hours(before)} → ${hours(after)} (${delta > 0 ? '+' : ''}${hours(delta)})`;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/**
 * The comment's Markdown, at most `limit` characters: the lists of tasks are cut first, each
 * saying how many it left out. Manifest values (task tags, the file) are only ever code.
 */
export function renderPlanComment(d: PlanDiff, o: CommentOptions): string {
  const limit = o.limit ?? COMMENT_LIMIT;
  const total = (k: 'added' | 'removed' | 'changed'): number => d.phases.reduce((n, p) => n + p[k].length, 0);
  const unchanged = d.phases.reduce((n, p) => n + p.unchanged, 0);
  const head = [commentMarker(d.campaign), `### campaign plan: ${code(d.campaign)} (${code(o.file)})`, ''];
  if (o.missing !== undefined) head.push(`${code(o.file)} ${MISSING[o.missing]}.`, '');
  if (unchangedPlan(d)) {
    head.push(
      `This pull request changes nothing of the plan: ${plural(d.after.tasks, 'task')}, ${hours(d.after.gpuHours)} GPU-hours.`,
    );
    return cut(head.join('\n') + '\n', limit);
  }
  head.push(
    `**${total('added')} added, ${total('removed')} removed, ${total('changed')} run again** ` +
      `(their definition changed), ${unchanged} unchanged. ` +
      `GPU-hours ${beforeAfter(d.before?.gpuHours, d.after.gpuHours)}; ` +
      `walltime ${beforeAfter(d.before?.walltimeHours, d.after.walltimeHours)} task-hours (budgeted: an upper bound).`,
    '',
    '| phase | added | removed | run again | unchanged | what changed | walltime (task-hours) | GPU-hours |',
    '| --- | ---: | ---: | ---: | ---: | --- | --- | --- |',
  );
  const rows = d.phases.map(
    (p) =>
      `| ${code(p.phase)} | ${p.added.length} | ${p.removed.length} | ${p.changed.length} | ${p.unchanged} | ` +
      `${tableCell(p.parts.join(', ') || '-')} | ${beforeAfter(p.before?.walltimeHours, p.after?.walltimeHours)} | ` +
      `${beforeAfter(p.before?.gpuHours, p.after?.gpuHours)} |`,
  );
  const totalRow =
    `| **all** | ${total('added')} | ${total('removed')} | ${total('changed')} | ${unchanged} | | ` +
    `${beforeAfter(d.before?.walltimeHours, d.after.walltimeHours)} | ${beforeAfter(d.before?.gpuHours, d.after.gpuHours)} |`;
  const foot = '\n<sub>Updated by the campaign action on each push to this pull request.</sub>\n';
  // What stays whole: the heading, the totals and the foot; phase rows and task lists fill the rest.
  let budget = limit - head.join('\n').length - totalRow.length - foot.length - 200;
  const body: string[] = [];
  let shownRows = 0;
  for (const r of rows) {
    if (r.length + 1 > budget) break;
    body.push(r);
    budget -= r.length + 1;
    shownRows++;
  }
  body.push(totalRow);
  if (shownRows < rows.length)
    body.push('', `… and ${plural(rows.length - shownRows, 'phase')} more, cut to fit GitHub's comment limit.`);
  const lists: [string, (p: PhaseDiff) => string[]][] = [
    ['run again', (p) => p.changed],
    ['added', (p) => p.added],
    ['removed', (p) => p.removed],
  ];
  let full = false;
  for (const [what, ids] of lists) {
    for (const p of d.phases) {
      const all = ids(p);
      if (all.length === 0 || full) continue;
      const open = `\n<details><summary><code>${p.phase}</code>: ${plural(all.length, 'task')} ${what}</summary>\n`;
      const close = '</details>';
      budget -= open.length + close.length + 80;
      if (budget <= 0) {
        full = true;
        body.push('', "… the other lists of tasks are left out, to fit GitHub's comment limit.");
        continue;
      }
      const shown: string[] = [];
      let fence = 3;
      for (const id of all) {
        const line = id.replace(/\r?\n|\r/g, ' ');
        const run = Math.max(0, ...[...line.matchAll(/`+/g)].map((m) => m[0].length));
        // The fence grows past the longest run of backticks: both of its lines count.
        const grown = Math.max(fence, run + 1);
        if (line.length + 1 + 2 * (grown - fence) + 2 * (fence + 1) > budget) break;
        budget -= line.length + 1 + 2 * (grown - fence);
        fence = grown;
        shown.push(line);
      }
      budget -= 2 * (fence + 1);
      const left = all.length - shown.length;
      body.push(open, ...codeBlock(shown.join('\n')));
      if (left > 0) body.push(`… and ${left} more, cut to fit GitHub's comment limit.`);
      body.push(close);
    }
  }
  return cut([...head, ...body].join('\n') + '\n' + foot, limit);
}

/** The last guard of the limit; the budget above keeps a comment well inside it. */
function cut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  throw new Error(`the plan comment is ${text.length} characters, over its limit of ${limit}`);
}
