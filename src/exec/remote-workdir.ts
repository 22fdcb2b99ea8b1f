/**
 * A campaign's workdir on the machine behind a transport: where it is, whether a task's output
 * is there and fresh, check commands run in it, and which paths are missing. Each is one SFTP
 * operation or one command, whatever the number of paths.
 */
import { posix } from 'node:path';
import type { TaskSpec } from '../manifest/expand.js';
import type { Manifest } from '../manifest/schema.js';
import type { OutputRecords } from '../judge/attempt-end.js';
import { fullRecordExpectation, type OutputFacts } from '../judge/checklist.js';
import { manifestTaskEnv } from '../render/env.js';
import { parseSetAside, renderSetAside, type SetAsideResult } from '../render/set-aside.js';
import { exportLines, shellQuote } from '../render/shell.js';
import { UserError } from '../errors.js';
import { resolveHome, type Transport } from './transport/transport.js';

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

/** The error of a cancel script that failed: the tasks may still run, and the user can stop them. */
export function cancelFailed(code: number, stderr: string): UserError {
  return new UserError({
    message: `cancelling failed (exit ${code}): ${stderr.trim()}`,
    fix: "stop the tasks by hand: each attempt's directory holds its process group in pgid (kill -- -PGID)",
  });
}

/** A set-aside's result, or the UserError that says what could not be moved. */
export function setAsideOrThrow(r: SetAsideResult | { error: string }, workdir: string): SetAsideResult {
  if (!('error' in r)) return r;
  throw new UserError({
    message: `cannot move the campaign's earlier attempts and outputs aside in ${workdir}: ${r.error}`,
    fix: 'fix the permissions named and run again: what was moved stays moved, and the rest follows',
  });
}

export class RemoteWorkdir {
  private abs: string | undefined;
  private real: Promise<string | undefined> | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly manifest: Manifest,
  ) {}

  /** The absolute workdir (`~` is the remote user's home). */
  async path(): Promise<string> {
    if (this.abs === undefined) {
      const r = await this.transport.exec('printf %s "$HOME"');
      if (r.code !== 0 || !r.stdout.startsWith('/'))
        throw new UserError(`cannot find the home directory on the server: ${r.stderr.trim()}`);
      this.abs = resolveHome(this.manifest.workdir, r.stdout);
    }
    return this.abs;
  }

  /**
   * Whether the task's output exists, was written at or after `since` (the server's clock, to
   * the second), and is really there: an output that is a symlink, or under one (to a
   * sibling's output, or out of the workdir), proves nothing of this task's work.
   */
  async freshness(task: TaskSpec, since: string): Promise<OutputFreshness> {
    const path = `${await this.path()}/${task.output ?? ''}`;
    const st = task.output === undefined ? undefined : await this.transport.stat(path);
    if (!st?.isFile) return { exists: false, fresh: false, path };
    this.real ??= this.transport.realpath(await this.path());
    const [real, workdir] = await Promise.all([this.transport.realpath(path), this.real]);
    if (real !== `${workdir}/${posix.normalize(task.output!)}`) {
      return { exists: true, fresh: false, path, linkedTo: real ?? 'a missing file' };
    }
    // SFTP gives whole seconds: an output written in the attempt's first second still counts.
    return { exists: true, fresh: st.mtimeMs >= Math.floor(Date.parse(since) / 1000) * 1000, path, size: st.size };
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

  async outputFacts(task: TaskSpec, since: string, withText: boolean): Promise<OutputFacts> {
    if (task.output === undefined) return { exists: false, fresh: false };
    const { exists, fresh, path, linkedTo } = await this.freshness(task, since);
    if (!exists) return { exists: false, fresh: false };
    if (linkedTo) return { exists, fresh, linkedTo };
    const sum = await this.transport.exec(`sha256sum -- ${shellQuote(path)}`);
    const digest = sum.code === 0 ? sum.stdout.split(' ')[0] : undefined;
    const text = withText ? await this.transport.readFile(path) : undefined;
    return { exists: true, fresh, ...(digest ? { digest } : {}), ...(text === undefined ? {} : { text }) };
  }

  async runCheck(task: TaskSpec, command: string): Promise<{ exitCode: number; tail: string }> {
    const workdir = await this.path();
    const env = exportLines(manifestTaskEnv(this.manifest, task, 0, workdir));
    const r = await this.transport.exec(
      `cd -- ${shellQuote(workdir)} || exit 127\n${env}\ntimeout 600 bash -c ${shellQuote(command)} 2>&1`,
    );
    return { exitCode: r.code, tail: (r.stdout + r.stderr).slice(-4000) };
  }

  async writeFiles(files: readonly { path: string; text: string }[]): Promise<string[]> {
    if (files.length === 0) return [];
    const workdir = await this.path();
    // Paths and contents travel on stdin (the contents as base64), never in the command's text.
    const r = await this.transport.exec(
      [
        `cd -- ${shellQuote(workdir)} || exit 3`,
        "while IFS= read -r -d '' p && IFS= read -r -d '' b; do",
        '  { mkdir -p -- "$(dirname -- "$p")" && printf \'%s\' "$b" | base64 -d > "$p.tmp" && mv -f -- "$p.tmp" "$p"; } 2>/dev/null ||',
        '    printf \'%s\\0\' "$p"',
        'done',
      ].join('\n'),
      { stdin: files.map((f) => `${f.path}\0${Buffer.from(f.text).toString('base64')}\0`).join('') },
    );
    if (r.code === 3) return files.map((f) => f.path);
    return r.stdout.split('\0').filter(Boolean);
  }

  /** renderSetAside run in the workdir; `attempts` is the executor's directory of the campaign's attempts. */
  async setAside(attempts: string, dest: string): Promise<SetAsideResult> {
    const workdir = await this.path();
    const r = await this.transport.exec(renderSetAside({ workdir, campaign: this.manifest.campaign, attempts, dest }));
    return setAsideOrThrow(parseSetAside(dest, r), workdir);
  }

  async readFile(path: string): Promise<string | undefined> {
    return this.transport.readFile(`${await this.path()}/${path}`).catch(() => undefined);
  }

  async missing(paths: readonly string[]): Promise<string[]> {
    const workdir = await this.path();
    const out: string[] = [];
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
