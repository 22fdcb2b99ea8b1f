/**
 * `campaign check`: everything that would stop the campaign, tried before anything is
 * submitted. The checks every executor shares are here (the login, the workdir, its disk, the
 * environment on the login node, the first phases' preconditions); each kind adds its own (see
 * `preflight` in executors.ts). Nothing is submitted or left behind.
 */
import { UserError } from '../errors.js';
import type { Executor } from '../exec/executor.js';
import type { Transport } from '../exec/transport/transport.js';
import { restriction, type Environment } from '../manifest/schema.js';
import type { Plan } from '../plan/plan.js';
import { environmentFor } from '../manifest/environment.js';
import { renderEnvironmentProbe } from '../render/environment.js';
import { shellQuote } from '../render/shell.js';
import { GATE_LINE, taskInputs } from '../render/task-script.js';
import type { Campaign } from './load.js';

export interface PreflightItem {
  /** What was checked: login, workdir, disk, environment, preconditions, cluster, submission, gpus. */
  check: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  /** The phases a failure blocks; every phase when absent. */
  phases?: string[];
  fix?: string;
}

const MARKS: Record<PreflightItem['status'], string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };

/**
 * The items as lines: a mark, the check, what it found, and the way out of a failure; then
 * which phases are blocked, with the phases that depend on them.
 */
export function renderPreflight(
  items: readonly PreflightItem[],
  phases: readonly { name: string; dependsOn: readonly string[] }[],
): string {
  const width = Math.max(...items.map((i) => i.check.length), 5);
  const lines = items.flatMap((i) => [
    `${MARKS[i.status]}  ${i.check.padEnd(width)}  ${i.detail}${i.status === 'fail' && i.phases ? ` [blocks ${i.phases.join(', ')}]` : ''}`,
    ...(i.fix && i.status !== 'ok' ? [`${' '.repeat(width + 8)}fix: ${i.fix}`] : []),
  ]);
  const failed = items.filter((i) => i.status === 'fail');
  const blocked = new Set(failed.flatMap((i) => i.phases ?? phases.map((p) => p.name)));
  // Carried downstream until nothing changes, whatever order the phases are listed in.
  for (let grew = true; grew;) {
    grew = false;
    for (const p of phases)
      if (!blocked.has(p.name) && p.dependsOn.some((d) => blocked.has(d))) grew = Boolean(blocked.add(p.name));
  }
  lines.push(
    failed.length === 0
      ? `nothing blocks the campaign (${items.length} checks)`
      : `${failed.length} of ${items.length} checks failed; blocked: ${phases
          .filter((p) => blocked.has(p.name))
          .map((p) => p.name)
          .join(', ')}`,
  );
  return lines.join('\n') + '\n';
}

/** Below this much free space in the workdir's filesystem, a warning. */
const LOW_DISK_BYTES = 1024 ** 3;

/** A UserError's issues as failed items of one check. */
export function failedItems(check: string, e: unknown, phases?: string[]): PreflightItem[] {
  if (!(e instanceof UserError)) throw e;
  return e.problems.map((i) => ({
    check,
    status: 'fail',
    detail: i.message,
    ...(i.fix ? { fix: i.fix } : {}),
    ...(phases ? { phases } : {}),
  }));
}

/**
 * The shared checks, then `specific` (the kind's own) once the login is known to work. Stops
 * after a failed login: nothing else can be tried.
 */
export async function runPreflight(
  c: Campaign,
  plan: Plan,
  made: { executor: Executor; transport: Transport; where: string },
  specific: () => Promise<PreflightItem[]>,
): Promise<PreflightItem[]> {
  const { executor, transport, where } = made;
  const items: PreflightItem[] = [];
  const restricted = restriction(c.manifest.cluster) !== undefined;
  try {
    // Through a shell, as every command campaign sends, so that a login that runs none (an
    // automation node not declared restricted) fails here; restricted, as plain words.
    const r = restricted ? await transport.run(['uname', '-n']) : await transport.exec('uname -n');
    if (r.code !== 0) throw new UserError(`uname -n failed on ${where}: ${r.stderr.trim() || `exit ${r.code}`}`);
    items.push({ check: 'login', status: 'ok', detail: `${where} answers (node ${r.stdout.trim()})` });
  } catch (e) {
    return [...items, ...failedItems('login', e)];
  }
  let workdir: string;
  try {
    workdir = await executor.workdir.path();
    items.push(...(await (restricted ? restrictedWorkdirItems : workdirItems)(transport, workdir)));
  } catch (e) {
    return [...items, ...failedItems('workdir', e)];
  }
  items.push(...(restricted ? environmentNotProbed(c) : await environmentItems(c, transport, workdir)));
  items.push(...(await preconditionItems(c, plan, executor)));
  items.push(...(await specific()));
  return items;
}

