/**
 * The lint action's logic as one `run()` that does nothing on import: lint-index.ts calls it in
 * the bundle, and GitHub's local runner tool (`@github/local-action`) calls it from source.
 */
import * as core from '@actions/core';
import { entry } from './entry.js';
import { runLint } from './lint.js';
import { readLintSettings } from './settings.js';

export async function run(): Promise<void> {
  await entry(async () => {
    const outcome = await runLint(readLintSettings((name) => core.getInput(name)));
    return outcome.failed ? 'campaign lint found problems: see the annotations and the job summary' : undefined;
  });
}
