/**
 * A warning before the kill, end to end with `campaign run` on each executor, with the patterns
 * training code uses (test/fixtures/checkpoint): a Python loop whose work outlasts its walltime
 * is signalled `before` the end, its handler sets a flag, the next step saves; the attempt ends
 * (at its time limit, or as the command exits after saving) without its output, is continued
 * with CAMPAIGN_RESUME=1 under the walltime of the work it has left, starts from the step saved,
 * and completes. Each test checks what was saved, where the next attempt started, and what the
 * summary says of both. On the real test cluster (whose controller sends the signal and the
 * kill on a 30 s timer: the shortest walltime, a minute, ends after 60 to 90 s), directly and
 * through the automation node, on ssh-gpu with the stand-in GPUs over the test sshd, and
 * locally. They run at once.
 */
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CampaignState } from '../../src/state/state.js';
import { automationNodeUp, restrictedManifestHead, type AutomationNode } from '../automation-node/fixture.js';
import { readState, runCli, useBuiltCliAndTemp, writeManifest, type CliResult } from '../helpers/cli.js';
import { clusterIsUp, slurmCampaign } from '../helpers/slurm-cluster.js';
import { campaignDirs, cluster, sshdUp, uuidOf, type Row } from './ssh-gpu/helpers.js';

const tempRoot = useBuiltCliAndTemp('checkpoint');
const slurmUp = clusterIsUp('checkpoint continuation on the Slurm cluster');
const FIXTURES = resolve(import.meta.dirname, '../fixtures/checkpoint');

let node: AutomationNode | undefined;
beforeAll(async () => {
  if (slurmUp) node = await automationNodeUp(join(tmpdir(), 'campaign-automation-checkpoint'), 16047);
}, 90_000);

/** How each pattern runs, in a directory of its own (its output's). */
const COMMANDS = {
  carries: 'python3 ../train.py carry 50 $STEP',
  exits0: 'python3 ../train.py exit0 $EXIT_STEPS $STEP',
  exits3: 'python3 ../train.py exit3 $EXIT_STEPS $STEP',
  exec: 'exec python3 ../train.py carry 50 $STEP',
  launcher: 'python3 ../launcher.py carry 50 $STEP',
  ignores: 'python3 ../train.py ignore 50 $STEP',
} as const;
type Pattern = keyof typeof COMMANDS;
const ALL = Object.keys(COMMANDS) as Pattern[];

/**
 * A phase of one task per pattern, each 50 steps of `step` seconds, which a cost model of 1 s a
 * step budgets a minute for: the first attempt cannot finish (those that exit on the warning do
 * `exitSteps`). One continuation is allowed, or as many as asked.
 */
const phase = (
  patterns: readonly Pattern[],
  step: number,
  continuations = 1,
  exitSteps = 50,
  name = 'p',
): string => `  - name: ${name}
    grid: { pattern: [${patterns.join(', ')}] }
    output: run_\${pattern}/out.txt
    cost:
      unit: step
      units: 50
      per_unit: 1s
      margin: 1.2
      progress: { log: 'step (?<units>\\d+)' }
    checkpoint: { signal: USR1, before: 10s }
    retry: { timeout: { attempts: ${continuations} } }
    command: |
      STEP=${step}
      EXIT_STEPS=${exitSteps}
      cd run_\${pattern}
      case \${pattern} in
${patterns.map((p) => `        ${p}) ${COMMANDS[p]} ;;`).join('\n')}
      esac
`;

/**
 * On the Slurm cluster, two seconds a step: the first attempt, ended at 60 to 90 s, cannot have
 * done all 50. One that exits on the warning has 30 to do: Slurm's controller sends it on a 30 s
 * timer, 20 to 50 s into a 1-minute attempt, so each attempt does 10 to 25 of them and three may
 * not be enough; the others need one continuation. The one that ignores it, sent once more, is
 * in a phase of its own, listed first: its two full attempts are the longest wait.
 */
const SLURM_EXIT_STEPS = 30;
const slurmPhases =
  phase(['ignores'], 2, 1, SLURM_EXIT_STEPS, 'q') +
  phase(
    ALL.filter((p) => p !== 'ignores'),
    2,
    3,
    SLURM_EXIT_STEPS,
  );

/** The training scripts, copied into the workdir. */
async function withScripts(workdir: string): Promise<void> {
  await mkdir(workdir, { recursive: true });
  for (const f of ['train.py', 'launcher.py']) await copyFile(join(FIXTURES, f), join(workdir, f));
}

