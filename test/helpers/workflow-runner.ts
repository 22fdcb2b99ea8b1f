/**
 * A stand-in for the Actions runner, enough to run the workflow `campaign workflow` writes job
 * after job: jobs in an order their `needs:` allow, `if:` evaluated, each job a fresh workspace
 * holding the checkout and a fresh process of the action's bundle (as its action.yml names it),
 * with INPUT_* (the step's `with:` over the action.yml defaults), the GITHUB_* and ACTIONS_*
 * variables of the GitHub stand-in, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, and a
 * GITHUB_TOKEN holding exactly the job's `permissions:`. A job starts once its needs have ended,
 * beside any others running, as on GitHub. A pull request's
 * event names its changed files, and the workflow runs for it only as its `on.pull_request`
 * `paths`/`paths-ignore` filters say, as GitHub decides.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { REPO } from './cli.js';
import type { GitHubStandin, Permission, Run } from './github-standin.js';

/** The actions of this repository as a workflow names them (`uses: ./`, `./lint`). */
const ACTIONS: Record<string, string> = { './': 'action.yml', './lint': 'lint/action.yml' };

export interface RunnerOptions {
  gh: GitHubStandin;
  /** Where each job's workspace and files go. */
  root: string;
  /** The workflow's text, as committed. */
  workflow: string;
  /** Its file in .github/workflows, which its runs name; by default the stand-in's `workflowFile`. */
  file?: string;
  /** The commit's files a checkout writes: path from the repository root → text. */
  checkout: Record<string, string>;
  secrets: Record<string, string>;
}

export interface WorkflowJob {
  /** What GitHub names the job's check run; the job's id when there is none. */
  name?: string;
  needs?: string | string[];
  if?: string;
  permissions?: Record<string, string>;
  outputs?: Record<string, string>;
  steps: { id?: string; uses: string; with?: Record<string, string | number | boolean> }[];
}

export interface JobResult {
  job: string;
  seconds: number;
  /** When the job's process started and ended (epoch ms): which jobs ran at once. */
  startedAt: number;
  endedAt: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  log: string;
  /** The job's outputs, as its `outputs:` map them from the step's. */
  outputs: Record<string, string>;
  summary: string;
}

export interface RunEvent {
  name: 'push' | 'workflow_dispatch' | 'pull_request' | 'schedule';
  inputs: Record<string, string>;
  /** A pull request's changed files, from the repository root: what its `paths` filters read. */
  changed?: string[];
}

/** A check run a pull request shows for a job of the workflow. */
export interface JobCheck {
  name: string;
  conclusion: 'success' | 'failure' | 'skipped';
}

/** What a test changes in a job: a shorter budget, another token, or a kill while it runs. */
export interface JobHooks {
  budget?: string;
  /** The job's GITHUB_TOKEN instead of one holding its `permissions:`. */
  token?: string;
  /** Resolves when the runner should kill the job. */
  killWhen?: () => Promise<void>;
}

/** The jobs of `workflow` in an order their `needs:` allow. */
function jobOrder(jobs: Record<string, WorkflowJob>): string[] {
  const order: string[] = [];
  const visit = (id: string): void => {
    if (order.includes(id)) return;
    for (const n of needsOf(jobs[id]!)) visit(n);
    order.push(id);
  };
  for (const id of Object.keys(jobs)) visit(id);
  return order;
}

const needsOf = (j: WorkflowJob): string[] => (j.needs === undefined ? [] : [j.needs].flat());

/** The permissions a job's GITHUB_TOKEN holds, from its `permissions:`. */
function tokenPermissions(j: WorkflowJob): Permission[] {
  const p = j.permissions ?? {};
  return [
    ...(p.actions === 'read' || p.actions === 'write' ? (['actions:read'] as const) : []),
    ...(p.actions === 'write' ? (['actions:write'] as const) : []),
    ...(p.checks === 'write' ? (['checks:write'] as const) : []),
  ];
}

/**
 * The few expressions the generated workflow holds, evaluated as the runner would; any other is
 * an error, so a change to the workflow cannot slip past this runner unevaluated.
 */
function expression(
  text: string,
  ctx: { event: RunEvent; token: string; steps: Record<string, string>; secrets: Record<string, string> },
): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expr: string) => {
    let m: RegExpExecArray | null;
    if ((m = /^secrets\.(\w+)$/.exec(expr))) return ctx.secrets[m[1]!] ?? '';
    if (expr === 'github.token') return ctx.token;
    if ((m = /^inputs\.(\w+) \|\| false$/.exec(expr))) return ctx.event.inputs[m[1]!] || 'false';
    if ((m = /^steps\.campaign\.outputs\.([\w-]+)$/.exec(expr))) return ctx.steps[m[1]!] ?? '';
    throw new Error(`this test's runner does not evaluate \${{ ${expr} }}`);
  });
}

/**
 * Whether a job runs, from its `if:` and how its needs ended: the conditions the generated
 * workflow writes, joined by `&&` (one without a status function implies success()).
 */
