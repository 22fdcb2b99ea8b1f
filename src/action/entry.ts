/** What both entry points do around their work: a user error is annotated, and any failure fails the step. */
import { failureOf } from '../app/errors.js';
import { core } from './toolkit.js';
import { annotate, problemFindings } from './report.js';

export async function entry(work: () => Promise<string | undefined>): Promise<void> {
  try {
    const failure = await work();
    if (failure !== undefined) core.setFailed(failure);
  } catch (e) {
    const failure = failureOf(e);
    if (failure.kind === 'user') {
      annotate(problemFindings(failure.error));
      core.setFailed(failure.error.message);
    } else core.setFailed(failure.message);
  }
}
