/**
 * A restricted campaign (an automation node: no sacct) whose controller dies right after
 * submitting, while its tasks end in different ways; by the time it runs again, slurmctld has
 * purged the ended jobs (MinJobAge), so `squeue -t all` no longer lists them and each task is
 * judged by the markers its batch script left and its log alone. MinJobAge is lowered on the
 * shared cluster for that while (it purges everyone's ended jobs), so this runs with the fault
 * tests, alone, and puts the cluster's slurm.conf back as soon as the jobs are gone. A second
 * campaign loses its state meanwhile: it is rebuilt from the task tables and markers alone.
 */
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATE_EXIT } from '../../../src/render/task-script.js';
import { readState, runCli, startCli, useBuiltCliAndTemp, waitUntil, writeManifest } from '../../helpers/cli.js';
import { clusterEnv, clusterIsUp, jobsNamed, jobsRecorded, slurm } from '../../helpers/slurm-cluster.js';
import {
  type AutomationNode,
  automationNodeUp,
  gateLog,
  gateLogMark,
  restrictedManifestHead,
} from '../../automation-node/fixture.js';

const clusterUp = clusterIsUp('MinJobAge fault test');
const tempRoot = useBuiltCliAndTemp('min-job-age');
let node: AutomationNode | undefined;
const LONG = 400_000;
/** MinJobAge as scripts/cluster/up writes it, and as lowered here: ended jobs purged 10 s after their end. */
const USUAL = 'MinJobAge=86400';
const LOWERED = 'MinJobAge=10';

/** slurm.conf as it was before the test lowered MinJobAge; undefined while it is as it was. */
let original: string | undefined;

const minJobAge = (): string | undefined => /^MinJobAge\s*=\s*(\d+)/m.exec(slurm('scontrol', ['show', 'config']))?.[1];

async function lowerMinJobAge(): Promise<void> {
  const conf = clusterEnv().SLURM_CONF!;
  const text = await readFile(conf, 'utf8');
  if (!new RegExp(`^${USUAL}$`, 'm').test(text))
    throw new Error(`${conf} has no line ${USUAL} (as scripts/cluster/up writes it): run scripts/cluster/up again`);
  original = text;
  await writeFile(conf, text.replace(new RegExp(`^${USUAL}$`, 'm'), LOWERED));
  slurm('scontrol', ['reconfigure']);
  await waitUntil('slurmctld to take the lowered MinJobAge', async () => (minJobAge() === '10' ? true : undefined));
}

/** Puts slurm.conf back as it was and has slurmctld read it again; nothing when it is as it was. */
async function restore(): Promise<void> {
  if (original === undefined) return;
  await writeFile(clusterEnv().SLURM_CONF!, original);
  slurm('scontrol', ['reconfigure']);
  original = undefined;
}

/** The names of the jobs `squeue -t all` lists: pending, running, or ended and not yet purged. */
const queued = (): string[] => slurm('squeue', ['-h', '-r', '-t', 'all', '-o', '%j']).split('\n');

beforeAll(async () => {
  if (clusterUp) node = await automationNodeUp(join(tmpdir(), 'campaign-automation-minjobage'), 16036);
}, 90_000);

afterAll(async () => {
  // Whatever happened, MinJobAge is back for whoever uses the cluster next.
  if (clusterUp) await restore();
});

/** The manifest of one campaign of the test: tasks that end in different ways, `held` running until cancelled. */
function manifestText(n: AutomationNode, name: string, workdir: string, oom: boolean): string {
  // The sleeps keep each end after the controller is killed; `held` runs until the test cancels it.
  return `${restrictedManifestHead(n, name, workdir)}phases:
  - name: ok
    command: sleep 2; echo done > \${output}
    output: ok.txt
    walltime: 5m
  - name: broken
    command: sleep 2; echo "diverged" >&2; exit 3
    walltime: 5m
  - name: gated
    setup: sleep 2; exit 4
    command: echo never
    walltime: 5m
  - name: held
    command: sleep 600
    walltime: 5m
${
  oom
    ? `  - name: big
    command: sleep 2; python3 -c "x = bytearray(300 * 1024 * 1024)"
    walltime: 5m
    resources: { mem: 100M }
`
    : ''
}`;
}

