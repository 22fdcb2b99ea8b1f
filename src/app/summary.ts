/**
 * The campaign's summary as both front ends write it: the pictures and the provenance index
 * beside it, and the tails of the logs of failed tasks where the executor can read them.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Executor } from '../exec/executor.js';
import type { Plan } from '../plan/plan.js';
import { provenanceIndex } from '../state/provenance.js';
import type { CampaignState } from '../state/state.js';
import { allCompleted, phaseCounts, renderSummary, type LogTail } from '../report/summary.js';
import { writePictures } from './pictures.js';

/** At most this many failed tasks' log tails, of this many lines each. */
const TAILS = 50;
const TAIL_LINES = 20;

const PROVENANCE_INDEX = 'provenance.jsonl';

/**
 * The summary's markdown. With `beside`, its pictures and provenance index are written into
 * that directory, where the summary's links find them; without, it links to neither. Without
 * an executor (the cluster out of reach) it has no log tails.
 */
export async function campaignSummary(
  plan: Plan,
  state: CampaignState,
  executor: Executor | undefined,
  beside: string | undefined,
): Promise<string> {
  const pictures = beside === undefined ? [] : await writePictures(beside, plan, state);
  const provenance = beside === undefined ? undefined : await writeProvenanceIndex(beside, plan, state);
  const tails = executor ? await logTails(plan, executor, state) : new Map<string, LogTail>();
  return renderSummary({ plan, state, tails, pictures, ...(provenance === undefined ? {} : { provenance }) });
}

/**
 * The campaign's state as data (`status --format json`, and with the log tails of the tasks
 * that stopped, `summary --format json`): per phase its counts, and each task that stopped.
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
  return { campaign: plan.campaign, complete: allCompleted(plan, state), phases: phaseCounts(plan, state), stopped };
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

/** The provenance index in `dir`; its file name, or undefined when it holds no record. */
async function writeProvenanceIndex(dir: string, plan: Plan, state: CampaignState): Promise<string | undefined> {
  const index = provenanceIndex(plan, state);
  if (index === '') return undefined;
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, PROVENANCE_INDEX), index);
  return PROVENANCE_INDEX;
}
