/**
 * Running the real `campaign` command (bin/campaign.js over the built lib/) as a child process,
 * in temp directories, and reading what it leaves on disk.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { localAttemptsDir } from '../../src/exec/local/local-executor.js';
import { campaignStateSchema, type CampaignState } from '../../src/state/state.js';
import { afterAll, beforeAll } from 'vitest';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = join(REPO, 'bin', 'campaign.js');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Builds lib/ once per vitest run, whichever test file asks first. Test files run in parallel
 * workers, and a build rewriting lib/ under a running command would break it, so the build is
 * serialised by a lock directory and remembered by a stamp named after the vitest process.
 */
export async function ensureBuilt(): Promise<void> {
  const base = join(tmpdir(), `campaign-test-build-${createHash('sha256').update(REPO).digest('hex').slice(0, 12)}`);
  await mkdir(base, { recursive: true });
  // Forked workers share the vitest process as parent; worker threads share one process.
  const run = isMainThread ? process.ppid : process.pid;
  const stamp = join(base, `built-by-${run}`);
  const lock = join(base, 'lock');
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch {
      const st = await stat(lock).catch(() => undefined);
      if (st && Date.now() - st.mtimeMs > 5 * 60_000) await rm(lock, { recursive: true, force: true });
      await sleep(100);
    }
  }
  try {
    if (await stat(stamp).catch(() => undefined)) return;
    // Built already since the last change (scripts/test-all builds before the suite's runs of
    // vitest, two of which run at once): not rebuilt under the other's running commands.
    if (!(await libIsFresh())) {
      const r = await exec('npm', ['run', '--silent', 'build'], { cwd: REPO, timeoutMs: 180_000 });
      if (r.code !== 0) throw new Error(`npm run build failed:\n${r.stdout}${r.stderr}`);
    }
    // Stamps of runs long over are of no use any more.
    for (const name of await readdir(base)) {
      const st = await stat(join(base, name)).catch(() => undefined);
      if (name.startsWith('built-by-') && st && Date.now() - st.mtimeMs > 86_400_000) {
        await rm(join(base, name), { force: true });
      }
    }
    await writeFile(stamp, new Date().toISOString());
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/**
 * The file: URL of lib/'s build of `source` (a path under src/, `exec/store/file-store.ts`),
 * built first where it is stale: what a child process given plain node loads of ours.
 */
export async function builtModule(source: string): Promise<string> {
  await ensureBuilt();
  return pathToFileURL(join(REPO, 'lib', source.replace(/\.ts$/, '.js'))).href;
}

/**
 * Whether lib/ was built after the last change to what it is built from. The build writes
 * every file of lib/, so its newest file dates it.
 */
async function libIsFresh(): Promise<boolean> {
  if (!(await stat(join(REPO, 'lib', 'cli', 'main.js')).catch(() => undefined))) return false;
  const newest = async (path: string): Promise<number> => {
    const st = await stat(path);
    if (!st.isDirectory()) return st.mtimeMs;
    const inside = await Promise.all((await readdir(path)).map((n) => newest(join(path, n))));
    return Math.max(st.mtimeMs, ...inside);
  };
  const sources = await Promise.all(['src', 'tsconfig.json', 'package.json'].map((p) => newest(join(REPO, p))));
  return Math.max(...sources) < (await newest(join(REPO, 'lib')));
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunningCli {
  child: ChildProcess;
  /** Settles when the process has exited and been reaped. */
  done: Promise<CliResult>;
}

/** Starts `node bin/campaign.js ...args`; the caller waits on `done`. */
export function startCli(args: readonly string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): RunningCli {
  return startProcess(process.execPath, [BIN, ...args], opts.cwd ?? REPO, opts.env);
}

/** Runs `campaign ...args` to its end; a run that outlives `timeoutMs` is killed and fails the test. */
export function runCli(
  args: readonly string[],
  opts: { cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  return runProgram(process.execPath, [BIN, ...args], opts);
}

/** Runs a program (a script of the repository's) to its end, as runCli does the tool. */
export async function runProgram(
  command: string,
  args: readonly string[],
  opts: { cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  return exec(command, args, {
    cwd: opts.cwd ?? REPO,
    timeoutMs: opts.timeoutMs ?? 60_000,
    ...(opts.env ? { env: opts.env } : {}),
  });
}

async function exec(
  command: string,
  args: readonly string[],
  opts: { cwd: string; timeoutMs: number; env?: NodeJS.ProcessEnv },
): Promise<CliResult> {
  return endWithin(startProcess(command, args, opts.cwd, opts.env), opts.timeoutMs);
}

/**
 * Waits for a started process to end; one that outlives `timeoutMs` is killed, and the error
 * carries everything it printed, so that a hang in CI says where it stopped.
 */
export async function endWithin(run: RunningCli, timeoutMs: number): Promise<CliResult> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((r) => {
    timer = setTimeout(() => r('timeout'), timeoutMs);
  });
  const first = await Promise.race([run.done, timedOut]);
  clearTimeout(timer);
  if (first === 'timeout') {
    run.child.kill('SIGKILL');
    const r = await run.done;
    throw new Error(
      `${run.child.spawnargs.join(' ')} did not end within ${timeoutMs} ms (it hangs)\n${r.stdout}\n${r.stderr}`,
    );
  }
  return first;
}

function startProcess(command: string, args: readonly string[], cwd: string, env?: NodeJS.ProcessEnv): RunningCli {
  const child = spawn(command, args, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  const done = new Promise<CliResult>((res, rej) => {
    child.once('error', rej);
    child.once('close', (code, signal) => res({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

/** A fresh directory under the system temp directory. */
export function makeTemp(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `campaign-${prefix}-`));
}

/** Writes a manifest into `dir` and returns its path. */
export async function writeManifest(dir: string, text: string, name = 'campaign.yml'): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

/** state.json, parsed and checked against the state schema (throws when it is not a valid state). */
export async function readState(stateDir: string): Promise<CampaignState> {
  return campaignStateSchema.parse(JSON.parse(await readFile(join(stateDir, 'state.json'), 'utf8')));
}

/** The campaigns the local executor keeps attempts of under a workdir. */
function localCampaigns(workdir: string): string[] {
  try {
    return readdirSync(join(workdir, '.campaign', 'local'));
  } catch {
    return [];
  }
}

/**
 * The attempt directories the local executor made under a workdir: task id → attempt numbers,
 * of every campaign there (tests keep one campaign per workdir unless they say otherwise).
 */
export async function attemptDirs(workdir: string): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>();
  for (const campaign of localCampaigns(workdir)) await walkAttempts(join(workdir, ...localAttemptsDir(campaign)), out);
  return out;
}

async function walkAttempts(root: string, out: Map<string, number[]>): Promise<void> {
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const path = join(dir, e.name);
      if (/^\d+$/.test(e.name)) {
        const task = relative(root, dir).split('\\').join('/');
        out.set(
          task,
          [...(out.get(task) ?? []), Number(e.name)].sort((a, b) => a - b),
        );
      } else {
        await walk(path);
      }
    }
  };
  await walk(root);
}

/** The directory of one attempt, as the local executor lays it out (the workdir's one campaign, unless named). */
export function attemptDir(workdir: string, taskId: string, attempt: number, campaign?: string): string {
  const name = campaign ?? localCampaigns(workdir)[0] ?? '';
  return join(workdir, ...localAttemptsDir(name), ...taskId.split('/'), String(attempt));
}

/** Polls `probe` until it returns a value other than undefined; throws after `timeoutMs`. */
export async function waitUntil<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  everyMs = 25,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Lines of a text file (none when it does not exist). */
export async function lines(path: string): Promise<string[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text.split('\n').filter((l) => l !== '');
}

/** How many times each first word occurs among the lines. */
export function countByFirstWord(ls: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const l of ls) {
    const key = l.split(' ')[0]!;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

export interface PlannedTask {
  id: string;
  stage: 'smoke' | 'full';
  output?: string;
  values: Record<string, string | number | boolean>;
  /** The digest of its definition. */
  definition: string;
}

/** The tasks of a manifest's plan, smoke tasks included, as `campaign plan --format json` gives them. */
export async function planTasks(manifest: string): Promise<PlannedTask[]> {
  const r = await runCli(['plan', manifest, '--format', 'json']);
  if (r.code !== 0) throw new Error(`campaign plan failed: ${r.stderr}`);
  const plan = JSON.parse(r.stdout) as { phases: { tasks: PlannedTask[]; smoke: PlannedTask[] }[] };
  return plan.phases.flatMap((p) => [...p.smoke, ...p.tasks]);
}

/** True while `pid` is a live (not zombie) process. */
export async function alive(pid: number): Promise<boolean> {
  const st = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (st === undefined) return false;
  const state = st.slice(st.lastIndexOf(')') + 2)[0];
  return state !== 'Z' && state !== 'X';
}

/** A small seeded random number generator (mulberry32), so a failing run can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Builds the CLI once and gives the test file a fresh temp directory, removed afterwards.
 * Returns a getter: the directory exists only once the `beforeAll` hook has run.
 */
export function useBuiltCliAndTemp(prefix: string): () => string {
  let root: string | undefined;
  beforeAll(async () => {
    await ensureBuilt();
    root = await makeTemp(prefix);
  }, 180_000);
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });
  return () => root!;
}
