/**
 * The lock file of a state directory, so that only one controller drives a campaign: taken by
 * linking a whole file into place, and taken over only from a holder that is gone. Apart from
 * the store because who holds a campaign is another question than what its state is.
 */
import { type FileHandle, link, mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../../errors.js';
import { type Snapshot, errorCode, parse, readIfExists, snapshot, tempPathIn } from './state-file.js';

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

/** An unparseable lock younger than this is most likely still being written by its creator. */
const HALF_WRITTEN_GRACE_MS = 10_000;
/** How long to wait while another process is clearing a stale lock. */
const TAKEOVER_RETRY_MS = 20;

/** The lock of one state directory (`lock`, and `lock.takeover` while a stale one is removed). */
export class CampaignLock {
  private readonly lockPath: string;
  /** Held only while removing a stale lock; see clearStaleLock. */
  private readonly takeoverPath: string;

  constructor(
    private readonly dir: string,
    private readonly warn: (message: string) => void,
  ) {
    this.lockPath = join(dir, 'lock');
    this.takeoverPath = join(dir, 'lock.takeover');
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
    const tmp = tempPathIn(this.dir);
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