/** The workdir writable (or creatable), and the free space of its filesystem. */
async function workdirItems(transport: Transport, workdir: string): Promise<PreflightItem[]> {
  const r = await transport.exec(
    [
      `w=${shellQuote(workdir)}`,
      'p=$w; while [ ! -e "$p" ]; do p=$(dirname -- "$p"); done',
      'if [ "$p" = "$w" ]; then',
      '  t=$(mktemp -p "$w" .campaign-check.XXXXXX 2>/dev/null) && rm -f -- "$t" && echo "writable" || echo "readonly"',
      'elif [ -d "$p" ] && [ -w "$p" ]; then echo "creatable $p"; else echo "blocked $p"; fi',
      'df -Pk -- "$p" 2>/dev/null | awk \'NR == 2 { print "free " $4 * 1024 }\'',
    ].join('\n'),
  );
  const out = r.stdout.split('\n');
  const [state = '', at = ''] = (out[0] ?? '').split(' ');
  const items: PreflightItem[] = [];
  if (state === 'writable') items.push({ check: 'workdir', status: 'ok', detail: `${workdir} is writable` });
  else if (state === 'creatable')
    items.push({ check: 'workdir', status: 'ok', detail: `${workdir} will be created (in ${at}, which is writable)` });
  else
    items.push({
      check: 'workdir',
      status: 'fail',
      detail:
        state === 'readonly'
          ? `${workdir} is not writable by the login user`
          : `${workdir} cannot be created: ${at || workdir} is not a writable directory`,
      fix: 'choose a workdir the login user may write (e.g. under $HOME or your scratch space), or fix its permissions',
    });
  const free = Number(/^free (\d+)$/m.exec(r.stdout)?.[1] ?? NaN);
  if (Number.isFinite(free)) {
    items.push({
      check: 'disk',
      status: free < LOW_DISK_BYTES ? 'warn' : 'ok',
      detail: `${(free / 1024 ** 3).toFixed(1)} GiB free where the workdir is`,
      ...(free < LOW_DISK_BYTES
        ? { fix: 'free some space, or move the workdir to a larger filesystem (scratch)' }
        : {}),
    });
  }
  return items;
}

/** An automation node runs no shell to probe with: the workdir is looked at by SFTP, its room not at all. */
async function restrictedWorkdirItems(transport: Transport, workdir: string): Promise<PreflightItem[]> {
  const st = await transport.stat(workdir);
  return [
    {
      check: 'workdir',
      status: 'ok',
      detail: `${workdir} ${st ? 'exists' : 'will be created'} (an automation node has no shell to test writing or free space with: the first upload does)`,
    },
  ];
}

/** The environment is activated by each task's `environment` gate; the login node cannot try it without a shell. */
function environmentNotProbed(c: Campaign): PreflightItem[] {
  const phases = c.manifest.phases.filter((p) => environmentFor(c.manifest, p)).map((p) => p.name);
  if (phases.length === 0) return [];
  return [
    {
      check: 'environment',
      status: 'warn',
      detail:
        'not tried on the login node: an automation node runs no shell (each task checks it as its environment gate)',
      phases,
      fix: 'try it once by hand on a login node with a shell, or let the smoke stage find out',
    },
  ];
}

/** Each distinct environment of the phases, activated on the login node by the probe a task would run. */
async function environmentItems(c: Campaign, transport: Transport, workdir: string): Promise<PreflightItem[]> {
  const byEnv = new Map<string, { env: Environment; phases: string[] }>();
  for (const phase of c.manifest.phases) {
    const env = environmentFor(c.manifest, phase);
    if (!env) continue;
    const key = JSON.stringify(env);
    const seen = byEnv.get(key);
    if (seen) seen.phases.push(phase.name);
    else byEnv.set(key, { env, phases: [phase.name] });
  }
  const items: PreflightItem[] = [];
  for (const { env, phases } of byEnv.values()) {
    const what = [
      ...(env.modules ? [`modules ${env.modules.join(' ')}`] : []),
      ...(env.conda ? [`conda ${env.conda}`] : []),
      ...(env.venv ? [`venv ${env.venv}`] : []),
    ].join(', ');
    const r = await transport.exec(renderEnvironmentProbe(env, workdir));
    const failed = GATE_LINE.exec(r.stdout);
    if (r.code === 0 && !failed)
      items.push({ check: 'environment', status: 'ok', detail: `${what} activates`, phases });
    else
      items.push({
        check: 'environment',
        status: 'fail',
        detail: `${what} does not activate on the login node: ${failed?.[2]?.trim() || r.stderr.trim() || `exit ${r.code}`}`,
        phases,
        fix: 'load the same modules or activate the same environment by hand on the login node to see why (`module spider NAME` finds a module)',
      });
  }
  return items;
}

/** The preconditions of the phases that depend on none: they must exist before the first submission. */
async function preconditionItems(c: Campaign, plan: Plan, executor: Executor): Promise<PreflightItem[]> {
  const items: PreflightItem[] = [];
  for (const phase of plan.phases) {
    if (phase.dependsOn.length > 0 || phase.preconditions.length === 0) continue;
    const paths = [...new Set([...phase.smoke, ...phase.tasks].flatMap((t) => taskInputs(c.manifest, t)))];
    const missing = await executor.workdir.missing(paths);
    items.push(
      missing.length === 0
        ? {
            check: 'preconditions',
            status: 'ok',
            detail: `the ${paths.length} inputs of ${phase.name} exist`,
            phases: [phase.name],
          }
        : {
            check: 'preconditions',
            status: 'fail',
            detail: `${missing.length} of the ${paths.length} inputs of ${phase.name} are missing: ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}`,
            phases: [phase.name],
            fix: 'put the inputs in place (relative to the workdir), or correct the preconditions',
          },
    );
  }
  return items;
}
