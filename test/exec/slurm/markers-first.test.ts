/**
 * Markers first, on the real test cluster over real SSH: the slurm executor's passes read the
 * batch scripts' markers and ask the scheduler only what they cannot say. Every command the
 * executor sends goes through a transport that keeps it, so a test can count the scheduler's
 * queries pass by pass.
 */
import { describe, expect, it } from 'vitest';
import type { ActiveAttempt } from '../../../src/exec/executor.js';
import { SlurmExecutor } from '../../../src/exec/slurm/slurm-executor.js';
import { SshTransport } from '../../../src/exec/transport/ssh.js';
import type { Word } from '../../../src/exec/transport/words.js';
import type { Submission, TaskEvent } from '../../../src/state/events.js';
import type { Attempt } from '../../../src/state/state.js';
import { writeManifest } from '../../helpers/cli.js';
import { LONG, RUN, planned, slurmSuite } from './suite.js';

const { clusterUp, sshd, ready, cluster, campaignDir } = slurmSuite('markers-first');

/** The SSH transport, keeping the text of every command it is given. */
class KeepingTransport extends SshTransport {
  readonly commands: string[] = [];
  override exec(command: string, opts?: { timeoutMs?: number; stdin?: string }) {
    this.commands.push(command);
    return super.exec(command, opts);
  }
  override run(words: readonly Word[], opts?: { timeoutMs?: number; stdin?: string }) {
    this.commands.push(words.map((w) => (typeof w === 'string' ? w : w.glob)).join(' '));
    return super.run(words, opts);
  }
}

const asks = (commands: readonly string[], tool: 'sacct' | 'squeue'): number =>
  commands.filter((c) => new RegExp(`(^|[;\\n] *|=%s )${tool} `).test(c)).length;

describe.runIf(clusterUp)('markers first (real cluster, over SSH)', () => {
  it(
    'a pass of running and completed tasks asks the scheduler nothing; the ended ones are judged in one sacct, a failure at once',
    async () => {
      if (!ready()) return;
      const { dir, workdir } = await campaignDir('markers-first');
      const manifest = await writeManifest(
        dir,
        `${cluster(`markers-${RUN}`, workdir)}phases:
  - name: p
    grid: { n: [1, 2, 3] }
    command: 'sleep \${n}; if [ \${n} = 2 ]; then exit 3; fi; echo \${n} > \${output}'
    output: o_\${n}.txt
    walltime: 5m
`,
      );
      const { m, plan } = await planned(manifest);
      const s = sshd();
      const transport = new KeepingTransport({
        target: s.target,
        hostKeyFingerprint: s.fingerprint,
        keyFile: s.keyFile,
      });
      const executor = new SlurmExecutor({ manifest: m, transport, since: new Date().toISOString() });
      try {
        const array = plan.phases[0]!.arrays[0]!;
        const subs: Submission[] = plan.phases[0]!.tasks.map((task, index) => ({ task, attempt: 1, array, index }));
        const attempts = new Map<string, Attempt>();
        for (const e of await executor.submit(subs)) {
          expect(e.type).toBe('submitted');
          if (e.type === 'submitted') attempts.set(e.task, { n: 1, submittedAt: e.at, handle: e.handle, log: e.log! });
        }
        const passes: { commands: string[]; events: TaskEvent[]; open: number }[] = [];
        const finished = new Map<string, TaskEvent & { type: 'finished' }>();
        const deadline = Date.now() + 120_000;
        while (finished.size < subs.length && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 1000));
          const active: ActiveAttempt[] = subs
            .filter((x) => !finished.has(x.task.id))
            .map((x) => ({ task: x.task, attempt: attempts.get(x.task.id)!, walltimeSeconds: 300 }));
          const before = transport.commands.length;
          const events = await executor.observe(active);
          for (const e of events) {
            const a = attempts.get(e.task)!;
            if (e.type === 'started') attempts.set(e.task, { ...a, startedAt: e.at });
            if (e.type === 'finished') finished.set(e.task, e);
          }
          passes.push({ commands: transport.commands.slice(before), events, open: active.length });
        }
        const byTask = Object.fromEntries([...finished].map(([id, e]) => [id, e.class]));
        expect(byTask).toEqual({ 'p/n1': 'completed', 'p/n2': 'failed', 'p/n3': 'completed' });
        expect(finished.get('p/n2')?.exitCode).toBe(3);
        const sacct = passes.map((p) => asks(p.commands, 'sacct') > 0);
        const judged = passes.map((p) => p.events.some((e) => e.type === 'finished'));
        passes.forEach((p, i) => {
          // The markers are read first, in one command, every pass.
          expect(p.commands[0], `pass ${i}`).toMatch(/^for d in .*markers/);
          // An end is judged with accounting's word (it works here); asked before accounting
          // recorded the end, it is asked again the next pass.
          if (judged[i]) expect(sacct[i], `pass ${i}`).toBe(true);
          if (sacct[i] && !judged[i]) expect(sacct[i + 1], `pass ${i}`).toBe(true);
        });
        // Until the first end, the passes asked the scheduler nothing at all (tasks started and
        // ran within seconds: the queue's cadence, 30 s, had not come).
        const first = sacct.indexOf(true);
        expect(first).toBeGreaterThan(0);
        for (const p of passes.slice(0, first)) expect(asks(p.commands, 'squeue') + asks(p.commands, 'sacct')).toBe(0);
        // However many tasks ended, a pass asks accounting once for all of them, and once more a
        // second later if it lags. (How many passes ask is slurmdbd's lag, which load stretches.)
        for (const [i, p] of passes.entries()) expect(asks(p.commands, 'sacct'), `pass ${i}`).toBeLessThanOrEqual(2);
      } finally {
        await executor.close();
      }
    },
    LONG,
  );
});
