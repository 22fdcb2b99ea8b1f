/**
 * A phase's results from its outputs, wherever they are: the kept result of each output
 * unchanged since the last gathering, and the others read in as few transfers as the executor
 * can, their results kept in turn (exec/store/kept-results.ts).
 */
import type { Executor } from '../exec/executor.js';
import { loadKeptResults, saveKeptResults } from '../exec/store/kept-results.js';
import type { CampaignState } from '../state/state.js';
import type { TaskResult } from '../report/results/aggregate.js';
import { outputsToRead, taskResults, type ResultPhase } from '../report/results/collect.js';
import { knownStamps, type KeptResults } from '../report/results/gathering.js';
import { outputResult, type OutputResult } from '../report/results/output-result.js';
import { parseRecordRule } from '../report/results/records.js';
import type { Campaign } from './load.js';
import { loginsOf } from '../manifest/schema.js';

/** Each task's result (task id → result; undefined where its output is not there). */
export async function gatherResults(
  c: Campaign,
  r: ResultPhase,
  executor: Executor,
  paths: ReadonlyMap<string, string>,
  warn: (message: string) => void,
): Promise<Map<string, OutputResult | undefined>> {
  const rule = parseRecordRule(r.results.record);
  const { cluster, workdir } = c.manifest;
  const source = `${cluster.executor} ${loginsOf(cluster).join(',')} ${workdir}`;
  const declaration = JSON.stringify({ metrics: r.results.metrics, record: r.results.record ?? 'last' });
  const kept = await loadKeptResults(c.stateDir, r.phase.name, warn);
  const known = knownStamps(kept, source, declaration);
  const files: KeptResults['files'] = {};
  let read = 0;
  await executor.workdir.gather([...new Set(paths.values())], known, rule.kind === 'last', (path, file) => {
    if (file.text === undefined && file.problem === undefined) {
      const before = kept!.files[path]!;
      files[path] = before;
      return;
    }
    read++;
    const result =
      file.problem !== undefined ? { problem: file.problem } : outputResult(file.text!, rule, r.results.metrics);
    files[path] = { stamp: file.stamp, result };
  });
  const unchanged = read === 0 && Object.keys(files).length === known.size;
  if (!unchanged) await saveKeptResults(c.stateDir, r.phase.name, { version: 1, source, declaration, files }, warn);
  return new Map([...paths].map(([id, path]) => [id, files[path]?.result]));
}

/** Every full task's result in the phase: its outputs gathered, then read against the state. */
export async function phaseResults(
  c: Campaign,
  r: ResultPhase,
  state: CampaignState,
  executor: Executor,
  warn: (message: string) => void,
): Promise<TaskResult[]> {
  const paths = outputsToRead(c.manifest, r, state);
  return taskResults(r, state, paths, await gatherResults(c, r, executor, paths, warn));
}
