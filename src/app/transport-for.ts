/** The transport a campaign's cluster is reached by: this machine, or SSH to its login. */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { UserError } from '../errors.js';
import { KEY_ENV, KEY_FILE_ENV, PASSPHRASE_ENV } from '../exec/secrets.js';
import { LocalTransport } from '../exec/transport/local.js';
import { SshTransport } from '../exec/transport/ssh.js';
import type { Transport } from '../exec/transport/transport.js';
import type { Campaign } from './load.js';

/** The SSH key (its text, or its file) and passphrase, handed over by the front end. */
export interface SshSecrets {
  key?: string;
  keyFile?: string;
  passphrase?: string;
}

/** The secrets as the environment gives them: CAMPAIGN_SSH_KEY, _KEY_FILE and _PASSPHRASE. */
export function sshSecretsFrom(env: NodeJS.ProcessEnv): SshSecrets {
  return {
    ...(env[KEY_ENV] ? { key: env[KEY_ENV] } : {}),
    ...(env[KEY_FILE_ENV] ? { keyFile: env[KEY_FILE_ENV] } : {}),
    ...(env[PASSPHRASE_ENV] ? { passphrase: env[PASSPHRASE_ENV] } : {}),
  };
}

export function transportFor(c: Campaign, ssh: SshSecrets): Transport {
  const cluster = c.manifest.cluster;
  if (cluster.executor === 'local' || !cluster.login) return new LocalTransport();
  const base = dirname(c.file);
  const keyFile = ssh.keyFile ?? defaultKey();
  if (!ssh.key && !keyFile) {
    throw new UserError({
      message: `no SSH key for ${cluster.login}`,
      fix: `put the private key's text in ${KEY_ENV}, or its path in ${KEY_FILE_ENV}`,
    });
  }
  return new SshTransport({
    target: cluster.login,
    ...(cluster.host_key ? { hostKeyFingerprint: cluster.host_key } : {}),
    ...(cluster.known_hosts ? { knownHostsFile: resolve(base, cluster.known_hosts) } : {}),
    // Looked up in an environment of their own, never process.env: no child can inherit them.
    ...(ssh.key ? { keyEnv: KEY_ENV } : { keyFile: keyFile! }),
    passphraseEnv: PASSPHRASE_ENV,
    env: { [KEY_ENV]: ssh.key, [PASSPHRASE_ENV]: ssh.passphrase },
  });
}

function defaultKey(): string | undefined {
  return ['id_ed25519', 'id_ecdsa', 'id_rsa'].map((k) => join(homedir(), '.ssh', k)).find((p) => existsSync(p));
}