function shouldRun(j: WorkflowJob, done: Map<string, JobResult | 'skipped'>, event: RunEvent): boolean {
  const ok = (r: JobResult | 'skipped' | undefined): boolean => r !== undefined && r !== 'skipped' && r.code === 0;
  const succeeded = needsOf(j).every((n) => ok(done.get(n)));
  if (j.if === undefined) return succeeded;
  const terms = j.if.split(' && ');
  const holds = terms.every((term) => {
    if (term === '!cancelled()') return true;
    let m = /^github\.event_name (==|!=) '(\w+)'$/.exec(term);
    if (m) return m[1] === '==' ? event.name === m[2] : event.name !== m[2];
    m = /^needs\.([\w-]+)\.result == 'success'$/.exec(term);
    if (m) return ok(done.get(m[1]!));
    m = /^needs\.([\w-]+)\.outputs\.([\w-]+) (==|!=) '(.*)'$/.exec(term);
    if (!m) throw new Error(`this test's runner does not evaluate if: ${j.if}`);
    const need = done.get(m[1]!);
    // A skipped job's outputs are empty strings, as GitHub has them.
    const value = need === undefined || need === 'skipped' ? '' : (need.outputs[m[2]!] ?? '');
    return m[3] === '==' ? value === m[4] : value !== m[4];
  });
  return holds && (terms.includes('!cancelled()') || succeeded);
}

/**
 * A path filter's pattern as GitHub matches it against a whole path: `*` within a directory,
 * `**` across directories (`**` then `/` also matching no directory at all). Any other special
 * character is an error, so a filter this runner would read wrongly cannot pass unnoticed.
 */
