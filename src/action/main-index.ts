/** Entry point of the campaign action (action.yml → dist/main/index.js). */
import './dirname-shim.js';
import * as core from '@actions/core';
import { tmpdir } from 'node:os';
import { entry } from './entry.js';
import { githubServices } from './github/services.js';
import { run } from './main.js';
import { readMainSettings } from './settings.js';

await entry(async () => {
  const settings = readMainSettings((name) => core.getInput(name));
  const token = settings.token ?? process.env.GITHUB_TOKEN ?? '';
  if (token !== '') core.setSecret(token);
  const services = githubServices(process.env, token, (m) => core.warning(m));
  return run(settings, services, {
    job: process.env.GITHUB_JOB ?? 'campaign',
    tempDir: process.env.RUNNER_TEMP ?? tmpdir(),
    ...(process.env.GITHUB_SHA ? { commit: process.env.GITHUB_SHA } : {}),
  });
});
