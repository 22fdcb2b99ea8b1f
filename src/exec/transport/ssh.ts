/**
 * The transport to a cluster's login node: one SSH connection (ssh2) that carries every
 * command as its own channel, plus one SFTP session for files. The connection may pass through
 * bastions, as OpenSSH's ProxyJump does: each hop is an ssh2 client whose socket is a channel
 * forwarded by the hop before it.
 *
 * - Every hop's host key is always verified (pinned fingerprint and/or known_hosts); there is
 *   no switch to turn that off.
 * - Keys are tried in order: the key's text from a variable, the key file, the ssh-agent, then
 *   the hop's identity files (the config's, or the default ones). A keyboard-interactive
 *   prompt (a second factor) is answered only through the `keyboardInteractive` function,
 *   which the front end gives when there is a terminal to ask on.
 * - Every command has a timeout covering all of it: waiting for a channel, (re)connecting and
 *   running. On timeout its channel is sent SIGKILL and closed, and for `exec`, `timeout` on
 *   the server kills the command's process group a moment later in any case.
 * - `exec` runs a command line in bash; `run` sends plain words as they are, for an automation
 *   node, whose forced command allows no shell.
 * - When the connection (any hop of it) drops, commands in flight reject: they may or may not
 *   have run, and only the caller knows whether running one again is safe. The next call
 *   reconnects, with backoff between failed attempts.
 * - No private key's text nor passphrase appears in an error message: errors that come from
 *   ssh2 pass through `redact` before they reach one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { constants } from 'node:os';
import ssh2 from 'ssh2';
import type {
  AnyAuthMethod,
  AuthHandlerMiddleware,
  Client,
  ClientChannel,
  ConnectConfig,
  NextAuthHandler,
  ParsedKey,
  Prompt,
  SFTPWrapper,
  ServerHostKeyAlgorithm,
  Stats,
} from 'ssh2';
import { UserError } from '../../errors.js';
import { shellQuote } from '../../render/shell.js';
import { KEY_ENV, KEY_FILE_ENV } from '../secrets.js';
import {
  type HostKeySource,
  type KnownHostsFile,
  checkHostKey,
  hostKeyAlgorithms,
  normalizeFingerprint,
} from './host-key.js';
import { type SshTarget, formatTarget, parseTarget } from './target.js';
import {
  LinkError,
  NoFileTransfer,
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
import { type Word, plainCommand } from './words.js';

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

/** One keyboard-interactive round: the server's prompts, answered in order. */
export interface KeyboardInteractiveRequest {
  /** The host asking, as messages name it. */
  host: string;
  name: string;
  instructions: string;
  prompts: readonly Prompt[];
}

/** Asks the user; rejects when the user will not answer. */
export type KeyboardInteractive = (request: KeyboardInteractiveRequest) => Promise<string[]>;

