/**
 * The fences of eslint.config.js hold at every depth of a folder and for dynamic imports too:
 * each snippet is linted as if it stood at its path, with the project's own configuration.
 */
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { expect, test } from 'vitest';

const REPO = join(import.meta.dirname, '..', '..');
const FENCES = new Set(['no-restricted-imports', '@typescript-eslint/no-restricted-imports', 'no-restricted-syntax']);

/** The fence messages eslint gives `code` standing at `path`; a parse error fails the test. */
async function fencesBroken(eslint: ESLint, path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(REPO, path) });
  expect(result!.messages.filter((m) => m.fatal)).toEqual([]);
  return result!.messages.filter((m) => FENCES.has(m.ruleId ?? '')).map((m) => m.message);
}

test('eslint refuses an import across a fence at any depth, static or dynamic, and lets the others by', async () => {
  const eslint = new ESLint({ cwd: REPO });
  const refused: [string, string][] = [
    // The core, two folders deep, reaching an adapter or the GitHub Action's packages.
    ['src/lint/rules/new-rule.ts', "export { driveCampaign } from '../../app/drive.js';"],
    [
      'src/report/svg/new-picture.ts',
      "import type { Executor } from '../../exec/executor.js';\nexport type E = Executor;",
    ],
    ['src/report/results/new-part.ts', "export { readFileSync } from 'node:fs';"],
    ['src/plan/new-part.ts', "export * as core from '@actions/core';"],
    ['src/errors.ts', "export { loadCampaign } from './app/load.js';"],
    // The core's floors: the plan is rendered, never the reverse; what decides never asks how it is shown.
    ['src/plan/new-part.ts', "export { stageScript } from '../render/task-script.js';"],
    ['src/decide/new-part.ts', "export { progressLine } from '../report/summary.js';"],
    ['src/render/new-part.ts', "export { inlineCode } from '../report/markdown.js';"],
    ['src/errors.ts', "export { Stage } from './manifest/expand.js';"],
    // The core loading anything as it runs, even one of its own files.
    ['src/plan/new-part.ts', "export const later = () => import('./walltime.js');"],
    ['src/report/svg/new-picture.ts', "export const later = () => import('zod');"],
    // The executors reaching the front ends, the application layer or GitHub.
    ['src/exec/slurm/new-part.ts', "export { main } from '../../cli/main.js';"],
    ['src/exec/new-part.ts', "export const later = () => import('../app/drive.js');"],
    ['src/exec/transport/new-part.ts', "export const later = () => import('../../action/main.js');"],
    // The front ends and the application layer reaching across, dynamically or by a name no fence can read.
    ['src/app/new-part.ts', "export const later = () => import('../cli/main.js');"],
    ['src/cli/new-part.ts', "export const later = () => import('@actions/core');"],
    ['src/cli/new-part.ts', 'export const later = (name: string) => import(name);'],
    // The front ends taking more than types from what acts or decides, at any depth, static or dynamic.
    ['src/cli/new-part.ts', "export { loadState } from '../exec/controller.js';"],
    [
      'src/cli/commands/new-part.ts',
      "import { phaseCounts } from '../../state/phase-counts.js';\nexport const f = phaseCounts;",
    ],
    [
      'src/action/new-part.ts',
      "import { emptyState, type CampaignState } from '../state/state.js';\nexport const f: CampaignState = emptyState('c', 'now');",
    ],
    ['src/action/services/new-part.ts', "export const later = () => import('../../decide/poll.js');"],
    ['src/cli/new-part.ts', "export const later = () => import('../exec/controller.js');"],
  ];
  for (const [path, code] of refused)
    expect(await fencesBroken(eslint, path, code), `${path}: ${code}`).not.toEqual([]);

  const allowed: [string, string][] = [
    ['src/lint/rules/new-rule.ts', "export { manifest } from '../../manifest/schema.js';"],
    ['src/report/svg/new-picture.ts', "export { UserError } from '../../errors.js';\nexport { z } from 'zod';"],
    ['src/decide/new-part.ts', "export { attemptEnd } from '../judge/attempt-end.js';"],
    ['src/render/new-part.ts', "export { planCampaign } from '../plan/plan.js';"],
    ['src/report/svg/new-picture.ts', "export { step } from '../../decide/step.js';"],
    ['src/exec/slurm/new-part.ts', "export { renderSbatch } from '../../render/sbatch.js';"],
    ['src/exec/transport/new-part.ts', "export const later = () => import('./ssh.js');"],
    ['src/app/new-part.ts', "export const later = () => import('../exec/transport/ssh.js');"],
    ['src/cli/new-part.ts', "export const later = () => import('../app/scripts.js');"],
    ['src/cli/new-part.ts', "import type { Executor } from '../exec/executor.js';\nexport type E = Executor;"],
    ['src/action/services/new-part.ts', "export type { Scope } from '../../decide/scope.js';"],
    [
      'src/action/new-part.ts',
      "import { type CampaignState } from '../state/state.js';\nexport type S = CampaignState;",
    ],
    ['src/action/new-part.ts', "export { stateArtifactName } from '../github/state-artifacts.js';"],
  ];
  for (const [path, code] of allowed) expect(await fencesBroken(eslint, path, code), `${path}: ${code}`).toEqual([]);
});
