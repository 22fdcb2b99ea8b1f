/** `campaign calibrate`: gathers each finished attempt's log or output through the executor, then calibrates. */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { calibrate, type Calibration, type Sample } from '../calibrate/calibrate.js';
import { patchManifest, unifiedDiff } from '../calibrate/patch.js';
import { renderCalibration } from '../calibrate/report.js';
import type { Executor } from '../exec/executor.js';
import type { CampaignState } from '../state/state.js';
import { readManifest, type Campaign } from '../app/load.js';

/** The attempts calibration can learn from, with the text their phase's progress is read from. */
async function samples(c: Campaign, executor: Executor, state: CampaignState): Promise<Sample[]> {
  const out: Sample[] = [];
  for (const phase of c.plan.phases) {
    const progress = c.manifest.phases.find((p) => p.name === phase.name)?.cost?.progress;
    for (const task of [...phase.smoke, ...phase.tasks]) {
      const attempts = state.tasks[task.id]?.attempts ?? [];
      for (const attempt of attempts) {
        if (attempt.class !== 'completed' && attempt.class !== 'timeout') continue;
        const sample: Sample = { task, attempt };
        if (progress?.log !== undefined) sample.log = await executor.readLog(task, attempt);
        // Only the last attempt's output is still there to count.
        if (progress?.records && attempt === attempts[attempts.length - 1]) {
          const facts = await executor.workdir.outputFacts(task, attempt, true);
          if (facts.exists && facts.fresh && facts.text !== undefined) sample.output = facts.text;
        }
        out.push(sample);
      }
    }
  }
  return out;
}

/** The manifest's path as `git apply` reads it: from the top of its repository, else from here. */
async function patchPath(file: string): Promise<string> {
  const abs = resolve(file);
  for (let dir = dirname(abs); ; dir = dirname(dir)) {
    if (await stat(join(dir, '.git')).catch(() => undefined)) return relative(dir, abs).split(sep).join('/');
    // No repository: a path from here, or the name alone (applied in the manifest's directory).
    if (dirname(dir) === dir) {
      const here = relative(process.cwd(), abs);
      return (here.startsWith('..') ? basename(abs) : here).split(sep).join('/');
    }
  }
}

export interface CalibrateResult {
  calibration: Calibration;
  report: string;
  /** Empty when the manifest already holds the measured rates. */
  diff: string;
  patched: string;
  /** Where the patch was written, when there is one. */
  patchFile?: string;
  /** A stratum's rate differs from the declared one, or the proposed walltime would not fit. */
  differs: boolean;
}

export async function runCalibrate(
  c: Campaign,
  executor: Executor,
  state: CampaignState,
  opts: { write: boolean },
): Promise<CalibrateResult> {
  const calibration = calibrate(c.manifest, c.plan, await samples(c, executor, state));
  const text = await readManifest(c.file);
  const patched = patchManifest(text, calibration);
  const diff = unifiedDiff(await patchPath(c.file), text, patched);
  let patchFile: string | undefined;
  if (diff !== '') {
    patchFile = join(c.stateDir, 'calibrate.patch');
    await mkdir(c.stateDir, { recursive: true });
    await writeFile(patchFile, diff);
    if (opts.write) await writeFile(c.file, patched);
  }
  const differs = calibration.phases.some((p) => p.strata.some((s) => s.flagged || !s.fits));
  return {
    calibration,
    report: renderCalibration(calibration),
    diff,
    patched,
    ...(patchFile ? { patchFile } : {}),
    differs,
  };
}
