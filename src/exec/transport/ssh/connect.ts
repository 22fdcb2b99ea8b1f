/**
 * The connection to a cluster's login node, through its bastions as OpenSSH's ProxyJump does:
 * each hop is an ssh2 client whose socket is a channel forwarded by the hop before it. Apart
 * from the commands and files that ride on it because making, verifying and remaking the
 * connection is the same whatever is sent over it.
 *
 * - Every hop's host key is always verified (pinned fingerprint and/or known_hosts); there is
 *   no switch to turn that off.
 * - When the connection (any hop of it) drops, whoever rides on it is told (`onDrop`). The
 *   next call reconnects, with backoff between failed attempts.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import ssh2 from 'ssh2';
import type { Client, ClientChannel, ConnectConfig, SFTPWrapper, ServerHostKeyAlgorithm } from 'ssh2';
import { UserError } from '../../../errors.js';
import { KEY_ENV, KEY_FILE_ENV } from '../../secrets.js';
import {
  type HostKeySource,
  type KnownHostsFile,
  checkHostKey,
  hostKeyAlgorithms,
  normalizeFingerprint,
} from '../host-key.js';
import { type SshTarget, formatTarget, parseTarget } from '../target.js';
import { abortable } from '../waiting.js';
import { Authentication, type Key, type KeyOptions, readIdentityFiles, readKeys, redactor } from './auth.js';

/** One host on the way: how it is reached, verified and logged in to. */
export interface SshHop {
  /** `user@host:port`. */
  target: string;
  /** The name the user gave it (a Host of the SSH config), for messages. */
  alias?: string;
  /** The host key's `SHA256:<base64>` fingerprint, as `ssh-keygen -lf` prints it. */
  hostKeyFingerprint?: string;
  /** An OpenSSH known_hosts file (on this machine) that must list the host's key. */
  knownHostsFile?: string;
  /**
   * known_hosts files any one of which may list the key, as `ssh` reads its
   * UserKnownHostsFile list (those that do not exist are skipped).
   */
  knownHostsFiles?: readonly string[];
  /** Private key files tried after the variables and the agent (the config's IdentityFile). */
  identityFiles?: readonly string[];
  /** The config's IdentitiesOnly: no keys from the agent. */
  identitiesOnly?: boolean;
}

/** The hops, how each is logged in to, and how the connection is kept. */
export interface ConnectOptions extends SshHop, KeyOptions {
  /** The bastions passed through in order before the target, each verified like it. */
  jumps?: readonly SshHop[];
  /** A keepalive every this many ms; the connection counts as dropped after keepaliveCountMax unanswered. */
  keepaliveIntervalMs?: number;
  keepaliveCountMax?: number;
  /** How long one connection attempt may take up to a logged-in session, per hop. */
  readyTimeoutMs?: number;
  /** The waits between failed connection attempts; one more attempt than waits. */
  retryDelaysMs?: readonly number[];
}

/** One established connection (through every hop) and what is opened on it lazily. */
export interface Connection {
  /** The client logged in to the target. */
  client: Client;
  /** Every hop's client, the target's last. */
  clients: Client[];
  /** Settled as each of them closes. */
  closed: Promise<void>[];
  alive: boolean;
  /** Told once, when the connection ends, why it did. */
  readonly onDrop: Set<(why: Error) => void>;
  sftp?: Promise<SFTPWrapper>;
  home?: Promise<string>;
  /** Command channels open on it or being opened (the server counts them against its MaxSessions). */
  channels: number;
}

/** A hop as the transport keeps it, checked. */
interface Hop {
  target: SshTarget;
  /** How messages name it: the target, or which bastion it is. */
  name: string;
  options: SshHop;
  /** The identity files that hold a usable key, and what became of the others. */
  keys: Key[];
  skipped: string[];
}

const DEFAULT_RETRY_DELAYS_MS = [500, 1000, 2000, 4000];
/** How long close() waits for the server to see the connection end. */
const CLOSE_WAIT_MS = 2_000;
/** How long a login may take when someone may be asked a keyboard-interactive prompt. */
const PROMPT_READY_TIMEOUT_MS = 100_000;
/** SSH channel open failure: the server's policy forbids it (e.g. AllowTcpForwarding no). */
const ADMINISTRATIVELY_PROHIBITED = 1;

