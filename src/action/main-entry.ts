/**
 * The campaign action's logic as one `run()` that does nothing on import: main-index.ts calls it
 * in the bundle, and GitHub's local runner tool (`@github/local-action`) calls it from source.
 */
import * as core from '@actions/core';
import { tmpdir } from 'node:os';
import { entry } from './entry.js';
import { githubServices } from './github/services.js';
import { run as runCampaign } from './main.js';
import { readMainSettings } from './settings.js';

export async function run(): Promise<void> {
  await entry(async () => {
    const settings = readMainSettings((name) => core.getInput(name));
    const token = settings.token ?? process.env.GITHUB_TOKEN ?? '';
    if (token !== '') core.setSecret(token);
    const services = githubServices(process.env, token, (m) => core.warning(m));
    return runCampaign(settings, services, {
      job: process.env.GITHUB_JOB ?? 'campaign',
      tempDir: process.env.RUNNER_TEMP ?? tmpdir(),
      ...(process.env.GITHUB_SHA ? { commit: process.env.GITHUB_SHA } : {}),
    });
  });
}
