/**
 * A campaign's workdir on the machine behind a transport (SSH, an automation node's, or this
 * machine's), the one implementation of `Workdir` every executor kind shares: where it is,
 * whether a task's output is there and fresh, check commands run in it, which paths are missing,
 * files, gathering, the generation, set-aside and code snapshots. Each is one SFTP operation or
 * one command, whatever the number of paths.
 */
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import type { TaskSpec } from '../manifest/expand.js';
import { restriction, type Manifest } from '../manifest/schema.js';
import type { OutputRecords } from '../judge/attempt-end.js';
import { fullRecordExpectation, type OutputFacts } from '../judge/checklist.js';
import { manifestTaskEnv } from '../render/task-env.js';
import { parseSetAside, renderSetAside, type SetAsideResult } from '../render/set-aside.js';
import { exportLines, shellQuote } from '../render/shell.js';
import { UserError } from '../errors.js';
import type { TakeFile } from '../report/results/gathering.js';
import type { Attempt } from '../state/state.js';
import { askedOnce } from './asked-once.js';
import { removeSnapshotsOverShell, shipOverSftp, shipOverShell, type CodeSnapshot } from './code-ship.js';
import { gatherByArchive, gatherEach } from './gather.js';
import { GenerationRecord } from './generation.js';
import { resolveHome, tempPathFor, type Transport } from './transport/transport.js';
import type { Workdir } from './workdir.js';

/** The largest output whose records are checked at completion: one read whole over the link. */
export const RECORDS_READ_LIMIT = 64 * 1024 * 1024;

export interface OutputFreshness {
  exists: boolean;
  fresh: boolean;
  path: string;
  size?: number;
  /** Where the output really is, when a symlink puts it elsewhere. */
  linkedTo?: string;
}

/** What needs a shell on the login node, said as the error an automation node gets. */
function needsShell(what: string, fix: string): UserError {
  return new UserError({
    message: `${what} needs a shell on the login node, and cluster.restricted says it is an automation node, which runs none`,
    fix,
  });
}

/** A check command runs for at most 600 s (`timeout 600`): the command that runs it waits a little longer. */
const CHECK_TIMEOUT_MS = 610_000;

/** How many SFTP requests are in flight at once for a batch of paths. */
const SFTP_BATCH = 64;
/** Files one command writes: their contents pass through the shell's `read`, a byte at a time. */
const WRITE_BATCH = 500;

/** Outputs one command stats: their paths are arguments of one `stat`, well within the system's limit. */
const STAT_BATCH = 500;
const STAT_BATCH_BYTES = 100_000;

/** An output as one look found it: enough to judge its freshness against any attempt's start. */
interface OutputStat {
  isFile: boolean;
  mtimeMs: number;
  size: number;
  /** Where it really is (symlinks resolved), for a regular file. */
  real?: string;
}

/** What differs between the kinds that share this implementation of the workdir. */
export interface WorkdirOfKind {
  /**
   * The kind's folder of the campaign, relative to the workdir (`.campaign/<kind>/<campaign>`):
   * its attempts and its generation, moved aside by a fresh start.
   */
  folder: string;
  /** The absolute workdir, where the kind resolves it itself (local: beside the manifest); else the manifest's, `~` the home there. */
  path?: string;
  /** When an attempt's output counts from (default: its submission, the launch of a process that starts at once). */
  since?: (attempt: Attempt) => string;
}

export class TransportWorkdir implements Workdir {
  private abs: string | undefined;
  /** Where the workdir really is (symlinks resolved), against which outputs are checked. */
  private readonly real = askedOnce(async () => this.transport.realpath(await this.path()));
  /**
   * The tasks whose outputs a pass may judge (lookOutputs), looked at together at the first
   * freshness check of the pass, and what that look found, by absolute path (null where nothing
   * is there). Undefined outside such a pass: each output is looked at alone.
   */
  private toLook: readonly TaskSpec[] | undefined;
  private looked: Promise<Map<string, OutputStat | null>> | undefined;
  /**
   * Restricted to plain commands and SFTP (an automation node): what would run a shell there
   * goes through SFTP here instead, or is refused.
   */
  private readonly restricted: boolean;
  readonly generation: GenerationRecord;

