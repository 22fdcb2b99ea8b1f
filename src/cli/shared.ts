/**
 * What several commands share: how they tell a note or a warning, the pipe whose reader has
 * gone, the campaign a command reads (here, or from GitHub) and its executor, and the version.
 */
import { readFile } from 'node:fs/promises';
import { loadCampaign, type Campaign } from '../app/load.js';
import { UserError } from '../errors.js';
import { formatFinding } from '../lint/lint.js';
import { EXIT } from './command.js';

/** The version in the package.json beside the built code; "unknown" where there is none. */
export async function version(): Promise<string> {
  try {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * Aborted when stdout or stderr turns out to be a pipe whose reader has gone. Node reports it
 * as an EPIPE error on the stream, which unhandled prints a stack trace: instead the command
 * ends quietly with status 141, `run` after its pass (its lock released), `logs --follow` at
 * its next read, the others as they return.
 */
export const closedPipe = new AbortController();
let watchingPipes = false;

export function watchPipes(): void {
  if (watchingPipes) return;
  watchingPipes = true;
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      process.exitCode = EXIT.closedPipe;
      closedPipe.abort();
    });
}

export const warn = (m: string): void => {
  process.stderr.write(`campaign: warning: ${m}\n`);
};

export const note = (m: string): void => {
  process.stderr.write(`campaign: ${m}\n`);
};

/** The manifest's warnings, on stderr, before a command that reads it goes on. */
export function printWarnings(c: Campaign): void {
  for (const w of c.warnings) process.stderr.write(formatFinding(w) + '\n');
}

/** The campaign's executor, with the SSH key and passphrase the environment gives. */
export async function openFor(c: Campaign, since: () => string, checkCluster: boolean) {
  const [{ openExecutor }, { sshSecretsFrom }] = await Promise.all([
    import('../app/executors.js'),
    import('../app/transport-for.js'),
  ]);
  return openExecutor(c, { ssh: sshSecretsFrom(process.env), since, warn, checkCluster });
}

/**
 * The campaign of a command that reads its state: with --from-github, the state the newest
 * trusted workflow run saved, fetched into --state-dir or a temporary directory.
 */
export async function campaignOf(
  file: string,
  values: Record<string, string | boolean | undefined>,
): Promise<Campaign> {
  const stateDir = values['state-dir'] as string | undefined;
  if (values['from-github'] !== true) {
    if (values.repo !== undefined || values.branch !== undefined)
      throw new UserError({
        message: '--repo and --branch say where on GitHub to read the state from',
        fix: 'add --from-github',
      });
    return loadCampaign(file, stateDir);
  }
  const c = await loadCampaign(file);
  const { campaignFromGitHub } = await import('./from-github.js');
  const repo = values.repo as string | undefined;
  const branch = values.branch as string | undefined;
  const where = { ...(repo ? { repo } : {}), ...(branch ? { branch } : {}), ...(stateDir ? { stateDir } : {}) };
  return campaignFromGitHub(c, where, process.env, note);
}
