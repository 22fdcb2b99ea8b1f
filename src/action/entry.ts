/** What both entry points do around their work: a user error is annotated and fails the step; anything else is a bug. */
import { UserError } from '../errors.js';
import * as core from './commands.js';
import { annotate, problemFindings } from './report.js';

export async function entry(work: () => Promise<string | undefined>): Promise<void> {
  try {
    const failure = await work();
    if (failure !== undefined) core.setFailed(failure);
  } catch (e) {
    if (e instanceof UserError) {
      annotate(problemFindings(e));
      core.setFailed(e.message);
    } else {
      core.setFailed(
        `internal error (a bug in campaign; please report it with this trace):\n${(e as Error).stack ?? String(e)}`,
      );
    }
  }
}
