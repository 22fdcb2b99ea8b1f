/**
 * Taking queued attempts out of the queue (the disk-full pause's hold), on the real test
 * cluster over real SSH: an index that started before the withdrawal reached it is left to run
 * and is not reported withdrawn; the indices still pending are cancelled and never start.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ActiveAttempt } from '../../../src/exec/executor.js';
import type { Attempt } from '../../../src/state/state.js';
import { slurm, slurmManifestHead } from '../../helpers/slurm-cluster.js';
import { waitUntil, writeManifest } from '../../helpers/cli.js';
import { LONG, RUN, planned, slurmSuite } from './suite.js';

const { clusterUp, sshd, ready, campaignDir, openSlurm } = slurmSuite('withdraw');

/** Each index's state in the queue, by handle. */
function queueStates(jobId: string): Map<string, string> {
  const out = slurm('squeue', ['-h', '-r', '-t', 'all', '-j', jobId, '-o', '%i %T']);
  return new Map(out.split('\n').flatMap((l) => (l.trim() ? [l.trim().split(/\s+/) as [string, string]] : [])));
}

describe.runIf(clusterUp)('withdrawing queued attempts (real cluster, over SSH)', () => {
  it(
    'the running index is left to run and not reported; the pending ones are cancelled and never start',
    async () => {
      if (!ready()) return;
      const { dir, workdir } = await campaignDir('withdraw');
      const manifest = await writeManifest(
        dir,
        `${slurmManifestHead(sshd(), `withdraw-${RUN}`, workdir, '', 1)}phases:
  - name: p
    grid: { k: [1, 2, 3] }
    command: 'sleep 6; echo \${k} > \${output}'
    output: o_\${k}.txt
    walltime: 5m
`,
      );
      const { m, plan } = await planned(manifest);
      const { executor } = openSlurm(m);
      try {
        const array = plan.phases[0]!.arrays[0]!;
        const subs = plan.phases[0]!.tasks.map((task, index) => ({ task, attempt: 1, array, index }));
        const active: ActiveAttempt[] = [];
        for (const e of await executor.submit(subs)) {
          if (e.type !== 'submitted') throw new Error(`not submitted: ${JSON.stringify(e)}`);
          const attempt: Attempt = { n: 1, submittedAt: e.at, handle: e.handle, log: e.log! };
          active.push({ task: subs.find((s) => s.task.id === e.task)!.task, attempt, walltimeSeconds: 300 });
        }
        const jobId = active[0]!.attempt.handle!.split('_')[0]!;
        // One runs at a time (max_parallel 1): the first is running, the others wait behind it.
        const first = active.find((a) => a.task.id === 'p/k1')!.attempt.handle!;
        await waitUntil(
          'the first index running',
          async () => (queueStates(jobId).get(first) === 'RUNNING' ? true : undefined),
          60_000,
          200,
        );

        const withdrawn = await executor.withdraw(active);
        expect(withdrawn.map((a) => a.task.id).sort()).toEqual(['p/k2', 'p/k3']);
        const states = queueStates(jobId);
        expect(states.get(first)).toMatch(/^(RUNNING|COMPLETING|COMPLETED)$/);
        for (const a of withdrawn) expect(states.get(a.attempt.handle!), a.task.id).toBe('CANCELLED');

        // The one left running ends as usual, and its output is there.
        const k1 = active.find((a) => a.task.id === 'p/k1')!;
        let ended: string | undefined;
        await waitUntil(
          'the first index judged',
          async () => {
            for (const e of await executor.observe([k1]))
              if (e.type === 'started') k1.attempt = { ...k1.attempt, startedAt: e.at };
              else if (e.type === 'finished') ended = e.class;
            return ended;
          },
          120_000,
          1000,
        );
        expect(ended).toBe('completed');
        // The withdrawn ones never started: Slurm opened no log for them (the cluster is this machine).
        expect(existsSync(k1.attempt.log!)).toBe(true);
        for (const a of withdrawn) expect(existsSync(a.attempt.log!), a.task.id).toBe(false);
      } finally {
        await executor.close();
      }
    },
    LONG,
  );
});
