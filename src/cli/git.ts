/** The git commit a manifest is at, for the provenance of what it runs. */
import { execFile } from 'node:child_process';
import { basename, dirname } from 'node:path';

const git = (cwd: string, args: string[]): Promise<string | undefined> =>
  new Promise((resolve) => {
    execFile('git', args, { cwd, timeout: 10_000 }, (error, stdout) => resolve(error ? undefined : stdout.trim()));
  });

/**
 * `HEAD`'s commit where the manifest is in a git checkout, with `-dirty` when the manifest
 * differs from it (a record must not claim a commit that did not hold what ran); undefined
 * outside a checkout or without git.
 */
export async function manifestCommit(file: string): Promise<string | undefined> {
  const cwd = dirname(file);
  const head = await git(cwd, ['rev-parse', 'HEAD']);
  if (!head || !/^[0-9a-f]{40,64}$/.test(head)) return undefined;
  const changed = await git(cwd, ['status', '--porcelain', '--', basename(file)]);
  return changed ? `${head}-dirty` : head;
}
