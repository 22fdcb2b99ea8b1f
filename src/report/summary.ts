/** Counts per phase for progress lines, and the markdown summary of a campaign. */
import { formatDuration } from '../manifest/units.js';
import type { Plan, PhasePlan } from '../plan/plan.js';
import { codeBlock, tableCell } from './markdown.js';
import { definitionOf, type CampaignState, type TaskState } from '../state/state.js';

export interface PhaseCounts {
  phase: string;
  status: string;
  reason?: string;
  stage: 'smoke' | 'full';
  done: number;
  running: number;
  pending: number;
  failed: number;
  total: number;
  retries: number;
  /** Submitted and not started: with the most common reason the scheduler gives. */
  queued: number;
  waiting?: string;
}

/**
 * The retries of a task: its attempts under its current definition after the first. The
 * attempts of an earlier definition are runs of another task, not retries of this one.
 */
function retriesOf(s: TaskState | undefined, definition: string | undefined): number {
  if (!s) return 0;
  const own = s.attempts.filter((a) => {
    const d = definitionOf(a);
    return d === undefined || d === definition;
  });
  return Math.max(0, own.length - 1);
}

export function phaseCounts(plan: Plan, state: CampaignState): PhaseCounts[] {
  return plan.phases.map((p) => {
    const ps = state.phases[p.name];
    const stage = ps?.status === 'smoke' || ps?.status === 'gate' ? 'smoke' : 'full';
    const specs = stage === 'smoke' ? p.smoke : p.tasks;
    const c = { done: 0, running: 0, queued: 0, pending: 0, failed: 0, retries: 0 };
    const reasons = new Map<string, number>();
    for (const t of specs) {
      const s = state.tasks[t.id];
      const status = s?.status ?? 'pending';
      if (status === 'completed') c.done++;
      else if (status === 'running') c.running++;
      else if (status === 'submitted') {
        c.queued++;
        if (s?.waiting) reasons.set(s.waiting, (reasons.get(s.waiting) ?? 0) + 1);
      } else if (status === 'failed' || status === 'stuck') c.failed++;
      else c.pending++;
      c.retries += retriesOf(s, t.definition);
    }
    const waiting = [...reasons.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
    return {
      phase: p.name,
      ...(waiting ? { waiting } : {}),
      status: ps?.status ?? 'waiting',
      ...(ps?.reason ? { reason: ps.reason } : {}),
      stage,
      ...c,
      total: specs.length,
    };
  });
}

export function progressLine(c: PhaseCounts): string {
  const reason =
    c.reason && (c.status === 'blocked' || c.status === 'failed' || c.status === 'waiting') ? ` (${c.reason})` : '';
  const queued = c.queued > 0 ? `, ${c.queued} queued${c.waiting ? ` (${c.waiting})` : ''}` : '';
  return `${c.phase} [${c.status}${c.stage === 'smoke' ? ' stage' : ''}] ${c.done}/${c.total} done, ${c.running} running${queued}, ${c.pending} pending, ${c.failed} failed${reason}`;
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
  /** The results sections (report/results/section.ts), in phase order. */
  results?: readonly string[];
}

const adaptedNote = (s: TaskState): string => {
  const a = s.attempts[s.attempts.length - 1]?.adapted;
  return a && a.length > 0 ? `; it ran with less than it asked: ${a.join('; ')}` : '';
};

function span(states: TaskState[]): { wall?: number; mean?: number } {
  const starts: number[] = [];
  const ends: number[] = [];
  const durations: number[] = [];
  for (const s of states) {
    for (const a of s.attempts) {
      // The start and the end from one clock where there is one: the executor's (the cluster's)
      // start against its end; the submission is this machine's clock, which may run ahead.
      const start = Date.parse(a.startedAt ?? a.submittedAt);
      starts.push(start);
      if (a.endedAt) ends.push(Date.parse(a.endedAt));
      if (a.endedAt && a.class === 'completed') durations.push(Math.max(0, Date.parse(a.endedAt) - start));
    }
  }
  return {
    ...(starts.length > 0 && ends.length > 0
      ? { wall: Math.max(0, Math.max(...ends) - Math.min(...starts)) / 1000 }
      : {}),
    ...(durations.length > 0 ? { mean: durations.reduce((a, b) => a + b, 0) / durations.length / 1000 } : {}),
  };
}

export function renderSummary({ plan, state, tails, pictures = [], provenance, results = [] }: SummaryInput): string {
  const ok = allCompleted(plan, state);
  const out: string[] = [
    `# Campaign ${plan.campaign}`,
    '',
    ok ? '**Every task completed.**' : '**The campaign did not complete:** see the phases and tasks below.',
    '',
    '| phase | status | tasks | completed | failed | retries | wall time | mean task |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const p of plan.phases) {
    const states = p.tasks.map((t) => state.tasks[t.id]).filter((s): s is TaskState => s !== undefined);
    const completed = states.filter((s) => s.status === 'completed').length;
    const failed = states.filter((s) => s.status === 'failed' || s.status === 'stuck').length;
    const retries = p.tasks.reduce((n, t) => n + retriesOf(state.tasks[t.id], t.definition), 0);
    const { wall, mean } = span(states);
    const ps = state.phases[p.name];
    const status = `${ps?.status ?? 'waiting'}${ps?.reason ? `: ${ps.reason}` : ''}`;
    out.push(
      `| ${p.name} | ${tableCell(status)} | ${p.tasks.length} | ${completed} | ${failed} | ${retries} | ${wall === undefined ? '' : formatDuration(wall)} | ${mean === undefined ? '' : formatDuration(mean)} |`,
    );
  }
  if (pictures.length > 0) {
    out.push('', pictures.map((p) => `[${p.caption}](${p.file})`).join(' · '), '');
    for (const p of pictures) out.push(`![${p.caption}](${p.file})`);
  }
  out.push(...results);
  for (const p of plan.phases) out.push(...gateSection(p, state));
  out.push(...adaptedSection(plan, state));
  out.push(...provenanceSection(plan, state, provenance));
  const unfinished = plan.phases
    .flatMap((p) => [...p.smoke, ...p.tasks])
    .filter((t) => {
      const s = state.tasks[t.id]?.status;
      return s === 'failed' || s === 'stuck';
    });
  if (unfinished.length > 0) {
    out.push('', '## Tasks that did not complete', '');
    for (const t of unfinished.slice(0, 50)) {
      const s = state.tasks[t.id]!;
      out.push(
        `### ${t.id}`,
        '',
        `${s.reason ?? s.status} (${s.attempts.length} attempt${s.attempts.length === 1 ? '' : 's'})${adaptedNote(s)}`,
        '',
      );
      const tail = tails.get(t.id);
      const where = tail?.path ? ` (${tail.path})` : '';
      if (tail && tail.text.trim() !== '')
        out.push(`The end of its log${where}:`, '', ...codeBlock(tail.text.trimEnd()), '');
      else if (tail) out.push(`Its log is empty${where}: the task printed nothing before it ended.`, '');
    }
    if (unfinished.length > 50) out.push(`… and ${unfinished.length - 50} more (see \`campaign status\`).`);
  }
  return out.join('\n') + '\n';
}

/** DESIGN rule 9: a task that ran with less than it asked says so next to its result. */
/** Where to find what made each result, and the results kept by choice under a changed definition. */
function provenanceSection(plan: Plan, state: CampaignState, index: string | undefined): string[] {
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
  const all = index === undefined ? '' : ` All of them, one JSON line each: [${index}](${index}).`;
  const keptLine =
    kept > 0
      ? ` ${kept} of the ${results} results were kept, by choice (\`run --keep-changed\`), under a definition changed since they were made; their records say what changed.`
      : '';
  return [
    '',
    '## Provenance',
    '',
    `${results === 1 ? 'The result has' : `Each of the ${results} results has`} beside it a record of what made it (\`.NAME.provenance.json\` in its directory: task, grid values, definition, attempt, where and when it ran, the manifest's commit); \`campaign provenance MANIFEST PATH\` prints it.${all}${keptLine}`,
  ];
}

function adaptedSection(plan: Plan, state: CampaignState): string[] {
  const rows: string[] = [];
  for (const t of plan.phases.flatMap((p) => [...p.smoke, ...p.tasks])) {
    for (const a of state.tasks[t.id]?.attempts ?? []) {
      if (!a.adapted || a.adapted.length === 0) continue;
      const result = a.class ?? 'running';
      rows.push(`| ${t.id} | ${a.n} | ${tableCell(result)} | ${tableCell(a.adapted.join('; '))} |`);
    }
  }
  if (rows.length === 0) return [];
  return [
    '',
    '## Tasks that ran with less than they asked',
    '',
    '| task | attempt | result | ran with |',
    '| --- | ---: | --- | --- |',
    ...rows.slice(0, 200),
    ...(rows.length > 200 ? [`… and ${rows.length - 200} more (see state.json).`] : []),
  ];
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
      `| ${r.check} | ${r.passed ? 'pass' : '**FAIL**'} | ${tableCell(r.detail)} | ${tableCell(r.otherwise ?? '')} |`,
    );
  }
  return out;
}
