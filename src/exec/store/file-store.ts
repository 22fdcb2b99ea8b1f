/**
 * The controller's durable state on local disk: one JSON state file replaced atomically on
 * every save, an append-only event log, and a lock file so that only one controller drives a
 * campaign. The caller validates what it loads; this module only keeps bytes safe.
 *
 * A large state (state.json above `journalAbove` bytes, an object with a `tasks` record) is not
 * rewritten on every save: a save appends one line to state.journal.jsonl holding the task
 * entries that changed since the last save (told by identity: the caller never changes a saved
 * or loaded value in place, it builds a new one, keeping the entries it did not change) and the
 * other top-level fields, stamped with a sequence number (the lines themselves: journal.ts).
 * Writing state.json whole again and removing the journal (compaction) costs about as much as
 * the rest of a controller pass, so it is left to compactIfDue, which the controller calls
 * between passes while it waits anyway; a save compacts on its own only once the journal is
 * several times past due, so that a caller that never calls it still has a bounded journal.
 *
 * Which journal lines state.json already holds: a state.json written in journal mode carries the
 * sequence number of the save it holds as one more top-level key, JOURNAL_SEQ (the campaign
 * state's schema is not strict, and load takes the key off again); load applies only the lines
 * with a greater number, and each must follow the one before. So a crash between the rename of
 * a compacted state.json and the removal of the journal leaves lines that are simply skipped. A
 * state.json without the key holds everything: any journal beside it is from before it.
 */
import { constants } from 'node:fs';
import { type FileHandle, link, mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { UserError } from '../../errors.js';
import {
  changes,
  type Entries,
  isJournalable,
  isRecord,
  JOURNAL_SEQ,
  type Journalable,
  JournalMismatch,
  lineParts,
  present,
  setOwn,
  replay,
  snapshotSeq,
} from './journal.js';

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
  /**
   * Above this size of state.json, in bytes, a save of an object with a `tasks` record appends
   * what changed to state.journal.jsonl instead of writing state.json whole. Default 4 MiB.
   */
  journalAbove?: number;
  /**
   * compactIfDue folds the journal into state.json once the journal is past this share of
   * state.json's size (a save, once past SAVE_COMPACTS_PAST times that). Default 0.5.
   */
  compactAbove?: number;
  /**
   * For commands that only read (status, summary, plan, calibrate): they hold no lock, so a
   * corrupt state.json is said, never repaired from state.prev.json (that is a run's to do).
   */
  readOnly?: boolean;
}

const JOURNAL_ABOVE = 4 * 1024 * 1024;
const COMPACT_ABOVE = 0.5;
/**
 * A save compacts on its own once the journal would pass this many times `compactAbove` of
 * state.json: bounded, for a caller that never calls compactIfDue.
 */
const SAVE_COMPACTS_PAST = 4;

/** What state.json and state.journal.jsonl hold together, as this store last wrote or read them. */
interface Journaled {
  /** The state they hold, and its tasks record: the next save tells its changes from these. */
  state: Journalable;
  tasks: Entries;
  /** The state's fields other than `tasks`, as JSON. */
  topJson: string;
  /** The sequence number of the last save. */
  seq: number;
  /** How many entries `tasks` holds. */
  count: number;
  snapshotBytes: number;
  /** How much of the journal holds whole lines (0 when there is none). */
  journalBytes: number;
}

/** An unparseable lock younger than this is most likely still being written by its creator. */
const HALF_WRITTEN_GRACE_MS = 10_000;
/** How long to wait while another process is clearing a stale lock. */
const TAKEOVER_RETRY_MS = 20;

