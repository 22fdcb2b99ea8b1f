/**
 * A transport whose files are read with the plain commands an automation node always allows
 * (`cat`, `ls`), for a key whose list has no file transfer (the Alliance's slurm_commands.sh).
 * Nothing can be written that way: writeFile and mkdirp reject with NoFileTransfer, and the
 * caller sends what it must another way (sbatch reads a script on its standard input).
 */
import { posix } from 'node:path';
import { UserError } from '../../errors.js';
import { type CommandResult, DEFAULT_MAX_READ_BYTES, NoFileTransfer, type Transport, tooLarge } from './transport.js';
import { plainCommand, type Word } from './words.js';

/** How many symlinks one realpath follows before it gives up (as the kernel's ELOOP). */
const MAX_LINKS = 40;

interface Listed {
  type: string;
  size: number;
  mtimeMs: number;
  /** A symlink's target, as `ls -l` prints it. */
  target?: string;
}

export class FilesByCommands implements Transport {
  constructor(private readonly inner: Transport) {}

  get commandsSent(): number {
    return this.inner.commandsSent;
  }

  exec(command: string, opts?: { timeoutMs?: number; stdin?: string | Buffer }): Promise<CommandResult> {
    return this.inner.exec(command, opts);
  }

  run(words: readonly Word[], opts?: { timeoutMs?: number; stdin?: string | Buffer }): Promise<CommandResult> {
    return this.inner.run(words, opts);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  writeFile(path: string): Promise<void> {
    return Promise.reject(cannotWrite(path));
  }

  mkdirp(path: string): Promise<void> {
    return Promise.reject(cannotWrite(path));
  }

  rename(from: string): Promise<void> {
    return Promise.reject(cannotWrite(from));
  }

  async readFile(path: string, opts: { maxBytes?: number } = {}): Promise<string | undefined> {
    const r = await this.inner.run(['cat', '--', plainPath(path)]);
    if (r.code !== 0) {
      if (/No such file or directory/.test(r.stderr)) return undefined;
      throw new UserError(`cat ${path} failed on the automation node: ${r.stderr.trim() || `exit ${r.code}`}`);
    }
    const maxBytes = opts.maxBytes ?? DEFAULT_MAX_READ_BYTES;
    const size = Buffer.byteLength(r.stdout);
    if (size > maxBytes) throw tooLarge(path, size, maxBytes);
    return r.stdout;
  }

  async stat(path: string): Promise<{ size: number; mtimeMs: number; isFile: boolean } | undefined> {
    // -L: follow symlinks, as SFTP's stat does.
    const found = (await this.list([path], true)).get(plainPath(path));
    return found && { size: found.size, mtimeMs: found.mtimeMs, isFile: found.type === '-' };
  }

  /** Each prefix of the path listed in one command; the first symlink among them is followed, and again. */
  async realpath(path: string): Promise<string | undefined> {
    let p = posix.normalize(plainPath(path));
    if (!p.startsWith('/'))
      throw new UserError({
        message: `cannot resolve ${path} on the automation node without file transfer: it is not an absolute path`,
        fix: 'give workdir as an absolute path (e.g. /home/you/scratch/runs): without file transfer, campaign cannot ask where ~ is',
      });
    for (let links = 0; links <= MAX_LINKS; links++) {
      const parts = p.split('/').filter(Boolean);
      if (parts.length === 0) return '/';
      const prefixes = parts.map((_, i) => `/${parts.slice(0, i + 1).join('/')}`);
      const listed = await this.list(prefixes, false);
      const link = prefixes.find((q) => listed.get(q)?.type === 'l');
      if (link === undefined) return prefixes.every((q) => listed.has(q)) ? p : undefined;
      p = posix.normalize(`${posix.resolve(posix.dirname(link), listed.get(link)!.target!)}${p.slice(link.length)}`);
    }
    return undefined;
  }

  /** `ls -ldn` of the paths (following symlinks with `follow`): what exists, by path. */
  private async list(paths: readonly string[], follow: boolean): Promise<Map<string, Listed>> {
    const r = await this.inner.run([
      'ls',
      follow ? '-ldnL' : '-ldn',
      '--time-style=+%s',
      '--',
      ...paths.map(plainPath),
    ]);
    const out = new Map<string, Listed>();
    for (const line of r.stdout.split('\n')) {
      // mode links uid gid size mtime name [-> target]: names are plain words, with no blank.
      const m = /^(\S)\S*\s+\d+\s+\d+\s+\d+\s+(\d+)\s+(\d+)\s+(\S+)(?: -> (\S+))?$/.exec(line);
      if (!m) continue;
      out.set(m[4]!, {
        type: m[1]!,
        size: Number(m[2]),
        mtimeMs: Number(m[3]) * 1000,
        ...(m[5] ? { target: m[5] } : {}),
      });
    }
    return out;
  }
}

function cannotWrite(path: string): NoFileTransfer {
  return new NoFileTransfer({
    message: `cannot write ${path}: the automation node's key allows no file transfer (restricted: slurm)`,
    fix: 'ask the centre for the transfer commands (SFTP) as well, and set restricted: true',
  });
}

/** A path as one plain word, or the UserError that says which path cannot travel so. */
function plainPath(path: string): string {
  try {
    plainCommand(['ls', path]);
    return path;
  } catch {
    throw new UserError({
      message: `the path ${path} holds characters an automation node's forced command would split or expand, and without file transfer campaign reads files with cat and ls`,
      fix: 'name outputs and the workdir with letters, digits and . _ - / only, or ask the centre for the transfer commands (SFTP) as well',
    });
  }
}