/** The task of a pattern, and its attempts. */
function taskOf(state: CampaignState, pattern: Pattern) {
  const id = Object.keys(state.tasks).find((t) => t.includes(pattern))!;
  return { id, attempts: state.tasks[id]!.attempts };
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * A pattern that saves its checkpoint: its first attempt was signalled, saved and ended without
 * its output (at its time limit, or as it exited `exited`); each continuation started from the
 * step saved, the last completed, and the summary says so, with what ended the one before. (On
 * Slurm, whose warning may come half a minute early, one that exits on the warning may need more.)
 */
async function expectContinued(
  state: CampaignState,
  summary: string,
  workdir: string,
  pattern: Pattern,
  exited?: number,
  steps = 50,
): Promise<void> {
  const { id, attempts } = taskOf(state, pattern);
  const ended =
    exited === undefined ? 'ended at \\d:\\d\\d \\(time limit\\)' : `exited ${exited} at \\d:\\d\\d without its output`;
  // Every attempt's end, and the last one's log, where the pattern did not complete.
  const ends = attempts.map((a, i) => `attempt ${i + 1}: ${a.class}, ${a.reason ?? ''}`).join('; ');
  const lastLog = attempts.at(-1)?.log ? await readFile(attempts.at(-1)!.log!, 'utf8').catch(() => '') : '';
  expect(attempts.at(-1)!.class, `${pattern}: ${ends}\n${lastLog.slice(-2000)}`).toBe('completed');
  expect(attempts.length).toBeGreaterThan(1);
  expect(attempts[0]!.resumed).toBeUndefined();
  const saved = Number(/^checkpoint at (\d+)$/m.exec(await readFile(attempts[0]!.log!, 'utf8'))?.[1]);
  expect(saved).toBeGreaterThan(0);
  for (const [i, a] of attempts.entries()) {
    if (i === 0) continue;
    const before = attempts[i - 1]!;
    expect(before.class).toBe('timeout');
    expect(before.reason).toMatch(new RegExp(`^signalled at \\d:\\d\\d, ${ended}$`));
    expect(a).toMatchObject({ resumed: true, walltimeSeconds: 60 });
    expect(a.retimed).toMatch(/^after \d+ steps: \d+ of 50 steps left: /);
    // Each worker of a launcher resumes from its own checkpoint, and the first to print a step
    // gives the attempt's first progress line.
    const log = await readFile(a.log!, 'utf8');
    const resumedAt = [...log.matchAll(/^resumed at (\d+)$/gm)].map((m) => Number(m[1]));
    expect(resumedAt).toHaveLength(pattern === 'launcher' ? 2 : 1);
    // Saved first at the step after the warning, then at every step until the attempt ended.
    if (pattern !== 'launcher') expect(resumedAt[0]).toBeGreaterThanOrEqual(saved);
    expect(resumedAt.map((r) => r + 1)).toContain(a.unitsFrom);
    expect(summary).toContain(
      `| ${id} | ${a.n} | ${a.class} | 1m | attempt ${before.n} \`${before.reason}\`; continued from its checkpoint (its progress started at ${a.unitsFrom}); walltime after `,
    );
  }
  expect(await readFile(join(workdir, `run_${pattern}`, 'out.txt'), 'utf8')).toBe(`${steps}\n`);
  // The result's provenance record says the same.
  const record = JSON.parse(await readFile(join(workdir, `run_${pattern}`, '.out.txt.provenance.json'), 'utf8')) as {
    continued?: string[];
  };
  expect(record.continued).toHaveLength(attempts.length - 1);
  expect(record.continued!.at(-1)).toMatch(
    new RegExp(`^attempt \\d+ signalled at [^;]*; attempt ${attempts.length} continued from its checkpoint \\(`),
  );
}

/** A pattern that ignores the warning: ended at its time limit each time, started over, never claimed continued. */
function expectStartedOver(state: CampaignState, summary: string, pattern: Pattern): void {
  const { id, attempts } = taskOf(state, pattern);
  expect(attempts.map((a) => a.class)).toEqual(['timeout', 'timeout']);
  expect(attempts[0]!.reason).toMatch(/^signalled at \d:\d\d, ended at \d:\d\d \(time limit\)$/);
  expect(attempts[1]!.unitsFrom).toBe(1);
  expect(summary).toMatch(
    new RegExp(
      `\\| ${escape(id)} \\| 2 \\| timeout \\| 1m \\| attempt 1 \`signalled at [^|]*\\(time limit\\)\`; sent to continue from its checkpoint, but started over \\(its progress began at 1, as at first\\)`,
    ),
  );
  expect(summary).not.toMatch(new RegExp(`\\| ${escape(id)} \\|[^\\n]*continued from its checkpoint`));
}

/** Each pattern, as it saves (or not) and ends: continued from its checkpoint, or started over. */
async function expectAllSix(state: CampaignState, summary: string, workdir: string, exitSteps = 50): Promise<void> {
  await expectContinued(state, summary, workdir, 'carries');
  await expectContinued(state, summary, workdir, 'exits0', 0, exitSteps);
  await expectContinued(state, summary, workdir, 'exits3', 3, exitSteps);
  await expectContinued(state, summary, workdir, 'exec');
  await expectContinued(state, summary, workdir, 'launcher');
  // Every worker saved its own checkpoint.
  const rank1 = await readFile(join(workdir, 'run_launcher', 'ckpt.1.txt'), 'utf8');
  expect(Number(rank1)).toBeGreaterThan(0);
  expectStartedOver(state, summary, 'ignores');
}

async function outcome(r: CliResult, stateDir: string) {
  // What the run said, where it left no summary.
  const summary = await readFile(join(stateDir, 'summary.md'), 'utf8').catch(() => '');
  expect(summary, r.stdout + r.stderr).toContain('## Tasks continued or given more time');
  return { state: await readState(stateDir), summary };
}

describe('a task with a checkpoint and a walltime shorter than its work', () => {
  it.concurrent(
    'locally, all six patterns: each is warned, saves as it does, and continues from its checkpoint; one that ignores it starts over',
    async () => {
      const dir = join(tempRoot(), 'local');
      const workdir = join(dir, 'work');
      await withScripts(workdir);
      const manifest = await writeManifest(
        dir,
        `campaign: ck-local\ncluster: { executor: local, max_parallel: 6 }\nworkdir: ${workdir}\nphases:\n${phase(ALL, 1.5)}`,
      );
      const stateDir = join(dir, 'state');
      const r = await runCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.5'], { timeoutMs: 240_000 });
      // The task that ignores the warning never finishes: the campaign fails on it alone.
      expect(r.code, r.stdout + r.stderr).not.toBe(0);
      const { state, summary } = await outcome(r, stateDir);
      await expectAllSix(state, summary, workdir);
    },
    300_000,
  );

  it.concurrent(
    'on ssh-gpu with the stand-in GPUs: all six patterns, the same',
    async (ctx) => {
      const sshd = await sshdUp();
      if (!sshd) return ctx.skip();
      // A GPU for each pattern: all six run at once.
      const rows = [0, 1, 2, 3, 4, 5].map((i): Row => [i, uuidOf(i), 3]);
      const { dir, workdir, gpus } = await campaignDirs(tempRoot)('ssh-gpu', rows);
      await withScripts(workdir);
      const manifest = await writeManifest(
        dir,
        `campaign: ck-gpu\n${cluster(sshd, gpus)}workdir: ${workdir}\nphases:\n${phase(ALL, 1.5)}`,
      );
      const stateDir = join(dir, 'state');
      const r = await runCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.5'], {
        timeoutMs: 240_000,
        env: { ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd.keyFile },
      });
      expect(r.code, r.stdout + r.stderr).not.toBe(0);
      const { state, summary } = await outcome(r, stateDir);
      await expectAllSix(state, summary, workdir);
    },
    300_000,
  );

  it.runIf(slurmUp).concurrent(
    'on the Slurm cluster, the signal sent by Slurm: the same; one that exits after saving ends then, not at its time limit',
    async (ctx) => {
      const sshd = await sshdUp();
      if (!sshd) return ctx.skip();
      const c = await slurmCampaign(tempRoot(), 'ck-slurm', sshd, slurmPhases, 6);
      await withScripts(c.workdir);
      const r = await runCli(['run', c.manifest, '--state-dir', c.stateDir, '--poll', '1'], {
        timeoutMs: 330_000,
        env: { ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd.keyFile },
      });
      expect(r.code, r.stdout + r.stderr).not.toBe(0);
      const { state, summary } = await outcome(r, c.stateDir);
      await expectAllSix(state, summary, c.workdir, SLURM_EXIT_STEPS);
      expect(taskOf(state, 'exits3').attempts[0]!.exitCode).toBe(3);
    },
    360_000,
  );

  it.runIf(slurmUp).concurrent(
    'through the automation node (no shell, no sacct): judged by the markers the same way',
    async (ctx) => {
      if (!node) return ctx.skip();
      const dir = join(tempRoot(), 'restricted');
      const workdir = join(dir, 'work');
      await withScripts(workdir);
      const head = restrictedManifestHead(node, `ck-restricted-${Date.now().toString(36)}`, workdir);
      const manifest = await writeManifest(dir, `${head}phases:\n${slurmPhases}`);
      const stateDir = join(dir, 'state');
      const r = await runCli(['run', manifest, '--state-dir', stateDir, '--poll', '1'], {
        timeoutMs: 330_000,
        env: { ...process.env, CAMPAIGN_SSH_KEY_FILE: node.keys.all },
      });
      expect(r.code, r.stdout + r.stderr).not.toBe(0);
      const { state, summary } = await outcome(r, stateDir);
      await expectAllSix(state, summary, workdir, SLURM_EXIT_STEPS);
    },
    360_000,
  );
});