export class FileStateStore {
  readonly statePath: string;
  readonly eventsPath: string;
  readonly journalPath: string;
  private readonly prevPath: string;
  private readonly lockPath: string;
  /** Held only while removing a stale lock; see clearStaleLock. */
  private readonly takeoverPath: string;
  private readonly warn: (message: string) => void;
  /** What state.json holds, as this store last wrote or read it: an equal save writes nothing. */
  private lastJson: string | undefined;
  private readonly journalAbove: number;
  private readonly compactAbove: number;
  private readonly readOnly: boolean;
  /** Set while state.json is a journal-mode snapshot that this store wrote or read. */
  private journaled: Journaled | undefined;
  /**
   * Whether a journal this store does not know may lie beside state.json (before the first load
   * or save, or one that load found out of date): a compaction removes it before its rename, so
   * none of its lines can ever be taken for later saves.
   */
  private journalUnknown = true;
  /** The highest sequence number seen in this directory: numbers are never used twice. */
  private maxSeq = 0;

  constructor(
    readonly dir: string,
    opts: FileStateStoreOptions = {},
  ) {
    this.statePath = join(dir, 'state.json');
    this.prevPath = join(dir, 'state.prev.json');
    this.eventsPath = join(dir, 'events.jsonl');
    this.journalPath = join(dir, 'state.journal.jsonl');
    this.lockPath = join(dir, 'lock');
    this.takeoverPath = join(dir, 'lock.takeover');
    this.warn = opts.onWarning ?? (() => {});
    this.journalAbove = opts.journalAbove ?? JOURNAL_ABOVE;
    this.compactAbove = opts.compactAbove ?? COMPACT_ABOVE;
    this.readOnly = opts.readOnly ?? false;
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

  /**
   * Moves the saved state, its journal, previous copy and event log into `dest` (a campaign
   * started over keeps its earlier generation, never deletes it); the next save starts anew.
   * Returns the files moved.
   */
  async setAside(dest: string): Promise<string[]> {
    await mkdir(dest, { recursive: true });
    const moved: string[] = [];
    for (const path of [this.statePath, this.journalPath, this.prevPath, this.eventsPath]) {
      const to = join(dest, basename(path));
      try {
        await rename(path, to);
        moved.push(to);
      } catch (e) {
        if (errorCode(e) !== 'ENOENT') throw e;
      }
    }
    this.lastJson = undefined;
    this.journaled = undefined;
    this.journalUnknown = true;
    return moved;
  }

  /** The saved state (state.json and the journal's later saves), or undefined before the first save. */
  async load(): Promise<unknown> {
    for (let tries = 1; ; tries++) {
      const read = await snapshot(this.statePath);
      this.forget();
      this.journalUnknown = true; // until a journal-mode state.json says which lines follow it
      if (read === undefined) return undefined;
      const parsed = parse(read.text);
      if (!('value' in parsed)) {
        if (this.readOnly)
          throw new UserError({
            message: `campaign state file ${this.statePath} is corrupt: ${parsed.error.message}`,
            fix: 'this command changes nothing: `campaign run` falls back to state.prev.json (keeping the corrupt file), or restore it yourself',
          });
        return this.recover(parsed.error);
      }
      const seq = snapshotSeq(parsed.value);
      if (seq === undefined) {
        this.lastJson = read.text;
        return parsed.value;
      }
      try {
        return await this.withJournal(parsed.value as Entries, seq, read.size);
      } catch (e) {
        if (!(e instanceof JournalMismatch)) throw e;
        // A reader without the lock may read state.json just before a compaction replaces it and
        // the journal just after: read both again.
        if (tries < 3 && (await inoOf(this.statePath)) !== read.ino) continue;
        throw new UserError({
          message: `campaign state journal ${this.journalPath} does not follow ${this.statePath}: ${e.message}`,
          fix: `if ${this.statePath} was put back from a backup on purpose, move ${this.journalPath} aside; otherwise restore the two together`,
        });
      }
    }
  }

  /**
   * Replaces the state atomically: after a crash state.json is either the old or the new state.
   * A state equal to what state.json holds (as this store last wrote or read it) is not written again.
   * A large state's save appends its changes to the journal instead (see the top of this file).
   */
  async save(state: unknown): Promise<void> {
    if (isRecord(state) && Object.hasOwn(state, JOURNAL_SEQ)) {
      throw new TypeError(`cannot save a state with a top-level "${JOURNAL_SEQ}": the store keeps that key for itself`);
    }
    const journalable = isJournalable(state);
    const j = this.journaled;
    if (journalable && j !== undefined && j.snapshotBytes > this.journalAbove) return this.saveChanges(state, j);
    const json = toJson(state); // before touching the disk, so a value that can't be saved changes nothing
    if (journalable && json.length > this.journalAbove) return this.compact(state, this.maxSeq + 1);
    if (json === this.lastJson && (await sizeOf(this.statePath)) === Buffer.byteLength(json)) return;
    this.forget(); // until this save is through
    await this.writeState([json]);
    this.lastJson = json;
  }

  /**
   * Compacts (writes state.json whole, holding the last save, and removes the journal) once the
   * journal has passed `compactAbove` of state.json; true if it did. Saves leave this to the
   * caller because at 100,000 tasks it costs as much as a pass: called between passes, it takes
   * time the caller waits anyway. When none is due it touches no file.
   */
  async compactIfDue(): Promise<boolean> {
    const j = this.journaled;
    if (j === undefined || j.journalBytes <= j.snapshotBytes * this.compactAbove) return false;
    await this.compact(j.state, this.maxSeq + 1);
    return true;
  }

  /** Appends the changes since the last save to the journal, or compacts if it would grow far too long. */
  private async saveChanges(state: Journalable, j: Journaled): Promise<void> {
    const { tasks } = state;
    const top = fieldsJson(state);
    const { set, del, count } = changes(j.tasks, j.count, tasks);
    // state.json gone or replaced behind this store's back: the journal would extend nothing.
    const intact = (await sizeOf(this.statePath)) === j.snapshotBytes;
    if (set.length === 0 && del.length === 0 && top === j.topJson && intact) return;
    const seq = j.seq + 1;
    const line = lineParts(seq, top, tasks, set, del);
    const bytes = byteLength(line);
    const next = Math.max(seq, this.maxSeq + 1);
    const tooLong = j.journalBytes + bytes > j.snapshotBytes * this.compactAbove * SAVE_COMPACTS_PAST;
    if (!intact || tooLong) return this.compact(state, next);
    let appended: boolean;
    try {
      appended = await this.appendLine(line, j.journalBytes);
    } catch (e) {
      throw diskError(e, 'save the campaign state', this.dir);
    }
    if (!appended) return this.compact(state, next);
    this.maxSeq = Math.max(this.maxSeq, seq);
    this.journaled = { ...j, state, tasks, topJson: top, seq, count, journalBytes: j.journalBytes + bytes };
  }

  /**
   * Appends one line after the `valid` bytes of the journal that this store knows, and syncs.
   * Bytes after those are a line a crash or a failed save cut short: dropped. A journal shorter
   * than that is not the one this store wrote: false, and nothing is written.
   */
  private async appendLine(line: readonly string[], valid: number): Promise<boolean> {
    await mkdir(this.dir, { recursive: true });
    const fh = await open(this.journalPath, 'a');
    try {
      const { size } = await fh.stat();
      if (size < valid) return false;
      if (size > valid) {
        await fh.truncate(valid);
        this.warn(`${this.journalPath} ended in a partial line from an interrupted save; dropped it`);
      }
      for (const part of line) await fh.writeFile(part); // the file is open for appending: at its end
      await fh.sync();
    } finally {
      await fh.close();
    }
    if (valid === 0) await syncDir(this.dir); // a new file is durable only once its directory is
    return true;
  }

  /** Writes the state whole as state.json, numbered `seq` if it is still large, and drops the journal. */
  private async compact(state: Journalable, seq: number): Promise<void> {
    let count = 0;
    for (const id of Object.keys(state.tasks)) if (present(state.tasks[id])) count++;
    const [before, after] = stateParts(state);
    const pieces = recordPieces(state.tasks);
    // A state that turns out small is written whole, as a save writes one: its pieces are read
    // only while they stay within journalAbove, so a large one is never held whole.
    const head = [before];
    let bytes = byteLength([before, after]);
    let next = pieces.next();
    for (; !next.done && bytes <= this.journalAbove; next = pieces.next()) {
      head.push(next.value);
      bytes += Buffer.byteLength(next.value);
    }
    this.forget(); // until this save is through
    if (next.done && bytes <= this.journalAbove) {
      const whole = head.join('') + after;
      await this.writeState([whole]);
      this.lastJson = whole;
      return;
    }
    // Never numbered again, even if this save fails after its rename.
    this.maxSeq = Math.max(this.maxSeq, seq);
    const rest = next.done ? [] : [next.value];
    const numbered = `${after.slice(0, -1)},"${JOURNAL_SEQ}":${seq}}`;
    const snapshotBytes = await this.writeState(chain(head, rest, pieces, [numbered]));
    const topJson = fieldsJson(state);
    const { tasks } = state;
    this.journaled = { state, tasks, topJson, seq, count, snapshotBytes, journalBytes: 0 };
  }

  /**
   * Puts `parts`, one after another, in place as state.json (temp file, fsync, rename, directory
   * fsync), keeping the one it replaces as state.prev.json; then removes the journal, whose saves
   * it holds. Returns the bytes written.
   */
  private async writeState(parts: Iterable<string>): Promise<number> {
    let bytes = 0;
    await mkdir(this.dir, { recursive: true });
    const tmp = this.tempPath();
    try {
      const fh = await open(tmp, 'wx');
      try {
        for (const part of parts) {
          await fh.writeFile(part);
          bytes += Buffer.byteLength(part);
        }
        await fh.sync();
      } finally {
        await fh.close();
      }
      // A hard link, not a copy: free, and it can't be half-written. A crash between the rm and
      // the link loses only the fallback, while state.json is still the good old state.
      await rm(this.prevPath, { force: true });
      await link(this.statePath, this.prevPath).catch(ignore('ENOENT'));
      // A journal this store does not know may hold numbers above the new state.json's: it must
      // go first. One it knows holds only lower numbers, and saves the old state.json lacks: it
      // goes after the rename, when a crash can only leave lines that load skips.
      if (this.journalUnknown) await rm(this.journalPath, { force: true });
      await rename(tmp, this.statePath);
    } catch (e) {
      await rm(tmp, { force: true });
      throw diskError(e, 'save the campaign state', this.dir);
    }
    await syncDir(this.dir); // the rename itself is durable only once the directory is
    await rm(this.journalPath, { force: true });
    this.journalUnknown = false;
    return bytes;
  }

  /** state.json is a journal-mode snapshot numbered `seq`: the state with the journal's later saves. */
  private async withJournal(snap: Entries, seq: number, snapshotBytes: number): Promise<Entries> {
    Reflect.deleteProperty(snap, JOURNAL_SEQ);
    const text = (await readIfExists(this.journalPath)) ?? '';
    const r = replay(this.journalPath, snap as Journalable, seq, text, this.warn);
    this.forget();
    this.journaled = {
      state: r.state,
      tasks: r.state.tasks,
      topJson: fieldsJson(r.state),
      seq: r.seq,
      count: Object.keys(r.state.tasks).length,
      snapshotBytes,
      journalBytes: r.bytes,
    };
    this.journalUnknown = false;
    this.maxSeq = Math.max(this.maxSeq, r.maxSeq);
    return r.state;
  }

  /** Nothing known about what state.json holds (until a save is through, say). */
  private forget(): void {
    this.lastJson = undefined;
    this.journaled = undefined;
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
    if (size - start > MAX_EVENT_BYTES) {
      // No event is this long: the last line is not one, and reading it whole could exhaust memory.
      await fh.truncate(start);
      this.warn(
        `${this.eventsPath} ended in ${Math.round((size - start) / 2 ** 20)} MiB without a line break, which is no event; dropped it`,
      );
      return;
    }
    const tail = Buffer.alloc(size - start);
    await fh.read(tail, 0, tail.length, start);
    if ('value' in parse(tail.toString('utf8'))) {
      await fh.write('\n');
    } else {
      await fh.truncate(start);
      this.warn(`${this.eventsPath} ended in a partial line from an interrupted write; dropped it`);
    }
  }

  /**
   * state.json is corrupt: fall back to state.prev.json if it is good, keeping the corrupt file,
   * with the journal's saves if they follow it (else the journal is kept aside too).
   */
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
    const stamp = new Date().toISOString().replace(/:/g, '-');
    const kept = join(this.dir, `state.corrupt-${stamp}.json`);
    await link(this.statePath, kept);
    // Put the previous state in place with one rename, so state.json is never missing.
    const tmp = this.tempPath();
    await link(this.prevPath, tmp);
    await rename(tmp, this.statePath);
    await syncDir(this.dir);
    let journal = '';
    const seq = snapshotSeq(prev.value);
    let value = prev.value;
    if (seq === undefined) {
      this.lastJson = prevText;
    } else {
      try {
        value = await this.withJournal(prev.value as Entries, seq, Buffer.byteLength(prevText!));
      } catch (e) {
        if (!(e instanceof JournalMismatch || e instanceof UserError)) throw e;
        const keptJournal = join(this.dir, `state.corrupt-${stamp}.journal.jsonl`);
        await link(this.journalPath, keptJournal);
        await rm(this.journalPath);
        await syncDir(this.dir);
        journal = `; ${this.journalPath} did not follow it (${e.message}), kept it as ${keptJournal}`;
        value = await this.withJournal(prev.value as Entries, seq, Buffer.byteLength(prevText!));
      }
    }
    this.warn(
      `campaign state file ${this.statePath} was corrupt (${cause.message}); kept it as ${kept} ` +
        `and went back to the state before the last save${journal}`,
    );
    return value;
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
  const events: unknown[] = [];
  let bad: { line: number; error: Error } | undefined;
  let n = 0;
  const take = (line: string | Error): boolean => {
    n++;
    if (bad) return false;
    const parsed = line instanceof Error ? { error: line } : parse(line);
    if ('value' in parsed) events.push(parsed.value);
    else bad = { line: n, error: parsed.error };
    return true;
  };
  const ended = await eachLine(path, take);
  if (ended === undefined) return [];
  // Only a last line without its newline is an interrupted append; any other is damage.
  if (bad && (n > bad.line || ended === 'newline'))
    throw new UserError({
      message: `campaign event log line is corrupt: ${bad.error.message}`,
      position: { file: path, line: bad.line, column: 1 },
      fix: `repair or delete that line in ${path}`,
    });
  return events;
}

/**
 * Feeds `take` each line of a file, read in chunks: an event log may outgrow the longest string
 * V8 can hold (512 MiB). A line over MAX_EVENT_BYTES is passed as an error, unread. Stops when
 * `take` returns false. Says how the file ended; undefined when there is no file.
 */
async function eachLine(
  path: string,
  take: (line: string | Error) => boolean,
): Promise<'newline' | 'partial' | undefined> {
  const fh = await openIfExists(path);
  if (!fh) return undefined;
  try {
    const chunk = Buffer.alloc(1024 * 1024);
    let parts: Buffer[] = [];
    let length = 0;
    let tooLong = false;
    let ended: 'newline' | 'partial' = 'newline';
    for (;;) {
      const { bytesRead } = await fh.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      let from = 0;
      for (let nl = chunk.indexOf(0x0a, 0); nl !== -1 && nl < bytesRead; nl = chunk.indexOf(0x0a, from)) {
        if (!tooLong) parts.push(Buffer.from(chunk.subarray(from, nl)));
        const line = tooLong ? tooLongLine() : Buffer.concat(parts).toString('utf8');
        parts = [];
        length = 0;
        tooLong = false;
        from = nl + 1;
        if (!take(line)) return 'newline';
      }
      ended = from < bytesRead ? 'partial' : 'newline';
      if (from < bytesRead && !tooLong) {
        length += bytesRead - from;
        if (length > MAX_EVENT_BYTES) {
          tooLong = true;
          parts = [];
        } else parts.push(Buffer.from(chunk.subarray(from, bytesRead)));
      }
    }
    if (ended === 'partial') take(tooLong ? tooLongLine() : Buffer.concat(parts).toString('utf8'));
    return ended;
  } finally {
    await fh.close();
  }
}

const tooLongLine = (): Error => new Error(`a line over ${MAX_EVENT_BYTES / 2 ** 20} MiB`);

interface Snapshot {
  text: string;
  /** In bytes. */
  size: number;
  mtimeMs: number;
  ino: number;
}

/** A file's text and what stat says of it, read through one handle; undefined if it does not exist. */
async function snapshot(path: string): Promise<Snapshot | undefined> {
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

/** Far more than any one event (an attempt's record is a few hundred bytes). */
const MAX_EVENT_BYTES = 16 * 2 ** 20;

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

/** The fields of the state other than `tasks`, as JSON.stringify writes them. */
function fieldsJson(state: Entries): string {
  const parts: string[] = [];
  for (const k of Object.keys(state)) {
    const json = k === 'tasks' ? undefined : fieldJson(state, k);
    if (json !== undefined) parts.push(json);
  }
  return `{${parts.join(',')}}`;
}

/**
 * The state as JSON.stringify writes it, but for its tasks record: the JSON before the record's
 * and the JSON after it.
 */
function stateParts(state: Entries): [string, string] {
  const before: string[] = [];
  const after: string[] = [];
  let into = before;
  for (const k of Object.keys(state)) {
    const json = k === 'tasks' ? undefined : fieldJson(state, k);
    if (k === 'tasks') into = after;
    else if (json !== undefined) into.push(json);
  }
  return [`{${before.map((p) => `${p},`).join('')}"tasks":`, `${after.map((p) => `,${p}`).join('')}}`];
}

/** How many entries of a tasks record one JSON.stringify of a compaction holds. */
const PIECE_ENTRIES = 2_000;

/**
 * A tasks record as JSON.stringify writes it, in pieces to be written one after another, each
 * made by one JSON.stringify of PIECE_ENTRIES entries: as cheap an entry as one call for the
 * whole record, but the record's JSON is never one string. At 100,000 tasks that string was 27
 * MiB, made while the pass's garbage was still uncollected, and the compaction was the
 * process's peak of memory.
 */
function* recordPieces(tasks: Entries): Generator<string, void> {
  const ids = Object.keys(tasks);
  let sep = '{';
  for (let i = 0; i < ids.length; i += PIECE_ENTRIES) {
    const piece: Entries = {};
    for (const id of ids.slice(i, i + PIECE_ENTRIES)) setOwn(piece, id, tasks[id]);
    const json = toJson(piece);
    if (json === '{}') continue; // every entry one that JSON leaves out
    yield sep + json.slice(1, -1);
    sep = ',';
  }
  yield sep === '{' ? '{}' : '}';
}

function* chain<T>(...lists: Iterable<T>[]): Generator<T, void> {
  for (const list of lists) yield* list;
}

/** Field `k` of the state as JSON.stringify writes it (`"k":value`); undefined where it leaves it out. */
function fieldJson(state: Entries, k: string): string | undefined {
  const json = JSON.stringify(state[k]) as string | undefined;
  return json === undefined ? undefined : `${JSON.stringify(k)}:${json}`;
}

/** The UTF-8 length of parts written one after another. */
function byteLength(parts: readonly string[]): number {
  let n = 0;
  for (const part of parts) n += Buffer.byteLength(part);
  return n;
}

async function inoOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).ino;
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return undefined;
    throw e;
  }
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

/**
 * A handle to read the regular file `path`; undefined when there is no such file. Opened without
 * blocking, then checked: a FIFO planted as a state file would hang a plain open until a writer
 * came, and a directory or a device is no state either. Said as what it is, with the way out.
 */
async function openIfExists(path: string): Promise<FileHandle | undefined> {
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

async function readIfExists(path: string): Promise<string | undefined> {
  const fh = await openIfExists(path);
  if (!fh) return undefined;
  try {
    return await fh.readFile('utf8');
  } finally {
    await fh.close();
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
