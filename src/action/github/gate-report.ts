/**
 * The smoke gate's check run text from the stored phase state: the checklist as written in the
 * manifest, each check's result and, for a failure, what the manifest says it means. Only a gate
 * that was evaluated and passed concludes `success`; when it was never evaluated, the report is
 * `pending` while the smoke stage may still run it, and `failure` once it can no longer.
 */
import type { Check } from '../../manifest/schema.js';
import { effectiveChecklist } from '../../queue/checklist.js';
import type { PhaseState } from '../../queue/state.js';
import type { GateReport } from './services.js';

export interface GateInput {
  campaign: string;
  phase: string;
  /** The phase's `smoke.trigger` from the manifest. */
  checklist: readonly Check[];
  /** The phase's stored state; undefined when the campaign never reached it. */
  state: PhaseState | undefined;
  /** True when no later pass will evaluate the gate (the gate job, a campaign at rest). */
  final: boolean;
}

export function gateReport(g: GateInput): GateReport {
  const base = { campaign: g.campaign, phase: g.phase };
  const gate = g.state?.gate;
  if (gate) {
    const failed = gate.results.filter((r) => !r.passed);
    const rows = gate.results.map(
      (r) =>
        `| ${r.passed ? '✅ passed' : '❌ failed'} | \`${r.check}\` | ${cell(r.detail)} | ${r.passed ? '' : cell(r.otherwise ?? '')} |`,
    );
    return {
      ...base,
      conclusion: gate.passed ? 'success' : 'failure',
      title: gate.passed
        ? `smoke gate passed: ${gate.results.length} of ${gate.results.length} checks`
        : `smoke gate failed: ${failed.length} of ${gate.results.length} checks (${failed.map((r) => r.check).join(', ')})`,
      text: [
        `Smoke stage of phase \`${g.phase}\`, evaluated ${gate.at}. The full arrays are released only when every check passes.`,
        '',
        '| result | check | detail | what a failure means |',
        '| --- | --- | --- | --- |',
        ...rows,
      ].join('\n'),
    };
  }
  const why = g.state
    ? `the phase is ${g.state.status}${g.state.reason ? ` (${g.state.reason})` : ''}`
    : 'the campaign has not reached this phase';
  const rows = effectiveChecklist(g.checklist).map(
    (c) => `| ⏸ not evaluated | \`${c.check}\` | ${cell(c.otherwise ?? '')} |`,
  );
  return {
    ...base,
    conclusion: g.final ? 'failure' : 'pending',
    title: g.final ? `smoke gate never ran: ${why}` : `smoke gate waiting: ${why}`,
    text: [
      g.final
        ? `The smoke gate of phase \`${g.phase}\` was not evaluated, so nothing may be released: ${why}.`
        : `The smoke gate of phase \`${g.phase}\` is evaluated once its smoke tasks finish: ${why}.`,
      '',
      '| result | check | what a failure means |',
      '| --- | --- | --- |',
      ...rows,
    ].join('\n'),
  };
}

/** Text safe inside one markdown table cell. */
function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}
