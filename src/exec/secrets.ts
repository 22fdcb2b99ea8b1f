/**
 * The secrets campaign is given through its environment, and the environment it hands on:
 * tasks, batch jobs and local commands need none of them, and anything a task prints (`env`
 * in a debug line) would put them in its log.
 */

/** The SSH private key's text (a CI secret). */
export const KEY_ENV = 'CAMPAIGN_SSH_KEY';
/** The SSH private key's path. */
export const KEY_FILE_ENV = 'CAMPAIGN_SSH_KEY_FILE';
/** The passphrase of an encrypted key. */
export const PASSPHRASE_ENV = 'CAMPAIGN_SSH_PASSPHRASE';

const SECRET_ENV = new Set([KEY_ENV, KEY_FILE_ENV, PASSPHRASE_ENV, 'GITHUB_TOKEN', 'GH_TOKEN']);

/**
 * What a runner or campaign holds that no task needs, by name: the SSH key and passphrase (and
 * where the key is), the tokens, every action input (`INPUT_SSH-KEY`, `INPUT_TOKEN`, …) and the
 * runner's own service credentials (`ACTIONS_RUNTIME_TOKEN`, `ACTIONS_ID_TOKEN_REQUEST_TOKEN`, …).
 */
export function isSecretName(name: string): boolean {
  return SECRET_ENV.has(name) || name.startsWith('INPUT_') || name.startsWith('ACTIONS_');
}

/** This process's environment without the secrets, for every process campaign starts. */
export function environmentWithoutSecrets(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !isSecretName(name)));
}
