/**
 * One controller pass: observe (the executor's reports) → decide (pure) → act (submit,
 * check preconditions, evaluate gates) → save atomically and append to the event log.
 * A pass repeated, or rerun after a crash at any point, converges: the executor finds
 * attempts it already launched instead of launching them again.
 */
import { join } from 'node:path';
import { UserError } from '../errors.js';
import { renderPath } from '../manifest/expand.js';
import type { Manifest } from '../manifest/schema.js';
import { toShell } from '../manifest/template.js';
import { smokeDefinitions, type Plan } from '../plan/plan.js';
import { checklistKey, evaluateChecklist, type SmokeFacts } from '../judge/checklist.js';
import { placement } from '../state/placement.js';
import { provenanceFiles } from '../state/provenance.js';
import type { Action, CampaignEvent, Submission } from '../state/events.js';
import { retryPolicy } from '../decide/policy.js';
import { completedOutputs, outputsGone, outputsGoneWarning } from '../decide/reconcile.js';
import { scopeActions, scopeAtRest, type Scopes } from '../decide/scope.js';
import { ACTIVE, campaignStateSchema, emptyState, type CampaignState, type TaskState } from '../state/state.js';
import { changedSince, indexOf } from '../state/task-index.js';
import { generationStep, staleGenerationError } from '../decide/generation.js';
import { applyEvents } from '../decide/apply.js';
import type { RetryPolicy } from '../decide/retry.js';
import { checklistChangedWarning, checklistsChanged } from '../decide/start.js';
import { activeJobs, atRest, step } from '../decide/step.js';
import type { CodeSnapshot } from './code-ship.js';
import type { ActiveAttempt, Executor } from './executor.js';
import type { FileStateStore } from './store/file-store.js';
import { LinkError } from './transport/transport.js';
import { withUnitsDone } from './units-done.js';

/** What a CampaignController is made with. */
export interface ControllerOptions {
  manifest: Manifest;
  plan: Plan;
  executor: Executor;
  store: FileStateStore;
  now?: () => string;
  /** Confines the pass to one phase and stage (a job of a generated workflow); the whole campaign when absent. */
  scope?: Scopes;
  /** Told when a pass is cut short by the link to the cluster and will be made again. */
  warn?: (message: string) => void;
  /** The git commit of the manifest, where it is in a git checkout: recorded with each attempt sent. */
  commit?: string;
  /** The code snapshot the plan's submissions run (`plan.code`), shipped before the first of them. */
  code?: CodeSnapshot;
}

/** How long passes may keep being cut short by the link, with none getting through, before the controller gives up. */
const MAX_INTERRUPTED_MS = 10 * 60_000;

export class CampaignController {
  private readonly now: () => string;
  private readonly policy: RetryPolicy;
  /** When the passes began to be cut short (none has got through since). */
  private interruptedSince: number | undefined;
  /** The code snapshot shipped by this controller, if any. */
  private shipped: string | undefined;
  /** The active attempts of the tasks record last looked at (see activeAttempts). */
  private active: { tasks: CampaignState['tasks']; attempts: Map<string, ActiveAttempt> } | undefined;
  /** The campaign's generation this controller follows, once its first pass has joined it. */
  private generation: string | undefined;

  constructor(private readonly options: ControllerOptions) {
    this.now = options.now ?? (() => new Date().toISOString());
    this.policy = retryPolicy(options.manifest, options.plan);
  }

  /** The stored state, checked; a new one when there is none. */
  load(): Promise<CampaignState> {
    return loadState(this.options.store, this.options.manifest.campaign, this.now());
  }

  /**
   * One pass; returns the saved state and whether the campaign has come to rest. A pass cut
   * short by the link (a dropped connection, a command that timed out) saves nothing and
   * returns the state it was given: made again, it converges, because the executor finds what
   * the cut-short pass had already sent.
   */
  async pass(state: CampaignState): Promise<{ state: CampaignState; atRest: boolean }> {
    try {
      const done = await this.passOnce(state);
      this.interruptedSince = undefined;
      return done;
    } catch (e) {
      if (!(e instanceof LinkError)) throw e;
      const now = Date.parse(this.now());
      this.interruptedSince ??= now;
      if (now - this.interruptedSince > MAX_INTERRUPTED_MS) {
        throw new UserError({
          message: `no pass has got through the link to the cluster for ${Math.round((now - this.interruptedSince) / 60_000)} minutes: ${e.message}`,
          fix: 'check the connection to the cluster; the state is saved, and the same command resumes',
        });
      }
      this.options.warn?.(`pass cut short, it will be made again: ${e.message}`);
      return { state, atRest: false };
    }
  }

