/** Progress lines of the counts per phase, and the markdown summary of a campaign. */
import { formatDuration } from '../manifest/units.js';
import { underPaths } from '../plan/code.js';
import type { Plan, PhasePlan } from '../plan/plan.js';
import { codeBlock, inlineCode, tableCell } from './markdown.js';
import { formatGpuHours, phaseGpuHours } from './gpu-hours.js';
import { ganttChart, resultsCharts } from './mermaid.js';
import { renderResultsSection, type ResultsSection, type ResultsUnavailable } from './results/section.js';
import { continuation } from '../state/continuation.js';
import { retriesOf, type PhaseCounts } from '../state/phase-counts.js';
import { type Attempt, type CampaignState, type TaskState } from '../state/state.js';

export function progressLine(counts: PhaseCounts): string {
  const reason =
    counts.reason && (counts.status === 'blocked' || counts.status === 'failed' || counts.status === 'waiting')
      ? ` (${counts.reason})`
      : '';
  const queued = counts.queued > 0 ? `, ${counts.queued} queued${counts.waiting ? ` (${counts.waiting})` : ''}` : '';
  return `${counts.phase} [${counts.status}${counts.stage === 'smoke' ? ' stage' : ''}] ${counts.done}/${counts.total} done, ${counts.running} running${queued}, ${counts.pending} pending, ${counts.failed} failed${reason}`;
}

/** True when every task of every phase completed. */
export function allCompleted(plan: Plan, state: CampaignState): boolean {
  return plan.phases.every((p) => state.phases[p.name]?.status === 'completed');
}

export interface LogTail {
  text: string;
  path?: string;
}

export interface SummaryInput {
  plan: Plan;
  state: CampaignState;
  /** Log tails of tasks that did not complete, by task id, with where each log is. */
  tails: ReadonlyMap<string, LogTail>;
  /** Pictures written next to the summary (file names relative to it), linked from it. */
  pictures?: readonly { file: string; caption: string }[];
  /** The provenance index written next to the summary (its file name relative to it), linked from it. */
  provenance?: string;
  /** The results of each phase that has them (report/results/section.ts), in phase order. */
  results?: readonly (ResultsSection | ResultsUnavailable)[];
}

/**
 * The summary as a workflow job shows it: its files are in the state artifact, not beside it, so
 * it links none of them (a relative link leads nowhere there); a Mermaid chart stands for the
 * pictures, and the long sections are cut to fit GitHub's size limit.
 */
export interface JobView {
  /** The state artifact the pictures and tables are in, with its page where known. */
  artifact?: { name: string; url?: string };
  /** The time (ISO) that ends the chart's bars of stages still running. */
  now: string;
  /** The bytes the summary may take. */
  bytes: number;
}

/** The most tasks that did not complete, and rows of adaptations, the summary lists. */
const UNFINISHED_SHOWN = 50;
const ADAPTED_SHOWN = 200;
/** A log tail in a job summary: its last characters, so that one log cannot fill the summary. */
const JOB_TAIL_CHARS = 4000;
/** Of the bytes left after the fixed parts, the share the adaptations may take; the failed tasks take the rest. */
const ADAPTED_SHARE = 0.25;
/** Room kept for the lines that say what a cut section left out. */
const CUT_LINES_BYTES = 4096;

const bytesOf = (lines: readonly string[]): number => new TextEncoder().encode(lines.join('\n') + '\n').length;

/** The leading items whose lines fit in `budget` bytes, in order. */
function fit(items: readonly string[][], budget: number): string[][] {
  const kept: string[][] = [];
  let used = 0;
  for (const item of items) {
    used += bytesOf(item);
    if (used > budget) break;
    kept.push(item);
  }
  return kept;
}