function pathPattern(pattern: string): RegExp {
  if (/[?+[\]]/.test(pattern)) throw new Error(`this test's runner does not evaluate the path pattern ${pattern}`);
  const body = pattern
    .split(/(\*\*\/|\*\*|\*)/)
    .map((part) => {
      if (part === '**/') return '(?:.*/)?';
      if (part === '**') return '.*';
      if (part === '*') return '[^/]*';
      return part.replace(/[.^$(){}|\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${body}$`);
}

/**
 * Whether a path is in a filter's list: the last pattern matching it decides, a `!` pattern
 * leaving it out again (GitHub reads them in order).
 */
function inFilter(path: string, patterns: string[]): boolean {
  let included = false;
  for (const p of patterns) {
    const negated = p.startsWith('!');
    if (pathPattern(negated ? p.slice(1) : p).test(path)) included = !negated;
  }
  return included;
}

/** The inputs the runner gives the action: its action.yml defaults under the step's `with:`. */
function actionInputs(uses: string, given: Record<string, string>, token: string): Record<string, string> {
  const file = ACTIONS[uses];
  if (!file) throw new Error(`the workflow uses ${uses}, which is not an action of this repository`);
  const action = parse(readFileSync(join(REPO, file), 'utf8')) as {
    inputs: Record<string, { default?: string }>;
    runs: { main: string };
  };
  const inputs: Record<string, string> = {};
  for (const [name, def] of Object.entries(action.inputs)) {
    const value = given[name] ?? (def.default === '${{ github.token }}' ? token : (def.default ?? ''));
    inputs[`INPUT_${name.toUpperCase()}`] = value;
  }
  inputs.__main = join(REPO, dirname(file), action.runs.main);
  if (!existsSync(inputs.__main)) throw new Error(`${inputs.__main} is missing: build the bundles with npm run bundle`);
  return inputs;
}

export class WorkflowRunner {
  private readonly jobs: Record<string, WorkflowJob>;
  private readonly on: unknown;

  constructor(private readonly o: RunnerOptions) {
    ({ jobs: this.jobs, on: this.on } = parse(o.workflow) as { jobs: Record<string, WorkflowJob>; on: unknown });
  }

  /**
   * Whether a pull request starts the workflow: its `on:` names `pull_request`, and where that
   * has `paths`, a changed file is in them (with `paths-ignore`, one is not in those). Other
   * events are not evaluated: the tests start those runs themselves.
   */
  triggeredBy(event: RunEvent): boolean {
    if (event.name !== 'pull_request') return true;
    const on = this.on;
    const names = typeof on === 'string' ? [on] : Array.isArray(on) ? on : Object.keys(on as object);
    if (!names.includes('pull_request')) return false;
    const filters = (
      on !== null && typeof on === 'object' && !Array.isArray(on)
        ? ((on as Record<string, unknown>).pull_request ?? {})
        : {}
    ) as Record<string, string[]>;
    for (const key of Object.keys(filters)) {
      if (key !== 'paths' && key !== 'paths-ignore')
        throw new Error(`this test's runner does not evaluate on.pull_request.${key}`);
    }
    if (!event.changed) throw new Error('a pull_request event needs its changed files');
    const changed = event.changed;
    if (filters.paths && !changed.some((f) => inFilter(f, filters.paths!))) return false;
    const ignored = filters['paths-ignore'];
    if (ignored && changed.every((f) => inFilter(f, ignored))) return false;
    return true;
  }

  /**
   * The checks a pull request shows from this workflow: none when it does not start the
   * workflow, else one per job, named as GitHub names them, with how the job ended.
   */
  async pullRequest(changed: string[]): Promise<JobCheck[]> {
    const event: RunEvent = { name: 'pull_request', inputs: {}, changed };
    if (!this.triggeredBy(event)) return [];
    const { jobs } = await this.runWorkflow(event);
    return [...jobs].map(([id, r]) => ({
      name: this.jobs[id]!.name ?? id,
      conclusion: r === 'skipped' ? 'skipped' : r.code === 0 ? 'success' : 'failure',
    }));
  }

  /** Runs one job of `run` as a runner does: checkout into a fresh workspace, then the action's step. */
  /** Runs one job of `run` as a runner does: checkout into a fresh workspace, then the action's step. */
  async runJob(run: Run, event: RunEvent, id: string, hooks: JobHooks = {}): Promise<JobResult> {
    const { gh, root, checkout, secrets } = this.o;
    const j = this.jobs[id];
    if (!j) throw new Error(`the workflow has no job ${id}`);
    const dir = join(root, `run${run.id}-${id}`);
    const workspace = join(dir, 'workspace');
    const temp = join(dir, 'runner-temp');
    for (const [path, text] of Object.entries(checkout)) {
      await mkdir(dirname(join(workspace, path)), { recursive: true });
      await writeFile(join(workspace, path), text);
    }
    await mkdir(temp, { recursive: true });
    const outputFile = join(dir, 'github-output');
    const summaryFile = join(dir, 'step-summary');
    await writeFile(outputFile, '');
    await writeFile(summaryFile, '');

    const token = hooks.token ?? gh.issueToken(tokenPermissions(j));
    const step = j.steps.find((s) => s.id === 'campaign' || s.uses.startsWith('./'));
    if (!step) throw new Error(`job ${id} has no step of this repository's actions`);
    const given = Object.fromEntries(
      Object.entries(step.with ?? {}).map(([k, v]) => [k, expression(String(v), { event, token, steps: {}, secrets })]),
    );
    if (hooks.budget) given.budget = hooks.budget;
    const { __main: main, ...inputs } = actionInputs(step.uses, given, token);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...gh.jobEnv(run, {
        workspace,
        job: id,
        extra: {
          RUNNER_TEMP: temp,
          GITHUB_OUTPUT: outputFile,
          GITHUB_STEP_SUMMARY: summaryFile,
          GITHUB_EVENT_NAME: event.name,
        },
      }),
      ...inputs,
    };
    const started = Date.now();
    const child: ChildProcess = spawn(process.execPath, [main!], {
      cwd: workspace,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => resolve([code, signal]));
    });
    if (hooks.killWhen) void hooks.killWhen().then(() => child.kill('SIGKILL'));
    const [code, signal] = await exited;
    const stepOutputs = parseOutputs(await readFile(outputFile, 'utf8'));
    const outputs = Object.fromEntries(
      Object.entries(j.outputs ?? {}).map(([k, v]) => [
        k,
        expression(v, { event, token, steps: stepOutputs, secrets }),
      ]),
    );
    return {
      job: `run ${run.id} ${id}`,
      seconds: (Date.now() - started) / 1000,
      startedAt: started,
      endedAt: Date.now(),
      code,
      signal,
      log,
      outputs,
      summary: await readFile(summaryFile, 'utf8'),
    };
  }

  /** One run of the workflow: every job in order, each skipped or run as its `needs:` and `if:` say. */
  async runWorkflow(
    event: RunEvent,
    hooks: Record<string, JobHooks> = {},
  ): Promise<{ run: Run; jobs: Map<string, JobResult | 'skipped'> }> {
    if (!this.triggeredBy(event)) throw new Error('this pull request does not start the workflow');
    const run = this.o.gh.newRun({
      ...(event.name === 'push' ? {} : { event: event.name }),
      ...(this.o.file === undefined ? {} : { workflowFile: this.o.file }),
    });
    const jobs = new Map<string, JobResult | 'skipped'>();
    // As GitHub does: every job whose needs have ended starts at once, beside the others running.
    const started = new Map<string, Promise<void>>();
    const order = jobOrder(this.jobs);
    while (jobs.size < order.length) {
      for (const id of order) {
        if (started.has(id) || !needsOf(this.jobs[id]!).every((n) => jobs.has(n))) continue;
        const go = async (): Promise<void> => {
          jobs.set(
            id,
            shouldRun(this.jobs[id]!, jobs, event) ? await this.runJob(run, event, id, hooks[id]) : 'skipped',
          );
        };
        started.set(id, go());
      }
      await Promise.race([...started].filter(([id]) => !jobs.has(id)).map(([, p]) => p));
    }
    return { run, jobs };
  }
}

/** GITHUB_OUTPUT as @actions/core writes it: `name<<DELIMITER`, the value, the delimiter. */
function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/^([^\n<]+)<<(\S+)\n([\s\S]*?)\n\2$/gm)) out[m[1]!] = m[3]!;
  return out;
}

export function ran(jobs: Map<string, JobResult | 'skipped'>, id: string): JobResult {
  const r = jobs.get(id);
  if (r === undefined || r === 'skipped') throw new Error(`job ${id} did not run`);
  return r;
}
