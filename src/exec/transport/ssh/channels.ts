/**
 * Commands on the connection, each on a channel of its own.
 *
 * - Every command has a timeout covering all of it: waiting for a channel, (re)connecting and
 *   running. On timeout its channel is sent SIGKILL and closed, and for `exec`, `timeout` on
 *   the server kills the command's process group a moment later in any case.
 * - `exec` runs a command line in bash; `run` sends plain words as they are, for an automation
 *   node, whose forced command allows no shell.
 * - When the connection drops, commands in flight reject: they may or may not have run, and
 *   only the caller knows whether running one again is safe.
 *
 * Apart from the connection and from SFTP because a command's life (a slot, a channel, its
 * deadline, what a forced command's refusal looks like) is its own.
 */
import { constants } from 'node:os';
import type { ClientChannel } from 'ssh2';
import { UserError } from '../../../errors.js';
import { shellQuote } from '../../../render/shell.js';
import { LinkError, type CommandResult, DEFAULT_COMMAND_TIMEOUT_MS, commandTimeout, firstWord } from '../transport.js';
import { Slots } from '../waiting.js';
import { type Word, plainCommand } from '../words.js';
import type { Connection, Connector } from './connect.js';

/** How commands are bounded. */
export interface ChannelOptions {
  /** A command's timeout when exec is given none. */
  commandTimeoutMs?: number;
  /** Commands running at once on the connection; the rest wait. Keep below the server's MaxSessions. */
  maxChannels?: number;
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
/** How long after the client's deadline the server kills a command that is still running. */
const SERVER_KILL_GRACE_MS = 1_000;
/** SSH channel open failure OpenSSH gives a session past its MaxSessions. */
const OPEN_CONNECT_FAILED = 2;
/** The waits before a session refused while others of ours were open is asked for again. */
const SESSION_RETRIES_MS = [20, 50, 100, 200, 400, 800, 1600, 3200];

/** The commands sent on the connection, at most `maxChannels` at once. */
export class CommandChannels {
  private readonly slots: Slots;
  private sent = 0;

  constructor(
    private readonly connector: Connector,
    private readonly opts: ChannelOptions,
  ) {
    this.slots = new Slots(opts.maxChannels ?? DEFAULT_MAX_CHANNELS);
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
        refused: (wrapper) => forcedCommand(this.connector.name, wrapper),
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
        refused: (wrapper) => notOnList(this.connector.name, wrapper, command),
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
      conn = await this.connector.connection(opening.signal);
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
        done(() => reject(new LinkError(`the connection to ${this.connector.name} dropped (${why.message})`)));
      conn.onDrop.add(onDrop);
      conn.client.exec(`exec bash -c ${shellQuote(command)}`, pty, (err, opened) => {
        if (err) {
          done(() =>
            reject(
              new LinkError(`could not start a shell on ${this.connector.name}: ${this.connector.redact(err.message)}`),
            ),
          );
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

  /** One command, bounded by its timeout from the wait for a channel to its end. */
  private async send(sending: Sending, opts: { timeoutMs?: number; stdin?: string | Buffer }): Promise<CommandResult> {
    this.sent++;
    const timeoutMs = opts.timeoutMs ?? this.opts.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    const job = new AbortController();
    const timer = setTimeout(
      () => job.abort(commandTimeout(sending.command, timeoutMs, this.connector.name, sending.fate)),
      timeoutMs,
    );
    try {
      const release = await this.slots.take(job.signal);
      let conn: Connection;
      try {
        conn = await this.connector.connection(job.signal);
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
              `the connection to ${this.connector.name} dropped while \`${word}\` was running (${why.message}); it may or may not have completed`,
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
        settle(() =>
          reject(
            new LinkError(
              `could not start \`${word}\` on ${this.connector.name}: ${this.connector.redact(err.message)}`,
            ),
          ),
        );
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
            if (!exit) reject(new LinkError(`\`${word}\` on ${this.connector.name} ended without an exit status`));
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
}