export interface SshTransportOptions extends SshHop {
  /** The bastions passed through in order before the target, each verified like it. */
  jumps?: readonly SshHop[];
  /** The private key's file. */
  keyFile?: string;
  /** The name of an environment variable holding the private key's text (e.g. a CI secret). */
  keyEnv?: string;
  /** The name of an environment variable holding the key's passphrase. */
  passphraseEnv?: string;
  /** Where keyEnv and passphraseEnv are looked up; process.env by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The ssh-agent's socket (SSH_AUTH_SOCK). */
  agent?: string;
  /** Answers keyboard-interactive prompts; without it a server asking for one is refused. */
  keyboardInteractive?: KeyboardInteractive;
  /** A keepalive every this many ms; the connection counts as dropped after keepaliveCountMax unanswered. */
  keepaliveIntervalMs?: number;
  keepaliveCountMax?: number;
  /** How long one connection attempt may take up to a logged-in session, per hop. */
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

/** One established connection (through every hop) and what is opened on it lazily. */
interface Connection {
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

/** A private key ready to offer, and where it came from (as messages say it). */
interface Key {
  text: string;
  passphrase: string | undefined;
  source: string;
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

/**
 * What an automation node's forced command (the Alliance's allowed_commands.sh and its kin)
 * answers a command off its list with, on stdout and with exit status 0: a command that `exec`
 * sends is run by bash, and `run` sends only commands whose output is campaign's own (job ids,
 * its files), so output that begins so can only be that refusal.
 */
const FORCED_COMMAND_REFUSAL = /^Command rejected by (\S+): /;

/**
 * Other centres' forced commands refuse with a line of their own on stderr and a failing
 * status ("automation node: command not allowed"): a failure whose only output is one short
 * line saying a command is not allowed is taken for such a refusal.
 */
const OTHER_REFUSAL = /^[^\n]{0,160}\bcommands?\b[^\n]*\bnot (?:allowed|permitted)\b[^\n]*\n?$/i;

/** The refusal of `exec`'s shell said as what it is: this login runs a forced command, not a shell. */
function forcedCommand(name: string, wrapper: string): UserError {
  return new UserError({
    message: `${name} runs a forced command (${wrapper}) that allows only a short list of commands, not the shell campaign needs there: it is an automation node`,
    fix: 'set cluster.restricted: true (or restricted: slurm for a key without file transfer) to drive it with plain commands (docs/SLURM.md, "Automation nodes")',
  });
}

/** A plain command of `run` refused: the key is bound to a list without it. */
function notOnList(name: string, wrapper: string, command: string): UserError {
  return new UserError({
    message: `the forced command of ${name} (${wrapper}) refused \`${firstWord(command)}\`, which campaign needs there: the key it logs in with is bound to a list without it`,
    fix: `ask the centre for a key bound to a list that has \`${firstWord(command)}\` (allowed_commands.sh has them all)`,
  });
}

/** A command as a channel sends it: what `exec` and `run` each give the machinery they share. */
interface Sending {
  /** The command as errors name it (by its first word only). */
  command: string;
  /** The exec request's text, given the milliseconds left before the deadline. */
  text: (msLeft: number) => string;
  /** What became of the command when it outlived its timeout, for the error. */
  fate: string;
  /** The error for a forced command's refusal, given the wrapper's name. */
  refused: (wrapper: string) => UserError;
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
/** How long a login may take when someone may be asked a keyboard-interactive prompt. */
const PROMPT_READY_TIMEOUT_MS = 100_000;
/** SSH channel open failure: the server's policy forbids it (e.g. AllowTcpForwarding no). */
const ADMINISTRATIVELY_PROHIBITED = 1;
/** SSH channel open failure OpenSSH gives a session past its MaxSessions. */
const OPEN_CONNECT_FAILED = 2;
/** The waits before a session refused while others of ours were open is asked for again. */
const SESSION_RETRIES_MS = [20, 50, 100, 200, 400, 800, 1600, 3200];

export class SshTransport implements Transport {
  private readonly hops: Hop[];
  private readonly target: SshTarget;
  /** The target as messages name it. */
  private readonly name: string;
  /** The keys every hop is offered first: the variable's and the key file's. */
  private readonly keys: Key[];
  private readonly agent: string | undefined;
  private readonly redact: (message: string) => string;
  private readonly slots: Slots;
  private readonly retryDelaysMs: readonly number[];
  private conn: Connection | undefined;
  private connecting: Promise<Connection> | undefined;
  private closed = false;
  private sent = 0;

  /** Checks the options and reads the keys; throws a UserError for anything the user must fix. */
  constructor(private readonly opts: SshTransportOptions) {
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
    this.slots = new Slots(opts.maxChannels ?? DEFAULT_MAX_CHANNELS);
    this.retryDelaysMs = opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  }

  get commandsSent(): number {
    return this.sent;
  }

