/**
 * The parts of a workflow job's summary that `renderSummary` does not have: tasks by state per
 * phase stage with the GPU-hour budget, and a phase's smoke gate as a check's title and text.
 */
import type { Plan, PhasePlan } from '../plan/plan.js';
import type { CampaignState } from '../state/state.js';
import { smokeDefinitions } from '../decide/definition-changes.js';
import { tableCell } from './markdown.js';
import { phaseCounts } from './summary.js';

export function phaseTable(plan: Plan, state: CampaignState): string {
  const budget = new Map(plan.phases.map((p) => [p.name, p]));
  const out = [
    '| phase | status | stage | done | running | queued | pending | failed | retries | budget (GPU-h) |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const c of phaseCounts(plan, state)) {
    const p = budget.get(c.phase)!;
    const why = c.reason ? `: ${tableCell(c.reason)}` : '';
    out.push(
      `| ${c.phase} | ${c.status}${why} | ${c.stage} | ${c.done}/${c.total} | ${c.running} | ${c.queued} | ${c.pending} | ${c.failed} | ${c.retries} | ${p.gpuHours.toFixed(1)} (+${p.smokeGpuHours.toFixed(2)} smoke) |`,
    );
  }
  const total = plan.phases.reduce((s, p) => s + p.gpuHours + p.smokeGpuHours, 0);
  return [...out, '', `Budget in all: ${total.toFixed(1)} GPU-hours.`, ''].join('\n');
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
    const where = ps ? `the phase is ${ps.status}${ps.reason ? `: ${ps.reason}` : ''}` : 'the phase has not started';
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
      `| ${r.check} | ${r.passed ? 'pass' : '**FAIL**'} | ${tableCell(r.detail)} | ${tableCell(r.otherwise ?? '')} |`,
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
