/**
 * The campaign's summary as both front ends write it: the pictures and the provenance index
 * beside it, and the tails of the logs of failed tasks where the executor can read them.
 */
import { mkdir, open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Executor } from '../exec/executor.js';
import type { Plan } from '../plan/plan.js';
import { provenanceIndex } from '../state/provenance.js';
import type { CampaignState } from '../state/state.js';
import { allCompleted, renderSummary, type LogTail, type SummaryInput } from '../report/summary.js';
import { phaseCounts } from '../state/phase-counts.js';
import { writePictures } from './pictures.js';
import { phaseGpuHours } from '../report/gpu-hours.js';
import { UserError } from '../errors.js';
import { LinkError } from '../exec/transport/transport.js';
import { cellAxes, resultPhase, resultsTable } from '../report/results/collect.js';
import type { ResultsSection, ResultsUnavailable } from '../report/results/section.js';
import { renderTable } from '../report/results/table.js';
import { resultsPlot, resultsSvg } from '../report/svg/results.js';
import { phaseResults } from './gather-results.js';
import type { Campaign } from './load.js';

/** At most this many failed tasks' log tails, of this many lines each. */
const TAILS = 50;
const TAIL_LINES = 20;

const PROVENANCE_INDEX = 'provenance.jsonl';

/** GPU-hours in data to the hundredth: finer is noise from the clocks. */
const round2 = (hours: number): number => Math.round(hours * 100) / 100;

export interface SummaryOptions {
  campaign: Campaign;
  plan: Plan;
  state: CampaignState;
  /** Undefined when the cluster is out of reach: no log tails, no results. */
  executor: Executor | undefined;
  /** Where the pictures, tables and provenance index go, linked from the summary; undefined: nowhere, no links. */
  beside: string | undefined;
  warn: (message: string) => void;
}

/**
 * The summary's markdown. With `beside`, its pictures, results tables and provenance index are
 * written into that directory, where the summary's links find them.
 */
export async function campaignSummary(o: SummaryOptions): Promise<string> {
  return renderSummary(await gatherSummary(o));
}

/**
 * What the summary shows, gathered once (log tails, results) with its files written `beside`:
 * rendered for the file beside them, and by the Action again for the job summary, without links.
 */
export async function gatherSummary(o: SummaryOptions): Promise<SummaryInput> {
  const { plan, state, executor, beside } = o;
  const pictures = beside === undefined ? [] : await writePictures(beside, plan, state);
  const provenance = beside === undefined ? undefined : await writeProvenanceIndex(beside, plan, state);
  const tails = executor ? await logTails(plan, executor, state) : new Map<string, LogTail>();
  const results = executor ? await resultsSections(o, executor) : [];
  return { plan, state, tails, pictures, results, ...(provenance === undefined ? {} : { provenance }) };
}

/**
 * A results section per phase that declares results and has a completed full task, with its
 * tables (CSV) and picture written beside the summary. Outputs that cannot be gathered are said
 * in the section: the rest of the summary does not depend on them.
 */
