/**
 * Files on the login node through the connection's one SFTP session, opened when first needed
 * and again if it closes, each operation bounded by the file timeout. Apart from the commands
 * because files ask for none of their machinery (slots, deadlines on the server, refusals), and
 * a login that allows no file transfer says so here alone.
 */
import type { SFTPWrapper, Stats } from 'ssh2';
import { UserError } from '../../../errors.js';
import { LinkError, NoFileTransfer, DEFAULT_MAX_READ_BYTES, resolveHome, tempPathFor, tooLarge } from '../transport.js';
import { abortable } from '../waiting.js';
import type { Connection, Connector } from './connect.js';

/** How long a file operation may take. */
export interface FileOptions {
  /** The timeout of each file operation. */
  fileTimeoutMs?: number;
}

const DEFAULT_FILE_TIMEOUT_MS = 60_000;
/** SFTP status code for a path with nothing there. */
const NO_SUCH_FILE = 2;

/** The file operations of the transport, over SFTP. */
export class SftpFiles {
  constructor(
    private readonly connector: Connector,
    private readonly opts: FileOptions,
  ) {}

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
            message: `${dir} on ${this.connector.name} exists and is not a directory`,
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

  /** Runs one SFTP operation on `path` (resolved against the home directory), bounded by the file timeout. */
  private async withSftp<T>(
    what: string,
    path: string,
    op: (sftp: SFTPWrapper, target: string) => Promise<T>,
  ): Promise<T> {
    const timeoutMs = this.opts.fileTimeoutMs ?? DEFAULT_FILE_TIMEOUT_MS;
    const job = new AbortController();
    const timer = setTimeout(
      () => job.abort(new LinkError(`${what} ${path} did not finish within ${timeoutMs} ms on ${this.connector.name}`)),
      timeoutMs,
    );
    try {
      const conn = await this.connector.connection(job.signal);
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
      const message = `${what} ${path} on ${this.connector.name} failed: ${this.connector.redact((e as Error).message)}`;
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
              message: `${this.connector.name} opened no SFTP session (${this.connector.redact(err.message)}): this login allows no file transfer`,
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
