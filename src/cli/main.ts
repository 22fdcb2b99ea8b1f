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
import { emptyState, type CampaignState } from '../queue/state.js';
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
import { manifestCommit } from './git.js';
import { readProvenance, renderProvenance, workdirPath } from './provenance.js';
import { definitionChangeLine, definitionChanges, keptTasks } from '../queue/definition-changes.js';
import { provenanceIndex } from '../queue/provenance.js';
import { asideDir } from '../render/set-aside.js';

const USAGE = `usage: campaign <command> [options]

  lint FILE...        check manifests: file:line:col: severity rule: message
                      --format text|json   --strict (warnings fail too)
                      --format text|json
  plan FILE           show phases, strata, arrays, walltimes with their arithmetic, and
                      which tasks a changed definition runs again   --state-dir DIR
  run FILE            drive the campaign to its end (resumes where it stopped; a task
                      whose definition changed runs again, and the run says so first)
                      --state-dir DIR   --poll SECONDS (longest wait between passes)
                      --retry-failed (run failed tasks and failed smoke stages again)
                      --keep-changed (keep the results of tasks whose definition
                      changed, recording that choice in their provenance)
                      --fresh (start over: the earlier state, attempts and outputs
                      are moved aside, never deleted, never adopted)
  status FILE         the stored state per phase   --state-dir DIR
  cancel FILE         stop the campaign's running tasks (each one's whole process group)
                      and record them cancelled; for when no \`run\` drives it
                      --state-dir DIR
  summary FILE        markdown summary   --state-dir DIR   --out FILE (and the pictures
                      and provenance.jsonl beside it)
  provenance FILE PATH...
                      what made each output: the record beside it (campaign, task,
                      values, definition, attempt, job, node, GPUs, times, commit)
                      --state-dir DIR   --format text|json
  calibrate FILE      measured seconds per unit per stratum against the declared rates,
                      headroom, the walltime the planner would now choose; writes the
                      cost sections' patch to calibrate.patch in the state dir
                      --state-dir DIR   --write (apply it to FILE)   --format text|json
  workflow FILE       write the GitHub Actions workflow for a manifest to
                      .github/workflows/campaign-NAME.yml   --uses OWNER/REPO@REF
                      --branch NAME   --budget DURATION   --environment NAME
                      --runs-on LABEL   --handover dispatch|none   --stdout
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
      case 'provenance':
        return await provenance(rest);
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
  const { values, files } = args(argv, { format: { type: 'string' }, 'state-dir': { type: 'string' } });
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  if (format(values.format) === 'json') process.stdout.write(renderPlanJson(c.plan) + '\n');
  else {
    printWarnings(c);
    process.stdout.write(renderPlanText(c.plan));
    // Against the stored state, where there is one: which tasks a run would send again, and why.
    const store = new FileStateStore(c.stateDir, { readOnly: true });
    if ((await store.load()) !== undefined) {
      const changes = definitionChanges(await storedState(c), c.plan);
      process.stdout.write(`\nAgainst the stored state (${c.stateDir}):\n`);
      if (changes.length === 0) process.stdout.write('  no definition changed: a run sends no completed task again\n');
      for (const ch of changes) process.stdout.write(`  ${definitionChangeLine(ch, false)}\n`);
    }
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
    'keep-changed': { type: 'boolean' },
    fresh: { type: 'boolean' },
  });
  if (values.fresh === true && values['keep-changed'] === true)
    throw new UserError({
      message: '--fresh and --keep-changed contradict each other',
      fix: 'a fresh start keeps no earlier result: give one of them',
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
    let loaded = await loadState(store, c.manifest.campaign, new Date().toISOString());
    const opened = await openExecutor(c, { since: () => loaded.created, warn, checkCluster: true });
    executor = opened.executor;
    if (values.fresh === true) loaded = await startFresh(c, store, executor, loaded);
    const plan = opened.plan;
    const commit = await manifestCommit(c.file);
    const controller = new CampaignController({
      manifest: c.manifest,
      plan,
      executor,
      store,
      warn,
      ...(commit === undefined ? {} : { commit }),
    });
    const progress = new Progress(process.stdout, plan);
    const reconciled = await controller.reconcile(loaded, 'run again with --retry-failed');
    reconciled.warnings.forEach(warn);
    // Said before anything is submitted: which tasks a changed definition runs again (or keeps).
    const keepChanged = values['keep-changed'] === true;
    const changes = definitionChanges(reconciled.state, plan);
    for (const ch of changes) note(definitionChangeLine(ch, keepChanged));
    let state = startRun(reconciled.state, plan, {
      retryFailed: values['retry-failed'] === true,
      keepChanged,
      now: new Date().toISOString(),
    });
    if (keepChanged) await controller.recordProvenance(state, keptTasks(changes));
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
    const text = await summaryText(
      plan,
      executor,
      state,
      await writePictures(c.stateDir, plan, state),
      await writeProvenanceIndex(c.stateDir, plan, state),
    );
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

/** The stored state, for a command that only reads it (it holds no lock, and repairs nothing). */
function storedState(c: Campaign): Promise<CampaignState> {
  return loadState(new FileStateStore(c.stateDir, { readOnly: true }), c.manifest.campaign, new Date().toISOString());
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
  provenance?: string,
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
  return renderSummary({ plan, state, tails, pictures, ...(provenance === undefined ? {} : { provenance }) });
}

/** The campaign's provenance index beside a summary in `dir`; its file name, or undefined when it holds no record. */
export async function writeProvenanceIndex(dir: string, plan: Plan, state: CampaignState): Promise<string | undefined> {
  const index = provenanceIndex(plan, state);
  if (index === '') return undefined;
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, PROVENANCE_INDEX), index);
  return PROVENANCE_INDEX;
}

const PROVENANCE_INDEX = 'provenance.jsonl';

const note = (m: string): void => {
  process.stderr.write(`campaign: ${m}\n`);
};

/**
 * `run --fresh`: the campaign's earlier generation moved aside (its state in the state
 * directory's `previous/`, its attempts and claimed outputs in the workdir's
 * `.campaign/aside/`), never deleted, and a new state in its place. Refused while tasks run.
 */
async function startFresh(
  c: Campaign,
  store: FileStateStore,
  executor: Executor,
  loaded: CampaignState,
): Promise<CampaignState> {
  const running = Object.entries(loaded.tasks).filter(([, t]) => t.status === 'submitted' || t.status === 'running');
  if (running.length > 0) {
    throw new UserError({
      message: `${running.length} task${running.length === 1 ? ' is' : 's are'} still running (${running[0]![0]}${running.length > 1 ? ', …' : ''}): a fresh start would leave them unwatched`,
      fix: `stop them with \`campaign cancel ${c.file}\`, or let them end, then run --fresh again`,
    });
  }
  const now = new Date().toISOString();
  const stamp = now.replace(/[:.]/g, '-');
  const aside = await executor.setAside(asideDir(c.manifest.campaign, stamp));
  const moved = await store.setAside(join(c.stateDir, 'previous', stamp));
  const parts = [
    moved.length > 0 ? `the earlier state is in ${join(c.stateDir, 'previous', stamp)}` : 'there was no earlier state',
    `${aside.outputs} output${aside.outputs === 1 ? '' : 's'}${aside.attempts ? ' and the attempts' : ''} moved to ${aside.dest} in the workdir`,
  ];
  note(`started afresh: ${parts.join('; ')}; nothing was deleted, and nothing earlier counts for this run`);
  return emptyState(c.manifest.campaign, now);
}

