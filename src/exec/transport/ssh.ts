/**
 * The transport to a cluster's login node: one SSH connection (ssh2) that carries every
 * command as its own channel, plus one SFTP session for files.
 *
 * - The host key is always verified (pinned fingerprint and/or known_hosts); there is no
 *   switch to turn that off.
 * - Every command has a timeout covering all of it: waiting for a channel, (re)connecting and
 *   running. On timeout its channel is sent SIGKILL and closed, and `timeout` on the server
 *   kills the command's process group a moment later in any case.
 * - When the connection drops, commands in flight reject: they may or may not have run, and
 *   only the caller knows whether running one again is safe. The next call reconnects, with
 *   backoff between failed attempts.
 * - The private key's text and passphrase never appear in an error message: errors that come
 *   from ssh2 pass through `redact` before they reach one.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { constants } from 'node:os';
import ssh2 from 'ssh2';
import type { Client, ClientChannel, ConnectConfig, ParsedKey, SFTPWrapper, ServerHostKeyAlgorithm, Stats } from 'ssh2';
import { UserError } from '../../errors.js';
import { shellQuote } from '../../render/shell.js';
import { type HostKeySource, checkHostKey, hostKeyAlgorithms, normalizeFingerprint } from './host-key.js';
import { type SshTarget, formatTarget, parseTarget } from './target.js';
import {
  LinkError,
  type CommandResult,
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_MAX_READ_BYTES,
  type Transport,
  commandTimeout,
  firstWord,
  resolveHome,
  tempPathFor,
  tooLarge,
} from './transport.js';
import { Slots, abortable } from './waiting.js';

export interface SshTransportOptions {
  /** `user@host:port`. */
  target: string;
  /** The host key's `SHA256:<base64>` fingerprint, as `ssh-keygen -lf` prints it. */
  hostKeyFingerprint?: string;
  /** An OpenSSH known_hosts file (on this machine) that lists the host's key. */
  knownHostsFile?: string;
  /** The private key's file. */
  keyFile?: string;
  /** The name of an environment variable holding the private key's text (e.g. a CI secret). */
  keyEnv?: string;
  /** The name of an environment variable holding the key's passphrase. */
  passphraseEnv?: string;
  /** Where keyEnv and passphraseEnv are looked up; process.env by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /** A keepalive every this many ms; the connection counts as dropped after keepaliveCountMax unanswered. */
  keepaliveIntervalMs?: number;
  keepaliveCountMax?: number;
  /** How long one connection attempt may take up to a logged-in session. */
  readyTimeoutMs?: number;
  /** A command's timeout when exec is given none. */
  commandTimeoutMs?: number;
  /** The timeout of each file operation. */
  fileTimeoutMs?: number;
  /** The waits between failed connection attempts; one more attempt than waits. */
  retryDelaysMs?: readonly number[];
  /** Commands running at once on the connection; the rest wait. Keep below the server's MaxSessions. */
  maxChannels?: number;
}

/** One established connection and what is opened on it lazily. */
interface Connection {
  client: Client;
  alive: boolean;
  /** Told once, when the connection ends, why it did. */
  readonly onDrop: Set<(why: Error) => void>;
  sftp?: Promise<SFTPWrapper>;
  home?: Promise<string>;
}

/** OpenSSH's default MaxSessions is 10: the SFTP session takes one, and one stays spare. */
const DEFAULT_MAX_CHANNELS = 8;
const DEFAULT_RETRY_DELAYS_MS = [500, 1000, 2000, 4000];
const DEFAULT_FILE_TIMEOUT_MS = 60_000;
/** How long after the client's deadline the server kills a command that is still running. */
const SERVER_KILL_GRACE_MS = 1_000;
/** How long close() waits for the server to see the connection end. */
const CLOSE_WAIT_MS = 2_000;
/** SFTP status code for a path with nothing there. */
const NO_SUCH_FILE = 2;

