/** The transport a campaign's cluster is reached by: this machine, or SSH to its login. */
import { existsSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { UserError } from '../errors.js';
import { restriction } from '../manifest/schema.js';
import { KEY_ENV, KEY_FILE_ENV, PASSPHRASE_ENV } from '../exec/secrets.js';
import { FilesByCommands } from '../exec/transport/files-by-commands.js';
import { LocalTransport } from '../exec/transport/local.js';
import {
  type ConfigFile,
  type LocalContext,
  isExplicitTarget,
  readSshConfig,
  resolveAccess,
} from '../exec/transport/ssh-config.js';
import type { SshTransportOptions } from '../exec/transport/ssh.js';
import type { SshHop } from '../exec/transport/ssh/connect.js';
import { parseTarget } from '../exec/transport/target.js';
import { askOnTerminal } from './terminal-prompt.js';
import type { CommandResult, Transport } from '../exec/transport/transport.js';
import type { Word } from '../exec/transport/words.js';
import type { Campaign } from './load.js';

/** The SSH key (its text, or its file) and passphrase, and the ssh-agent, handed over by the front end. */
export interface SshSecrets {
  key?: string;
  keyFile?: string;
  passphrase?: string;
  /** The ssh-agent's socket. */
  agent?: string;
}

/** The secrets as the environment gives them: CAMPAIGN_SSH_KEY, _KEY_FILE and _PASSPHRASE, and SSH_AUTH_SOCK. */
export function sshSecretsFrom(env: NodeJS.ProcessEnv): SshSecrets {
  return {
    ...(env[KEY_ENV] ? { key: env[KEY_ENV] } : {}),
    ...(env[KEY_FILE_ENV] ? { keyFile: env[KEY_FILE_ENV] } : {}),
    ...(env[PASSPHRASE_ENV] ? { passphrase: env[PASSPHRASE_ENV] } : {}),
    ...(env.SSH_AUTH_SOCK ? { agent: env.SSH_AUTH_SOCK } : {}),
  };
}

/** The keys ssh tries when the config names none (those ssh2 can use). */
const DEFAULT_KEYS = ['id_ed25519', 'id_ecdsa', 'id_rsa'];

export function transportFor(c: Campaign, ssh: SshSecrets): Transport {
  const cluster = c.manifest.cluster;
  if (cluster.executor === 'local') return new LocalTransport();
  // sbatch here hands its environment to every job: a login shell's, never the runner's. GPU
  // tasks here run as this user beside campaign, like the local executor's, and inherit alike.
  if (!cluster.login) {
    if (restriction(cluster))
      throw new UserError({
        message:
          'cluster.restricted says the login is an automation node, and there is no cluster.login to reach it by',
        fix: "give the automation node's address as cluster.login, or remove restricted: true to run sbatch on this machine",
      });
    return new LocalTransport(cluster.executor === 'ssh-gpu' ? { environment: 'inherited' } : {});
  }
  const hops = sshHops(c)!;
  const target = hops.pop()!;
  const ssh2 = new LazySshTransport({
    ...target,
    jumps: hops,
    // Looked up in an environment of their own, never process.env: no child can inherit them.
    ...(ssh.key ? { keyEnv: KEY_ENV } : ssh.keyFile ? { keyFile: ssh.keyFile } : {}),
    passphraseEnv: PASSPHRASE_ENV,
    env: { [KEY_ENV]: ssh.key, [PASSPHRASE_ENV]: ssh.passphrase },
    ...(ssh.agent ? { agent: ssh.agent } : {}),
    // A second factor is asked for only where someone can answer it.
    ...(process.stdin.isTTY ? { keyboardInteractive: askOnTerminal } : {}),
  });
  // An automation node's Slurm-only list has no SFTP: its files are read with cat and ls.
  return restriction(cluster) === 'slurm' ? new FilesByCommands(ssh2) : ssh2;
}

/**
 * An SshTransport made when first used: ssh2 and the SSH code are loaded then, so that a
 * command that never reaches the cluster (plan, lint) does not load them (in the action's
 * bundle they are a chunk of their own, read only when imported). The options are checked and
 * the keys read when it is made, so a UserError for them comes with the first command.
 */
class LazySshTransport implements Transport {
  private made: Promise<Transport> | undefined;
  private inner: Transport | undefined;

  constructor(private readonly opts: SshTransportOptions) {}

  private open(): Promise<Transport> {
    return (this.made ??= import('../exec/transport/ssh.js').then((m) => (this.inner = new m.SshTransport(this.opts))));
  }

  get commandsSent(): number {
    return this.inner?.commandsSent ?? 0;
  }

  async exec(command: string, opts?: { timeoutMs?: number; stdin?: string | Buffer }): Promise<CommandResult> {
    return (await this.open()).exec(command, opts);
  }

  async run(words: readonly Word[], opts?: { timeoutMs?: number; stdin?: string | Buffer }): Promise<CommandResult> {
    return (await this.open()).run(words, opts);
  }

  async writeFile(path: string, data: string | Buffer, opts?: { mode?: number }): Promise<void> {
    return (await this.open()).writeFile(path, data, opts);
  }

  async attach(command: string, opts: { terminal: boolean }): Promise<number> {
    return (await this.open()).attach!(command, opts);
  }

  async readFile(path: string, opts?: { maxBytes?: number }): Promise<string | undefined> {
    return (await this.open()).readFile(path, opts);
  }

  async stat(path: string): Promise<{ size: number; mtimeMs: number; isFile: boolean } | undefined> {
    return (await this.open()).stat(path);
  }

  async realpath(path: string): Promise<string | undefined> {
    return (await this.open()).realpath(path);
  }

  async mkdirp(path: string): Promise<void> {
    return (await this.open()).mkdirp(path);
  }

  async rename(from: string, to: string): Promise<void> {
    return (await this.open()).rename(from, to);
  }

  async close(): Promise<void> {
    // Never opened: there is no connection to close.
    if (this.made === undefined) return;
    await (await this.made.catch(() => undefined))?.close();
  }
}

/** The user the login node is logged into as (an alias resolved through the SSH config); undefined without a login. */
export function loginUser(c: Campaign): string | undefined {
  const target = sshHops(c)?.at(-1)?.target;
  return target === undefined ? undefined : parseTarget(target).user;
}

/** The hops to the login, bastions first, each with its host-key sources; undefined without a login. */
function sshHops(c: Campaign): SshHop[] | undefined {
  const cluster = c.manifest.cluster;
  if (cluster.executor === 'local' || !cluster.login) return undefined;
  const base = dirname(c.file);
  const user = userInfo();
  const local: LocalContext = { home: homedir(), localUser: user.username, uid: user.uid };
  const access = {
    login: cluster.login,
    ...(cluster.host_key ? { host_key: cluster.host_key } : {}),
    ...(cluster.known_hosts ? { known_hosts: resolve(base, cluster.known_hosts) } : {}),
    ...(cluster.jump
      ? {
          jump: cluster.jump.map((j) => ({
            login: j.login,
            ...(j.host_key ? { host_key: j.host_key } : {}),
            ...(j.known_hosts ? { known_hosts: resolve(base, j.known_hosts) } : {}),
          })),
        }
      : {}),
  };
  const logins = [access.login, ...(access.jump ?? []).map((j) => j.login)];
  // The config is read only when some login names a Host of it.
  const config: ConfigFile = logins.every(isExplicitTarget)
    ? { path: '(none)', lines: [] }
    : sshConfig(cluster.ssh_config === undefined ? undefined : resolve(base, cluster.ssh_config), local.home);
  return resolveAccess(access, config, local).map((hop) => ({
    ...hop,
    identityFiles: hop.identityFiles ?? DEFAULT_KEYS.map((k) => join(local.home, '.ssh', k)),
  }));
}

/** The manifest's ssh_config, which must exist, or ~/.ssh/config, which may not. */
function sshConfig(path: string | undefined, home: string): ConfigFile {
  if (path === undefined) return readSshConfig(join(home, '.ssh', 'config'), home);
  const config = readSshConfig(path, home);
  if (config.lines.length === 0 && !existsSync(path)) {
    throw new UserError({
      message: `the SSH config ${path} (ssh_config in the manifest) does not exist`,
      fix: 'point ssh_config at the OpenSSH client config that has the Host, relative to the manifest',
    });
  }
  return config;
}