async function summary(argv: string[]): Promise<number> {
  const { values, files } = args(argv, { 'state-dir': { type: 'string' }, out: { type: 'string' } });
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  const state = await storedState(c);
  const { executor } = await openExecutor(c, { since: () => state.created, warn, checkCluster: false });
  try {
    // The pictures go next to a summary written to a file, where its links find them.
    const out = typeof values.out === 'string' ? values.out : undefined;
    const beside = out === undefined ? undefined : dirname(resolve(out));
    const pics = beside === undefined ? [] : await writePictures(beside, c.plan, state);
    const index = beside === undefined ? undefined : await writeProvenanceIndex(beside, c.plan, state);
    const text = await summaryText(c.plan, executor, state, pics, index);
    if (out !== undefined) await writeFile(out, text);
    else process.stdout.write(text);
  } finally {
    await executor.close();
  }
  return allCompleted(c.plan, state) ? EXIT.ok : EXIT.incomplete;
}

/** `campaign provenance FILE PATH...`: what made each output, from the record beside it. */
async function provenance(argv: string[]): Promise<number> {
  const { values, files } = args(argv, { 'state-dir': { type: 'string' }, format: { type: 'string' } }, 2);
  const fmt = format(values.format);
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  const state = await storedState(c);
  const { executor } = await openExecutor(c, { since: () => state.created, warn, checkCluster: false });
  let missing = 0;
  try {
    for (const asked of files.slice(1)) {
      const path = workdirPath(c, asked);
      const found = await readProvenance(executor, path);
      if ('error' in found) {
        missing++;
        process.stderr.write(`campaign: ${asked}: ${found.error}\n`);
        continue;
      }
      if (fmt === 'json') process.stdout.write(JSON.stringify(found.record) + '\n');
      else process.stdout.write(renderProvenance(found.record, state) + '\n');
    }
  } finally {
    await executor.close();
  }
  return missing === 0 ? EXIT.ok : EXIT.incomplete;
}

async function workflow(argv: string[]): Promise<number> {
  const { values, files } = args(argv, {
    uses: { type: 'string' },
    branch: { type: 'string' },
    budget: { type: 'string' },
    environment: { type: 'string' },
    'runs-on': { type: 'string' },
    handover: { type: 'string' },
    stdout: { type: 'boolean' },
  });
  const c = await loadCampaign(files[0]!);
  const target = await workflowTarget(c.file, c.manifest.campaign);
  // Flags over the options the workflow was last written with, over the defaults.
  const was = target.existing?.options ?? DEFAULT_OPTIONS;
  const flag = (name: string): string | undefined => values[name] as string | undefined;
  const environment = flag('environment') ?? target.existing?.options?.environment;
  const handover = flag('handover') ?? was.handover;
  if (handover !== undefined && handover !== 'dispatch' && handover !== 'none')
    throw new UserError({
      message: `--handover ${handover} is not dispatch or none`,
      fix: 'dispatch: a job whose budget runs out starts the workflow again; none: a schedule or a person does',
    });
  const text = renderWorkflow(c.plan, {
    ...(handover ? { handover } : {}),
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
