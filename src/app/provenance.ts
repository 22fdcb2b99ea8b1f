/** `campaign provenance`: "what made this file?", answered from the record beside an output. */
import { isAbsolute, relative, resolve } from 'node:path';
import { UserError } from '../errors.js';
import type { Executor } from '../exec/executor.js';
import { containedPath } from '../manifest/expand.js';
import { loginsOf } from '../manifest/schema.js';
import { provenancePath, provenanceSchema, type Provenance } from '../state/provenance.js';
import { definitionOf, type CampaignState } from '../state/state.js';
import { localWorkdir, type Campaign } from './load.js';

/**
 * An output path as the workdir knows it. On this machine (the local executor, or a cluster
 * reached without SSH) a path is taken from the current directory when it lies in the workdir;
 * otherwise it is relative to the workdir. Either way it must stay inside it.
 */
export function workdirPath(c: Campaign, asked: string): string {
  const cluster = c.manifest.cluster;
  const here = loginsOf(cluster).length === 0;
  if (here) {
    const workdir = localWorkdir(c);
    const inside = relative(workdir, resolve(asked));
    const rel = containedPath(inside);
    if (rel !== undefined && !isAbsolute(inside)) return rel;
  }
  const rel = containedPath(asked);
  if (rel === undefined)
    throw new UserError({
      message: `${asked} is not inside the campaign's workdir (${c.manifest.workdir})`,
      fix: 'give the output path relative to the workdir, as the manifest names it',
    });
  return rel;
}

export async function readProvenance(
  executor: Executor,
  path: string,
): Promise<{ record: Provenance } | { error: string }> {
  const text = await executor.workdir.readFile(provenancePath(path));
  if (text === undefined) {
    const claim = (await executor.workdir.readFile(`.campaign/claims/${path}`))?.split('\n')[0]?.trim();
    if (claim) {
      const [campaign, task] = [claim.slice(0, claim.indexOf(' ')), claim.slice(claim.indexOf(' ') + 1)];
      return {
        error: `no provenance record: the path belongs to task ${task} of campaign ${campaign}, which has not completed it`,
      };
    }
    const exists = (await executor.workdir.missing([path])).length === 0;
    return {
      error: exists
        ? 'no provenance record, and no task of a campaign claims it: campaign did not write it'
        : 'no such output, and no provenance record',
    };
  }
  let parsed;
  try {
    parsed = provenanceSchema.safeParse(JSON.parse(text));
  } catch (e) {
    return { error: `its provenance record ${provenancePath(path)} is not JSON: ${(e as Error).message}` };
  }
  if (!parsed.success)
    return { error: `its provenance record ${provenancePath(path)} is not one: ${parsed.error.issues[0]?.message}` };
  return { record: parsed.data };
}

/** The record in words, with what the campaign's state says of it now. */
export function renderProvenance(r: Provenance, state: CampaignState): string {
  const values = Object.entries(r.values)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
  const now = state.campaign === r.campaign ? state.tasks[r.task]?.attempts.at(-1) : undefined;
  const current =
    state.campaign !== r.campaign
      ? `written by campaign ${r.campaign}, not this one`
      : now === undefined
        ? 'the stored state has no attempt of this task'
        : now.n === r.attempt && definitionOf(now) === (r.kept.at(-1)?.definition ?? r.definition)
          ? "the campaign's current result for this task"
          : `superseded: the task's latest attempt is ${now.n}${now.class ? ` (${now.class})` : ''}`;
  const lines = [
    `${r.output}`,
    `  campaign ${r.campaign}, phase ${r.phase}, task ${r.task} (${r.stage})${values ? `: ${values}` : ''}`,
    `  definition ${r.definition ?? '(not recorded)'}, attempt ${r.attempt}`,
    ...r.kept.map(
      (k) => `  kept by choice at ${k.at} for definition ${k.definition} (${k.changed.join(', ')} changed)`,
    ),
    `  ran as ${r.handle ?? '?'}${r.node ? ` on ${r.node}` : ''}${r.gpus.length > 0 ? `, GPUs ${r.gpus.join(', ')}` : ''}`,
    `  submitted ${r.submitted}, started ${r.started ?? '?'}, ended ${r.ended ?? '?'}, exit status ${r.exit_status ?? '?'}`,
    ...(r.adapted.length > 0 ? [`  adapted: ${r.adapted.join('; ')}`] : []),
    `  manifest commit ${r.commit ?? '(not in a git checkout)'}`,
    ...(r.code
      ? [
          `  code snapshot ${r.code.snapshot} (phase digest ${r.code.digest ?? '?'}) at commit ${r.code.commit ?? '(none)'}` +
            (r.code.dirty.length > 0 ? `, with uncommitted edits to ${r.code.dirty.join(', ')}` : ''),
        ]
      : []),
    ...(r.log ? [`  log ${r.log}`] : []),
    `  ${current}`,
  ];
  return lines.join('\n');
}