  constructor(
    private readonly transport: Transport,
    private readonly manifest: Manifest,
    private readonly kind: WorkdirOfKind,
  ) {
    this.restricted = restriction(manifest.cluster) !== undefined;
    this.abs = kind.path;
    this.generation = new GenerationRecord(this, `${kind.folder}/generation`);
  }

  /** The absolute workdir (`~` is the remote user's home). */
  async path(): Promise<string> {
    if (this.abs === undefined) this.abs = resolveHome(this.manifest.workdir, await this.home());
    return this.abs;
  }

  private async home(): Promise<string> {
    if (this.manifest.workdir.startsWith('/')) return '/';
    if (this.restricted) {
      // No shell to print $HOME: SFTP's own idea of it (where its sessions start).
      const home = await this.transport.realpath('~').catch((e: unknown) => {
        if (!(e instanceof UserError)) throw e;
        throw new UserError({
          message: `cannot find the home directory on the automation node: ${e.problems[0]?.message}`,
          fix: 'give workdir as an absolute path (e.g. /home/you/scratch/runs): without file transfer, campaign cannot ask where ~ is',
        });
      });
      if (home?.startsWith('/')) return home;
      throw new UserError('cannot find the home directory on the automation node: SFTP gave none');
    }
    const r = await this.transport.exec('printf %s "$HOME"');
    if (r.code !== 0 || !r.stdout.startsWith('/'))
      throw new UserError(`cannot find the home directory on the server: ${r.stderr.trim()}`);
    return r.stdout;
  }

  /** When the attempt's output counts from, as its kind says. */
  since(attempt: Attempt): string {
    return this.kind.since?.(attempt) ?? attempt.submittedAt;
  }

  /**
   * Whether the task's output exists, was written at or after `since` (the server's clock, to
   * the second), and is really there: an output that is a symlink, or under one (to a
   * sibling's output, or out of the workdir), proves nothing of this task's work.
   */
  async freshness(task: TaskSpec, since: string): Promise<OutputFreshness> {
    const path = `${await this.path()}/${task.output ?? ''}`;
    let seen: OutputStat | null | undefined;
    if (task.output !== undefined && this.toLook !== undefined) {
      this.looked ??= this.lookNow(this.toLook);
      seen = (await this.looked).get(path);
    }
    const st = task.output === undefined ? undefined : seen === undefined ? await this.transport.stat(path) : seen;
    if (!st?.isFile) return { exists: false, fresh: false, path };
    const [real, workdir] = await Promise.all([seen ? seen.real : this.transport.realpath(path), this.real()]);
    if (real !== `${workdir}/${posix.normalize(task.output!)}`) {
      return { exists: true, fresh: false, path, linkedTo: real ?? 'a missing file' };
    }
    // SFTP gives whole seconds: an output written in the attempt's first second still counts.
    return { exists: true, fresh: st.mtimeMs >= Math.floor(Date.parse(since) / 1000) * 1000, path, size: st.size };
  }

  /**
   * The outputs of these tasks are looked at together, for the freshness checks of the ends a
   * pass judges, until `forget`: at the first such check, with a shell, one command per {@link
   * STAT_BATCH} outputs (a `stat` of them all, and where each really is by `cd -P`, a builtin),
   * not two SFTP round trips each; restricted, their SFTP requests {@link SFTP_BATCH} at a time.
   * A pass that judges none looks at none. A thousand packed tasks ending in one pass were two
   * thousand round trips one after another.
   */
  lookOutputs(tasks: readonly TaskSpec[]): void {
    this.toLook = tasks;
    this.looked = undefined;
  }

  /** Outputs are looked at one by one again (the pass that looked at them together is over). */
  forget(): void {
    this.toLook = undefined;
    this.looked = undefined;
  }

