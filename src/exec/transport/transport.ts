/**
 * How an executor talks to the machine its jobs run from (a cluster's login node over SSH, or
 * this machine). Paths may start with `~/`, meaning the target user's home directory; relative
 * paths and commands are taken from that home directory too, as an SSH login would.
 */

import { UserError } from '../../errors.js';
import type { Word } from './words.js';

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Transport {
  /** Runs a command line in bash on the target (login shell not required). Never hangs: rejects on timeoutMs. */
  exec(command: string, opts?: { timeoutMs?: number; stdin?: string | Buffer }): Promise<CommandResult>;
  /**
   * Runs one command as plain words (see plainCommand) through no shell on the target: all an
   * automation node allows. Never hangs: rejects on timeoutMs.
   */
  run(words: readonly Word[], opts?: { timeoutMs?: number; stdin?: string | Buffer }): Promise<CommandResult>;
  /** Atomic: written to a temporary file beside `path`, then renamed over it. */
  writeFile(path: string, data: string | Buffer, opts?: { mode?: number }): Promise<void>;
  /** Renames a file or folder; rejects where `to` exists (a folder is never merged into another). */
  rename(from: string, to: string): Promise<void>;
  /** The file's text, or undefined when it does not exist; rejects when it exceeds maxBytes. */
  readFile(path: string, opts?: { maxBytes?: number }): Promise<string | undefined>;
  /** Follows symlinks; undefined when nothing is there. */
  stat(path: string): Promise<{ size: number; mtimeMs: number; isFile: boolean } | undefined>;
  /** The path with every symlink resolved (undefined when nothing is there): where a file really is. */
  realpath(path: string): Promise<string | undefined>;
  mkdirp(path: string): Promise<void>;
  /**
   * Runs a command line in bash on the target with this process's standard input, output and
   * error, through a terminal where `terminal` (an interactive program), with no timeout: the
   * person at the other end ends it. Its exit status. Absent where the target has no shell.
   */
  attach?(command: string, opts: { terminal: boolean }): Promise<number>;
  close(): Promise<void>;
  /** For tests/benchmarks: how many commands were sent (exec and run calls). */
  readonly commandsSent: number;
}

/**
 * The login allows no file transfer (an automation node whose key's list has no SFTP): a
 * UserError where files must travel, and the sign to read them with plain commands instead.
 */
export class NoFileTransfer extends UserError {}

/** A command's timeout when the caller gives none: long enough for a busy scheduler. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 120_000;
/** The most readFile returns when the caller gives no limit. */
export const DEFAULT_MAX_READ_BYTES = 64 * 1024 * 1024;

/** The command's first word, to name it in errors without echoing its arguments. */
export function firstWord(command: string): string {
  return command.trim().split(/\s+/, 1)[0] ?? '';
}

/**
 * The link to the target failed: the connection dropped, a command outlived its timeout or
 * could not start, or the scheduler behind it did not answer. What was sent may or may not
 * have run; the next pass finds out which.
 */
export class LinkError extends Error {
  override name = 'LinkError';
}

/** The error a command gets when it outlives its timeout; `fate` says what became of it. */
export function commandTimeout(command: string, timeoutMs: number, where: string, fate = 'it was killed'): LinkError {
  return new LinkError(`command \`${firstWord(command)}\` did not finish within ${timeoutMs} ms on ${where}; ${fate}`);
}

/** `~` and `~/…` relative to `home`; a relative path relative to `home`; others unchanged. */
export function resolveHome(path: string, home: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return `${home}/${path.slice(2)}`;
  if (path.startsWith('/')) return path;
  return `${home}/${path}`;
}

/** A temporary name in the same directory as `path`, so the final rename is atomic. */
export function tempPathFor(path: string): string {
  const slash = path.lastIndexOf('/');
  const dir = path.slice(0, slash + 1);
  const base = path.slice(slash + 1);
  return `${dir}.${base}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
}

export function tooLarge(path: string, size: number, maxBytes: number): Error {
  return new Error(`${path} is ${size} bytes, more than the ${maxBytes} bytes allowed to read`);
}
