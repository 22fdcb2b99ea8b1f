/**
 * The controller's durable state on local disk: one JSON state file replaced atomically on
 * every save, an append-only event log, and a lock file so that only one controller drives a
 * campaign. The caller validates what it loads; this module only keeps bytes safe. The lock
 * (lock.ts), the event log (event-log.ts), how its files are read and synced (state-file.ts)
 * and the state's JSON in pieces (json-pieces.ts) each live beside it.
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
import { link, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { UserError } from '../../errors.js';
import { EventLog } from './event-log.js';
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
  replay,
  snapshotSeq,
} from './journal.js';
import { byteLength, chain, fieldsJson, recordPieces, stateParts, toJson } from './json-pieces.js';
import { CampaignLock, type StateLock } from './lock.js';
import { diskError, errorCode, parse, readIfExists, snapshot, syncDir, tempPathIn } from './state-file.js';

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

export class FileStateStore {
  readonly statePath: string;
  readonly eventsPath: string;
  readonly journalPath: string;
  private readonly prevPath: string;
  private readonly lock: CampaignLock;
  private readonly eventLog: EventLog;
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
    this.warn = opts.onWarning ?? (() => {});
    this.lock = new CampaignLock(dir, this.warn);
    this.eventLog = new EventLog(this.eventsPath, dir, this.warn);
    this.journalAbove = opts.journalAbove ?? JOURNAL_ABOVE;
    this.compactAbove = opts.compactAbove ?? COMPACT_ABOVE;
    this.readOnly = opts.readOnly ?? false;
  }

  /** Takes the campaign's lock, or throws a UserError naming the process that holds it. */
  acquire(command: string): Promise<StateLock> {
    return this.lock.acquire(command);
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
    const tmp = tempPathIn(this.dir);
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
  append(events: readonly unknown[]): Promise<void> {
    return this.eventLog.append(events);
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
    const tmp = tempPathIn(this.dir);
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
}

async function inoOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).ino;
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return undefined;
    throw e;
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

function ignore(code: string): (e: unknown) => void {
  return (e) => {
    if (errorCode(e) !== code) throw e;
  };
}