  private async passOnce(given: CampaignState): Promise<{ state: CampaignState; atRest: boolean }> {
    // Joined on the first pass, so that a stale state stops before it observes anything.
    const joining = this.generation === undefined;
    const state = joining ? await this.followGeneration(given) : given;
    const looked = this.activeAttempts(state);
    const observed = await withUnitsDone(
      this.options.manifest,
      this.options.executor,
      looked,
      await this.options.executor.observe(looked),
    );
    let next = applyEvents(state, observed, this.policy);
    // Before the completions are saved: a pass cut short writes them again when it is made again.
    await this.recordProvenance(
      next,
      observed.flatMap((e) => (e.type === 'finished' && e.class === 'completed' ? [e.task] : [])),
    );
    // Every active job counts, those of tasks the plan no longer has too.
    const active = activeJobs(this.options.plan, next.tasks);
    const decided = step(
      next,
      this.options.plan,
      this.now(),
      this.options.executor.capacity(active),
      this.options.executor.ended?.(),
    );
    next = decided.state;
    const actions = this.options.scope ? scopeActions(decided.actions, this.options.scope) : decided.actions;
    if (!joining && actions.some((a) => a.type === 'submit')) next = await this.followGeneration(next);
    const acted: CampaignEvent[] = [];
    // One by one: a submission of a million tasks gives more events than a call takes arguments.
    for (const action of actions) for (const e of await this.act(action, next)) acted.push(e);
    // A tasks record made in this pass is seen by no one else yet: changed in place, not copied again.
    next = applyEvents(next, acted, this.policy, next.tasks === state.tasks ? undefined : next.tasks);
    // Dependent phases may move on in the same pass (a gate passed, a phase completed).
    const settled = step(next, this.options.plan, this.now(), 0).state;
    await this.options.store.append([...observed, ...acted]);
    await this.options.store.save(settled);
    // Kept for the saved record, so that the record this pass began from is not kept alive.
    this.trackActive(settled);
    const rest = this.options.scope
      ? scopeAtRest(this.options.plan, settled, actions, this.options.scope)
      : atRest(settled, decided.actions);
    return { state: settled, atRest: acted.length === 0 && rest };
  }

  /**
   * The state following the campaign's generation as the workdir records it (decide/generation.ts),
   * looked at before tasks are sent: its own recorded where none is (of two controllers, the first
   * writer's stands), the one recorded adopted by a state that followed none. A state of an
   * older generation (another controller ran --fresh) is moved aside, and the controller stops
   * with the reason instead of sending its tasks again.
   */
  private async followGeneration(state: CampaignState): Promise<CampaignState> {
    const executor = this.options.executor;
    const followed = this.generation ?? state.generation;
    let next = generationStep(followed, state.created, await executor.workdir.generation.read());
    if (next.do === 'record')
      next = generationStep(followed, state.created, await executor.workdir.generation.record(next.generation));
    if (next.do === 'stale') throw await this.stale(next.recorded);
    this.generation = next.generation;
    return state.generation === next.generation ? state : { ...state, generation: next.generation };
  }

  /** The stale state moved to the state directory's `previous/`, and the error that says why. */
  private async stale(recorded: string): Promise<UserError> {
    const dest = join(this.options.store.dir, 'previous', this.now().replace(/[:.]/g, '-'));
    await this.options.store.setAside(dest);
    return staleGenerationError(recorded, dest);
  }