/** Where a job summary's reader finds what it leaves out. */
function artifactRef(job: JobView): string {
  const a = job.artifact;
  if (a === undefined) return 'the state directory (`campaign summary` writes it all)';
  return `the state artifact ${a.url === undefined ? `\`${a.name}\`` : `[${a.name}](${a.url})`}`;
}

const adaptedNote = (s: TaskState): string => {
  const a = s.attempts[s.attempts.length - 1]?.adapted;
  return a && a.length > 0 ? `; it ran with less than it asked: ${a.join('; ')}` : '';
};

function span(states: TaskState[]): { wall?: number; mean?: number } {
  // Kept as running figures, never as arrays spread into Math.min: a campaign's attempts may be
  // more than the call stack takes as arguments.
  let first = Infinity;
  let last = -Infinity;
  let completed = 0;
  let total = 0;
  for (const s of states) {
    for (const a of s.attempts) {
      // The start and the end from one clock where there is one: the executor's (the cluster's)
      // start against its end; the submission is this machine's clock, which may run ahead.
      const start = Date.parse(a.startedAt ?? a.submittedAt);
      first = Math.min(first, start);
      if (a.endedAt) last = Math.max(last, Date.parse(a.endedAt));
      if (a.endedAt && a.class === 'completed') {
        completed++;
        total += Math.max(0, Date.parse(a.endedAt) - start);
      }
    }
  }
  return {
    ...(first !== Infinity && last !== -Infinity ? { wall: Math.max(0, last - first) / 1000 } : {}),
    ...(completed > 0 ? { mean: total / completed / 1000 } : {}),
  };
}

/**
 * The phases as one table: their status, tasks by state (running and queued over both stages),
 * retries, times, and the GPU-hours used against the budget; then the campaign's GPU-hours.
 */
export function phaseTable(plan: Plan, state: CampaignState): string[] {
  const hours = phaseGpuHours(plan, state);
  const out = [
    '| phase | status | tasks | completed | running | queued | failed | retries | wall time | mean task | GPU-h used | GPU-h budget |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  plan.phases.forEach((p, i) => {
    const states = p.tasks.map((t) => state.tasks[t.id]).filter((s): s is TaskState => s !== undefined);
    const completed = states.filter((s) => s.status === 'completed').length;
    const failed = states.filter((s) => s.status === 'failed' || s.status === 'stuck').length;
    let running = 0;
    let queued = 0;
    for (const t of [...p.smoke, ...p.tasks]) {
      const status = state.tasks[t.id]?.status;
      if (status === 'running') running++;
      else if (status === 'submitted') queued++;
    }
    const retries = p.tasks.reduce((n, t) => n + retriesOf(state.tasks[t.id], t.definition), 0);
    const { wall, mean } = span(states);
    const ps = state.phases[p.name];
    const status = `${ps?.status ?? 'waiting'}${ps?.reason ? `: ${inlineCode(ps.reason)}` : ''}`;
    const { used, budget } = hours[i]!;
    out.push(
      `| ${p.name} | ${tableCell(status)} | ${p.tasks.length} | ${completed} | ${running} | ${queued} | ${failed} | ${retries} | ${wall === undefined ? '' : formatDuration(wall)} | ${mean === undefined ? '' : formatDuration(mean)} | ${formatGpuHours(used)} | ${formatGpuHours(budget)} |`,
    );
  });
  const used = hours.reduce((n, h) => n + h.used, 0);
  const budget = hours.reduce((n, h) => n + h.budget, 0);
  out.push('', `GPU-hours: ${formatGpuHours(used)} used, of a budget of ${formatGpuHours(budget)}.`);
  return out;
}

export function renderSummary(input: SummaryInput, job?: JobView): string {
  const { plan, state, tails, pictures = [], provenance, results = [] } = input;
  const ok = allCompleted(plan, state);
  const head: string[] = [
    `# Campaign ${plan.campaign}`,
    '',
    ok ? '**Every task completed.**' : '**The campaign did not complete:** see the phases and tasks below.',
    '',
    ...phaseTable(plan, state),
  ];
  if (job !== undefined) {
    const chart = ganttChart(plan, state, job.now);
    if (chart.length > 0) head.push('', ...chart);
    if (pictures.length > 0 && job.artifact !== undefined)
      head.push(
        '',
        `The pictures (${pictures.map((p) => p.file).join(', ')}) and the whole tables are in ${artifactRef(job)}.`,
      );
  } else if (pictures.length > 0) {
    head.push('', pictures.map((p) => `[${p.caption}](${p.file})`).join(' · '), '');
    for (const p of pictures) head.push(`![${p.caption}](${p.file})`);
  }
  for (const r of results) {
    head.push(...renderResultsSection(r, job === undefined ? 'relative' : 'named'));
    // Where the picture cannot be shown (a job summary), a chart that GitHub draws stands for it.
    if (job !== undefined && !('unavailable' in r)) head.push(...resultsCharts(r));
  }
  for (const p of plan.phases) head.push(...gateSection(p, state));
  const provenanceLines = provenanceSection(plan, state, provenance, job);

  const adapted = adaptedRows(plan, state);
  const retimed = retimedRows(plan, state);
  const unfinished = plan.phases
    .flatMap((p) => [...p.smoke, ...p.tasks])
    .filter((t) => {
      const s = state.tasks[t.id]?.status;
      return s === 'failed' || s === 'stuck';
    });
  const entries = unfinished.slice(0, UNFINISHED_SHOWN).map((t) => unfinishedEntry(t.id, state, tails, job));
  let adaptedShown = adapted.slice(0, ADAPTED_SHOWN);
  let retimedShown = retimed.slice(0, ADAPTED_SHOWN);
  let entriesShown = entries;
  if (job !== undefined) {
    // The fixed parts first; what remains is shared out between the two long sections.
    const left = job.bytes - bytesOf([...head, ...provenanceLines]) - CUT_LINES_BYTES;
    adaptedShown = fit(
      adaptedShown.map((r) => [r]),
      Math.max(0, left * ADAPTED_SHARE),
    ).map((r) => r[0]!);
    retimedShown = fit(
      retimedShown.map((r) => [r]),
      Math.max(0, left * ADAPTED_SHARE - bytesOf(adaptedShown)),
    ).map((r) => r[0]!);
    entriesShown = fit(entries, Math.max(0, left - bytesOf(adaptedShown) - bytesOf(retimedShown)));
  }
  const rest = (n: number, where: string): string =>
    job === undefined
      ? `… and ${n} more (see ${where}).`
      : `… and ${n} more, left out here: ${artifactRef(job)} has them (summary.md; every task in state.json).`;

  const out = [...head];
  if (adapted.length > 0) {
    out.push(
      '',
      '## Tasks that ran with less than they asked',
      '',
      '| task | attempt | result | ran with |',
      '| --- | ---: | --- | --- |',
      ...adaptedShown,
    );
    if (adapted.length > adaptedShown.length) out.push(rest(adapted.length - adaptedShown.length, 'state.json'));
  }
  if (retimed.length > 0) {
    out.push(
      '',
      '## Tasks continued or given more time',
      '',
      '| task | attempt | result | walltime | how |',
      '| --- | ---: | --- | ---: | --- |',
      ...retimedShown,
    );
    if (retimed.length > retimedShown.length) out.push(rest(retimed.length - retimedShown.length, 'state.json'));
  }
  out.push(...provenanceLines);
  if (unfinished.length > 0) {
    out.push('', '## Tasks that did not complete', '');
    for (const e of entriesShown) out.push(...e);
    if (unfinished.length > entriesShown.length)
      out.push(rest(unfinished.length - entriesShown.length, '`campaign status`'));
  }
  return out.join('\n') + '\n';
}

