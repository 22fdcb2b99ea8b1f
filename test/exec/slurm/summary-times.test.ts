/**
 * The summary's times are right to the figure: a phase's wall time and its mean task are the
 * scheduler's own (sacct's Start and End of each array task), never a mix of this machine's
 * clock and the cluster's; and a failed task's log tail says where the log is.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatDuration } from '../../../src/manifest/units.js';
import { useBuiltCliAndTemp, waitUntil } from '../../helpers/cli.js';
import { clusterIsUp, runSlurmCampaign, slurm } from '../../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from '../transport/sshd.js';

const clusterUp = clusterIsUp('summary times');
const tempRoot = useBuiltCliAndTemp('summary-times');
let sshd: Sshd | undefined;

beforeAll(async () => {
  if (clusterUp) sshd = await sshdUp();
}, 300_000);

/** Start and end (ms) of the campaign's array tasks, as sacct has them. */
function sacctTimes(name: string): { start: number; end: number }[] {
  const out = slurm('sacct', ['-X', '-n', '-P', '-S', 'now-3hours', '-o', 'JobName,Start,End']);
  return out.split('\n').flatMap((l) => {
    const [job, start, end] = l.split('|');
    if (!job?.startsWith(`${name}~`) || !start || !end || end === 'Unknown') return [];
    // sacct prints the cluster's local time without a zone; the test cluster runs in this machine's zone.
    return [{ start: Date.parse(start), end: Date.parse(end) }];
  });
}

describe.runIf(clusterUp)('summary times on the test cluster, over SSH', () => {
  it("a phase's wall time and mean task are sacct's; a failed task's log tail names its path", async (ctx) => {
    if (!sshd) return ctx.skip();
    const c = await runSlurmCampaign(
      tempRoot(),
      'times',
      sshd,
      `  - name: ok
    grid: { k: [1, 2] }
    command: sleep 3; echo \${k} > \${output}
    output: o_\${k}.txt
    walltime: 5m
  - name: bad
    command: exit 3
    walltime: 5m
`,
    );
    const r = await c.run.done;
    expect(r.code, r.stderr).toBe(1);
    const summary = await readFile(join(c.stateDir, 'summary.md'), 'utf8');
    const row = (phase: string) =>
      summary
        .split('\n')
        .find((l) => l.startsWith(`| ${phase} |`))!
        .split('|')
        .map((x) => x.trim());
    // slurmdbd may record the last ends seconds after the campaign judged them by the queue.
    const okTimes = await waitUntil(
      'sacct to record both ok tasks',
      async () => {
        const times = sacctTimes(c.name).filter((t) => t.end - t.start >= 2000);
        return times.length === 2 ? times : undefined;
      },
      30_000,
      500,
    );
    const wall = (Math.max(...okTimes.map((t) => t.end)) - Math.min(...okTimes.map((t) => t.start))) / 1000;
    const mean = okTimes.reduce((n, t) => n + (t.end - t.start), 0) / okTimes.length / 1000;
    // Columns: phase, status, tasks, completed, running, queued, failed, retries, wall time, mean task, ….
    expect(row('ok')[9]).toBe(formatDuration(wall));
    expect(row('ok')[10]).toBe(formatDuration(mean));
    expect(row('bad')[9]).not.toMatch(/^-/);
    // Its log holds campaign's own lines only; the summary says where it is.
    expect(summary).toMatch(/The end of its log \(\S+\/logs\/\d+\.log\):/);
  }, 300_000);
});
