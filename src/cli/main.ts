/** The `campaign` command. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { UserError } from '../errors.js';
import { CampaignController, loadState } from '../exec/controller.js';
import type { Executor } from '../exec/executor.js';
import { FileStateStore } from '../exec/store/file-store.js';
import { LinkError } from '../exec/transport/transport.js';
import { formatFinding, lintText } from '../lint/lint.js';
import { manifest as manifestSchema } from '../manifest/schema.js';
import { PollPacer, pollLimits } from '../queue/poll.js';
import type { CampaignState } from '../queue/state.js';
import { diskFullTasks, startRun } from '../queue/transition.js';
import { allCompleted, phaseCounts, progressLine, renderSummary } from '../queue/summary.js';
import type { Plan } from '../plan/plan.js';
import { runCalibrate } from './calibrate.js';
import { openExecutor } from './executors.js';
import { writePictures } from './pictures.js';
import { loadCampaign, readManifest, type Campaign } from './load.js';
import { renderPlanJson, renderPlanText } from './plan-table.js';
import { DEFAULT_OPTIONS, staleWorkflowFinding, workflowTarget } from './workflow-file.js';
import { renderWorkflow } from '../workflow/render.js';
import { Progress } from './progress.js';

const USAGE = `usage: campaign <command> [options]

  lint FILE...        check manifests: file:line:col: severity rule: message
                      --format text|json   --strict (warnings fail too)
  plan FILE           show phases, strata, arrays, walltimes with their arithmetic
                      --format text|json
  run FILE            drive the campaign to its end (resumes where it stopped)
                      --state-dir DIR   --poll SECONDS (longest wait between passes)
                      --retry-failed (run failed tasks and failed smoke stages again)
  status FILE         the stored state per phase   --state-dir DIR
  cancel FILE         stop the campaign's running tasks (each one's whole process group)
                      and record them cancelled; for when no \`run\` drives it
                      --state-dir DIR
  summary FILE        markdown summary   --state-dir DIR   --out FILE
  calibrate FILE      measured seconds per unit per stratum against the declared rates,
                      headroom, the walltime the planner would now choose; writes the
                      cost sections' patch to calibrate.patch in the state dir
                      --state-dir DIR   --write (apply it to FILE)   --format text|json
  workflow FILE       write the GitHub Actions workflow for a manifest to
                      .github/workflows/campaign-NAME.yml   --uses OWNER/REPO@REF
                      --branch NAME   --budget DURATION   --environment NAME
                      --runs-on LABEL   --stdout
  schema              the manifest's JSON Schema

Exit status: 0 success (run: every task completed), 1 lint errors or an incomplete
campaign, 2 a usage or input error, 3 a bug in campaign.`;

/** Exit statuses. */
const EXIT = { ok: 0, incomplete: 1, user: 2, bug: 3 } as const;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'lint':
        return await lint(rest);
      case 'plan':
        return await plan(rest);
      case 'run':
        return await run(rest);
      case 'status':
        return await status(rest);
      case 'cancel':
        return await cancel(rest);
      case 'summary':
        return await summary(rest);
      case 'calibrate':
        return await calibrateCommand(rest);
      case 'workflow':
        return await workflow(rest);
      case 'schema':
        process.stdout.write(JSON.stringify(jsonSchema(), null, 2) + '\n');
        return EXIT.ok;
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        process.stdout.write(USAGE + '\n');
        return command === undefined ? EXIT.user : EXIT.ok;
      default:
        throw new UserError({ message: `unknown command "${command}"`, fix: 'run `campaign help`' });
    }
  } catch (e) {
    if (e instanceof UserError) {
      process.stderr.write(`campaign: ${e.message}\n`);
      return EXIT.user;
    }
    // Outside a pass (opening the executor, the summary) a failed link is not a bug either.
    if (e instanceof LinkError) {
      process.stderr.write(
        `campaign: ${e.message} (fix: check the connection to the cluster and run the command again)\n`,
      );
      return EXIT.user;
    }
    process.stderr.write(
      `campaign: internal error (a bug; please report it with this trace):\n${(e as Error).stack ?? String(e)}\n`,
    );
    return EXIT.bug;
  }
}

export function jsonSchema(): unknown {
  return z.toJSONSchema(manifestSchema, { io: 'input', unrepresentable: 'any' });
}

function args(argv: string[], options: Record<string, { type: 'string' | 'boolean' }>, minFiles = 1) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UserError({ message: (e as Error).message, fix: 'run `campaign help`' });
  }
  if (parsed.positionals.length < minFiles)
    throw new UserError({ message: 'no manifest given', fix: 'campaign <command> campaigns/NAME.yml' });
  return { values: parsed.values as Record<string, string | boolean | undefined>, files: parsed.positionals };
}

function format(v: string | boolean | undefined): 'text' | 'json' {
  if (v === undefined || v === 'text' || v === 'json') return v ?? 'text';
  throw new UserError({ message: `--format ${String(v)} is not known`, fix: 'use --format text or --format json' });
}