  exec(command: string, opts: { timeoutMs?: number; stdin?: string | Buffer } = {}): Promise<CommandResult> {
    return this.send(
      {
        command,
        // bash whatever the login shell is. `timeout` kills the command's whole process group on
        // the server a little after the deadline even when sshd refuses the KILL signal request
        // (it does for root logins) or the network is gone.
        text: (msLeft) =>
          `exec timeout -s KILL ${((msLeft + SERVER_KILL_GRACE_MS) / 1000).toFixed(1)} bash -c ${shellQuote(command)}`,
        fate: 'it was killed',
        refused: (wrapper) => forcedCommand(this.name, wrapper),
      },
      opts,
    );
  }

  /**
   * The words go as the exec request's text exactly as they are: an automation node's wrapper
   * runs them as words, and a login shell elsewhere splits them the same way, save that a `|`
   * inside a word is a pipe to it (run is for automation nodes).
   */
  async run(
    words: readonly Word[],
    opts: { timeoutMs?: number; stdin?: string | Buffer } = {},
  ): Promise<CommandResult> {
    const command = plainCommand(words);
    return this.send(
      {
        command,
        text: () => command,
        // There is no server-side `timeout` to rely on here: the node allows none, and sshd
        // sends no signal to a forced command's session. The client closes the channel; a
        // command still running there goes on until it ends by itself.
        fate: 'its channel was closed, and it may still be running there',
        refused: (wrapper) => notOnList(this.name, wrapper, command),
      },
      opts,
    );
  }

  /**
   * On a channel of its own, with a pseudo-terminal of this terminal's size where `terminal`
   * (this terminal in raw mode meanwhile, so that Ctrl-C and the like go to the remote program),
   * this process's input sent to it and its output written here. A dropped connection rejects.
   */
  async attach(command: string, opts: { terminal: boolean }): Promise<number> {
    this.sent++;
    const opening = new AbortController();
    const release = await this.slots.take(opening.signal);
    let conn: Connection;
    try {
      conn = await this.connection(opening.signal);
    } catch (e) {
      release();
      throw e;
    }
    const stdin = process.stdin;
    const raw = opts.terminal && stdin.isTTY;
    const pty = opts.terminal
      ? {
          pty: {
            term: process.env.TERM ?? 'xterm',
            rows: process.stdout.rows ?? 24,
            cols: process.stdout.columns ?? 80,
          },
        }
      : {};
    conn.channels++;
    return new Promise<number>((resolve, reject) => {
      let channel: ClientChannel | undefined;
      const resize = (): void => channel?.setWindow(process.stdout.rows ?? 24, process.stdout.columns ?? 80, 0, 0);
      const done = (outcome: () => void): void => {
        conn.onDrop.delete(onDrop);
        process.stdout.off('resize', resize);
        if (channel) stdin.unpipe(channel);
        stdin.pause();
        if (raw) stdin.setRawMode(false);
        conn.channels--;
        release();
        outcome();
      };
      const onDrop = (why: Error): void =>
        done(() => reject(new LinkError(`the connection to ${this.name} dropped (${why.message})`)));
      conn.onDrop.add(onDrop);
      conn.client.exec(`exec bash -c ${shellQuote(command)}`, pty, (err, opened) => {
        if (err) {
          done(() => reject(new LinkError(`could not start a shell on ${this.name}: ${this.redact(err.message)}`)));
          return;
        }
        channel = opened;
        let code = 0;
        opened.on('exit', (exitCode: number | null, signalName?: string) => {
          code = exitCode ?? 128 + (constants.signals[signalName as NodeJS.Signals] ?? 0);
        });
        opened.on('close', () => done(() => resolve(code)));
        opened.pipe(process.stdout, { end: false });
        opened.stderr.pipe(process.stderr, { end: false });
        if (raw) stdin.setRawMode(true);
        process.stdout.on('resize', resize);
        stdin.pipe(opened);
      });
    });
  }