function unfinishedEntry(
  id: string,
  state: CampaignState,
  tails: ReadonlyMap<string, LogTail>,
  job: JobView | undefined,
): string[] {
  const s = state.tasks[id]!;
  const out = [
    `### ${id}`,
    '',
    `${s.reason === undefined ? s.status : inlineCode(s.reason)} (${s.attempts.length} attempt${s.attempts.length === 1 ? '' : 's'})${adaptedNote(s)}`,
    '',
  ];
  const tail = tails.get(id);
  const where = tail?.path ? ` (${tail.path})` : '';
  let text = tail?.text.trimEnd() ?? '';
  if (job !== undefined && text.length > JOB_TAIL_CHARS)
    text = `…${text.slice(-JOB_TAIL_CHARS).replace(/^[\uDC00-\uDFFF]/, '')}`;
  if (tail && text.trim() !== '') out.push(`The end of its log${where}:`, '', ...codeBlock(text), '');
  else if (tail) out.push(`Its log is empty${where}: the task printed nothing before it ended.`, '');
  return out;
}

/** Where to find what made each result, and the results kept by choice under a changed definition. */
function provenanceSection(
  plan: Plan,
  state: CampaignState,
  index: string | undefined,
  job: JobView | undefined,
): string[] {
  let results = 0;
  let kept = 0;
  for (const p of plan.phases) {
    for (const t of p.tasks) {
      const last = state.tasks[t.id]?.attempts.at(-1);
      if (!t.output || last?.class !== 'completed') continue;
      results++;
      if (last.kept?.length) kept++;
    }
  }
  if (results === 0) return [];
  const all =
    index === undefined
      ? ''
      : job === undefined
        ? ` All of them, one JSON line each: [${index}](${index}).`
        : ` All of them, one JSON line each: \`${index}\` in ${artifactRef(job)}.`;
  const keptLine =
    kept > 0
      ? ` ${kept} of the ${results} results were kept, by choice (\`run --keep-changed\`), under a definition changed since they were made; their records say what changed.`
      : '';
  return [
    '',
    '## Provenance',
    '',
    `${results === 1 ? 'The result has' : `Each of the ${results} results has`} beside it a record of what made it (\`.NAME.provenance.json\` in its directory: task, grid values, definition, attempt, where and when it ran, the manifest's commit); \`campaign provenance MANIFEST PATH\` prints it.${all}${keptLine}`,
    ...codeLines(plan, state),
  ];
}

