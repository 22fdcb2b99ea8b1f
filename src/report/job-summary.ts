/**
 * A workflow job's summary, within GitHub's size limit and with no link relative to it, and a
 * phase's smoke gate as a check's title and text.
 */
import { smokeDefinitions, type PhasePlan, type Plan } from '../plan/plan.js';
import { phaseCounts, type PhaseCounts } from '../state/phase-counts.js';
import type { CampaignState } from '../state/state.js';
import { inlineCode, tableCell } from './markdown.js';
import { allCompleted, renderSummary, type JobView, type SummaryInput } from './summary.js';

/**
 * GitHub keeps 1 MiB of a step's job summary and drops the rest; the margin is room for the
 * lines other parts of the step write.
 */
export const JOB_SUMMARY_BYTES = 1024 * 1024 - 64 * 1024;

export interface JobSummaryInput {
  /** The summary's first line (markdown heading). */
  heading: string;
  summary: SummaryInput;
  /** The state artifact the summary's files are in, with its page where known. */
  artifact?: JobView['artifact'];
  /** Now (ISO): the end of the chart's bars of stages still running. */
  now: string;
}

/**
 * The job summary: the campaign's summary under the job's heading, with a Mermaid chart for its
 * pictures and a link to the state artifact for its files (a job summary has no files beside
 * it), its long sections cut to fit `JOB_SUMMARY_BYTES`. Its headings sit one level under the
 * job's, and the summary's own title gives way to it.
 */
export function jobSummary({ heading, summary, artifact, now }: JobSummaryInput): string {
  const where =
    artifact === undefined
      ? ''
      : `State artifact: ${artifact.url === undefined ? `\`${artifact.name}\`` : `[${artifact.name}](${artifact.url})`} (its summary.md is this summary, with its pictures and tables beside it)\n\n`;
  const head = `${heading}\n\n${where}`;
  const bytes = JOB_SUMMARY_BYTES - new TextEncoder().encode(head).length;
  const level = /^#*/.exec(heading)![0].length;
  const body = renderSummary(summary, { ...(artifact === undefined ? {} : { artifact }), now, bytes });
  return head + underHeading(body, level);
}

/**
 * A summary's markdown under a heading of `level`: its title line dropped, and each heading
 * outside a code block moved down to follow on from `level` (the summary's `##` under a job's
 * `##` becomes `###`). A log tail in a fence keeps its lines as they are.
 */
function underHeading(markdown: string, level: number): string {
  const lines = markdown.split('\n');
  if (/^# /.test(lines[0] ?? '')) lines.splice(0, lines[1] === '' ? 2 : 1);
  let fence: string | undefined;
  return lines
    .map((line) => {
      const opens = /^(`{3,}|~{3,})/.exec(line)?.[1];
      if (opens !== undefined && (fence === undefined || (opens[0] === fence[0] && opens.length >= fence.length)))
        fence = fence === undefined ? opens : undefined;
      else if (fence === undefined && /^#{1,5} /.test(line)) return '#'.repeat(Math.max(0, level - 1)) + line;
      return line;
    })
    .join('\n');
}

export interface GateView {
  conclusion: 'success' | 'failure' | 'pending';
  title: string;
  text: string;
}

/**
 * A phase's gate as a check shows it. Only an evaluated, passing checklist is a success; a phase
 * that can no longer reach its checklist (blocked, failed) is a failure; one still on its way to
 * it (waiting, smoke stage running) is pending, which branch protection does not take for a pass.
 */
export function gateView(phase: PhasePlan, state: CampaignState): GateView {
  const ps = state.phases[phase.name];
  const gate = ps?.gate;
  // A verdict holds for the smoke tasks it judged: a state written before this commit's
  // definitions changed says nothing of them (and a verdict that recorded none is not trusted).
  if (gate && gate.definitions !== smokeDefinitions(phase)) {
    return {
      conclusion: 'pending',
      title: 'The checklist has not judged this definition yet',
      text: `The smoke checklist of ${phase.name} was last evaluated (${gate.passed ? 'passed' : 'failed'}, ${gate.at}) for smoke tasks whose definition has changed since: a new smoke stage must run before it says anything of this one.`,
    };
  }
  if (!gate) {
    const where = ps
      ? `the phase is ${ps.status}${ps.reason ? `: ${inlineCode(ps.reason)}` : ''}`
      : 'the phase has not started';
    const stopped = ps?.status === 'blocked' || ps?.status === 'failed';
    return {
      conclusion: stopped ? 'failure' : 'pending',
      title: stopped ? 'The checklist cannot be evaluated' : 'The checklist has not been evaluated yet',
      text: `The smoke checklist of ${phase.name} has not been evaluated: ${where}.`,
    };
  }
  const passed = gate.results.filter((r) => r.passed).length;
  const rows = gate.results.map(
    (r) =>
      `| ${r.check} | ${r.passed ? 'pass' : '**FAIL**'} | ${tableCell(inlineCode(r.detail))} | ${tableCell(r.otherwise ?? '')} |`,
  );
  return {
    conclusion: gate.passed ? 'success' : 'failure',
    title: `${passed} of ${gate.results.length} checks passed`,
    text: [
      gate.passed
        ? 'The smoke checklist passed: the pipeline works, and the full arrays may be released. Smoke results are not findings.'
        : 'The smoke checklist failed: the full arrays are not released.',
      '',
      '| check | result | detail | if it fails |',
      '| --- | --- | --- | --- |',
      ...rows,
      '',
    ].join('\n'),
  };
}

/**
 * What a job's outputs say of the campaign: each phase's counts, whether every phase completed,
 * and, where a phase in the job's scope (every phase without `phase`) failed or is blocked, why.
 */
export function jobOutcome(
  plan: Plan,
  state: CampaignState,
  phase: string | undefined,
): { counts: PhaseCounts[]; complete: boolean; mine: PhaseCounts[]; failure?: string } {
  const counts = phaseCounts(plan, state);
  const mine = counts.filter((x) => phase === undefined || x.phase === phase);
  const bad = mine.filter((x) => x.status === 'failed' || x.status === 'blocked');
  return {
    counts,
    complete: allCompleted(plan, state),
    mine,
    ...(bad.length === 0
      ? {}
      : { failure: bad.map((x) => `${x.phase} ${x.status}${x.reason ? `: ${x.reason}` : ''}`).join('; ') }),
  };
}