  private async lookNow(tasks: readonly TaskSpec[]): Promise<Map<string, OutputStat | null>> {
    const workdir = await this.path();
    const paths = [...new Set(tasks.flatMap((t) => (t.output === undefined ? [] : [`${workdir}/${t.output}`])))];
    const looked = new Map<string, OutputStat | null>();
    if (this.restricted) {
      for (let i = 0; i < paths.length; i += SFTP_BATCH) {
        const chunk = paths.slice(i, i + SFTP_BATCH);
        const found = await Promise.all(
          chunk.map(async (p) => {
            const st = await this.transport.stat(p);
            return st?.isFile ? { ...st, real: await this.transport.realpath(p) } : st;
          }),
        );
        chunk.forEach((p, j) => looked.set(p, found[j] ?? null));
      }
    } else {
      for (let i = 0; i < paths.length;) {
        let bytes = 0;
        let end = i;
        while (
          end < paths.length &&
          end - i < STAT_BATCH &&
          (end === i || bytes + paths[end]!.length < STAT_BATCH_BYTES)
        )
          bytes += paths[end++]!.length + 1;
        const chunk = paths.slice(i, end);
        i = end;
        for (const [p, st] of await this.statBatch(chunk)) looked.set(p, st);
      }
    }
    return looked;
  }

  /**
   * One command: `stat -L` of every path (following symlinks, as SFTP's stat does; a missing
   * one prints nothing), then each regular file's real path, its directory resolved by the
   * builtin `cd -P` and, where the file itself is a symlink, by `realpath`. Every field ends
   * in a NUL; paths travel on standard input, never in the command's text.
   */
  private async statBatch(paths: readonly string[]): Promise<Map<string, OutputStat | null>> {
    const r = await this.transport.exec(
      [
        'paths=()',
        'while IFS= read -r -d \'\' p; do paths+=("$p"); done',
        '[ "${#paths[@]}" -gt 0 ] || exit 0',
        'stat -L --printf \'S\\0%n\\0%F\\0%Y\\0%s\\0\' -- "${paths[@]}" 2>/dev/null',
        'for p in "${paths[@]}"; do',
        '  [ -e "$p" ] || { printf \'X\\0%s\\0\' "$p"; continue; }',
        '  [ -f "$p" ] || continue',
        '  if [ -L "$p" ]; then r=$(realpath -e -- "$p" 2>/dev/null) || continue',
        '  elif cd -P -- "${p%/*}/" 2>/dev/null; then r=$PWD/${p##*/}',
        '  else continue',
        '  fi',
        '  printf \'R\\0%s\\0%s\\0\' "$p" "$r"',
        'done',
        "printf 'END\\0'",
      ].join('\n'),
      { stdin: paths.map((p) => `${p}\0`).join('') },
    );
    // Only what the command said, and only where it said all: any other path is looked at alone.
    const found = new Map<string, OutputStat | null>();
    const f = r.stdout.split('\0');
    if (r.code !== 0 || f.at(-2) !== 'END') return found;
    const asked = new Set(paths);
    for (let i = 0; i < f.length;) {
      if (f[i] === 'X' && i + 1 < f.length) {
        if (asked.has(f[i + 1]!)) found.set(f[i + 1]!, null);
        i += 2;
      } else if (f[i] === 'S' && i + 4 < f.length) {
        const [path, type, mtime, size] = [f[i + 1]!, f[i + 2]!, f[i + 3]!, f[i + 4]!];
        if (asked.has(path) && /^\d+$/.test(mtime) && /^\d+$/.test(size))
          found.set(path, { isFile: type.startsWith('regular'), mtimeMs: Number(mtime) * 1000, size: Number(size) });
        i += 5;
      } else if (f[i] === 'R' && i + 2 < f.length) {
        const st = found.get(f[i + 1]!);
        if (st) st.real = f[i + 2]!;
        i += 3;
      } else i++;
    }
    // A regular file whose real path could not be read is looked at alone.
    for (const [p, st] of found) if (st?.isFile && st.real === undefined) found.delete(p);
    return found;
  }