/** DESIGN rule 11: which commit's code each phase's results ran, by snapshot. */
function codeLines(plan: Plan, state: CampaignState): string[] {
  const lines: string[] = [];
  for (const p of plan.phases) {
    if (p.code === undefined) continue;
    const ran = new Map<string, number>();
    for (const t of p.tasks) {
      const last = state.tasks[t.id]?.attempts.at(-1);
      if (last?.class === 'completed' && last.code !== undefined) ran.set(last.code, (ran.get(last.code) ?? 0) + 1);
    }
    for (const [id, count] of [...ran].sort((a, b) => b[1] - a[1])) {
      const snapshot = state.code?.[id];
      const commit = snapshot?.commit ? `commit \`${snapshot.commit.slice(0, 12)}\`` : 'no commit';
      const dirty = (snapshot?.dirty ?? []).filter((f) => underPaths(f, p.code!.paths));
      const edits = dirty.length > 0 ? `, with uncommitted edits to ${dirty.map((f) => `\`${f}\``).join(', ')}` : '';
      lines.push(
        `- phase ${p.name}: ${count} result${count === 1 ? '' : 's'} ran code snapshot \`${id}\` (${commit}${edits})`,
      );
    }
  }
  return lines.length > 0
    ? ['', 'The code each phase ran (`<workdir>/.campaign/code/<snapshot>/`):', '', ...lines]
    : [];
}

/** DESIGN rule 9: a task that ran with less than it asked says so next to its result. */
function adaptedRows(plan: Plan, state: CampaignState): string[] {
  const rows: string[] = [];
  for (const t of plan.phases.flatMap((p) => [...p.smoke, ...p.tasks])) {
    for (const a of state.tasks[t.id]?.attempts ?? []) {
      if (!a.adapted || a.adapted.length === 0) continue;
      const result = a.class ?? 'running';
      rows.push(`| ${t.id} | ${a.n} | ${tableCell(result)} | ${tableCell(a.adapted.join('; '))} |`);
    }
  }
  return rows;
}

/**
 * Attempts sent to continue from a checkpoint, or run under a walltime grown after a timeout:
 * an adaptation that changes only cost, recorded next to the result.
 */
function retimedRows(plan: Plan, state: CampaignState): string[] {
  const rows: string[] = [];
  for (const t of plan.phases.flatMap((p) => [...p.smoke, ...p.tasks])) {
    const attempts = state.tasks[t.id]?.attempts ?? [];
    for (const [i, a] of attempts.entries()) {
      if (!a.resumed && a.retimed === undefined) continue;
      const how = a.resumed
        ? [continued(attempts, i), ...(a.retimed === undefined ? [] : [`walltime ${a.retimed}`])].join('; ')
        : a.retimed!;
      const wall = a.walltimeSeconds === undefined ? '' : formatDuration(a.walltimeSeconds);
      rows.push(`| ${t.id} | ${a.n} | ${tableCell(a.class ?? 'running')} | ${wall} | ${tableCell(how)} |`);
    }
  }
  return rows;
}

/** A continuation in the summary's words: what ended the attempt before (its reason, as a task's text), then what this one did. */
function continued(attempts: readonly Attempt[], i: number): string {
  const { before, what } = continuation(attempts, i);
  return [...(before ? [`attempt ${before.n} ${inlineCode(before.reason)}`] : []), what].join('; ');
}

function gateSection(p: PhasePlan, state: CampaignState): string[] {
  if (p.smoke.length === 0) return [];
  const gate = state.phases[p.name]?.gate;
  const out = ['', `## ${p.name}: smoke stage (${p.smoke.length} task${p.smoke.length === 1 ? '' : 's'})`, ''];
  if (!gate) return [...out, 'The checklist has not been evaluated yet.'];
  out.push(
    gate.passed
      ? 'The checklist passed: the pipeline works, and the full arrays were released. Smoke results are not findings.'
      : 'The checklist failed: the full arrays were not released.',
    '',
    '| check | result | detail | if it fails |',
    '| --- | --- | --- | --- |',
  );
  for (const r of gate.results) {
    out.push(
      `| ${r.check} | ${r.passed ? 'pass' : '**FAIL**'} | ${tableCell(inlineCode(r.detail))} | ${tableCell(r.otherwise ?? '')} |`,
    );
  }
  return out;
}

/** The phases' lines and the tasks that stopped (the first 20), as `campaign status` and the end of `campaign run` show them. */
export function statusText(record: {
  phases: PhaseCounts[];
  stopped: { id: string; status: string; reason?: string }[];
}): string {
  const lines = record.phases.map(progressLine);
  for (const t of record.stopped.slice(0, 20)) lines.push(`  ${t.id}: ${t.reason ?? t.status}`);
  if (record.stopped.length > 20)
    lines.push(`  … and ${record.stopped.length - 20} more (campaign summary lists them)`);
  return lines.join('\n') + '\n';
}
