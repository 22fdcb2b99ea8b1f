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

const SECRET_ENV = new Set([KEY_ENV, PASSPHRASE_ENV]);

/** This process's environment without the secrets, for every process campaign starts. */
export function environmentWithoutSecrets(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !SECRET_ENV.has(name)));
}