  /**
   * A fresh output's text with what its phase expects it to hold, for classifyEnd; undefined
   * where nothing is expected, or where it is too large to read whole (then it goes unchecked).
   */
  async records(task: TaskSpec, out: OutputFreshness): Promise<OutputRecords | undefined> {
    const expect = fullRecordExpectation(this.manifest, task);
    if (!expect || !out.fresh || out.linkedTo || (out.size ?? Infinity) > RECORDS_READ_LIMIT) return undefined;
    const text = await this.transport.readFile(out.path, { maxBytes: RECORDS_READ_LIMIT });
    return text === undefined ? undefined : { expect, text };
  }

  async outputFacts(task: TaskSpec, attempt: Attempt, withText: boolean): Promise<OutputFacts> {
    if (task.output === undefined) return { exists: false, fresh: false };
    const { exists, fresh, path, linkedTo, size } = await this.freshness(task, this.since(attempt));
    if (!exists) return { exists: false, fresh: false };
    if (linkedTo) return { exists, fresh, linkedTo };
    if (this.restricted) {
      // No sha256sum there: the file is read once and hashed here.
      const text = await this.transport.readFile(path, { maxBytes: RECORDS_READ_LIMIT }).catch(() => undefined);
      const digest = text === undefined ? undefined : createHash('sha256').update(text).digest('hex');
      return {
        exists: true,
        fresh,
        ...(digest ? { digest } : {}),
        ...(withText && text !== undefined ? { text } : {}),
      };
    }
    const sum = await this.transport.exec(`sha256sum -- ${shellQuote(path)}`);
    const digest = sum.code === 0 ? sum.stdout.split(' ')[0] : undefined;
    // A larger output's text is left out (the records of one are not checked either).
    const text = withText && (size ?? 0) <= RECORDS_READ_LIMIT ? await this.transport.readFile(path) : undefined;
    return { exists: true, fresh, ...(digest ? { digest } : {}), ...(text === undefined ? {} : { text }) };
  }

  async runCheck(task: TaskSpec, command: string): Promise<{ exitCode: number; tail: string }> {
    if (this.restricted)
      throw needsShell(
        'a `check: command` item',
        'check the outputs with output_exists, records or log_contains items',
      );
    const workdir = await this.path();
    const env = exportLines(manifestTaskEnv(this.manifest, task, 0, workdir));
    const r = await this.transport.exec(
      `cd -- ${shellQuote(workdir)} || exit 127\n${env}\ntimeout 600 bash -c ${shellQuote(command)} 2>&1`,
      { timeoutMs: CHECK_TIMEOUT_MS },
    );
    return { exitCode: r.code, tail: (r.stdout + r.stderr).slice(-4000) };
  }

  async writeFiles(files: readonly { path: string; text: string }[]): Promise<string[]> {
    if (files.length === 0) return [];
    const workdir = await this.path();
    if (this.restricted) {
      const failed: string[] = [];
      // Outputs share directories: each is made (its ancestors stat'ed) once per batch, not per file.
      const made = new Map<string, Promise<void>>();
      for (const f of files) {
        const to = posix.resolve(workdir, f.path);
        const dir = posix.dirname(to);
        if (!made.has(dir)) made.set(dir, this.transport.mkdirp(dir));
        await made
          .get(dir)!
          .then(() => this.transport.writeFile(to, f.text))
          .catch(() => failed.push(f.path));
      }
      return failed;
    }
    // In batches, each well within the command's timeout on a loaded login: a pass that ends a
    // thousand packed tasks at once (issue 37) writes their records in several commands.
    const failed: string[] = [];
    for (let i = 0; i < files.length; i += WRITE_BATCH)
      failed.push(...(await this.writeBatch(workdir, files.slice(i, i + WRITE_BATCH))));
    return failed;
  }

