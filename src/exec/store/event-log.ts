/**
 * The campaign's append-only event log (events.jsonl): one line per event, synced before an
 * append returns, a line cut short by a crash finished or dropped before the next, and read back
 * in chunks however long it grows. Apart from the store because the log is only ever appended
 * to and read line by line, never replaced as the state is.
 */
import { type FileHandle, mkdir, open } from 'node:fs/promises';
import { UserError } from '../../errors.js';
import { toJson } from './json-pieces.js';
import { diskError, openIfExists, parse } from './state-file.js';

/** The event log at `path`, in the state directory `dir`. */
export class EventLog {
  constructor(
    readonly path: string,
    private readonly dir: string,
    private readonly warn: (message: string) => void,
  ) {}

  /** Appends one line per event and syncs, so a returned append survives a crash. */
  async append(events: readonly unknown[]): Promise<void> {
    if (events.length === 0) return;
    const text = events.map((e) => toJson(e) + '\n').join('');
    await mkdir(this.dir, { recursive: true });
    const fh = await open(this.path, 'a+');
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
        `${this.path} ended in ${Math.round((size - start) / 2 ** 20)} MiB without a line break, which is no event; dropped it`,
      );
      return;
    }
    const tail = Buffer.alloc(size - start);
    await fh.read(tail, 0, tail.length, start);
    if ('value' in parse(tail.toString('utf8'))) {
      await fh.write('\n');
    } else {
      await fh.truncate(start);
      this.warn(`${this.path} ended in a partial line from an interrupted write; dropped it`);
    }
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

/** Far more than any one event (an attempt's record is a few hundred bytes). */
const MAX_EVENT_BYTES = 16 * 2 ** 20;

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