export class SshTransport implements Transport {
  private readonly target: SshTarget;
  /** The target as messages name it. */
  private readonly name: string;
  private readonly key: { text: string; passphrase: string | undefined; source: string };
  private readonly redact: (message: string) => string;
  private readonly slots: Slots;
  private readonly retryDelaysMs: readonly number[];
  private conn: Connection | undefined;
  private connecting: Promise<Connection> | undefined;
  private closed = false;
  private sent = 0;

  /** Checks the options and reads the key; throws a UserError for anything the user must fix. */
  constructor(private readonly opts: SshTransportOptions) {
    this.target = parseTarget(opts.target);
    this.name = formatTarget(this.target);
    if (opts.hostKeyFingerprint === undefined && opts.knownHostsFile === undefined) {
      throw new UserError({
        message: `no host key to verify ${this.name} against: give a pinned fingerprint or a known_hosts file`,
        fix: `check the host's key out of band and pin its fingerprint from \`${this.keyscan()} | ssh-keygen -lf -\``,
      });
    }
    if (opts.hostKeyFingerprint !== undefined) normalizeFingerprint(opts.hostKeyFingerprint);
    this.key = readKey(opts);
    this.redact = redactor([this.key.text, this.key.passphrase ?? '']);
    this.slots = new Slots(opts.maxChannels ?? DEFAULT_MAX_CHANNELS);
    this.retryDelaysMs = opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  }

  get commandsSent(): number {
    return this.sent;
  }

  async exec(command: string, opts: { timeoutMs?: number; stdin?: string } = {}): Promise<CommandResult> {
    this.sent++;
    const timeoutMs = opts.timeoutMs ?? this.opts.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    const job = new AbortController();
    const timer = setTimeout(() => job.abort(commandTimeout(command, timeoutMs, this.name)), timeoutMs);
    try {
      const release = await this.slots.take(job.signal);
      let conn: Connection;
      try {
        conn = await this.connection(job.signal);
      } catch (e) {
        release();
        throw e;
      }
      return await this.run(conn, command, opts.stdin, deadline, job.signal, release);
    } finally {
      clearTimeout(timer);
    }
  }

  async writeFile(path: string, data: string, opts: { mode?: number } = {}): Promise<void> {
    await this.withSftp('writeFile', path, async (sftp, target) => {
      const temp = tempPathFor(target);
      try {
        await done((cb) => sftp.writeFile(temp, data, opts.mode === undefined ? {} : { mode: opts.mode }, cb));
        // The mode asked for, not what the server's umask leaves of it.
        if (opts.mode !== undefined) await done((cb) => sftp.chmod(temp, opts.mode!, cb));
        await rename(sftp, temp, target);
      } catch (e) {
        await done((cb) => sftp.unlink(temp, cb)).catch(() => {});
        throw e;
      }
    });
  }

  async readFile(path: string, opts: { maxBytes?: number } = {}): Promise<string | undefined> {
    const maxBytes = opts.maxBytes ?? DEFAULT_MAX_READ_BYTES;
    return this.withSftp('readFile', path, async (sftp, target) => {
      const handle = await call<Buffer>((cb) => sftp.open(target, 'r', cb)).catch(ifMissing(undefined));
      if (!handle) return undefined;
      try {
        const { size } = await call<Stats>((cb) => sftp.fstat(handle, cb));
        if (size > maxBytes) throw tooLarge(target, size, maxBytes);
        // Read to the end rather than to the size seen, which may be stale; stop past the limit.
        const chunks: Buffer[] = [];
        let total = 0;
        for (;;) {
          const chunk = Buffer.alloc(Math.min(Math.max(size - total, 0) + 32 * 1024, maxBytes + 1 - total));
          const n = await call<number>((cb) => sftp.read(handle, chunk, 0, chunk.length, total, cb));
          if (n === 0) break;
          chunks.push(chunk.subarray(0, n));
          total += n;
          if (total > maxBytes) throw tooLarge(target, total, maxBytes);
        }
        return Buffer.concat(chunks).toString('utf8');
      } finally {
        await done((cb) => sftp.close(handle, cb)).catch(() => {});
      }
    });
  }