  private async writeBatch(workdir: string, files: readonly { path: string; text: string }[]): Promise<string[]> {
    // Paths and contents travel on stdin, never in the command's text: as they are, or as base64
    // where one holds a NUL (which a shell variable cannot). Each directory's files are written
    // into a fresh folder of its own that mktemp makes in it (mode 700: no one else can plant a
    // symlink there), made 644 together, then renamed into place together by one `mv -t`, which
    // replaces whatever is at each path (a planted symlink too, never written through). So a
    // batch forks a few processes per directory, not seven per file: a pass that ends a thousand
    // packed tasks wrote their records for a minute.
    const raw = files.every((f) => !f.text.includes('\0'));
    const r = await this.transport.exec(
      [
        `cd -- ${shellQuote(workdir)} || exit 3`,
        'shopt -s dotglob nullglob',
        'declare -A stage=()',
        'paths=() staged=()',
        "while IFS= read -r -d '' p && IFS= read -r -d '' b; do",
        '  case $p in */*) d=${p%/*} n=${p##*/} ;; *) d=. n=$p ;; esac',
        '  s=${stage[$d]-}',
        '  if [ -z "$s" ]; then',
        '    if { [ -d "$d" ] || mkdir -p -- "$d" 2>/dev/null; } && s=$(mktemp -d -- "$d/.campaign-write-XXXXXXXX" 2>/dev/null); then',
        '      stage[$d]=$s',
        '    else printf \'%s\\0\' "$p"; continue; fi',
        '  fi',
        raw
          ? `  { printf '%s' "$b" > "$s/$n"; } 2>/dev/null || { printf '%s\\0' "$p"; continue; }`
          : `  { printf '%s' "$b" | base64 -d > "$s/$n"; } 2>/dev/null || { printf '%s\\0' "$p"; continue; }`,
        '  paths+=("$p") staged+=("$s/$n")',
        'done',
        'for d in "${!stage[@]}"; do',
        '  s=${stage[$d]}',
        '  f=("$s"/*)',
        '  [ "${#f[@]}" -eq 0 ] || { chmod 644 -- "${f[@]}" && mv -f -t "$d" -- "${f[@]}"; } 2>/dev/null',
        'done',
        // What is still in its folder was not put in place.
        'for i in "${!paths[@]}"; do [ ! -e "${staged[$i]}" ] || printf \'%s\\0\' "${paths[$i]}"; done',
        '[ "${#stage[@]}" -eq 0 ] || rm -rf -- "${stage[@]}"',
      ].join('\n'),
      {
        stdin: files.map((f) => `${f.path}\0${raw ? f.text : Buffer.from(f.text).toString('base64')}\0`).join(''),
      },
    );
    if (r.code === 3) return files.map((f) => f.path);
    return [...new Set(r.stdout.split('\0').filter(Boolean))];
  }

  /**
   * Writes a small file where nothing is at the workdir-relative path, whole, by a hard link
   * from a temporary file (link(2) refuses a path that exists, atomically); false where
   * something is. Restricted, by SFTP's rename, which refuses a target that exists.
   */
  async createFile(path: string, text: string): Promise<boolean> {
    const to = posix.resolve(await this.path(), path);
    if (this.restricted) {
      await this.transport.mkdirp(posix.dirname(to));
      const temp = tempPathFor(to);
      await this.transport.writeFile(temp, text);
      return this.transport.rename(temp, to).then(
        () => true,
        // The temporary file stays (no shell to remove it with): small, and named as one.
        async (e: unknown) => {
          if ((await this.transport.stat(to)) === undefined) throw e;
          return false;
        },
      );
    }
    const script = [
      // An absolute path: its directory and name by bash's own expansions, not two processes.
      'p=$1 d=${1%/*} && d=${d:-/}',
      'mkdir -p -- "$d" && t=$(mktemp -- "$d/.${p##*/}.tmp-XXXXXXXX") || exit 4',
      'printf %s "$2" > "$t" && chmod 644 -- "$t" || { rm -f -- "$t"; exit 4; }',
      'if ln -- "$t" "$p" 2>/dev/null; then made=yes; else made=no; fi',
      'rm -f -- "$t"',
      '[ "$made" = yes ] || [ -e "$p" ] || exit 4',
      'echo "$made"',
    ].join('\n');
    const r = await this.transport.exec(
      `bash -c ${shellQuote(script)} campaign-create ${shellQuote(to)} ${shellQuote(text)}`,
    );
    if (r.code !== 0)
      throw new UserError({
        message: `cannot write ${to}: ${r.stderr.trim() || `exit status ${r.code}`}`,
        fix: 'check that the workdir is writable and has space',
      });
    return r.stdout.trim() === 'yes';
  }