describe.runIf(clusterUp)('a pass after MinJobAge (restricted, real cluster, through an automation node)', () => {
  it(
    'classes each task that ended while no controller ran, and was purged from the queue, by its markers, with its state kept or lost; nothing sent twice, nothing refused',
    async (ctx) => {
      if (!node) return ctx.skip();
      const n = node;
      const oom = clusterEnv().CAMPAIGN_CLUSTER_MEMORY_MODE === 'cgroup';
      if (!oom)
        console.warn(
          '*** out of memory after MinJobAge not tested: the test cluster has no cgroup memory enforcement here ***',
        );
      const expected: Record<string, { cls: string; exitCode: number }> = {
        'ok/task': { cls: 'completed', exitCode: 0 },
        'broken/task': { cls: 'failed', exitCode: 3 },
        'gated/task': { cls: 'gate', exitCode: GATE_EXIT },
        'held/task': { cls: 'cancelled', exitCode: 143 },
        ...(oom ? { 'big/task': { cls: 'out_of_memory', exitCode: 137 } } : {}),
      };
      const ids = Object.keys(expected);
      const mark = await gateLogMark(n);
      const env = { ...process.env, CAMPAIGN_SSH_KEY_FILE: n.keys.all };
      // Two campaigns at once: one keeps its state, the other loses it and is rebuilt from the
      // task tables and markers alone (the queue has forgotten its jobs).
      const campaigns = await Promise.all(
        ['kept', 'lost'].map(async (label) => {
          const dir = join(tempRoot(), label);
          const workdir = join(dir, 'work');
          const name = `minjobage-${label}-${Date.now().toString(36)}`;
          await mkdir(workdir, { recursive: true });
          const manifest = await writeManifest(dir, manifestText(n, name, workdir, oom));
          return { label, name, workdir, stateDir: join(dir, 'state'), manifest, jobs: [] as string[] };
        }),
      );
      const args = (c: (typeof campaigns)[number]) => ['run', c.manifest, '--state-dir', c.stateDir];

      // A long poll: after the pass that submits, each controller waits, and is killed in that wait.
      const firsts = campaigns.map((c) => startCli([...args(c), '--poll', '60'], { env }));
      try {
        await Promise.all(
          campaigns.map(async (c, i) => {
            await waitUntil(
              `every task of ${c.label} submitted`,
              async () => {
                const s = await readState(c.stateDir);
                return ids.every((id) => s.tasks[id]?.attempts[0]?.handle) ? true : undefined;
              },
              120_000,
              100,
            );
            firsts[i]!.child.kill('SIGKILL');
            await firsts[i]!.done;
            // Nothing was seen to end before the kill: every end below is the markers'.
            const submitted = await readState(c.stateDir);
            for (const id of ids) expect(submitted.tasks[id]!.attempts.map((a) => a.class)).toEqual([undefined]);
            // Cancelled behind the controller's back once it runs (its start marker is there).
            const held = submitted.tasks['held/task']!.attempts[0]!;
            const startMarker = join(dirname(dirname(held.log!)), 'markers', `${held.handle!.split('_')[1]}.start`);
            await waitUntil(`held of ${c.label} to start`, () => stat(startMarker).then(() => true), 120_000, 200);
            slurm('scancel', [held.handle!]);
          }),
        );

        await lowerMinJobAge();
        try {
          await waitUntil(
            "the campaigns' jobs to end and be purged from the queue",
            async () => (queued().some((j) => campaigns.some((c) => j.startsWith(`${c.name}~`))) ? undefined : true),
            180_000,
            1000,
          );
        } finally {
          await restore();
        }
        expect(minJobAge()).toBe('86400');
        for (const c of campaigns) {
          c.jobs = await jobsRecorded(`${c.name}~`, ids.length);
          expect(c.jobs).toHaveLength(ids.length);
        }
      } finally {
        for (const f of firsts) f.child.kill('SIGKILL');
        await restore();
      }
      await rm(campaigns[1]!.stateDir, { recursive: true, force: true });

      const again = await gateLogMark(n);
      await Promise.all(
        campaigns.map(async (c) => {
          const r = await runCli([...args(c), '--poll', '2'], { env, timeoutMs: 180_000 });
          expect(r.code, `${c.label}: ${r.stdout}${r.stderr}`).toBe(1);
          const state = await readState(c.stateDir);
          for (const id of ids) {
            const attempts = state.tasks[id]!.attempts;
            expect(
              attempts.map((a) => ({ cls: a.class, exitCode: a.exitCode })),
              `${c.label} ${id}: ${JSON.stringify(attempts)}`,
            ).toEqual([expected[id]]);
          }
          expect(state.tasks['ok/task']!.status).toBe('completed');
          expect(await readFile(join(c.workdir, 'ok.txt'), 'utf8')).toBe('done\n');
          expect(state.tasks['gated/task']!.attempts[0]!.reason).toMatch(/^gate setup: /);
          expect(state.tasks['held/task']!.attempts[0]!.reason).toMatch(
            /^ended by SIGTERM after \d+s, before its walltime/,
          );
          // Nothing was sent again: no job is new.
          expect(jobsNamed(`${c.name}~`), c.label).toEqual(c.jobs);
        }),
      );
      const lines = await gateLog(n, mark);
      expect(lines.filter((l) => l.verdict === 'refused')).toEqual([]);
      // The second runs' only sbatch is the pre-flight's --test-only.
      const sent = (await gateLog(n, again)).filter((l) => /^sbatch /.test(l.command));
      expect(sent.filter((l) => !l.command.startsWith('sbatch --test-only'))).toEqual([]);
    },
    LONG,
  );
});
