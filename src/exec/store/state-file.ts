/**
 * How the store reads the files of a state directory and makes what it writes there durable: a
 * file read whole through one handle (never a FIFO, a directory or more than a string can hold),
 * a directory synced after a rename, a temporary name beside the file it will replace, and a
 * full disk said as the user's to fix. Apart from the store because the lock and the event log
 * read and fail the same way as the state file does.
 */
import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import { UserError } from '../../errors.js';

export interface Snapshot {
  text: string;
  /** In bytes. */
  size: number;
  mtimeMs: number;
  ino: number;
}

/** A file's text and what stat says of it, read through one handle; undefined if it does not exist. */
export async function snapshot(path: string): Promise<Snapshot | undefined> {
  const fh = await openIfExists(path);
  if (!fh) return undefined;
  try {
    const st = await fh.stat();
    if (st.size > MAX_STATE_BYTES)
      throw new UserError({
        message: `${path} is ${Math.round(st.size / 2 ** 20)} MiB, more than a state can be (${MAX_STATE_BYTES / 2 ** 20} MiB)`,
        fix: 'it is not a campaign state: move it away, or restore it from state.prev.json or an artifact',
      });
    const buf = await fh.readFile();
    return { text: buf.toString('utf8'), size: buf.length, mtimeMs: st.mtimeMs, ino: st.ino };
  } finally {
    await fh.close();
  }
}

/** Above this, a file cannot be read into one string (V8's limit is just under 512 MiB). */
const MAX_STATE_BYTES = 500 * 2 ** 20;

export function parse(text: string): { value: unknown } | { error: Error } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (e) {
    return { error: e as Error };
  }
}

/**
 * A handle to read the regular file `path`; undefined when there is no such file. Opened without
 * blocking, then checked: a FIFO planted as a state file would hang a plain open until a writer
 * came, and a directory or a device is no state either. Said as what it is, with the way out.
 */
export async function openIfExists(path: string): Promise<FileHandle | undefined> {
  let fh: FileHandle;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return undefined;
    throw e;
  }
  if ((await fh.stat()).isFile()) return fh;
  await fh.close();
  throw new UserError({
    message: `${path} is not a file`,
    fix: `move it away: the next run rebuilds the state from the executor's records and the outputs`,
  });
}

export async function readIfExists(path: string): Promise<string | undefined> {
  const fh = await openIfExists(path);
  if (!fh) return undefined;
  try {
    return await fh.readFile('utf8');
  } finally {
    await fh.close();
  }
}

export async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** A unique name in the same directory, so that rename is atomic. */
export function tempPathIn(dir: string): string {
  return join(dir, `.state.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
}

export function errorCode(e: unknown): unknown {
  return (e as NodeJS.ErrnoException | null)?.code;
}

/** A full or read-only disk is the user's to fix, not a bug: say where, and that nothing saved is lost. */
export function diskError(e: unknown, what: string, dir: string): unknown {
  const code = errorCode(e);
  if (code !== 'ENOSPC' && code !== 'EDQUOT' && code !== 'EROFS') return e;
  return new UserError({
    message: `cannot ${what} in ${dir}: ${(e as Error).message}; the state saved before is intact`,
    fix: 'free space on that disk (or move the state with --state-dir) and run the same command again',
  });
}