  /**
   * Stops every running attempt (the executor kills each one's whole process group, SIGKILL
   * after SIGTERM) and observes until each has ended, as `cancelled`, or `waitMs` has passed.
   * Returns the saved state and the attempts still running at the end.
   */
  async cancel(state: CampaignState, waitMs: number): Promise<{ state: CampaignState; running: string[] }> {
    const executor = this.options.executor;
    if (!executor.cancel) {
      throw new UserError({
        message: `the ${this.options.manifest.cluster.executor} executor cannot cancel tasks`,
        fix: 'stop them with the scheduler or on the machine they run on',
      });
    }
    await executor.cancel(this.activeAttempts(state));
    const end = Date.now() + waitMs;
    let next = state;
    for (;;) {
      const active = this.activeAttempts(next);
      if (active.length === 0 || Date.now() > end) {
        await this.options.store.save(next);
        return { state: next, running: active.map((a) => a.task.id) };
      }
      const observed = await executor.observe(active);
      next = applyEvents(next, observed, this.policy);
      await this.options.store.append(observed);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  /** Writes the provenance record beside each of these tasks' completed outputs (state/provenance.ts). */
  async recordProvenance(state: CampaignState, taskIds: readonly string[]): Promise<void> {
    if (taskIds.length === 0) return;
    const files = provenanceFiles(this.options.plan, state, taskIds);
    const failed = await this.options.executor.workdir.writeFiles(files);
    if (failed.length > 0)
      this.options.warn?.(
        `could not write the provenance record of ${failed.length} output${failed.length === 1 ? '' : 's'} (${failed[0]}); the state keeps what it would say`,
      );
  }

  /**
   * A loaded state checked before a run resumes it, with what the run is to say: phases whose
   * checklist changed since a failed gate, and completed tasks whose outputs are gone (one
   * batched query; the outputs, not the stored state, say what is done). `retryHow` names the
   * way to run those again.
   */
  async reconcile(state: CampaignState, retryHow: string): Promise<{ state: CampaignState; warnings: string[] }> {
    const warnings = checklistsChanged(state, this.options.plan).map(checklistChangedWarning);
    const outputs = completedOutputs(state, this.options.plan);
    if (outputs.size === 0) return { state, warnings };
    const missing = new Set(await this.options.executor.workdir.missing([...outputs.values()]));
    const gone = new Map([...outputs].filter(([, path]) => missing.has(path)));
    if (gone.size > 0) warnings.push(outputsGoneWarning(gone, retryHow));
    return { state: outputsGone(state, gone), warnings };
  }

  /**
   * The active attempts the executor is to look at (of the tasks the plan has). Kept from pass to
   * pass and updated for the tasks that changed: looking up 100,000 scattered tasks each pass
   * cost a tenth of a second.
   */
  private activeAttempts(state: CampaignState): ActiveAttempt[] {
    return [...this.trackActive(state).values()];
  }

  /** The active attempts of `state`, brought up to date from those of the record last looked at. */
  private trackActive(state: CampaignState): Map<string, ActiveAttempt> {
    const index = indexOf(state.tasks);
    const known = this.active;
    const changed = known && changedSince(known.tasks, state.tasks);
    let attempts = known?.attempts;
    if (attempts === undefined || changed === undefined) {
      attempts = new Map();
      for (const s of ACTIVE) for (const id of index.ids(s)) this.putActive(attempts, id, state.tasks[id]!);
    } else {
      for (const id of changed) this.putActive(attempts, id, state.tasks[id]);
    }
    this.active = { tasks: state.tasks, attempts };
    return attempts;
  }

  /** Puts task `id`'s active attempt in `attempts`, or takes it out where it has none. */
  private putActive(attempts: Map<string, ActiveAttempt>, id: string, t: TaskState | undefined): void {
    const where = placement(this.options.plan, id);
    const attempt = t?.attempts.at(-1);
    if (!t || !ACTIVE.has(t.status) || !where || !attempt) {
      attempts.delete(id);
      return;
    }
    if (attempts.get(id)?.attempt === attempt) return;
    const { array } = where;
    // Every field in one literal, so that the 100,000 of them share one shape with no property
    // array besides. A continuation or a grown retry runs under a walltime of its own.
    attempts.set(id, {
      task: where.spec,
      attempt,
      walltimeSeconds: attempt.walltimeSeconds ?? array.budget.seconds,
      partition: array.budget.partition ?? array.resources.partition,
      gpus: array.resources.gpus,
    });
  }

  /**
   * The code the submissions run, shipped once per controller before the first of them: a run
   * that submits nothing ships nothing, and one whose snapshot is there already costs one check.
   */
  private async shipCode(submissions: readonly Submission[]): Promise<void> {
    const id = submissions.find((s) => s.code !== undefined)?.code;
    if (id === undefined || this.shipped === id) return;
    if (this.options.code?.facts.id !== id)
      throw new Error(
        `a submission runs code snapshot ${id}, and the controller was given ${this.options.code?.facts.id}`,
      );
    await this.options.executor.workdir.shipCode(this.options.code);
    this.shipped = id;
  }

  private async act(action: Action, state: CampaignState): Promise<CampaignEvent[]> {
    const at = (): string => this.now();
    const phase = (name: string) => this.options.plan.phases.find((p) => p.name === name)!;
    switch (action.type) {
      case 'submit': {
        // Each attempt keeps the walltime it ran under (headroom is judged against it after the
        // manifest changes) and the definition it ran under (a result counts for that one only).
        const sent = new Map(action.submissions.map((s) => [`${s.task.id}:${s.attempt}`, s]));
        await this.shipCode(action.submissions);
        const events = await this.options.executor.submit(action.submissions);
        return events.map((e) => {
          const s =
            e.type === 'submitted' || e.type === 'submit_failed' ? sent.get(`${e.task}:${e.attempt}`) : undefined;
          if (!s || (e.type !== 'submitted' && e.type !== 'submit_failed')) return e;
          // Object.assign, not a spread: V8 gives every object spread from one of many shapes a
          // hidden class of its own, made in the old generation (see decide/copies.ts, amended).
          return Object.assign({}, e, {
            ...(e.type === 'submitted' ? { walltimeSeconds: s.array.budget.seconds } : {}),
            ...(s.task.definition === undefined ? {} : { definition: s.task.definition }),
            ...(s.stageDefinition === undefined ? {} : { stageDefinition: s.stageDefinition }),
            ...(this.options.commit === undefined ? {} : { commit: this.options.commit }),
            ...(s.code === undefined ? {} : { code: s.code }),
          });
        });
      }
      case 'check_preconditions': {
        const p = phase(action.phase);
        const manifestPhase = this.options.manifest.phases.find((m) => m.name === p.name)!;
        const paths = new Set<string>();
        for (const t of p.tasks) {
          for (const tpl of p.preconditions)
            paths.add(renderPath(this.options.manifest, manifestPhase, tpl, t.values, t.tag));
        }
        return [
          {
            type: 'preconditions',
            phase: p.name,
            at: at(),
            missing: await this.options.executor.workdir.missing([...paths]),
          },
        ];
      }
      case 'hold': {
        // Taken out of the queue, then ended here: a cancelled index that never started may
        // leave no record for a later pass to find. One that started between the decision and
        // the withdrawal is a real attempt, left to end as it will (on the full disk, or not).
        const held = new Set(action.tasks.map((t) => `${t.task}:${t.attempt}`));
        const attempts = this.activeAttempts(state).filter((a) => held.has(`${a.task.id}:${a.attempt.n}`));
        const withdrawn = (await this.options.executor.withdraw?.(attempts)) ?? [];
        return withdrawn.map((a) => ({
          type: 'finished',
          task: a.task.id,
          attempt: a.attempt.n,
          at: at(),
          class: 'disk_full',
          reason: action.reason,
        }));
      }
      case 'evaluate_gate': {
        const p = phase(action.phase);
        const withText = p.checklist.some((check) => check.check === 'records');
        const facts: SmokeFacts[] = [];
        for (const spec of p.smoke) {
          const ts = state.tasks[spec.id]!;
          const last = ts.attempts[ts.attempts.length - 1];
          const commands: SmokeFacts['commands'] = {};
          for (const [i, check] of p.checklist.entries()) {
            if (check.check === 'command')
              commands[i] = await this.options.executor.workdir.runCheck(spec, toShell(check.run));
          }
          facts.push({
            task: spec,
            state: ts,
            log: last ? await this.options.executor.readLog(spec, last) : '',
            ...(last ? { output: await this.options.executor.workdir.outputFacts(spec, last, withText) } : {}),
            commands,
          });
        }
        return [
          {
            type: 'gate',
            phase: p.name,
            at: at(),
            results: evaluateChecklist(p.checklist, facts),
            checklist: checklistKey(p.checklist),
            definitions: smokeDefinitions(p),
          },
        ];
      }
    }
  }
}

/** The stored state of a campaign, checked against the schema; a new one when there is none. */
export async function loadState(store: FileStateStore, campaign: string, now: string): Promise<CampaignState> {
  const raw = await store.load();
  return raw === undefined ? emptyState(campaign, now) : checkedState(raw, store, campaign);
}

/** A stored state as read from `store`, checked against the schema and the campaign's name. */
export function checkedState(raw: unknown, store: FileStateStore, campaign: string): CampaignState {
  const parsed = campaignStateSchema.safeParse(raw);
  if (!parsed.success) {
    throw new UserError({
      message: `${store.statePath} is not a campaign state: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
      fix: 'restore it from state.prev.json or an artifact, or move it away to start the campaign afresh',
    });
  }
  if (parsed.data.campaign !== campaign) {
    throw new UserError({
      message: `${store.statePath} belongs to campaign "${parsed.data.campaign}", not "${campaign}"`,
      fix: 'use the state directory of this campaign (--state-dir)',
    });
  }
  return parsed.data;
}