async function lint(argv: string[]): Promise<number> {
  const { values, files } = args(argv, { format: { type: 'string' }, strict: { type: 'boolean' } });
  const fmt = format(values.format);
  const all = [];
  for (const f of files) {
    const result = lintText(f, await readManifest(f));
    all.push(...result.findings);
    const stale = result.context && (await staleWorkflowFinding(f, result.context));
    if (stale) all.push(stale);
  }
  if (fmt === 'json') process.stdout.write(JSON.stringify(all, null, 2) + '\n');
  else for (const f of all) process.stdout.write(formatFinding(f) + '\n');
  const failing = all.some((f) => f.severity === 'error' || (values.strict === true && f.severity === 'warning'));
  return failing ? EXIT.incomplete : EXIT.ok;
}

function printWarnings(c: Campaign): void {
  for (const w of c.warnings) process.stderr.write(formatFinding(w) + '\n');
}

async function plan(argv: string[]): Promise<number> {
  const { values, files } = args(argv, { format: { type: 'string' } });
  const c = await loadCampaign(files[0]!);
  if (format(values.format) === 'json') process.stdout.write(renderPlanJson(c.plan) + '\n');
  else {
    printWarnings(c);
    process.stdout.write(renderPlanText(c.plan));
  }
  return EXIT.ok;
}

const warn = (m: string): void => {
  process.stderr.write(`campaign: warning: ${m}\n`);
};

