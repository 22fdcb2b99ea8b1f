/**
 * The runner starts the action with its secrets in its environment: the SSH key
 * (`INPUT_SSH-KEY`), the tokens (`GITHUB_TOKEN`, `INPUT_TOKEN`, `ACTIONS_RUNTIME_TOKEN`, …). On
 * Linux the environment a process was started with stays readable in /proc/PID/environ to
 * every process of the same user, a local task among them, whatever the process later removes
 * from `process.env` (that changes the C library's copy, never the block the kernel shows). So
 * the action starts itself again, in place (execve), with an environment that holds none of
 * them, and takes them back from a file only this user can read, removed before anything runs.
 * In the second start they live in memory alone: `process.env` set from there is the C
 * library's copy, which /proc does not show, and every child still gets the filtered
 * environment of exec/secrets.ts.
 */
import { mkdtempSync, readFileSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { environmentWithoutSecrets, isSecretName } from '../app/secrets.js';

/** Names the file the first start left the secrets in, for the second. */
const HANDOFF_ENV = 'CAMPAIGN_SECRETS_HANDOFF';

type Execve = (file: string, args: string[], env: NodeJS.ProcessEnv) => never;

/**
 * Call first, before anything starts a process. Returns only in the second start (the secrets
 * back in `process.env`), or where the secrets cannot be moved: none to move, or a Node without
 * `process.execve` (before 22.15, or not Linux), said through `warn`.
 */
export function secretsOutOfEnviron(warn: (message: string) => void): void {
  const handoff = process.env[HANDOFF_ENV];
  if (handoff !== undefined) {
    delete process.env.CAMPAIGN_SECRETS_HANDOFF;
    const secrets = JSON.parse(readFileSync(handoff, 'utf8')) as Record<string, string>;
    unlinkSync(handoff);
    rmdirSync(dirname(handoff));
    Object.assign(process.env, secrets);
    return;
  }
  const secrets = Object.entries(process.env).filter(([name, value]) => isSecretName(name) && value !== undefined);
  if (secrets.length === 0) return;
  const execve = (process as { execve?: Execve }).execve;
  if (process.platform !== 'linux' || typeof execve !== 'function') {
    warn(
      `this Node (${process.version}) cannot start the action again without its secrets (process.execve needs Node 22.15 or later on Linux): a local task can read them in the action's /proc/PID/environ`,
    );
    return;
  }
  // A directory only this user can enter (mkdtemp: 0700), a file only this user can read.
  const dir = mkdtempSync(join(process.env.RUNNER_TEMP ?? tmpdir(), 'campaign-secrets-'));
  const file = join(dir, 'secrets.json');
  writeFileSync(file, JSON.stringify(Object.fromEntries(secrets)), { mode: 0o600, flag: 'wx' });
  execve.call(process, process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    ...environmentWithoutSecrets(),
    [HANDOFF_ENV]: file,
  });
}
