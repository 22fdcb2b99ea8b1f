/**
 * The controller's durable state on local disk: one JSON state file replaced atomically on
 * every save, an append-only event log, and a lock file so that only one controller drives a
 * campaign. The caller validates what it loads; this module only keeps bytes safe.
 */
import { type FileHandle, link, mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../../errors.js';

export interface LockHolder {
  pid: number;
  host: string;
  /** ISO timestamp. */
  started: string;
  command: string;
}

export interface StateLock {
  release(): Promise<void>;
  readonly holder: LockHolder;
}

export interface FileStateStoreOptions {
  onWarning?: (message: string) => void;
}

/** An unparseable lock younger than this is most likely still being written by its creator. */
const HALF_WRITTEN_GRACE_MS = 10_000;
/** How long to wait while another process is clearing a stale lock. */
const TAKEOVER_RETRY_MS = 20;

export class FileStateStore {
  readonly statePath: string;
  readonly eventsPath: string;
  private readonly prevPath: string;
  private readonly lockPath: string;
  /** Held only while removing a stale lock; see clearStaleLock. */
  private readonly takeoverPath: string;
  private readonly warn: (message: string) => void;
  /** What state.json holds, as this store last wrote or read it: an equal save writes nothing. */
  private lastJson: string | undefined;

  constructor(
    readonly dir: string,
    opts: FileStateStoreOptions = {},
  ) {
    this.statePath = join(dir, 'state.json');
    this.prevPath = join(dir, 'state.prev.json');
    this.eventsPath = join(dir, 'events.jsonl');
    this.lockPath = join(dir, 'lock');
    this.takeoverPath = join(dir, 'lock.takeover');
    this.warn = opts.onWarning ?? (() => {});
  }

  /** Takes the campaign's lock, or throws a UserError naming the process that holds it. */
  async acquire(command: string): Promise<StateLock> {
    await mkdir(this.dir, { recursive: true });
    const holder: LockHolder = {
      pid: process.pid,
      host: hostname(),
      started: new Date().toISOString(),
      command,
    };
    const text = JSON.stringify(holder);
    // Written whole to a temp file, then linked into place: link() fails if the lock exists,
    // and a controller killed at any point never leaves a half-written lock behind.
    const tmp = this.tempPath();
    await writeFile(tmp, text);
    try {
      for (;;) {
        try {
          await link(tmp, this.lockPath);
          return { holder, release: () => this.release(text) };
        } catch (e) {
          if (errorCode(e) !== 'EEXIST') throw e;
          await this.clearStaleLock();
        }
      }
    } finally {
      await rm(tmp, { force: true });
    }
  }

  /** The saved state, or undefined before the first save. */
  async load(): Promise<unknown> {
    const text = await readIfExists(this.statePath);
    if (text === undefined) return undefined;
    const parsed = parse(text);
    this.lastJson = 'value' in parsed ? text : undefined;
    return 'value' in parsed ? parsed.value : this.recover(parsed.error);
  }

  /**
   * Replaces the state atomically: after a crash state.json is either the old or the new state.
   * A state equal to what state.json holds (as this store last wrote or read it) is not written again.
   */
  async save(state: unknown): Promise<void> {
    const json = toJson(state); // before touching the disk, so a value that can't be saved changes nothing
    if (json === this.lastJson && (await sizeOf(this.statePath)) === Buffer.byteLength(json)) return;
    this.lastJson = undefined; // until this save is through
    await mkdir(this.dir, { recursive: true });
    const tmp = this.tempPath();
    try {
      const fh = await open(tmp, 'wx');
      try {
        await fh.writeFile(json);
        await fh.sync();
      } finally {
        await fh.close();
      }
      // A hard link, not a copy: free, and it can't be half-written. A crash between the rm and
      // the link loses only the fallback, while state.json is still the good old state.
      await rm(this.prevPath, { force: true });
      await link(this.statePath, this.prevPath).catch(ignore('ENOENT'));
      await rename(tmp, this.statePath);
    } catch (e) {
      await rm(tmp, { force: true });
      throw diskError(e, 'save the campaign state', this.dir);
    }
    await syncDir(this.dir); // the rename itself is durable only once the directory is
    this.lastJson = json;
  }

  /** Appends one line per event and syncs, so a returned append survives a crash. */
  async append(events: readonly unknown[]): Promise<void> {
    if (events.length === 0) return;
    const text = events.map((e) => toJson(e) + '\n').join('');
    await mkdir(this.dir, { recursive: true });
    const fh = await open(this.eventsPath, 'a+');
    try {
      await this.repairTail(fh);
      await fh.write(text);
      await fh.sync();
    } catch (e) {
      throw diskError(e, 'append to the event log', this.dir);
    } finally {
      await fh.close();
    }
  }

  /**
   * A crash mid-append leaves a last line without its newline; appending after it would glue
   * two events into one corrupt line in the middle of the log. Keep it the way readEvents
   * reads it: finish it if it parses, drop it if not.
   */
  private async repairTail(fh: FileHandle): Promise<void> {
    const { size } = await fh.stat();
    const start = await lastLineStart(fh, size);
    if (start === size) return;
    const tail = Buffer.alloc(size - start);
    await fh.read(tail, 0, tail.length, start);
    if ('value' in parse(tail.toString('utf8'))) {
      await fh.write('\n');
    } else {
      await fh.truncate(start);
      this.warn(`${this.eventsPath} ended in a partial line from an interrupted write; dropped it`);
    }
  }

  /** state.json is corrupt: fall back to state.prev.json if it is good, keeping the corrupt file. */
  private async recover(cause: Error): Promise<unknown> {
    const prevText = await readIfExists(this.prevPath);
    const prev = prevText === undefined ? undefined : parse(prevText);
    if (prev === undefined || !('value' in prev)) {
      // state.json stays where it is: moving it aside would make the next pass start afresh.
      const alsoPrev = prev === undefined ? '' : ` (and ${this.prevPath} is corrupt too)`;
      throw new UserError({
        message: `campaign state file ${this.statePath} is corrupt: ${cause.message}${alsoPrev}`,
        fix: `restore ${this.statePath} from a backup, or move it aside: the next run rebuilds the state from the executor's records and the outputs, and sends no finished attempt again`,
      });
    }
    const kept = join(this.dir, `state.corrupt-${new Date().toISOString().replace(/:/g, '-')}.json`);
    await link(this.statePath, kept);
    // Put the previous state in place with one rename, so state.json is never missing.
    const tmp = this.tempPath();
    await link(this.prevPath, tmp);
    await rename(tmp, this.statePath);
    await syncDir(this.dir);
    this.warn(
      `campaign state file ${this.statePath} was corrupt (${cause.message}); kept it as ${kept} ` +
        `and went back to the state before the last save`,
    );
    return prev.value;
  }

  /**
   * The lock exists: remove it if its holder is gone, else throw naming the holder. Two
   * processes may both find the same stale lock; the takeover file lets only one of them at a
   * time check-and-remove, so nobody removes a lock another process has just created.
   */
  private async clearStaleLock(): Promise<void> {
    const seen = await snapshot(this.lockPath);
    if (seen === undefined) return; // released meanwhile: try again
    const reason = await this.staleReason(seen);
    let guard: FileHandle;
    try {
      guard = await open(this.takeoverPath, 'wx');
    } catch (e) {
      if (errorCode(e) !== 'EEXIST') throw e;
      // Someone else is taking over. A takeover file this old was left by a crash mid-takeover.
      const other = await snapshot(this.takeoverPath);
      if (other !== undefined && Date.now() - other.mtimeMs > HALF_WRITTEN_GRACE_MS) {
        await rm(this.takeoverPath, { force: true });
      }
      await new Promise((resolve) => setTimeout(resolve, TAKEOVER_RETRY_MS));
      return;
    }
    try {
      await guard.close();
      const now = await snapshot(this.lockPath);
      if (now?.text === seen.text && now.mtimeMs === seen.mtimeMs) {
        await rm(this.lockPath);
        this.warn(`took over the lock ${this.lockPath}: ${reason}`);
      }
    } finally {
      await rm(this.takeoverPath, { force: true });
    }
  }

  /** Why the lock is stale; throws a UserError if its holder may still be running. */
  private async staleReason(seen: Snapshot): Promise<string> {
    const holder = parseHolder(seen.text);
    if (holder === undefined) {
      if (Date.now() - seen.mtimeMs > HALF_WRITTEN_GRACE_MS) {
        return 'it was unreadable and had not been touched for over 10 seconds';
      }
      throw new UserError({
        message: `campaign state ${this.dir} is being locked by another process (${this.lockPath} is not yet complete)`,
        fix: `try again in a few seconds; if no other campaign process is running, remove ${this.lockPath}`,
      });
    }
    const { pid, host, started, command } = holder;
    const sameHost = host === hostname();
    if (sameHost && !(await isRunning(pid))) {
      return `its holder, pid ${pid} (${command}, started ${started}), is no longer running`;
    }
    throw new UserError({
      message:
        `campaign state ${this.dir} is locked by pid ${pid} on ${host}` +
        `${sameHost ? '' : ' (another machine, so whether it still runs cannot be checked)'}, ` +
        `started ${started}: ${command}`,
      fix: `wait for that process to finish; if you are sure it is gone, remove ${this.lockPath}`,
    });
  }

  private async release(ours: string): Promise<void> {
    // After a takeover (which needs us dead) or a manual removal the file is not ours to remove.
    if ((await readIfExists(this.lockPath)) === ours) await rm(this.lockPath, { force: true });
  }

  /** A unique name in the same directory, so that rename is atomic. */
  private tempPath(): string {
    return join(this.dir, `.state.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  }
}

/**
 * The events in an events.jsonl file ([] if there is none). An unparseable last line is an
 * append that a crash interrupted, never acknowledged, so it is skipped; an unparseable line
 * anywhere else means the log is damaged.
 */
export async function readEvents(path: string): Promise<unknown[]> {
  const text = await readIfExists(path);
  if (text === undefined) return [];
  const lines = text.split('\n'); // the last element is '' when the file ends with a newline
  const events: unknown[] = [];
  for (const [i, line] of lines.entries()) {
    const parsed = parse(line);
    if ('value' in parsed) {
      events.push(parsed.value);
    } else if (i < lines.length - 1) {
      throw new UserError({
        message: `campaign event log line is corrupt: ${parsed.error.message}`,
        position: { file: path, line: i + 1, column: 1 },
        fix: `repair or delete that line in ${path}`,
      });
    }
  }
  return events;
}

interface Snapshot {
  text: string;
  mtimeMs: number;
}

/** A file's text and mtime read through one handle, or undefined if it does not exist. */
async function snapshot(path: string): Promise<Snapshot | undefined> {
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const { mtimeMs } = await fh.stat();
    return { text: await fh.readFile('utf8'), mtimeMs };
  } finally {
    await fh.close();
  }
}

function parseHolder(text: string): LockHolder | undefined {
  const parsed = parse(text);
  if (!('value' in parsed)) return undefined;
  const h = parsed.value as Partial<LockHolder> | null;
  const valid =
    typeof h === 'object' &&
    h !== null &&
    Number.isInteger(h.pid) &&
    (h.pid as number) > 0 && // process.kill(0 or negative) would signal a process group
    typeof h.host === 'string' &&
    typeof h.started === 'string' &&
    typeof h.command === 'string';
  return valid ? (h as LockHolder) : undefined;
}

async function isRunning(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return errorCode(e) !== 'ESRCH'; // EPERM: it exists, it just isn't ours
  }
  // A zombie has exited and only waits for its parent to reap it: it will never run again.
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'; // the name in parentheses may hold anything
  } catch {
    return true; // no /proc (not Linux): kill's answer is all there is
  }
}

/** Where the last line of the file starts; equal to size when it ends with a newline. */
async function lastLineStart(fh: FileHandle, size: number): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024);
  for (let end = size; end > 0;) {
    const start = Math.max(0, end - chunk.length);
    const { bytesRead } = await fh.read(chunk, 0, end - start, start);
    const newline = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (newline >= 0) return start + newline + 1;
    end = start;
  }
  return 0;
}

function parse(text: string): { value: unknown } | { error: Error } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (e) {
    return { error: e as Error };
  }
}

async function sizeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size;
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return undefined;
    throw e;
  }
}

function toJson(value: unknown): string {
  const json = JSON.stringify(value);
  // JSON.stringify(undefined) (or a function) gives undefined, which would be written as "undefined".
  if (json === undefined) throw new TypeError(`cannot save ${typeof value} as JSON`);
  return json;
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return undefined;
    throw e;
  }
}

async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

function errorCode(e: unknown): unknown {
  return (e as NodeJS.ErrnoException | null)?.code;
}

function ignore(code: string): (e: unknown) => void {
  return (e) => {
    if (errorCode(e) !== code) throw e;
  };
}

/** A full or read-only disk is the user's to fix, not a bug: say where, and that nothing saved is lost. */
function diskError(e: unknown, what: string, dir: string): unknown {
  const code = errorCode(e);
  if (code !== 'ENOSPC' && code !== 'EDQUOT' && code !== 'EROFS') return e;
  return new UserError({
    message: `cannot ${what} in ${dir}: ${(e as Error).message}; the state saved before is intact`,
    fix: 'free space on that disk (or move the state with --state-dir) and run the same command again',
  });
}
