/**
 * The behaviour users rely on from every executor kind, run against each one (local, Slurm over
 * SSH, ssh-gpu, Slurm through an automation node, and a kind registered from test/): a task is
 * submitted once and only once, even when a pass crashes between submitting and saving; its
 * start and end are observed, each end with its class; a cancel ends running attempts as
 * cancelled; a changed definition runs exactly its tasks again and says so first (or keeps
 * them by a recorded choice); each output has its provenance record beside it and its claim,
 * which keeps another campaign from writing it; `--fresh` sets the earlier attempts aside.
 *
 * The campaigns run through the use case both front ends call (`runCampaign`), in this
 * process, with the kind's executor watched: what the run says, and each submission, in the
 * order they came. Every kind here runs its tasks on this machine, so the tests read the
 * workdir and a ledger the tasks write (`start <task>` as each begins) directly.
 */
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/app/drive.js';
import { openExecutor, type OpenOptions } from '../../../src/app/executors.js';
import { loadCampaign, type Campaign } from '../../../src/app/load.js';
import { readProvenance, renderProvenance } from '../../../src/app/provenance.js';
import { runCampaign } from '../../../src/app/run.js';
import type { SshSecrets } from '../../../src/app/transport-for.js';
import { CampaignController, loadState } from '../../../src/exec/controller.js';
import type { Executor } from '../../../src/exec/executor.js';
import { FileStateStore } from '../../../src/exec/store/file-store.js';
import type { Plan } from '../../../src/plan/plan.js';
import type { TaskEvent } from '../../../src/state/events.js';
import { provenancePath, provenanceSchema, type Provenance } from '../../../src/state/provenance.js';
import type { CampaignState } from '../../../src/state/state.js';
import { makeTemp, readState, waitUntil, writeManifest } from '../../helpers/cli.js';

/** Where one campaign of a test lives, as the kind prepared it. */
export interface Place {
  /** The workdir's absolute path on this machine. */
  workdir: string;
  /** The manifest's head for a campaign of this name: campaign, cluster, workdir, defaults. */
  head(campaign: string): string;
}

/** An executor kind as the battery drives it. */
export interface Kind {
  name: string;
  /** Whether its server is up, once the kind's beforeAll has run: the tests skip (visibly) where it is not. */
  ready(): boolean;
  /** A campaign's workdir under `dir` (made there), with whatever else the kind needs (a GPU stand-in). */
  place(dir: string): Promise<Place>;
  /** The SSH key and agent its login takes. */
  ssh(): SshSecrets;
  /** How its executor is opened: that of the manifest's kind (openExecutor) unless it is registered from test/. */
  open?: (c: Campaign, opts: OpenOptions) => Promise<{ executor: Executor; plan: Plan }>;
  /** The longest wait between passes, in seconds. */
  poll: number;
  /** How long one test may take, in milliseconds. */
  timeoutMs: number;
  /**
   * The directory (relative to the workdir) where it keeps one directory per attempt, each
   * recording its definition, for a campaign; none where it keeps no such directory.
   */
  attempts?(campaign: string): string;
  /** Whether `run --fresh` moves the earlier attempts aside; where it cannot (no shell), it says so and touches nothing. */
  setsAside: boolean;
  /** How many submissions the scheduler recorded for a campaign (Slurm: its jobs), where it keeps such a record. */
  submissions?(campaign: string): Promise<number>;
}

/** A workdir in `dir` on this machine, for a campaign on the local executor. */
export async function placeHere(dir: string): Promise<Place> {
  const workdir = join(dir, 'work');
  await mkdir(workdir, { recursive: true });
  return {
    workdir,
    head: (name) => `campaign: ${name}\ncluster: { executor: local, max_parallel: 4 }\nworkdir: ${workdir}\n`,
  };
}

/** Campaign names unique to this run: a scheduler's accounting remembers earlier runs' jobs. */
const RUN = Date.now().toString(36);

/** What the executor was asked to do and what the run said, in the order they came. */
interface Watched {
  /** `note <text>` for what the run said, `submit <task>` for each submission. */
  log: string[];
  /** The events the executor's submissions returned. */
  sent: TaskEvent[];
  /** What the run warned of. */
  warnings: string[];
}