/** Logs in through every hop and keeps the one live connection, remade when it drops. */
export class Connector {
  private readonly hops: Hop[];
  private readonly target: SshTarget;
  /** The target as messages name it. */
  readonly name: string;
  /** The keys every hop is offered first: the variable's and the key file's. */
  private readonly keys: Key[];
  private readonly agent: string | undefined;
  /** A message with every key's text and passphrase taken out. */
  readonly redact: (message: string) => string;
  private readonly retryDelaysMs: readonly number[];
  private conn: Connection | undefined;
  private connecting: Promise<Connection> | undefined;
  private closed = false;

  /** Checks the options and reads the keys; throws a UserError for anything the user must fix. */
  constructor(private readonly opts: ConnectOptions) {
    const all = [...(opts.jumps ?? []), opts];
    this.keys = readKeys(opts);
    this.agent = opts.agent !== undefined && existsSync(opts.agent) ? opts.agent : undefined;
    this.hops = all.map((hop, i) => {
      const target = parseTarget(hop.target);
      const where = hop.alias === undefined ? formatTarget(target) : `${hop.alias}, ${formatTarget(target)}`;
      const name = i === all.length - 1 ? where : `jump host ${i + 1} of ${all.length - 1} (${where})`;
      return { target, name, options: hop, ...readIdentityFiles(hop.identityFiles ?? [], opts) };
    });
    this.target = this.hops.at(-1)!.target;
    this.name = this.hops.at(-1)!.name;
    for (const hop of this.hops) {
      const o = hop.options;
      if (o.hostKeyFingerprint === undefined && o.knownHostsFile === undefined && !o.knownHostsFiles?.length) {
        throw new UserError({
          message: `no host key to verify ${hop.name} against: give a pinned fingerprint or a known_hosts file`,
          fix: `check the host's key out of band and pin its fingerprint from \`${keyscan(hop.target)} | ssh-keygen -lf -\``,
        });
      }
      if (o.hostKeyFingerprint !== undefined) normalizeFingerprint(o.hostKeyFingerprint);
      const usesAgent = this.agent !== undefined && !o.identitiesOnly;
      if (this.keys.length === 0 && hop.keys.length === 0 && !usesAgent) {
        throw new UserError({
          message: `no SSH key to log in to ${hop.name} with: ${this.noKeyReasons(hop).join('; ')}`,
          fix: `put the private key's text in ${KEY_ENV} or its path in ${KEY_FILE_ENV}, add it to a running ssh-agent (SSH_AUTH_SOCK), or name it as IdentityFile in the SSH config`,
        });
      }
    }
    const secrets = [...this.keys, ...this.hops.flatMap((h) => h.keys)].flatMap((k) => [k.text, k.passphrase ?? '']);
    this.redact = redactor(secrets);
    this.retryDelaysMs = opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  }