  async stat(path: string): Promise<{ size: number; mtimeMs: number; isFile: boolean } | undefined> {
    return this.withSftp('stat', path, async (sftp, target) => {
      const s = await call<Stats>((cb) => sftp.stat(target, cb)).catch(ifMissing(undefined));
      // SFTP (version 3, as OpenSSH speaks it) carries whole seconds only.
      return s && { size: s.size, mtimeMs: s.mtime * 1000, isFile: s.isFile() };
    });
  }

  async realpath(path: string): Promise<string | undefined> {
    return this.withSftp('realpath', path, (sftp, target) =>
      call<string>((cb) => sftp.realpath(target, cb)).catch(ifMissing(undefined)),
    );
  }

  async mkdirp(path: string): Promise<void> {
    await this.withSftp('mkdirp', path, async (sftp, target) => {
      const make = async (dir: string): Promise<void> => {
        const s = await call<Stats>((cb) => sftp.stat(dir, cb)).catch(ifMissing(undefined));
        if (s?.isDirectory()) return;
        if (s)
          throw new UserError({
            message: `${dir} on ${this.name} exists and is not a directory`,
            fix: 'move that file away, or give a workdir where campaign can make its directories',
          });
        const parent = dir.slice(0, dir.lastIndexOf('/'));
        if (parent !== '') await make(parent);
        await done((cb) => sftp.mkdir(dir, cb)).catch(async (e: unknown) => {
          // Someone else made it meanwhile.
          const now = await call<Stats>((cb) => sftp.stat(dir, cb)).catch(() => undefined);
          if (!now?.isDirectory()) throw e;
        });
      };
      await make(target.replace(/\/+$/, ''));
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const conn = this.conn;
    if (!conn?.alive) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, CLOSE_WAIT_MS);
      conn.onDrop.add(() => {
        clearTimeout(timer);
        resolve();
      });
      conn.client.end();
    });
  }

  /** Runs one command on its own channel; `release` gives the channel's slot back once it is closed. */
  private run(
    conn: Connection,
    command: string,
    stdin: string | undefined,
    deadline: number,
    signal: AbortSignal,
    release: () => void,
  ): Promise<CommandResult> {
    const word = firstWord(command);
    return new Promise((resolve, reject) => {
      let settled = false;
      let kill: (() => void) | undefined;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        conn.onDrop.delete(onDrop);
        signal.removeEventListener('abort', onAbort);
        outcome();
      };
      const onDrop = (why: Error) => {
        release();
        settle(() =>
          reject(
            new LinkError(
              `the connection to ${this.name} dropped while \`${word}\` was running (${why.message}); it may or may not have completed`,
            ),
          ),
        );
      };
      const onAbort = () => {
        kill?.();
        settle(() => reject(signal.reason as Error));
      };
      const notStarted = (err: Error) => {
        release();
        settle(() => reject(new LinkError(`could not start \`${word}\` on ${this.name}: ${this.redact(err.message)}`)));
      };
      if (!conn.alive) {
        notStarted(new Error('the connection has just dropped'));
        return;
      }
      conn.onDrop.add(onDrop);
      signal.addEventListener('abort', onAbort, { once: true });
      const started = (err: Error | undefined, channel: ClientChannel) => {
        if (err) {
          notStarted(err);
          return;
        }
        kill = () => {
          try {
            channel.signal('KILL');
          } catch {
            // The channel is already closing.
          }
          channel.close();
        };
        if (settled) {
          kill();
          return;
        }
        const stdout: Buffer[] = [];
        const stderr: Buffer[] = [];
        let exit: { code: number } | undefined;
        channel.on('data', (b: Buffer) => stdout.push(b));
        channel.stderr.on('data', (b: Buffer) => stderr.push(b));
        channel.on('exit', (code: number | null, signalName?: string) => {
          // As a shell reports it: 128 + the signal's number for a killed command (ssh2 names
          // it with the SIG prefix).
          const bySignal = 128 + (constants.signals[signalName as NodeJS.Signals] ?? 0);
          exit = { code: code ?? bySignal };
        });
        channel.on('close', () => {
          release();
          settle(() => {
            if (!exit) reject(new LinkError(`\`${word}\` on ${this.name} ended without an exit status`));
            else {
              resolve({
                code: exit.code,
                stdout: Buffer.concat(stdout).toString('utf8'),
                stderr: Buffer.concat(stderr).toString('utf8'),
              });
            }
          });
        });
        channel.end(stdin ?? '');
      };
      try {
        // bash whatever the login shell is. `timeout` kills the command's whole process group
        // on the server a little after the deadline even when sshd refuses the KILL signal
        // request (it does for root logins) or the network is gone.
        const limit = ((Math.max(deadline - Date.now(), 0) + SERVER_KILL_GRACE_MS) / 1000).toFixed(1);
        conn.client.exec(`exec timeout -s KILL ${limit} bash -c ${shellQuote(command)}`, started);
      } catch (e) {
        // ssh2 throws when the socket has just gone; the command was never sent.
        notStarted(e as Error);
      }
    });
  }

  /** Runs one SFTP operation on `path` (resolved against the home directory), bounded by the file timeout. */
  private async withSftp<T>(
    what: string,
    path: string,
    op: (sftp: SFTPWrapper, target: string) => Promise<T>,
  ): Promise<T> {
    const timeoutMs = this.opts.fileTimeoutMs ?? DEFAULT_FILE_TIMEOUT_MS;
    const job = new AbortController();
    const timer = setTimeout(
      () => job.abort(new LinkError(`${what} ${path} did not finish within ${timeoutMs} ms on ${this.name}`)),
      timeoutMs,
    );
    try {
      const conn = await this.connection(job.signal);
      conn.sftp ??= this.openSftp(conn);
      const sftp = await abortable(conn.sftp, job.signal);
      conn.home ??= call<string>((cb) => sftp.realpath('.', cb)).catch((e: unknown) => {
        conn.home = undefined;
        throw e;
      });
      const home = await abortable(conn.home, job.signal);
      return await abortable(op(sftp, resolveHome(path, home)), job.signal);
    } catch (e) {
      if (e instanceof UserError || e === job.signal.reason) throw e;
      // An SFTP status (no such file, permission denied) is the server's answer; anything else is the link.
      // The server's answer is for the user to act on (a permission, a full disk).
      const answered = typeof (e as { code?: unknown }).code === 'number';
      const message = `${what} ${path} on ${this.name} failed: ${this.redact((e as Error).message)}`;
      if (!answered) throw new LinkError(message, { cause: e });
      throw new UserError({
        message,
        fix: `check that the login user may ${what === 'readFile' || what === 'stat' || what === 'realpath' ? 'read' : 'write'} there, and that its disk has room`,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  /** The connection's one SFTP session; opened again if it closes. */
  private openSftp(conn: Connection): Promise<SFTPWrapper> {
    const opened = new Promise<SFTPWrapper>((resolve, reject) => {
      conn.client.sftp((err, sftp) => (err ? reject(err) : resolve(sftp)));
    });
    const forget = () => {
      if (conn.sftp === opened) conn.sftp = undefined;
    };
    opened.then((sftp) => sftp.on('close', forget), forget);
    return opened;
  }

  /** The live connection, or a new one (shared by all callers waiting for it). */
  private connection(signal: AbortSignal): Promise<Connection> {
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
          conn.client.end();
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
    throw new UserError({
      message: `cannot connect to ${this.name} after ${this.retryDelaysMs.length + 1} attempts: ${last?.message}`,
      fix: `check that the host is up and the target is right, e.g. with \`ssh -p ${this.target.port} ${this.target.user}@${this.target.host} true\``,
    });
  }

  private async connectOnce(): Promise<Connection> {
    const { host, port, user } = this.target;
    const sources = await this.hostKeySources();
    const algorithms = hostKeyAlgorithms(host, port, sources) as ServerHostKeyAlgorithm[] | undefined;
    const client = new ssh2.Client();
    let refused: UserError | undefined;
    const config: ConnectConfig = {
      host,
      port,
      username: user,
      privateKey: this.key.text,
      passphrase: this.key.passphrase,
      hostVerifier: (key: Buffer) => {
        refused = checkHostKey(key, host, port, sources);
        return refused === undefined;
      },
      keepaliveInterval: this.opts.keepaliveIntervalMs ?? 15_000,
      keepaliveCountMax: this.opts.keepaliveCountMax ?? 3,
      readyTimeout: this.opts.readyTimeoutMs ?? 20_000,
      ...(algorithms ? { algorithms: { serverHostKey: algorithms } } : {}),
    };
    return new Promise((resolve, reject) => {
      let conn: Connection | undefined;
      const drop = (why: Error) => {
        if (!conn) {
          reject(why);
          return;
        }
        if (!conn.alive) return;
        conn.alive = false;
        if (this.conn === conn) this.conn = undefined;
        for (const tell of conn.onDrop) tell(why);
        conn.onDrop.clear();
      };
      client.on('ready', () => {
        conn = { client, alive: true, onDrop: new Set() };
        resolve(conn);
      });
      // Always listening: an unheard 'error' would crash the process.
      client.on('error', (e: Error & { level?: string }) => {
        client.end();
        drop(this.connectError(e, refused));
      });
      client.on('end', () => drop(new Error(`the connection to ${this.name} ended`)));
      client.on('close', () => drop(new Error(`the connection to ${this.name} closed`)));
      try {
        client.connect(config);
      } catch (e) {
        drop(new Error(`cannot connect to ${this.name}: ${this.redact((e as Error).message)}`));
      }
    });
  }

  /** What an ssh2 error means for the user: refusals are UserErrors (never retried), the rest plain Errors. */
  private connectError(e: Error & { level?: string }, refusedHostKey: UserError | undefined): Error {
    if (refusedHostKey) return refusedHostKey;
    if (e.level === 'client-authentication') {
      return new UserError({
        message: `${this.name} did not accept the private key from ${this.key.source}`,
        fix: `authorise its public key (ssh-keygen -y -f <key file>) in ~/.ssh/authorized_keys of ${this.target.user} there, or give the key that is`,
      });
    }
    return new Error(`connection to ${this.name}: ${this.redact(e.message)}`);
  }

  private async hostKeySources(): Promise<HostKeySource[]> {
    const sources: HostKeySource[] = [];
    const { hostKeyFingerprint, knownHostsFile } = this.opts;
    if (hostKeyFingerprint !== undefined) {
      sources.push({ kind: 'fingerprint', fingerprint: normalizeFingerprint(hostKeyFingerprint) });
    }
    if (knownHostsFile !== undefined) {
      const text = await readFile(knownHostsFile, 'utf8').catch((e: NodeJS.ErrnoException) => {
        throw new UserError({
          message: `cannot read the known_hosts file ${knownHostsFile}: ${e.code ?? e.message}`,
          fix: `create it with the host's checked key: ${this.keyscan()} >> ${knownHostsFile}`,
        });
      });
      sources.push({ kind: 'known_hosts', path: knownHostsFile, text });
    }
    return sources;
  }

  private keyscan(): string {
    return `ssh-keyscan -p ${this.target.port} ${this.target.host}`;
  }
}

/** The private key's text and passphrase from the options, checked to be a usable private key. */
function readKey(opts: SshTransportOptions): { text: string; passphrase: string | undefined; source: string } {
  const env = opts.env ?? process.env;
  if ((opts.keyFile === undefined) === (opts.keyEnv === undefined)) {
    throw new UserError({
      message: 'give the SSH private key either as a file or as an environment variable, exactly one of them',
      fix: 'set the key file path, or the name of the variable (e.g. a CI secret) that holds the key',
    });
  }
  let text: string;
  let source: string;
  if (opts.keyEnv !== undefined) {
    source = `environment variable ${opts.keyEnv}`;
    text = env[opts.keyEnv] ?? '';
    if (text.trim() === '') {
      throw new UserError({
        message: `${source} (the SSH private key) is not set or empty`,
        fix: `set ${opts.keyEnv}`,
      });
    }
  } else {
    source = `file ${opts.keyFile}`;
    try {
      text = readFileSync(opts.keyFile!, 'utf8');
    } catch (e) {
      throw new UserError({
        message: `cannot read the SSH private key ${source}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
        fix: 'give the path of an existing private key file',
      });
    }
  }
  // An unset passphrase variable means an unencrypted key; parseKey says so if it is not.
  const passphrase = opts.passphraseEnv === undefined ? undefined : env[opts.passphraseEnv];
  const redact = redactor([text, passphrase ?? '']);
  const parsed = ssh2.utils.parseKey(text, passphrase);
  const key = Array.isArray(parsed) ? (parsed[0] as ParsedKey) : parsed;
  if (key instanceof Error) {
    const looksLikePath = opts.keyEnv !== undefined && !text.trim().includes('\n') && !text.includes('PRIVATE KEY');
    throw new UserError({
      message: `the SSH private key from ${source} cannot be used: ${redact(key.message)}`,
      fix: looksLikePath
        ? `${opts.keyEnv} must hold the key's text, not a path: give a path as the key file instead`
        : `give an OpenSSH or PEM private key${opts.passphraseEnv ? ` (and its passphrase in ${opts.passphraseEnv} if it is encrypted)` : ', and its passphrase variable if it is encrypted'}`,
    });
  }
  if (!key.isPrivateKey()) {
    throw new UserError({
      message: `${source} holds a public key, not the private key`,
      fix: 'give the private key file (the one without .pub)',
    });
  }
  return { text, passphrase, source };
}

/** Replaces every secret, and every line of it long enough to be one, in a message. */
function redactor(secrets: readonly string[]): (message: string) => string {
  const parts = [...new Set(secrets.flatMap((s) => [s.trim(), ...s.split(/\r?\n/).map((l) => l.trim())]))]
    .filter((p) => p.length >= 4)
    .sort((a, b) => b.length - a.length);
  return (message) => parts.reduce((m, p) => m.split(p).join('[redacted]'), message);
}

/** An ssh2 callback-style call that yields nothing, as a promise. */
function done(f: (cb: (err?: Error | null) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => f((err) => (err ? reject(err) : resolve())));
}

/** An ssh2 callback-style call that yields a value, as a promise. */
function call<T>(f: (cb: (err: Error | null | undefined, value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => f((err, value) => (err ? reject(err) : resolve(value))));
}

/** A catch handler turning "no such file" into `value`. */
function ifMissing<T>(value: T): (e: Error & { code?: number }) => T {
  return (e) => {
    if (e.code === NO_SUCH_FILE) return value;
    throw e;
  };
}

/** Replaces `to` atomically where the server can (OpenSSH's posix-rename), else by unlink + rename. */
async function rename(sftp: SFTPWrapper, from: string, to: string): Promise<void> {
  let unsupported = false;
  await done((cb) => {
    try {
      sftp.ext_openssh_rename(from, to, cb);
    } catch {
      // ssh2 throws at once when the server lacks the extension.
      unsupported = true;
      cb();
    }
  });
  if (!unsupported) return;
  await done((cb) => sftp.unlink(to, cb)).catch(ifMissing(undefined));
  await done((cb) => sftp.rename(from, to, cb));
}
