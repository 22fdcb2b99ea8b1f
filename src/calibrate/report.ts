/** The calibration as a person reads it: one table row per stratum, flags and notes below. */
import { formatDuration } from '../manifest/units.js';
import { RATE_TOLERANCE, type Calibration, type StratumCalibration } from './calibrate.js';

const pct = (x: number): string => `${Math.round(x * 100)}%`;
const sec = (x: number): string => `${Number(x.toPrecision(3))}s`;

function row(s: StratumCalibration): string[] {
  const m = s.measured;
  return [
    s.phase,
    s.stratum,
    String(s.samples.length),
    `${sec(s.proposedRate)}/${s.unit}`,
    `${sec(m.min)}–${sec(m.max)} ±${pct(m.cv)}`,
    s.declared === undefined ? '-' : `${sec(s.declared)}${s.ratio === undefined ? '' : ` (×${s.ratio.toFixed(2)})`}`,
    s.trend === undefined ? '-' : s.trend.toFixed(2),
    `${pct(s.headroom.share)} of ${formatDuration(s.headroom.budget)}`,
    s.proposed.error
      ? `none: ${s.proposed.error}`
      : `${formatDuration(s.proposed.seconds)}${s.proposed.partition ? ` (${s.proposed.partition})` : ''}`,
    s.flagged ? 'RATE DIFFERS' : s.fits ? 'ok' : 'DOES NOT FIT',
  ];
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

export function renderCalibration(calibration: Calibration): string {
  const strata = calibration.phases.flatMap((p) => p.strata);
  const out: string[] = [];
  if (strata.length === 0) {
    out.push('No finished task to measure yet: run the campaign (at least its smoke stage) first.');
  } else {
    out.push(
      ...table(
        [
          'phase',
          'stratum',
          'tasks',
          'measured',
          'spread',
          'declared',
          'trend',
          'slowest / walltime',
          'planner would choose',
          'verdict',
        ],
        strata.map(row),
      ),
    );
  }
  out.push('');
  for (const s of strata) {
    const where = `${s.phase} ${s.stratum}`;
    if (s.flagged && s.declared !== undefined)
      out.push(
        `${where}: measured ${sec(s.proposedRate)}/${s.unit}, declared ${sec(s.declared)} (more than ${pct(RATE_TOLERANCE)} apart): ${s.proposed.arithmetic}`,
      );
    else if (s.flagged) out.push(`${where}: no declared rate matches this stratum; measured ${sec(s.proposedRate)}`);
    if (!s.fits && !s.proposed.error)
      out.push(
        `${where}: the proposed ${formatDuration(s.proposed.seconds)} is shorter than a measured full task needs`,
      );
    if (s.headroom.share > 1 / 1.1)
      out.push(`${where}: ${s.headroom.task} used ${pct(s.headroom.share)} of its walltime: little headroom`);
  }
  for (const p of calibration.phases) {
    const why = new Map<string, number>();
    for (const k of p.skipped) why.set(k.why, (why.get(k.why) ?? 0) + 1);
    for (const [w, n] of why) out.push(`${p.phase}: ${n} attempt${n === 1 ? '' : 's'} not measured: ${w}`);
  }
  if (calibration.cluster === undefined && strata.length > 0)
    out.push('cluster.name is not set: measured_on cannot name this cluster (set it, then calibrate again)');
  return out.join('\n').trimEnd() + '\n';
}