  async close(): Promise<void> {
    this.closed = true;
    const conn = this.conn;
    if (!conn?.alive) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, CLOSE_WAIT_MS);
      void Promise.all(conn.closed).then(() => {
        clearTimeout(timer);
        resolve();
      });
      // The target first; its end drops the connection, which ends the bastions' clients.
      conn.client.end();
    });
  }

  /** The live connection, or a new one (shared by all callers waiting for it). */
  connection(signal: AbortSignal): Promise<Connection> {
    if (this.closed) return Promise.reject(new Error(`the transport to ${this.name} is closed`));
    if (this.conn?.alive) return Promise.resolve(this.conn);
    if (!this.connecting) {
      this.connecting = this.connectWithRetry().finally(() => (this.connecting = undefined));
      // Every caller may have timed out by the time it settles.
      this.connecting.catch(() => {});
    }
    return abortable(this.connecting, signal);
  }

  private async connectWithRetry(): Promise<Connection> {
    let last: Error | undefined;
    for (let attempt = 0; attempt <= this.retryDelaysMs.length; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, this.retryDelaysMs[attempt - 1]));
      if (this.closed) throw new Error(`the transport to ${this.name} is closed`);
      try {
        const conn = await this.connectOnce();
        if (this.closed) {
          for (const client of conn.clients) client.end();
          throw new Error(`the transport to ${this.name} is closed`);
        }
        this.conn = conn;
        return conn;
      } catch (e) {
        // A refused host key or key will be refused again: no point in retrying.
        if (e instanceof UserError) throw e;
        last = e as Error;
      }
    }
    const jumps = this.hops.slice(0, -1).map((h) => formatTarget(h.target));
    const { port, user, host } = this.target;
    throw new UserError({
      message: `cannot connect to ${this.name} after ${this.retryDelaysMs.length + 1} attempts: ${last?.message}`,
      fix: `check that the host is up and the target is right, e.g. with \`ssh ${jumps.length ? `-J ${jumps.join(',')} ` : ''}-p ${port} ${user}@${host} true\``,
    });
  }

  /** Logs in to each hop in turn, each through a channel the one before forwards to it. */
  private async connectOnce(): Promise<Connection> {
    const clients: Client[] = [];
    const closed: Promise<void>[] = [];
    const made: { conn?: Connection; lostEarly?: Error } = {};
    // Any hop that goes down takes the whole connection with it: the hops after it ride on it.
    const drop = (why: Error) => {
      for (const client of clients) client.end();
      const conn = made.conn;
      if (!conn) {
        made.lostEarly ??= why;
        return;
      }
      if (!conn.alive) return;
      conn.alive = false;
      if (this.conn === conn) this.conn = undefined;
      for (const tell of conn.onDrop) tell(why);
      conn.onDrop.clear();
    };
    try {
      let sock: ClientChannel | undefined;
      for (const [i, hop] of this.hops.entries()) {
        const { client, closing } = await this.connectHop(hop, sock, drop);
        clients.push(client);
        closed.push(closing);
        const next = this.hops[i + 1];
        if (next) sock = await this.forward(client, hop, next);
      }
    } catch (e) {
      for (const client of clients) client.end();
      throw e;
    }
    if (made.lostEarly) throw made.lostEarly;
    made.conn = { client: clients.at(-1)!, clients, closed, alive: true, onDrop: new Set(), channels: 0 };
    return made.conn;
  }

  /** One hop's logged-in client; `drop` is told if it goes down afterwards. */
  private async connectHop(
    hop: Hop,
    sock: ClientChannel | undefined,
    drop: (why: Error) => void,
  ): Promise<{ client: Client; closing: Promise<void> }> {
    const { host, port, user } = hop.target;
    const sources = await this.hostKeySources(hop);
    const algorithms = hostKeyAlgorithms(host, port, sources) as ServerHostKeyAlgorithm[] | undefined;
    const auth = new Authentication(
      hop,
      [...this.keys, ...hop.keys],
      this.agentFor(hop),
      this.opts.keyboardInteractive,
    );
    const client = new ssh2.Client();
    let refused: UserError | undefined;
    const config: ConnectConfig = {
      ...(sock ? { sock } : { host, port }),
      username: user,
      authHandler: auth.handler,
      hostVerifier: (key: Buffer) => {
        refused = checkHostKey(key, host, port, sources);
        return refused === undefined;
      },
      keepaliveInterval: this.opts.keepaliveIntervalMs ?? 15_000,
      keepaliveCountMax: this.opts.keepaliveCountMax ?? 3,
      // ssh2's ready timeout covers the login, and so a person typing a code: give them time.
      readyTimeout: this.opts.readyTimeoutMs ?? (this.opts.keyboardInteractive ? PROMPT_READY_TIMEOUT_MS : 20_000),
      ...(algorithms ? { algorithms: { serverHostKey: algorithms } } : {}),
    };
    const closing = new Promise<void>((resolve) => client.once('close', () => resolve()));
    return new Promise((resolve, reject) => {
      let ready = false;
      const down = (why: Error) => (ready ? drop(why) : reject(why));
      client.on('ready', () => {
        ready = true;
        resolve({ client, closing });
      });
      // Always listening: an unheard 'error' would crash the process.
      client.on('error', (e: Error & { level?: string }) => {
        // An agent that fails, or a key that cannot sign: ssh2 goes on to the next key.
        if (!ready && auth.goesOn(e)) return;
        client.end();
        down(this.connectError(hop, e, refused, auth));
      });
      client.on('end', () => down(new Error(`the connection to ${hop.name} ended`)));
      client.on('close', () => down(new Error(`the connection to ${hop.name} closed`)));
      try {
        client.connect(config);
      } catch (e) {
        down(new Error(`cannot connect to ${hop.name}: ${this.redact((e as Error).message)}`));
      }
    });
  }

  /** A channel from `via` to the next hop's host and port, as `ssh -W` opens it. */
  private forward(via: Client, hop: Hop, next: Hop): Promise<ClientChannel> {
    const { host, port } = next.target;
    return new Promise((resolve, reject) => {
      try {
        via.forwardOut('127.0.0.1', 0, host, port, (err, channel) => {
          if (!err) {
            resolve(channel);
            return;
          }
          const message = `${hop.name} could not open a channel to ${host}:${port}: ${this.redact(err.message)}`;
          // A refusal by policy will be refused again; anything else (the host down) may pass.
          if ((err as Error & { reason?: number }).reason === ADMINISTRATIVELY_PROHIBITED) {
            reject(
              new UserError({
                message,
                fix: `ask the admins of ${formatTarget(hop.target)} whether it allows TCP forwarding (AllowTcpForwarding), or use a bastion that does`,
              }),
            );
          } else reject(new Error(message));
        });
      } catch (e) {
        // ssh2 throws when the socket has just gone.
        reject(new Error(`${hop.name} dropped before forwarding to ${host}:${port}: ${(e as Error).message}`));
      }
    });
  }

  private agentFor(hop: Hop): string | undefined {
    return hop.options.identitiesOnly ? undefined : this.agent;
  }

  /** What an ssh2 error means for the user: refusals are UserErrors (never retried), the rest plain Errors. */
  private connectError(
    hop: Hop,
    e: Error & { level?: string },
    refusedHostKey: UserError | undefined,
    auth: Authentication,
  ): Error {
    if (refusedHostKey) {
      if (hop === this.hops.at(-1)) return refusedHostKey;
      return new UserError(refusedHostKey.problems.map((p) => ({ ...p, message: `${hop.name}: ${p.message}` })));
    }
    if (e.level === 'client-authentication') return auth.failure(this.noKeyReasons(hop));
    return new Error(`connection to ${hop.name}: ${this.redact(e.message)}`);
  }

  /** Why each key source gave nothing, for the message that says none did. */
  private noKeyReasons(hop: Hop): string[] {
    const { keyEnv, keyFile, agent } = this.opts;
    return [
      ...(keyEnv === undefined && keyFile === undefined ? ['no key variable or key file given'] : []),
      ...(hop.options.identitiesOnly
        ? ['IdentitiesOnly: no ssh-agent']
        : agent === undefined
          ? ['no ssh-agent (SSH_AUTH_SOCK is not set)']
          : this.agent === undefined
            ? [`no ssh-agent at ${agent}`]
            : []),
      ...hop.skipped,
    ];
  }

  private async hostKeySources(hop: Hop): Promise<HostKeySource[]> {
    const sources: HostKeySource[] = [];
    const { hostKeyFingerprint, knownHostsFile, knownHostsFiles } = hop.options;
    if (hostKeyFingerprint !== undefined) {
      sources.push({ kind: 'fingerprint', fingerprint: normalizeFingerprint(hostKeyFingerprint) });
    }
    if (knownHostsFile !== undefined) {
      const text = await readFile(knownHostsFile, 'utf8').catch((e: NodeJS.ErrnoException) => {
        throw new UserError({
          message: `cannot read the known_hosts file ${knownHostsFile}: ${e.code ?? e.message}`,
          fix: `create it with the host's checked key: ${keyscan(hop.target)} >> ${knownHostsFile}`,
        });
      });
      sources.push({ kind: 'known_hosts', files: [{ path: knownHostsFile, text }] });
    }
    if (knownHostsFiles?.length) {
      const files: KnownHostsFile[] = [];
      for (const path of knownHostsFiles) {
        const text = await readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => {
          if (e.code === 'ENOENT') return undefined;
          throw new UserError({
            message: `cannot read the known_hosts file ${path}: ${e.code ?? e.message}`,
            fix: 'make it readable, or name another as UserKnownHostsFile in the SSH config',
          });
        });
        if (text !== undefined) files.push({ path, text });
      }
      if (files.length === 0) {
        throw new UserError({
          message: `no known_hosts file to verify ${hop.name} against: none of ${knownHostsFiles.join(', ')} exists`,
          fix: `check the host's key out of band, then add it (\`${keyscan(hop.target)}\`) to ${knownHostsFiles[0]}, or pin it with host_key`,
        });
      }
      sources.push({ kind: 'known_hosts', files });
    }
    return sources;
  }
}

function keyscan(t: SshTarget): string {
  return `ssh-keyscan -p ${t.port} ${t.host}`;
}
