/**
 * The campaign action as one `run()` that does nothing on import, for GitHub's local runner tool
 * (`@github/local-action`), which calls it from source: its workflow commands go through
 * @actions/core, where the tool puts its own. The bundle (main-index.ts) runs the same step with
 * the actions' own commands.
 */
import * as actionsCore from '@actions/core';
import { mainStep } from './main-step.js';
import { useToolkit } from './toolkit.js';

export async function run(): Promise<void> {
  useToolkit(actionsCore);
  await mainStep();
}
