/**
 * What went wrong, said once for both front ends: a mistake the user can fix (a UserError), a
 * link to the cluster that failed (the user can retry), or a bug in campaign (with its trace).
 */
import { UserError } from '../errors.js';
import { LinkError } from '../exec/transport/transport.js';

export type Failure =
  { kind: 'user'; error: UserError } | { kind: 'link'; message: string } | { kind: 'bug'; message: string };

/** What kind of failure an error is, for a front end to tell it: the user's to fix, the link's, or a bug. */
export function failureOf(e: unknown): Failure {
  if (e instanceof UserError) return { kind: 'user', error: e };
  if (e instanceof LinkError)
    return { kind: 'link', message: `${e.message} (fix: check the connection to the cluster and run it again)` };
  return {
    kind: 'bug',
    message: `internal error (a bug in campaign; please report it with this trace):\n${(e as Error).stack ?? String(e)}`,
  };
}
