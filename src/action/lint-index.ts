/** Entry point of the lint action (lint/action.yml → dist/lint/index.js). */
import * as core from './commands.js';
import { entry } from './entry.js';
import { runLint } from './lint.js';
import { readLintSettings } from './settings.js';

await entry(async () => {
  const outcome = await runLint(readLintSettings((name) => core.getInput(name)));
  return outcome.failed ? 'campaign lint found problems: see the annotations and the job summary' : undefined;
});
