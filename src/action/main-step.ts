/**
 * The campaign action's step, which both its bundle (main-index.ts) and its entry for GitHub's
 * local runner tool (main-entry.ts) run.
 */
import { tmpdir } from 'node:os';
import { entry } from './entry.js';
import type { GitHubServices } from './services/index.js';
import { run as runCampaign } from './main.js';
import { readMainSettings } from './settings.js';
import { core } from './toolkit.js';

/** The campaign action's step: its inputs read, its command run, the step failed if it fails. */
export async function mainStep(): Promise<void> {
  await entry(async () => {
    const settings = readMainSettings((name) => core.getInput(name));
    const token = settings.token ?? process.env.GITHUB_TOKEN ?? '';
    if (token !== '') core.setSecret(token);
    // Made when first used: `plan` and `check` need no GitHub, and run where the runner's
    // GITHUB_* variables are not set (GitHub's local runner tool). Loaded then too: the artifact
    // client and the REST client are most of the bundle, a chunk of their own that `plan` never
    // reads.
    let made: Promise<GitHubServices> | undefined;
    const services = (): Promise<GitHubServices> =>
      (made ??= import('./services/index.js').then((m) =>
        m.githubServices(
          process.env,
          token,
          (w) => core.warning(w),
          {},
          [settings['resume-workflow'], settings['campaign-workflow']].filter((f) => f !== undefined),
        ),
      ));
    const lazy: GitHubServices = {
      state: {
        restoreNewest: async (...a) => (await services()).state.restoreNewest(...a),
        save: async (...a) => (await services()).state.save(...a),
      },
      gate: { publish: async (...a) => (await services()).gate.publish(...a) },
      handover: { dispatchAgain: async (...a) => (await services()).handover.dispatchAgain(...a) },
      schedule: { set: async (...a) => (await services()).schedule.set(...a) },
    };
    return runCampaign(settings, lazy, {
      job: process.env.GITHUB_JOB ?? 'campaign',
      tempDir: process.env.RUNNER_TEMP ?? tmpdir(),
      ...(process.env.GITHUB_SHA ? { commit: process.env.GITHUB_SHA } : {}),
    });
  });
}