  /** renderSetAside run in the workdir, the kind's folder of the campaign holding its attempts. */
  async setAside(dest: string): Promise<SetAsideResult> {
    if (this.restricted)
      throw needsShell(
        '--fresh (moving the earlier attempts and outputs aside)',
        `move ${this.manifest.workdir} aside by hand from a login node with a shell, or give the campaign a new workdir`,
      );
    const workdir = await this.path();
    const r = await this.transport.exec(
      renderSetAside({ workdir, campaign: this.manifest.campaign, attempts: this.kind.folder, dest }),
    );
    const aside = parseSetAside(dest, r);
    if (!('error' in aside)) return aside;
    throw new UserError({
      message: `cannot move the campaign's earlier attempts and outputs aside in ${workdir}: ${aside.error}`,
      fix: 'fix the permissions named and run again: what was moved stays moved, and the rest follows',
    });
  }

  async readFile(path: string): Promise<string | undefined> {
    return this.transport.readFile(`${await this.path()}/${path}`).catch(() => undefined);
  }

  /** Over the shell where there is one, else by file transfer alone. */
  async shipCode(snapshot: CodeSnapshot): Promise<void> {
    const workdir = await this.path();
    if (this.restricted) return shipOverSftp(this.transport, workdir, snapshot);
    return shipOverShell(this.transport, workdir, snapshot);
  }

  async removeCode(keep: ReadonlySet<string>): Promise<string[]> {
    const workdir = await this.path();
    if (this.restricted)
      throw needsShell(
        '`campaign gc` (removing code snapshots)',
        `remove the folders of ${workdir}/.campaign/code/ that no task runs by hand, from a login node with a shell`,
      );
    return removeSnapshotsOverShell(this.transport, workdir, keep);
  }

  async gather(
    paths: readonly string[],
    known: ReadonlyMap<string, string>,
    endsSuffice: boolean,
    take: TakeFile,
  ): Promise<void> {
    const workdir = await this.path();
    if (this.restricted) return gatherEach(this.transport, workdir, paths, known, take);
    return gatherByArchive(this.transport, workdir, paths, known, endsSuffice, take);
  }

  async missing(paths: readonly string[]): Promise<string[]> {
    const workdir = await this.path();
    const out: string[] = [];
    if (this.restricted) {
      for (let i = 0; i < paths.length; i += SFTP_BATCH) {
        const chunk = paths.slice(i, i + SFTP_BATCH);
        const found = await Promise.all(chunk.map((p) => this.transport.stat(posix.resolve(workdir, p))));
        out.push(...chunk.filter((_, j) => found[j] === undefined));
      }
      return out;
    }
    for (let i = 0; i < paths.length; i += 1000) {
      const chunk = paths.slice(i, i + 1000);
      const r = await this.transport.exec(
        `cd -- ${shellQuote(workdir)} || exit 3; while IFS= read -r -d '' p; do [ -e "$p" ] || printf '%s\\0' "$p"; done`,
        { stdin: chunk.map((p) => `${p}\0`).join('') },
      );
      if (r.code === 3) return [...paths];
      out.push(...r.stdout.split('\0').filter(Boolean));
    }
    return out;
  }
}