interface Ran extends Watched {
  plan: Plan;
  state: CampaignState;
  notes: string[];
  /** The tasks submitted, in order. */
  submitted: string[];
}

/** The error a watched executor throws after its first submission, standing for a crash. */
const CRASH = 'the controller crashed after submitting, before saving';

/** `executor` with its submissions and what the run says recorded in `w`; with `crash`, it throws after the first submission. */
function watched(executor: Executor, w: Watched, crash: boolean): Executor {
  let crashed = false;
  return new Proxy(executor, {
    get(target, key) {
      if (key === 'submit')
        return async (...args: Parameters<Executor['submit']>) => {
          const events = await target.submit(...args);
          for (const s of args[0]) w.log.push(`submit ${s.task.id}`);
          w.sent.push(...events);
          if (crash && !crashed) {
            crashed = true;
            throw new Error(CRASH);
          }
          return events;
        };
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

interface RunFlags {
  /** The manifest file's name in the campaign's directory. */
  file?: string;
  stateDir?: string;
  fresh?: boolean;
  keepChanged?: boolean;
  /** The first submission ends the run as a crash would, after the executor has sent it and before the state is saved. */
  crash?: boolean;
  /** The run stops after the first pass whose saved state this holds for. */
  stopWhen?: (state: CampaignState) => boolean;
}

/** The battery's cases against `kind`. */
export function contractBattery(kind: Kind): void {
  let root: string | undefined;
  beforeAll(async () => {
    root = await makeTemp(`contract-${kind.name.replace(/\W+/g, '-')}`);
  });
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });
  beforeEach((ctx) => {
    if (!kind.ready()) ctx.skip();
  });

  /** A campaign's directory for a test: its manifests, state, ledger and (through the kind) workdir. */
  async function setUp(label: string) {
    const dir = join(root!, label);
    await mkdir(dir, { recursive: true });
    const place = await kind.place(dir);
    const ledger = join(dir, 'ledger');
    return { dir, ledger, name: `${label}-${RUN}`, stateDir: join(dir, 'state'), ...place };
  }
  type At = Awaited<ReturnType<typeof setUp>>;

  async function drive(
    at: At,
    yaml: string,
    o: RunFlags,
    w: Watched,
  ): Promise<Omit<Ran, keyof Watched | 'notes' | 'submitted'>> {
    const file = await writeManifest(at.dir, yaml, o.file ?? 'campaign.yml');
    const c = await loadCampaign(file, o.stateDir ?? at.stateDir);
    const stop = new AbortController();
    const open = async (camp: Campaign, opts: OpenOptions) => {
      const opened = await (kind.open ?? openExecutor)(camp, opts);
      return { plan: opened.plan, executor: watched(opened.executor, w, o.crash === true) };
    };
    const stopWhen = o.stopWhen;
    return runCampaign(
      c,
      {
        holder: 'the contract battery',
        ssh: kind.ssh(),
        clock: systemClock,
        signal: stop.signal,
        maxPoll: kind.poll,
        retryFailed: false,
        keepChanged: o.keepChanged === true,
        fresh: o.fresh === true,
        retryFix: 'run again with --retry-failed',
        note: (m) => w.log.push(`note ${m}`),
        warn: (m) => w.warnings.push(m),
        open,
        ...(stopWhen ? { onPass: (s: CampaignState) => void (stopWhen(s) && stop.abort()) } : {}),
      },
      async ({ plan, state }) => ({ plan, state }),
    );
  }

  /** The kind's executor for a campaign begun at `since`, as a command between runs opens it (no plan fitted). */
  async function opened(c: Campaign, since: string): Promise<Executor> {
    const open = kind.open ?? openExecutor;
    return (await open(c, { ssh: kind.ssh(), since: () => since, warn: () => {}, checkCluster: false })).executor;
  }

  /** Runs the campaign of `yaml` in `at` until it is at rest (or `stopWhen` holds). */
  async function run(at: At, yaml: string, o: RunFlags = {}): Promise<Ran> {
    const w: Watched = { log: [], sent: [], warnings: [] };
    const ended = await drive(at, yaml, o, w);
    // What the run left on disk is what counts: the state as saved.
    const state = await readState(o.stateDir ?? at.stateDir);
    expect(state.tasks).toEqual(ended.state.tasks);
    return {
      ...w,
      ...ended,
      state,
      notes: w.log.filter((l) => l.startsWith('note ')).map((l) => l.slice(5)),
      submitted: w.log.filter((l) => l.startsWith('submit ')).map((l) => l.slice(7)),
    };
  }

  /** A phase of tasks that write a ledger line as they start and `<version> <seed>` into their output. */
  const phase = (
    at: At,
    name: string,
    seeds: readonly number[],
    version: string,
    extra = '',
  ): string => `  - name: ${name}
    grid: { seed: [${seeds.join(', ')}] }
    walltime: 5m
    output: out/${name}-\${seed}.txt
    command: |
      printf 'start %s\\n' "$CAMPAIGN_TASK" >> ${at.ledger}
      echo "${version} \${seed}" > \${output}
${extra}`;

  const manifest = (at: At, phases: string, name = at.name): string => `${at.head(name)}phases:\n${phases}`;

  /** How many times each task started, from the ledger. */
  async function starts(at: At): Promise<Record<string, number>> {
    const text = await readFile(at.ledger, 'utf8').catch(() => '');
    const out: Record<string, number> = {};
    for (const line of text.split('\n')) {
      const [word, task] = line.split(' ');
      if (word === 'start' && task) out[task] = (out[task] ?? 0) + 1;
    }
    return out;
  }

  const ids = (prefix: string, seeds: readonly number[]): string[] => seeds.map((s) => `${prefix}/seed${s}`);
  const attemptsOf = (state: CampaignState): Record<string, number[]> =>
    Object.fromEntries(Object.entries(state.tasks).map(([id, t]) => [id, t.attempts.map((a) => a.n)]));
  const lastOf = (state: CampaignState, id: string) => state.tasks[id]!.attempts.at(-1)!;
  const read = (at: At, path: string): Promise<string> => readFile(join(at.workdir, path), 'utf8');
  async function sidecar(at: At, output: string): Promise<Provenance> {
    return provenanceSchema.parse(JSON.parse(await read(at, provenancePath(output))));
  }
  async function snapshot(at: At, paths: readonly string[]): Promise<Map<string, Buffer>> {
    return new Map(await Promise.all(paths.map(async (p) => [p, await readFile(join(at.workdir, p))] as const)));
  }
  const exists = (p: string): Promise<boolean> =>
    stat(p).then(
      () => true,
      () => false,
    );
  function expectCompleted(r: Ran, tasks: readonly string[]): void {
    for (const id of tasks) {
      const said = [r.state.tasks[id]?.reason, ...r.warnings].filter(Boolean).join('; ');
      expect(r.state.tasks[id]?.status, `${id}: ${said}`).toBe('completed');
    }
  }

  /**
   * One campaign run to its end and left as it is, which the first cases read: `train` and
   * `other` complete, `bad` exits 3, `empty` exits 0 without writing its output.
   */
  const TRAIN = ids('train', [1, 2]);
  const OTHER = ids('other', [1, 2]);
  const OUTPUTS = ['out/train-1.txt', 'out/train-2.txt', 'out/other-1.txt', 'out/other-2.txt'];
  let baseline: Promise<{ at: At; ran: Ran }> | undefined;
  const baselineRun = (): Promise<{ at: At; ran: Ran }> =>
    (baseline ??= (async () => {
      const at = await setUp('baseline');
      const yaml = manifest(
        at,
        phase(at, 'train', [1, 2], 'v1') +
          phase(at, 'other', [1, 2], 'o1') +
          `  - name: bad
    walltime: 5m
    command: printf 'start %s\\n' "$CAMPAIGN_TASK" >> ${at.ledger}; echo "diverged" >&2; exit 3
  - name: empty
    walltime: 5m
    output: out/empty.txt
    command: printf 'start %s\\n' "$CAMPAIGN_TASK" >> ${at.ledger}
`,
      );
      return { at, ran: await run(at, yaml) };
    })());

  const opts = { timeout: kind.timeoutMs };

  describe.concurrent(`the executor contract: ${kind.name}`, () => {
    it(
      'submits each task once, observes its start and its end with the class it earned, and writes provenance and a claim beside each output',
      opts,
      async () => {
        const { at, ran } = await baselineRun();
        expectCompleted(ran, [...TRAIN, ...OTHER]);
        expect([...ran.submitted].sort()).toEqual([...TRAIN, ...OTHER, 'bad/task', 'empty/task'].sort());
        expect(await starts(at)).toEqual(
          Object.fromEntries([...TRAIN, ...OTHER, 'bad/task', 'empty/task'].map((id) => [id, 1])),
        );
        for (const [id, t] of Object.entries(ran.state.tasks)) {
          expect(t.attempts, id).toHaveLength(1);
          const a = t.attempts[0]!;
          expect(a.handle, id).toBeDefined();
          expect(a.startedAt, id).toBeDefined();
          expect(a.endedAt, id).toBeDefined();
          expect(Date.parse(a.startedAt!), id).toBeLessThanOrEqual(Date.parse(a.endedAt!));
          expect(a.definition, id).toMatch(/^[0-9a-f]{16}$/);
        }
        const bad = lastOf(ran.state, 'bad/task');
        expect(ran.state.tasks['bad/task']!.status).toBe('failed');
        expect(bad).toMatchObject({ class: 'failed', exitCode: 3 });
        expect(ran.state.tasks['empty/task']!.status).toBe('failed');
        expect(lastOf(ran.state, 'empty/task').class).toBe('unverified');
        expect(lastOf(ran.state, 'empty/task').reason).toMatch(/ but \S*out\/empty\.txt does not exist/);

        for (const [i, id] of [...TRAIN, ...OTHER].entries()) {
          const output = OUTPUTS[i]!;
          const a = lastOf(ran.state, id);
          const [phaseName, seed] = [id.split('/')[0]!, i % 2 === 0 ? 1 : 2];
          expect(await read(at, output)).toBe(`${phaseName === 'train' ? 'v1' : 'o1'} ${seed}\n`);
          expect(await sidecar(at, output)).toMatchObject({
            campaign: at.name,
            phase: phaseName,
            task: id,
            stage: 'full',
            values: { seed },
            output,
            attempt: 1,
            definition: a.definition,
            handle: a.handle,
            submitted: a.submittedAt,
            exit_status: 0,
            kept: [],
          });
          expect((await read(at, `.campaign/claims/${output}`)).split('\n')[0]).toBe(`${at.name} ${id}`);
        }
        expect(await exists(join(at.workdir, provenancePath('out/empty.txt')))).toBe(false);

        // The record as `campaign provenance` reads it, through the kind's executor.
        const c = await loadCampaign(join(at.dir, 'campaign.yml'), at.stateDir);
        const executor = await opened(c, ran.state.created);
        try {
          const found = await readProvenance(executor, 'out/train-1.txt');
          if ('error' in found) throw new Error(found.error);
          expect(found.record).toEqual(await sidecar(at, 'out/train-1.txt'));
          const text = renderProvenance(found.record, ran.state);
          expect(text).toContain(`task train/seed1`);
          expect(text).toContain(`attempt 1`);
          expect(text).toContain("the campaign's current result for this task");
        } finally {
          await executor.close();
        }
      },
    );

    it(
      "another campaign in the same workdir fails its output gate on the first one's outputs, naming their owner, and leaves them as they were",
      opts,
      async () => {
        const { at } = await baselineRun();
        const sidecars = OUTPUTS.map(provenancePath);
        const claims = OUTPUTS.map((o) => `.campaign/claims/${o}`);
        const before = await snapshot(at, [...OUTPUTS, ...sidecars, ...claims]);
        const startsBefore = await starts(at);
        const second = `intruder-${RUN}`;
        const r = await run(
          at,
          manifest(at, phase(at, 'train', [1, 2], 'x9') + phase(at, 'other', [1, 2], 'y9'), second),
          {
            file: 'second.yml',
            stateDir: join(at.dir, 'state-second'),
          },
        );
        for (const [i, id] of [...TRAIN, ...OTHER].entries()) {
          const t = r.state.tasks[id]!;
          expect(t.status, id).toBe('failed');
          expect(
            t.attempts.map((a) => a.class),
            id,
          ).toEqual(['gate']);
          expect(t.reason, id).toMatch(/gate output/);
          expect(t.reason, id).toContain(`${OUTPUTS[i]} belongs to task ${id} of campaign ${at.name}`);
        }
        // The gate comes before the command: none of the second campaign's commands ran.
        expect(await starts(at)).toEqual(startsBefore);
        expect(await snapshot(at, [...OUTPUTS, ...sidecars, ...claims])).toEqual(before);
        // Each campaign's attempts live apart: the first one's are not the second one's.
        if (kind.attempts)
          for (const name of [at.name, second])
            expect(await exists(join(at.workdir, kind.attempts(name))), name).toBe(true);
      },
    );

    it(
      'a changed definition runs exactly its tasks again and says so before it submits; a changed smoke stage is judged again, and nothing else is sent',
      opts,
      async () => {
        const at = await setUp('changed');
        const smoke = (args: string) => `    smoke:
      tasks: 1
      overrides: { args: '${args}' }
      trigger: [{ check: all_completed }, { check: output_exists }]
`;
        const yaml = (version: string, smokeArgs: string) =>
          manifest(at, phase(at, 'train', [1, 2], version) + phase(at, 'other', [1, 2], 'o1', smoke(smokeArgs)));
        const first = await run(at, yaml('v1', '# one'));
        expectCompleted(first, [...TRAIN, ...OTHER, 'other/smoke/seed1']);
        expect(first.notes).toEqual([]);
        const otherOutputs = ['out/other-1.txt', 'out/other-2.txt'];
        const otherBefore = await snapshot(at, otherOutputs);

        // train's command changes: said before anything is submitted, and only train runs again.
        const second = await run(at, yaml('v2', '# one'));
        expect(second.notes).toEqual(['phase train: command changed: 2 tasks will run again']);
        expect(second.log.findIndex((l) => l.startsWith('note '))).toBeLessThan(
          second.log.findIndex((l) => l.startsWith('submit ')),
        );
        expect([...second.submitted].sort()).toEqual(TRAIN);
        expectCompleted(second, [...TRAIN, ...OTHER]);
        for (const [i, id] of TRAIN.entries()) {
          const t = second.state.tasks[id]!;
          expect(
            t.attempts.map((a) => [a.n, a.class]),
            id,
          ).toEqual([
            [1, 'completed'],
            [2, 'completed'],
          ]);
          expect(t.attempts[1]!.definition, id).not.toBe(t.attempts[0]!.definition);
          expect(t.attempts[0]!.definition, id).toBe(lastOf(first.state, id).definition);
          expect(await read(at, `out/train-${i + 1}.txt`)).toBe(`v2 ${i + 1}\n`);
          expect(await sidecar(at, `out/train-${i + 1}.txt`)).toMatchObject({
            attempt: 2,
            definition: t.attempts[1]!.definition,
          });
          if (kind.attempts) {
            // The new attempt's directory records the definition it ran under.
            const recorded = await read(at, `${kind.attempts(at.name)}/${id}/2/definition`);
            expect(recorded.trim(), id).toBe(t.attempts[1]!.definition);
          }
        }
        for (const id of [...OTHER, 'other/smoke/seed1'])
          expect(second.state.tasks[id]!.attempts, id).toEqual(first.state.tasks[id]!.attempts);
        expect(await snapshot(at, otherOutputs)).toEqual(otherBefore);
        expect(await starts(at)).toEqual({
          ...Object.fromEntries(TRAIN.map((id) => [id, 2])),
          ...Object.fromEntries([...OTHER, 'other/smoke/seed1'].map((id) => [id, 1])),
        });

        // Only the smoke stage of other changes: it runs again and its gate is judged again; its full tasks stay.
        const third = await run(at, yaml('v2', '# two'));
        expect(third.notes).toEqual(['phase other (smoke stage): command changed: 1 task will run again']);
        expect(third.submitted).toEqual(['other/smoke/seed1']);
        expect(third.state.tasks['other/smoke/seed1']!.attempts.map((a) => a.class)).toEqual([
          'completed',
          'completed',
        ]);
        for (const id of [...TRAIN, ...OTHER])
          expect(third.state.tasks[id]!.attempts, id).toEqual(second.state.tasks[id]!.attempts);
        const [gateBefore, gateAfter] = [second.state.phases.other!.gate!, third.state.phases.other!.gate!];
        expect(gateAfter.at > gateBefore.at).toBe(true);
        expect(gateAfter.definitions).not.toBe(gateBefore.definitions);

        expect(await starts(at)).toEqual({
          ...Object.fromEntries(TRAIN.map((id) => [id, 2])),
          ...Object.fromEntries(OTHER.map((id) => [id, 1])),
          'other/smoke/seed1': 2,
        });
      },
    );

    it(
      '--keep-changed keeps the results of a changed definition by a recorded choice, and a later run keeps to it',
      opts,
      async () => {
        const at = await setUp('kept');
        const yaml = (version: string) =>
          manifest(at, phase(at, 'train', [1, 2], version) + phase(at, 'other', [1, 2], 'o1'));
        const first = await run(at, yaml('v1'));
        expectCompleted(first, [...TRAIN, ...OTHER]);

        // train changes, kept by --keep-changed: nothing is sent, and the choice is recorded.
        const outputs = await snapshot(at, OUTPUTS);
        const kept = await run(at, yaml('v2'), { keepChanged: true });
        expect(kept.notes).toEqual([
          'phase train: command changed: 2 completed tasks kept as they are, by --keep-changed (recorded with them)',
        ]);
        expect(kept.submitted).toEqual([]);
        expect(attemptsOf(kept.state)).toEqual(attemptsOf(first.state));
        expect(await snapshot(at, OUTPUTS)).toEqual(outputs);
        for (const [i, id] of TRAIN.entries()) {
          const a = lastOf(kept.state, id);
          expect(a.definition).toBe(lastOf(first.state, id).definition);
          expect(a.kept, id).toHaveLength(1);
          const k = a.kept![0]!;
          expect(k.changed).toContain('command');
          expect(k.definition).not.toBe(a.definition);
          const p = await sidecar(at, `out/train-${i + 1}.txt`);
          expect(p.definition).toBe(a.definition);
          expect(p.kept).toEqual([{ definition: k.definition, at: k.at, changed: k.changed }]);
          const text = renderProvenance(p, kept.state);
          expect(text).toMatch(/kept by choice at .* \(command changed\)/);
          expect(text).toContain("the campaign's current result for this task");
        }
        for (const id of OTHER) expect(lastOf(kept.state, id).kept, id).toBeUndefined();
        expect((await sidecar(at, 'out/other-1.txt')).kept).toEqual([]);

        // The kept results count for the new definition: a plain run has nothing to say and sends nothing.
        const after = await run(at, yaml('v2'));
        expect(after.notes).toEqual([]);
        expect(after.submitted).toEqual([]);
        expect(attemptsOf(after.state)).toEqual(attemptsOf(first.state));
        expect(await starts(at)).toEqual(Object.fromEntries([...TRAIN, ...OTHER].map((id) => [id, 1])));
      },
    );

    it(
      'with the state lost and the command changed, no attempt of the old definition is taken for the new one',
      opts,
      async () => {
        const at = await setUp('lost');
        const yaml = (version: string) =>
          manifest(at, phase(at, 'train', [1, 2], version) + phase(at, 'other', [1], 'o1'));
        const first = await run(at, yaml('v1'));
        expectCompleted(first, [...TRAIN, 'other/seed1']);
        const oldHandles = new Set(Object.values(first.state.tasks).flatMap((t) => t.attempts.map((a) => a.handle)));
        await rm(at.stateDir, { recursive: true });

        const second = await run(at, yaml('v2'));
        expectCompleted(second, [...TRAIN, 'other/seed1']);
        for (const [i, id] of TRAIN.entries()) {
          expect(await read(at, `out/train-${i + 1}.txt`)).toBe(`v2 ${i + 1}\n`);
          const a = lastOf(second.state, id);
          expect(oldHandles.has(a.handle), `${id} completed as ${a.handle}, an attempt of the old command`).toBe(false);
          expect(a.definition, id).not.toBe(lastOf(first.state, id).definition);
          expect(await sidecar(at, `out/train-${i + 1}.txt`)).toMatchObject({
            handle: a.handle,
            definition: a.definition,
          });
          if (kind.attempts) {
            const taskDir = join(at.workdir, kind.attempts(at.name), id);
            const names = await readdir(taskDir);
            const superseded = names.filter((n) => /^1\.superseded-\d+$/.test(n));
            expect(superseded, `${id}: ${names.join(' ')}`).toHaveLength(1);
            // The old attempt, kept whole under its old definition; the one in use is the new one's.
            const old = await readFile(join(taskDir, superseded[0]!, 'definition'), 'utf8');
            expect(old.trim()).toBe(lastOf(first.state, id).definition);
            expect(await exists(join(taskDir, superseded[0]!, 'exit')), 'how the old attempt ended').toBe(true);
            expect((await readFile(join(taskDir, String(a.n), 'definition'), 'utf8')).trim()).toBe(a.definition);
          }
        }
        // The unchanged phase's attempt is of this definition: taken as it is, not run again.
        expect(await starts(at)).toEqual({ 'train/seed1': 2, 'train/seed2': 2, 'other/seed1': 1 });
      },
    );

    it(
      'a pass that crashes after submitting and before saving sends nothing twice: the next run finds its attempts; --fresh then sets them aside and runs every task anew',
      opts,
      async () => {
        const at = await setUp('crash');
        const TASKS = ids('p', [1, 2]);
        const yaml = manifest(at, phase(at, 'p', [1, 2], 'v1'));
        const w: Watched = { log: [], sent: [], warnings: [] };
        await expect(drive(at, yaml, { crash: true }, w)).rejects.toThrow(CRASH);
        expect([...w.log].sort()).toEqual(TASKS.map((id) => `submit ${id}`));
        const sent = new Map(w.sent.map((e) => [e.task, e]));
        for (const id of TASKS) expect(sent.get(id)?.type, id).toBe('submitted');
        // Nothing was saved of what the crashed pass sent.
        const saved = await readState(at.stateDir).catch(() => undefined);
        for (const id of TASKS) expect(saved?.tasks[id]?.attempts ?? [], id).toEqual([]);
        const recorded = await kind.submissions?.(at.name);

        const again = await run(at, yaml);
        expectCompleted(again, TASKS);
        for (const id of TASKS) {
          expect(
            again.state.tasks[id]!.attempts.map((a) => a.n),
            id,
          ).toEqual([1]);
          const e = sent.get(id)!;
          expect(lastOf(again.state, id).handle, id).toBe(e.type === 'submitted' ? e.handle : undefined);
        }
        expect(await starts(at)).toEqual(Object.fromEntries(TASKS.map((id) => [id, 1])));
        if (kind.submissions) expect(await kind.submissions(at.name)).toBe(recorded);

        const outputs = ['out/p-1.txt', 'out/p-2.txt'];
        const before = await snapshot(at, [...outputs, ...outputs.map(provenancePath)]);
        if (!kind.setsAside) {
          // Without a shell the executor cannot move them: it says so, and nothing is touched.
          await expect(run(at, yaml, { fresh: true })).rejects.toThrow(/--fresh/);
          expect(await snapshot(at, [...outputs, ...outputs.map(provenancePath)])).toEqual(before);
          expect(await starts(at)).toEqual(Object.fromEntries(TASKS.map((id) => [id, 1])));
          return;
        }
        const fresh = await run(at, yaml, { fresh: true });
        expectCompleted(fresh, TASKS);
        expect(fresh.notes).toHaveLength(1);
        expect(fresh.notes[0]).toMatch(
          /^started afresh: the earlier state is in .*previous.*; 2 outputs and the attempts moved to /,
        );
        expect(fresh.notes[0]).toMatch(/nothing was deleted/);
        expect(fresh.state.created).not.toBe(again.state.created);
        expect((await readdir(join(at.stateDir, 'previous'))).length).toBe(1);
        const asideRoot = join(at.workdir, '.campaign', 'aside', at.name);
        const stamps = await readdir(asideRoot);
        expect(stamps).toHaveLength(1);
        const aside = join(asideRoot, stamps[0]!);
        for (const [p, bytes] of before) expect(await readFile(join(aside, 'outputs', p)), p).toEqual(bytes);
        expect(await exists(join(aside, 'executor'))).toBe(true);
        if (kind.attempts)
          for (const id of TASKS)
            expect(await exists(join(aside, 'executor', 'attempts', id, '1', 'definition')), id).toBe(true);
        // Every task ran again, as attempt 1 of a new generation, and wrote its output anew.
        expect(attemptsOf(fresh.state)).toEqual(Object.fromEntries(TASKS.map((id) => [id, [1]])));
        expect(await starts(at)).toEqual(Object.fromEntries(TASKS.map((id) => [id, 2])));
        for (const [i, id] of TASKS.entries()) {
          const a = lastOf(fresh.state, id);
          expect(a.handle, id).not.toBe(lastOf(again.state, id).handle);
          const p = await sidecar(at, outputs[i]!);
          expect(p).toMatchObject({ attempt: 1, handle: a.handle, submitted: a.submittedAt });
          expect(p.submitted).not.toBe(lastOf(again.state, id).submittedAt);
          expect((await read(at, `.campaign/claims/${outputs[i]!}`)).split('\n')[0]).toBe(`${at.name} ${id}`);
        }
      },
    );

    it(
      'a cancel ends the running attempts, each observed as cancelled, and their commands go no further',
      opts,
      async () => {
        const at = await setUp('cancel');
        const release = join(at.dir, 'release');
        const TASKS = ids('hold', [1, 2]);
        const yaml = manifest(
          at,
          `  - name: hold
    grid: { seed: [1, 2] }
    walltime: 5m
    output: out/hold-\${seed}.txt
    command: |
      printf 'start %s\\n' "$CAMPAIGN_TASK" >> ${at.ledger}
      for i in $(seq 3000); do [ -e ${release} ] && break; sleep 0.1; done
      printf 'end %s\\n' "$CAMPAIGN_TASK" >> ${at.ledger}
      echo "held \${seed}" > \${output}
`,
        );
        const running = (s: CampaignState) => TASKS.every((id) => s.tasks[id]?.status === 'running');
        const stopped = await run(at, yaml, { stopWhen: running });
        expect(running(stopped.state)).toBe(true);
        await waitUntil('both tasks to start', async () =>
          Object.keys(await starts(at)).length === 2 ? true : undefined,
        );

        const c = await loadCampaign(join(at.dir, 'campaign.yml'), at.stateDir);
        const store = new FileStateStore(c.stateDir);
        const lock = await store.acquire('the contract battery');
        const executor = await opened(c, stopped.state.created);
        try {
          const controller = new CampaignController({ manifest: c.manifest, plan: c.plan, executor, store });
          const state = await loadState(store, c.manifest.campaign, new Date().toISOString());
          const r = await controller.cancel(state, 60_000);
          expect(r.running).toEqual([]);
          for (const id of TASKS) {
            expect(
              r.state.tasks[id]!.attempts.map((a) => a.class),
              id,
            ).toEqual(['cancelled']);
            expect(r.state.tasks[id]!.status, id).not.toBe('completed');
          }
          expect((await readState(at.stateDir)).tasks).toEqual(r.state.tasks);
        } finally {
          await writeFile(release, '');
          await executor.close();
          await lock.release();
        }
        // Killed where they waited: no command got past it, and no output was written.
        const ledger = await readFile(at.ledger, 'utf8');
        expect(ledger).not.toMatch(/^end /m);
        for (const seed of [1, 2]) expect(await exists(join(at.workdir, `out/hold-${seed}.txt`))).toBe(false);
      },
    );
  });
}