async function resultsSections(
  o: SummaryOptions,
  executor: Executor,
): Promise<(ResultsSection | ResultsUnavailable)[]> {
  const { campaign: c, plan, state, beside } = o;
  const out: (ResultsSection | ResultsUnavailable)[] = [];
  for (const phase of c.manifest.phases) {
    if (phase.results === undefined || phase.output === undefined) continue;
    const r = resultPhase(c.manifest, plan, phase.name);
    if (!r.plan.tasks.some((t) => state.tasks[t.id]?.status === 'completed')) continue;
    let tasks;
    try {
      tasks = await phaseResults(c, r, state, executor, o.warn);
    } catch (e) {
      if (!(e instanceof UserError || e instanceof LinkError)) throw e;
      out.push({ phase: phase.name, unavailable: e.message });
      continue;
    }
    const { table: cellTable, cells } = resultsTable(r, tasks, false);
    const axes = cellAxes(r);
    const section: ResultsSection = {
      phase: phase.name,
      axes,
      metrics: r.results.metrics,
      ...(r.results.replicates === undefined ? {} : { replicates: r.results.replicates }),
      cells,
    };
    if (beside !== undefined) {
      const files = { cells: `results-${phase.name}.csv`, tasks: `results-${phase.name}-tasks.csv` };
      await mkdir(beside, { recursive: true });
      await writeFile(join(beside, files.cells), renderTable(cellTable, 'csv'));
      await writeFile(join(beside, files.tasks), renderTable(resultsTable(r, tasks, true).table, 'csv'));
      const metric = r.results.metrics[0]!;
      const plot = resultsPlot(axes, cells, metric, r.results.replicates);
      if (plot === undefined) section.files = files;
      else {
        const picture = { file: `results-${phase.name}.svg`, caption: `${metric} of ${phase.name}` };
        await writeFile(join(beside, picture.file), resultsSvg(plot, `${phase.name}: ${metric}`));
        section.files = { ...files, picture };
      }
    }
    out.push(section);
  }
  return out;
}

/**
 * The campaign's state as data (`status --format json`, and with the log tails of the tasks
 * that stopped, `summary --format json`): per phase its counts and GPU-hours (used, and the
 * plan's budget), and each task that stopped.
 */
export async function summaryRecord(plan: Plan, state: CampaignState, executor: Executor | undefined) {
  const tails = executor ? await logTails(plan, executor, state) : undefined;
  const stopped = Object.entries(state.tasks)
    .filter(([, t]) => t.status === 'failed' || t.status === 'stuck')
    .map(([id, t]) => ({
      id,
      status: t.status,
      ...(t.reason ? { reason: t.reason } : {}),
      attempts: t.attempts.length,
      ...(tails?.has(id) ? { log: tails.get(id)! } : {}),
    }));
  const hours = phaseGpuHours(plan, state);
  const phases = phaseCounts(plan, state).map((counts, i) => ({
    ...counts,
    gpuHours: { used: round2(hours[i]!.used), budget: round2(hours[i]!.budget) },
  }));
  return { campaign: plan.campaign, complete: allCompleted(plan, state), phases, stopped };
}

async function logTails(plan: Plan, executor: Executor, state: CampaignState): Promise<Map<string, LogTail>> {
  const tails = new Map<string, LogTail>();
  for (const p of plan.phases) {
    for (const t of [...p.smoke, ...p.tasks]) {
      const s = state.tasks[t.id];
      const last = s?.attempts[s.attempts.length - 1];
      if (last && (s.status === 'failed' || s.status === 'stuck') && tails.size < TAILS) {
        const text = (await executor.readLog(t, last)).split('\n').slice(-TAIL_LINES).join('\n');
        const path = await executor.logPath(t, last);
        tails.set(t.id, { text, ...(path === undefined ? {} : { path }) });
      }
    }
  }
  return tails;
}

/** What the provenance index is written in: lines joined up to this many characters at a time. */
const PIECE_CHARS = 4 * 2 ** 20;

/** The provenance index in `dir`; its file name, or undefined when it holds no record. */
async function writeProvenanceIndex(dir: string, plan: Plan, state: CampaignState): Promise<string | undefined> {
  const lines = provenanceIndex(plan, state);
  let next = lines.next();
  if (next.done) return undefined;
  await mkdir(dir, { recursive: true });
  const file = await open(join(dir, PROVENANCE_INDEX), 'w');
  try {
    // In pieces, never as one string: a million tasks' index is about the longest V8 makes.
    let piece: string[] = [];
    let chars = 0;
    for (; !next.done; next = lines.next()) {
      piece.push(next.value);
      chars += next.value.length;
      if (chars >= PIECE_CHARS) {
        await file.write(piece.join(''));
        [piece, chars] = [[], 0];
      }
    }
    if (piece.length > 0) await file.write(piece.join(''));
  } finally {
    await file.close();
  }
  return PROVENANCE_INDEX;
}