async function run(argv: string[]): Promise<number> {
  const { values, files } = args(argv, {
    'state-dir': { type: 'string' },
    poll: { type: 'string' },
    'retry-failed': { type: 'boolean' },
  });
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  const maxPoll = values.poll === undefined ? undefined : Number(values.poll);
  if (maxPoll !== undefined && !(maxPoll > 0))
    throw new UserError({ message: `--poll ${String(values.poll)} is not a positive number of seconds` });
  printWarnings(c);
  const store = new FileStateStore(c.stateDir, { onWarning: warn });
  const lock = await store.acquire(`campaign run ${files[0]!}`);
  const stop = (): void => {
    process.stderr.write('\ncampaign: stopped; running tasks go on. Run the same command again to reattach.\n');
    void lock.release().finally(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let executor: Executor | undefined;
  try {
    const loaded = await loadState(store, c.manifest.campaign, new Date().toISOString());
    const opened = await openExecutor(c, { since: () => loaded.created, warn, checkCluster: true });
    executor = opened.executor;
    const plan = opened.plan;
    const controller = new CampaignController({ manifest: c.manifest, plan, executor, store, warn });
    const progress = new Progress(process.stdout, plan);
    const reconciled = await controller.reconcile(loaded, 'run again with --retry-failed');
    reconciled.warnings.forEach(warn);
    let state = startRun(reconciled.state, plan, { retryFailed: values['retry-failed'] === true });
    const pacer = new PollPacer(plan, pollLimits(c.manifest.cluster.executor, maxPoll));
    for (;;) {
      const r = await controller.pass(state);
      state = r.state;
      progress.update(state);
      if (r.atRest) break;
      const from = Date.now();
      const wait = pacer.next(state, from) * 1000;
      await store.compactIfDue(); // in the wait, so that no pass pays for it
      await new Promise((res) => setTimeout(res, wait - (Date.now() - from)));
    }
    const text = await summaryText(plan, executor, state, await writePictures(c.stateDir, plan, state));
    await writeFile(join(c.stateDir, 'summary.md'), text);
    process.stdout.write('\n' + text);
    const full = diskFullTasks(state);
    if (full.length > 0) {
      warn(
        `paused: ${full.length} task${full.length === 1 ? '' : 's'} found the disk full (${state.tasks[full[0]!]!.attempts.at(-1)!.reason}); ` +
          'nothing more was submitted. Free space, then run the same command again: they run again, their retries intact',
      );
    }
    return allCompleted(plan, state) ? EXIT.ok : EXIT.incomplete;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await lock.release();
    await executor?.close();
  }
}

function storedState(c: Campaign): Promise<CampaignState> {
  return loadState(new FileStateStore(c.stateDir), c.manifest.campaign, new Date().toISOString());
}

async function cancel(argv: string[]): Promise<number> {
  const { values, files } = args(argv, { 'state-dir': { type: 'string' } });
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  const store = new FileStateStore(c.stateDir, { onWarning: warn });
  // Refused while a `run` holds the lock: it would start the next tasks as these end.
  const lock = await store.acquire(`campaign cancel ${files[0]!}`);
  let executor: Executor | undefined;
  try {
    const state = await loadState(store, c.manifest.campaign, new Date().toISOString());
    executor = (await openExecutor(c, { since: () => state.created, warn, checkCluster: false })).executor;
    const controller = new CampaignController({ manifest: c.manifest, plan: c.plan, executor, store });
    // The grace between SIGTERM and SIGKILL is 10 s; the rest is for the marker to be seen.
    const r = await controller.cancel(state, 60_000);
    const cancelled = Object.entries(r.state.tasks).filter(
      ([id, t]) => t.attempts.at(-1)?.class === 'cancelled' && state.tasks[id]?.attempts.at(-1)?.class === undefined,
    );
    for (const [id] of cancelled) process.stdout.write(`cancelled ${id}\n`);
    for (const id of r.running) process.stderr.write(`campaign: ${id} is still running after 60 s\n`);
    return r.running.length === 0 ? EXIT.ok : EXIT.incomplete;
  } finally {
    await lock.release();
    await executor?.close();
  }
}

async function status(argv: string[]): Promise<number> {
  const { values, files } = args(argv, { 'state-dir': { type: 'string' } });
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  const state = await storedState(c);
  for (const counts of phaseCounts(c.plan, state)) process.stdout.write(progressLine(counts) + '\n');
  const stopped = Object.entries(state.tasks).filter(([, t]) => t.status === 'failed' || t.status === 'stuck');
  for (const [id, t] of stopped.slice(0, 20)) process.stdout.write(`  ${id}: ${t.reason ?? t.status}\n`);
  if (stopped.length > 20) process.stdout.write(`  … and ${stopped.length - 20} more (campaign summary lists them)\n`);
  return allCompleted(c.plan, state) ? EXIT.ok : EXIT.incomplete;
}

export async function summaryText(
  plan: Plan,
  executor: Executor,
  state: CampaignState,
  pictures: readonly { file: string; caption: string }[] = [],
): Promise<string> {
  const tails = new Map<string, string>();
  for (const p of plan.phases) {
    for (const t of [...p.smoke, ...p.tasks]) {
      const s = state.tasks[t.id];
      const last = s?.attempts[s.attempts.length - 1];
      if (last && (s.status === 'failed' || s.status === 'stuck') && tails.size < 50) {
        tails.set(t.id, (await executor.readLog(t, last)).split('\n').slice(-20).join('\n'));
      }
    }
  }
  return renderSummary({ plan, state, tails, pictures });
}

async function summary(argv: string[]): Promise<number> {
  const { values, files } = args(argv, { 'state-dir': { type: 'string' }, out: { type: 'string' } });
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  const state = await storedState(c);
  const { executor } = await openExecutor(c, { since: () => state.created, warn, checkCluster: false });
  try {
    // The pictures go next to a summary written to a file, where its links find them.
    const out = typeof values.out === 'string' ? values.out : undefined;
    const pics = out === undefined ? [] : await writePictures(dirname(resolve(out)), c.plan, state);
    const text = await summaryText(c.plan, executor, state, pics);
    if (out !== undefined) await writeFile(out, text);
    else process.stdout.write(text);
  } finally {
    await executor.close();
  }
  return allCompleted(c.plan, state) ? EXIT.ok : EXIT.incomplete;
}

async function workflow(argv: string[]): Promise<number> {
  const { values, files } = args(argv, {
    uses: { type: 'string' },
    branch: { type: 'string' },
    budget: { type: 'string' },
    environment: { type: 'string' },
    'runs-on': { type: 'string' },
    stdout: { type: 'boolean' },
  });
  const c = await loadCampaign(files[0]!);
  const target = await workflowTarget(c.file, c.manifest.campaign);
  // Flags over the options the workflow was last written with, over the defaults.
  const was = target.existing?.options ?? DEFAULT_OPTIONS;
  const flag = (name: string): string | undefined => values[name] as string | undefined;
  const environment = flag('environment') ?? target.existing?.options?.environment;
  const text = renderWorkflow(c.plan, {
    manifest: target.manifest,
    uses: flag('uses') ?? was.uses,
    branch: flag('branch') ?? was.branch,
    budget: flag('budget') ?? was.budget,
    runsOn: flag('runs-on') ?? was.runsOn,
    ...(environment ? { environment } : {}),
  });
  if (values.stdout === true) {
    process.stdout.write(text);
    return EXIT.ok;
  }
  await mkdir(dirname(target.path), { recursive: true });
  await writeFile(target.path, text);
  process.stdout.write(`wrote ${relative(process.cwd(), target.path) || target.path}\n`);
  return EXIT.ok;
}

async function calibrateCommand(argv: string[]): Promise<number> {
  const { values, files } = args(argv, {
    'state-dir': { type: 'string' },
    write: { type: 'boolean' },
    format: { type: 'string' },
  });
  const fmt = format(values.format);
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  const state = await storedState(c);
  const { executor } = await openExecutor(c, { since: () => state.created, warn, checkCluster: false });
  try {
    const r = await runCalibrate(c, executor, state, { write: values.write === true });
    if (fmt === 'json') process.stdout.write(JSON.stringify({ ...r.calibration, diff: r.diff }, null, 2) + '\n');
    else {
      process.stdout.write(r.report);
      if (r.patchFile) {
        const applied =
          values.write === true ? `applied to ${c.file}` : 'apply it with `git apply` or rerun with --write';
        process.stdout.write(`\nThe cost sections, as measured (${r.patchFile}; ${applied}):\n\n${r.diff}`);
      } else if (r.calibration.phases.some((p) => p.strata.length > 0))
        process.stdout.write('\nThe manifest already holds the measured rates.\n');
    }
    return r.differs ? EXIT.incomplete : EXIT.ok;
  } finally {
    await executor.close();
  }
}
