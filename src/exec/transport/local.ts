/**
 * The transport for this machine: the same contract as SSH (bash, commands and relative paths
 * from the home directory, atomic writes, plain words run as an automation node runs them),
 * for running the controller on the login node itself and for tests.
 */
import { spawn } from 'node:child_process';
import { mkdir, open, realpath, rename, stat } from 'node:fs/promises';
import { constants, homedir } from 'node:os';
import {
  type CommandResult,
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_MAX_READ_BYTES,
  type Transport,
  commandTimeout,
  resolveHome,
  tooLarge,
} from './transport.js';
import { type Word, plainCommand } from './words.js';
import { writeWholeFile } from './whole-file.js';
import { shellQuote } from '../../render/shell.js';
import { environmentWithoutSecrets, loginEnvironment } from '../secrets.js';

export interface LocalTransportOptions {
  /** What `~/`, relative paths and HOME in commands mean; the user's home directory by default. */
  home?: string;
  /**
   * What commands inherit: a login shell's environment (the default; what sbatch hands on to
   * its jobs, see loginEnvironment), or this process's without its secrets, for tasks that run
   * here as this user while campaign watches them (ssh-gpu on this machine's GPUs), as the
   * local executor's tasks do.
   */
  environment?: 'login' | 'inherited';
}

export class LocalTransport implements Transport {
  private readonly home: string;
  private readonly inherited: boolean;
  private sent = 0;

  constructor(opts: LocalTransportOptions = {}) {
    this.home = opts.home ?? homedir();
    this.inherited = opts.environment === 'inherited';
  }

  get commandsSent(): number {
    return this.sent;
  }

  exec(command: string, opts: { timeoutMs?: number; stdin?: string | Buffer } = {}): Promise<CommandResult> {
    return this.bash(command, command, opts);
  }

  /**
   * Through bash, as the node's wrapper runs them (a builtin such as `cd` as a builtin, 127 for
   * a program that is not there), but with each string word quoted, so that it is one literal
   * word, and in a glob word only its `*` and `?` left bare, so that bash expands them as the
   * node does (no nullglob: a pattern that matches nothing stays as it is).
   */
  async run(
    words: readonly Word[],
    opts: { timeoutMs?: number; stdin?: string | Buffer } = {},
  ): Promise<CommandResult> {
    const command = plainCommand(words);
    const script = words
      .map((w) =>
        typeof w === 'string'
          ? shellQuote(w)
          : w.glob
              .split(/([*?])/)
              .map((part, i) => (i % 2 === 1 ? part : shellQuote(part)))
              .join(''),
      )
      .join(' ');
    return this.bash(script, command, opts);
  }

  /**
   * In the foreground of this terminal (its process group), so that the terminal's Ctrl-C and
   * Ctrl-Z reach the command; this process lets Ctrl-C pass meanwhile.
   */
  async attach(command: string): Promise<number> {
    this.sent++;
    const child = spawn('bash', ['-c', command], {
      cwd: this.home,
      env: { ...(this.inherited ? environmentWithoutSecrets() : loginEnvironment()), HOME: this.home },
      stdio: 'inherit',
    });
    const passOn = (): void => {};
    process.on('SIGINT', passOn);
    try {
      return await new Promise<number>((resolve, reject) => {
        child.once('error', reject);
        child.once('close', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
      });
    } finally {
      process.off('SIGINT', passOn);
    }
  }

  /** Runs `script` in bash; errors name `command` by its first word. */
  private bash(
    script: string,
    command: string,
    opts: { timeoutMs?: number; stdin?: string | Buffer },
  ): Promise<CommandResult> {
    this.sent++;
    const timeoutMs = opts.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      // Its own process group, so a timeout kills what the command started as well. As an SSH
      // session starts: in the home directory, never where campaign runs (a runner's checkout),
      // with the environment asked for, and HOME so that `~` in the command means what it
      // means in paths.
      const child = spawn('bash', ['-c', script], {
        cwd: this.home,
        env: { ...(this.inherited ? environmentWithoutSecrets() : loginEnvironment()), HOME: this.home },
        detached: true,
        stdio: 'pipe',
      });
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // Already gone.
        }
        reject(commandTimeout(command, timeoutMs, 'this machine'));
      }, timeoutMs);
      child.stdout.on('data', (b: Buffer) => stdout.push(b));
      child.stderr.on('data', (b: Buffer) => stderr.push(b));
      child.on('error', (e) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(e);
      });
      child.on('close', (code, signal) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({
          // As a shell reports it: 128 + the signal's number for a killed command.
          code: code ?? 128 + (signal ? constants.signals[signal] : 0),
          stdout: Buffer.concat(stdout).toString('utf8'),
          stderr: Buffer.concat(stderr).toString('utf8'),
        });
      });
      // A command that exits without reading its input makes this write fail (EPIPE): harmless.
      child.stdin.on('error', () => {});
      child.stdin.end(opts.stdin ?? '');
    });
  }

  async writeFile(path: string, data: string | Buffer, opts: { mode?: number } = {}): Promise<void> {
    await writeWholeFile(resolveHome(path, this.home), data, opts);
  }

  async rename(from: string, to: string): Promise<void> {
    const [source, target] = [resolveHome(from, this.home), resolveHome(to, this.home)];
    if (await stat(target).catch(() => undefined)) throw new Error(`${target} exists`);
    await rename(source, target);
  }

  async readFile(path: string, opts: { maxBytes?: number } = {}): Promise<string | undefined> {
    const target = resolveHome(path, this.home);
    const maxBytes = opts.maxBytes ?? DEFAULT_MAX_READ_BYTES;
    const handle = await open(target, 'r').catch((e: NodeJS.ErrnoException) => {
      if (missing(e)) return undefined;
      throw e;
    });
    if (!handle) return undefined;
    try {
      const { size } = await handle.stat();
      if (size > maxBytes) throw tooLarge(target, size, maxBytes);
      const bytes = await handle.readFile();
      // It may have grown since the stat.
      if (bytes.length > maxBytes) throw tooLarge(target, bytes.length, maxBytes);
      return bytes.toString('utf8');
    } finally {
      await handle.close();
    }
  }

  async stat(path: string): Promise<{ size: number; mtimeMs: number; isFile: boolean } | undefined> {
    const s = await stat(resolveHome(path, this.home)).catch((e: NodeJS.ErrnoException) => {
      if (missing(e)) return undefined;
      throw e;
    });
    return s && { size: s.size, mtimeMs: s.mtimeMs, isFile: s.isFile() };
  }

  async realpath(path: string): Promise<string | undefined> {
    return realpath(resolveHome(path, this.home)).catch((e: NodeJS.ErrnoException) => {
      if (missing(e)) return undefined;
      throw e;
    });
  }

  async mkdirp(path: string): Promise<void> {
    await mkdir(resolveHome(path, this.home), { recursive: true });
  }

  async close(): Promise<void> {}
}

/** Nothing at that path (a file where a directory should be counts, as it does over SFTP). */
function missing(e: NodeJS.ErrnoException): boolean {
  return e.code === 'ENOENT' || e.code === 'ENOTDIR';
}