  async writeFile(path: string, data: string | Buffer, opts: { mode?: number } = {}): Promise<void> {
    await this.withSftp('writeFile', path, async (sftp, target) => {
      const temp = tempPathFor(target);
      try {
        // Created exclusively: a symlink planted at the temporary name is never written through.
        await done((cb) =>
          sftp.writeFile(temp, data, { flag: 'wx', ...(opts.mode === undefined ? {} : { mode: opts.mode }) }, cb),
        );
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

  async rename(from: string, to: string): Promise<void> {
    // SFTP's own rename: it refuses a target that exists, as a folder's must be refused.
    if (!to.startsWith('/')) throw new Error(`rename to a path that is not absolute: ${to}`);
    await this.withSftp('rename', from, async (sftp, source) => {
      await done((cb) => sftp.rename(source, to, cb));
    });
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
      void Promise.all(conn.closed).then(() => {
        clearTimeout(timer);
        resolve();
      });
      // The target first; its end drops the connection, which ends the bastions' clients.
      conn.client.end();
    });
  }

  /** One command, bounded by its timeout from the wait for a channel to its end. */
  private async send(sending: Sending, opts: { timeoutMs?: number; stdin?: string | Buffer }): Promise<CommandResult> {
    this.sent++;
    const timeoutMs = opts.timeoutMs ?? this.opts.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    const job = new AbortController();
    const timer = setTimeout(
      () => job.abort(commandTimeout(sending.command, timeoutMs, this.name, sending.fate)),
      timeoutMs,
    );
    try {
      const release = await this.slots.take(job.signal);
      let conn: Connection;
      try {
        conn = await this.connection(job.signal);
      } catch (e) {
        release();
        throw e;
      }
      return await this.onChannel(conn, sending, opts.stdin, deadline, job.signal, release);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs one command on its own channel; `release` gives the channel's slot back once it is closed. */
  private onChannel(
    conn: Connection,
    sending: Sending,
    stdin: string | Buffer | undefined,
    deadline: number,
    signal: AbortSignal,
    release: () => void,
  ): Promise<CommandResult> {
    const word = firstWord(sending.command);
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
      let tries = 0;
      const open = () => {
        conn.channels++;
        try {
          conn.client.exec(sending.text(Math.max(deadline - Date.now(), 0)), started);
        } catch (e) {
          // ssh2 throws when the socket has just gone; the command was never sent.
          conn.channels--;
          notStarted(e as Error);
        }
      };
      const started = (err: Error | undefined, channel: ClientChannel) => {
        if (err) {
          conn.channels--;
          // OpenSSH frees a closed session only after it has read what came with the close: an
          // open sent just behind our own close (or past a MaxSessions below maxChannels) is
          // refused while our other sessions are still counted. Those end, so it is tried again.
          const refusedSession = (err as Error & { reason?: number }).reason === OPEN_CONNECT_FAILED;
          if (refusedSession && conn.channels > 0 && tries < SESSION_RETRIES_MS.length && !settled && conn.alive) {
            setTimeout(() => {
              if (!settled) open();
            }, SESSION_RETRIES_MS[tries++]);
            return;
          }
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
          conn.channels--;
          release();
          settle(() => {
            if (!exit) reject(new LinkError(`\`${word}\` on ${this.name} ended without an exit status`));
            else {
              const out = Buffer.concat(stdout).toString('utf8');
              const err = Buffer.concat(stderr).toString('utf8');
              const refusal = FORCED_COMMAND_REFUSAL.exec(out);
              if (refusal) reject(sending.refused(refusal[1]!));
              else if (exit.code !== 0 && out === '' && OTHER_REFUSAL.test(err))
                reject(sending.refused(`answering "${err.trim()}"`));
              else resolve({ code: exit.code, stdout: out, stderr: err });
            }
          });
        });
        channel.end(stdin ?? '');
      };
      open();
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
      conn.client.sftp((err, sftp) => {
        if (!err) resolve(sftp);
        // The connection still up, the server refused the subsystem (an automation node whose
        // forced command allows no file transfer, a login without an SFTP server): no retry helps.
        else if (conn.alive)
          reject(
            new NoFileTransfer({
              message: `${this.name} opened no SFTP session (${this.redact(err.message)}): this login allows no file transfer`,
              fix: 'on an automation node whose key has only the Slurm list, set cluster.restricted: slurm (or ask the centre for the transfer commands as well); elsewhere, check that the SSH server has an SFTP subsystem',
            }),
          );
        else reject(err);
      });
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
          for (const c of conn.clients) c.end();
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
      for (const c of clients) c.end();
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
      for (const c of clients) c.end();
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

/**
 * One hop's login: the keys in order, then a keyboard-interactive round if the server asks
 * for one (a second factor after the key, or instead of it) and there is someone to ask. It
 * records what was tried, for the message when nothing was accepted.
 */
class Authentication {
  private readonly queue: { source: string; method: AnyAuthMethod }[];
  private readonly tried: string[] = [];
  private kbd: 'not asked' | 'asked, nobody to answer' | 'answered' | 'answered after the key' = 'not asked';
  private gaveUp = false;
  private readonly notes: string[] = [];

  constructor(
    private readonly hop: Hop,
    keys: readonly Key[],
    agent: string | undefined,
    private readonly prompt: KeyboardInteractive | undefined,
  ) {
    const username = hop.target.user;
    this.queue = [
      ...keys.map((k) => ({
        source: k.source,
        method: {
          type: 'publickey' as const,
          username,
          key: k.text,
          ...(k.passphrase ? { passphrase: k.passphrase } : {}),
        },
      })),
      ...(agent ? [{ source: `the ssh-agent at ${agent}`, method: { type: 'agent' as const, username, agent } }] : []),
    ];
  }

  readonly handler: AuthHandlerMiddleware = (methodsLeft, partialSuccess, next) => {
    // ssh2 passes null before the first attempt, and false stops it (its types say neither).
    const left = methodsLeft as string[] | null;
    const stop = () => {
      this.gaveUp = true;
      (next as unknown as (m: false) => void)(false);
    };
    const secondFactor =
      partialSuccess === true ||
      (left !== null && !left.includes('publickey') && left.includes('keyboard-interactive'));
    if (!secondFactor) {
      const attempt = this.queue.shift();
      if (attempt) {
        this.tried.push(attempt.source);
        next(attempt.method);
        return;
      }
    }
    const offered = secondFactor || left?.includes('keyboard-interactive') === true;
    if (!offered || this.kbd !== 'not asked') return stop();
    if (!this.prompt) {
      // Only a second factor is worth saying: a password prompt after refused keys is not the problem.
      if (secondFactor) this.kbd = 'asked, nobody to answer';
      return stop();
    }
    this.kbd = secondFactor ? 'answered after the key' : 'answered';
    const prompt = this.prompt;
    (next as NextAuthHandler)({
      type: 'keyboard-interactive',
      username: this.hop.target.user,
      prompt: (name, instructions, _lang, prompts, finish) => {
        prompt({ host: this.hop.name, name, instructions, prompts }).then(finish, () => finish([]));
      },
    });
  };

  /** Whether an error during login leaves ssh2 going on to the next method (noted for the message). */
  goesOn(e: Error & { level?: string }): boolean {
    if (e.level === 'agent' || (e.level === 'client-authentication' && !this.gaveUp)) {
      this.notes.push(e.level === 'agent' ? `the ssh-agent failed (${e.message})` : e.message);
      return true;
    }
    return false;
  }

  /** The UserError for a login that was refused. */
  failure(noKeys: readonly string[]): UserError {
    const name = this.hop.name;
    const user = this.hop.target.user;
    if (this.kbd === 'asked, nobody to answer') {
      return new UserError({
        message: `${name} asks for a second factor (keyboard-interactive) after the key, and there is no terminal to ask it on`,
        fix: 'run campaign in a terminal to answer it, or where no second factor is asked: an automation node the cluster provides for unattended jobs, or a self-hosted runner on the login node itself (which needs no SSH)',
      });
    }
    if (this.kbd === 'answered after the key') {
      return new UserError({
        message: `${name} accepted the key but not the answer to its second factor (keyboard-interactive)`,
        fix: 'connect again and give the current code (or the answer the prompt asks for)',
      });
    }
    const tried = this.tried.length > 0 ? this.tried.join(', then ') : 'no key';
    const extra = [...this.notes, ...(this.tried.length === 0 ? noKeys : [])];
    const answered = this.kbd === 'answered' ? '; the keyboard-interactive answers were not accepted either' : '';
    return new UserError({
      message: `${name} did not accept the private key from ${tried}${extra.length ? ` (${extra.join('; ')})` : ''}${answered}`,
      fix: `authorise its public key (ssh-keygen -y -f <key file>) in ~/.ssh/authorized_keys of ${user} there, or give the key that is`,
    });
  }
}

/** The keys from the variable and the key file (at most one of them), checked to be usable. */
function readKeys(opts: SshTransportOptions): Key[] {
  const env = opts.env ?? process.env;
  if (opts.keyFile !== undefined && opts.keyEnv !== undefined) {
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
  } else if (opts.keyFile !== undefined) {
    source = `file ${opts.keyFile}`;
    try {
      text = readFileSync(opts.keyFile, 'utf8');
    } catch (e) {
      throw new UserError({
        message: `cannot read the SSH private key ${source}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
        fix: 'give the path of an existing private key file',
      });
    }
  } else return [];
  // An unset passphrase variable means an unencrypted key; parseKey says so if it is not.
  const passphrase = opts.passphraseEnv === undefined ? undefined : env[opts.passphraseEnv];
  const problem = keyProblem(text, passphrase);
  if (problem === 'public') {
    throw new UserError({
      message: `${source} holds a public key, not the private key`,
      fix: 'give the private key file (the one without .pub)',
    });
  }
  if (problem !== undefined) {
    const looksLikePath = opts.keyEnv !== undefined && !text.trim().includes('\n') && !text.includes('PRIVATE KEY');
    throw new UserError({
      message: `the SSH private key from ${source} cannot be used: ${redactor([text, passphrase ?? ''])(problem)}`,
      fix: looksLikePath
        ? `${opts.keyEnv} must hold the key's text, not a path: give a path as the key file instead`
        : `give an OpenSSH or PEM private key${opts.passphraseEnv ? ` (and its passphrase in ${opts.passphraseEnv} if it is encrypted)` : ', and its passphrase variable if it is encrypted'}`,
    });
  }
  return [{ text, passphrase, source }];
}

/**
 * The identity files that hold a usable key; the others are skipped, as ssh skips them, with
 * the reason kept for the message should no key be accepted. An encrypted one is tried with
 * the passphrase variable's value when there is one.
 */
function readIdentityFiles(files: readonly string[], opts: SshTransportOptions): { keys: Key[]; skipped: string[] } {
  const env = opts.env ?? process.env;
  const passphrase = opts.passphraseEnv === undefined ? undefined : env[opts.passphraseEnv];
  const keys: Key[] = [];
  const skipped: string[] = [];
  for (const path of files) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      skipped.push(code === 'ENOENT' ? `no key file ${path}` : `key file ${path} unreadable (${code ?? 'error'})`);
      continue;
    }
    const problem = keyProblem(text, passphrase);
    if (problem === undefined) keys.push({ text, passphrase, source: `file ${path}` });
    else
      skipped.push(`key file ${path} unusable (${problem === 'public' ? 'a public key' : 'encrypted or not a key'})`);
  }
  return { keys, skipped };
}

/** Why a key's text cannot log in: ssh2's parse error, 'public' for a public key, or undefined. */
function keyProblem(text: string, passphrase: string | undefined): string | undefined {
  const parsed = ssh2.utils.parseKey(text, passphrase);
  const key = Array.isArray(parsed) ? (parsed[0] as ParsedKey) : parsed;
  if (key instanceof Error) return key.message;
  return key.isPrivateKey() ? undefined : 'public';
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
