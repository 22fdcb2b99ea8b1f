/**
 * The site's limit on jobs queued (MaxSubmitJobs), read from sacctmgr's answers in the shapes
 * Slurm 22.05 prints them, the room it leaves the campaign beside the user's other jobs, what
 * `campaign check` says of it, and the Slurm executor's capacity under it and max_parallel.
 */
import { describe, expect, it } from 'vitest';
import { queueLimitItem } from '../../../src/app/queue-limit.js';
import type { ClusterLimits } from '../../../src/exec/slurm/fit.js';
import { SlurmExecutor } from '../../../src/exec/slurm/slurm-executor.js';
import {
  chargesOf,
  effectiveLimit,
  isSubmitLimit,
  queueCount,
  queueLines,
  roomUnder,
  siteLimit,
} from '../../../src/exec/slurm/submit-limit.js';
import { QUEUE_LIMIT_OPTION, testedIndices, testOnlyRefusals } from '../../../src/exec/slurm/test-only.js';
import type { Transport } from '../../../src/exec/transport/transport.js';
import { manifest as manifestSchema } from '../../../src/manifest/schema.js';
import { planCampaign } from '../../../src/plan/plan.js';

/** SUBMIT_LIMIT_COMMAND's output: root in the accounts root and lab, a QOS limit on standby. */
const ANSWER = [
  '== assoc',
  'lab||5|',
  'root||3|',
  'root|long|2|standby',
  '== user',
  'root',
  '== qos',
  'normal|4',
  'standby|',
  'premium|1',
  '== queue',
  'other-job@RUNNING',
  'c~abc@PENDING',
  'c~abc@PENDING',
  'done-job@COMPLETED',
  '',
].join('\n');

function manifest(cluster: object, resources: object = {}) {
  return manifestSchema.parse({
    campaign: 'c',
    cluster: { executor: 'slurm', ...cluster },
    workdir: '/w',
    phases: [
      { name: 'a', grid: { seed: [1, 2, 3, 4, 5, 6, 7, 8] }, command: 'run ${seed}', walltime: '5m', resources },
    ],
  });
}

describe('the limit on jobs queued', () => {
  it("takes the smallest of the associations' MaxSubmitJobs and the QOS's MaxSubmitJobsPerUser that apply", () => {
    // The default account (root): its partition rows both apply; the one with standby as default QOS sets none there.
    expect(siteLimit(ANSWER, [{}])).toEqual({
      limit: { limit: 2, from: 'sacctmgr: MaxSubmitJobs of your association (account root, partition long)' },
      read: true,
    });
    // Account lab: its association's 5 against QOS normal's 4 (the default where the association names none).
    expect(siteLimit(ANSWER, [{ account: 'lab' }]).limit).toEqual({
      limit: 4,
      from: 'sacctmgr: MaxSubmitJobsPerUser of QOS normal',
    });
    // A QOS the campaign names, over the association's default.
    expect(siteLimit(ANSWER, [{ account: 'lab', qos: 'premium' }]).limit?.limit).toBe(1);
    expect(siteLimit(ANSWER, [{ account: 'lab', qos: 'standby' }]).limit?.limit).toBe(5);
    // Every account and QOS the campaign charges: the smallest of all.
    expect(siteLimit(ANSWER, [{ account: 'lab' }, { account: 'lab', qos: 'premium' }]).limit?.limit).toBe(1);
  });

  it('says when sacctmgr sets none, or gave nothing (no accounting, not allowed)', () => {
    expect(siteLimit('== assoc\nlab|||\n== user\nlab\n== qos\nnormal|\n== queue\n', [{}])).toEqual({ read: true });
    expect(siteLimit('== assoc\n== user\n== qos\n== queue\n', [{}])).toEqual({ read: false });
  });

  it('a declared max_jobs wins when smaller, and stands alone where the site says nothing', () => {
    const site = { limit: 4, from: 'sacctmgr: MaxSubmitJobsPerUser of QOS normal' };
    expect(effectiveLimit(site, 3)).toEqual({ limit: 3, from: 'cluster.max_jobs' });
    expect(effectiveLimit(site, 10)).toEqual(site);
    expect(effectiveLimit(undefined, 10)).toEqual({ limit: 10, from: 'cluster.max_jobs' });
    expect(effectiveLimit(undefined, undefined)).toBeUndefined();
  });

  it("counts the campaign's jobs and the user's others that hold a place, in both shapes of the queue", () => {
    expect(queueCount(queueLines(ANSWER), 'c~', false)).toEqual({ own: 2, others: 1 });
    const asked = [
      '12_0@c~abc@RUNNING@None',
      '12_1@c~abc@COMPLETED@None',
      '13@x@PENDING@Priority',
      '14_2@y@SUSPENDED@',
    ];
    expect(queueCount(asked, 'c~', true)).toEqual({ own: 1, others: 2 });
  });

  it('leaves the room under the limit, and always one submission when nothing of the campaign is queued', () => {
    expect(roomUnder(3, 1, 1)).toBe(2);
    expect(roomUnder(3, 5, 2)).toBe(0);
    // Others fill the limit and nothing of the campaign would free room: one try, which the scheduler may refuse.
    expect(roomUnder(3, 4, 0)).toBe(1);
  });

  it("tells sbatch's refusal for the limit from other refusals", () => {
    expect(
      isSubmitLimit(
        "sbatch: error: AssocMaxSubmitJobLimit sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)",
      ),
    ).toBe(true);
    expect(isSubmitLimit('sbatch: error: QOSMaxSubmitJobPerUserLimit')).toBe(true);
    expect(
      isSubmitLimit(
        'sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified',
      ),
    ).toBe(false);
    expect(
      isSubmitLimit(
        'sbatch: error: Batch job submission failed: Requested time limit is invalid (missing or exceeds some limit)',
      ),
    ).toBe(false);
  });

  it('tests an array with no more indices than the room, the top ones (MaxArraySize), and tells a full queue apart', () => {
    const array = { array: 'p.full.all', phase: 'p', script: '', size: 8 };
    expect(testedIndices(array)).toBe('--array=0-7');
    expect(testedIndices({ ...array, count: 3 })).toBe('--array=5-7');
    expect(testedIndices({ ...array, count: 1 })).toBe('--array=7');
    expect(testedIndices({ ...array, size: 1 })).toBe('--array=0');
    // As the test cluster answered with MaxSubmitJobs=3 and eight indices.
    const [full] = testOnlyRefusals(
      [array],
      [
        {
          code: 1,
          output:
            "sbatch: error: AssocMaxSubmitJobLimit\nallocation failure: Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)",
        },
      ],
    );
    expect(full!.option).toBe(QUEUE_LIMIT_OPTION);
  });

  it("reads what the plan's arrays are charged to, the cluster's account where they name none", () => {
    expect(chargesOf(planCampaign(manifest({ account: 'lab' })), 'lab')).toEqual([{ account: 'lab' }]);
    expect(chargesOf(planCampaign(manifest({}, { qos: 'standby' })), undefined)).toEqual([{ qos: 'standby' }]);
  });
});

describe('the Slurm executor under max_jobs', () => {
  const executor = (cluster: object) =>
    new SlurmExecutor({ manifest: manifest(cluster), transport: {} as Transport, since: '2025-01-01T00:00:00Z' });

  it('sends no more than the declared max_jobs less what is queued, within max_parallel', () => {
    expect(executor({ max_jobs: 3 }).capacity(0)).toBe(3);
    expect(executor({ max_jobs: 3 }).capacity(2)).toBe(1);
    expect(executor({ max_jobs: 3 }).capacity(3)).toBe(0);
    expect(executor({ max_jobs: 3, max_parallel: 2 }).capacity(0)).toBe(2);
    expect(executor({ max_jobs: 2, max_parallel: 5 }).capacity(1)).toBe(1);
    expect(executor({}).capacity(100)).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe('campaign check on the limit', () => {
  const plan = planCampaign(manifest({}));
  const limits = (extra: Partial<ClusterLimits>): ClusterLimits => ({
    partitions: new Map(),
    accountingRead: true,
    othersQueued: 0,
    ...extra,
  });
  const site = { limit: 3, from: 'sacctmgr: MaxSubmitJobs of your association (account root)' };

  it('says the limit, where it comes from, and how the plan fits it', () => {
    const tasks = plan.phases[0]!.tasks.length + plan.phases[0]!.smoke.length;
    expect(queueLimitItem(limits({ maxJobs: site }), plan, undefined, false)).toEqual({
      check: 'max_jobs',
      status: 'ok',
      detail: `3 jobs and array tasks queued at once (sacctmgr: MaxSubmitJobs of your association (account root)); ${tasks} tasks; at most 3 queued at once: sent in waves as room frees`,
    });
    const roomy = queueLimitItem(
      limits({ maxJobs: { limit: 100, from: 'cluster.max_jobs' }, othersQueued: 2 }),
      plan,
      4,
      false,
    );
    expect(roomy.status).toBe('ok');
    expect(roomy.detail).toBe(
      `100 jobs and array tasks queued at once (cluster.max_jobs); ${tasks} tasks: all fit in the queue at once (beside your 2 other jobs in the queue)`,
    );
  });

  it('warns where max_parallel can never be reached, or the other jobs fill the limit', () => {
    const unreachable = queueLimitItem(limits({ maxJobs: site }), plan, 8, false);
    expect(unreachable.status).toBe('warn');
    expect(unreachable.detail).toMatch(/max_parallel 8 can never be reached$/);
    expect(unreachable.fix).toMatch(/lower max_parallel to 3/);
    const full = queueLimitItem(limits({ maxJobs: site, othersQueued: 3 }), plan, undefined, false);
    expect(full.status).toBe('warn');
    expect(full.detail).toMatch(/your 3 other jobs in the queue fill it now/);
  });

  it('says why no limit is known', () => {
    expect(queueLimitItem(limits({}), plan, undefined, false).detail).toMatch(/sacctmgr sets no MaxSubmitJobs/);
    expect(queueLimitItem(limits({ accountingRead: false }), plan, undefined, false).detail).toMatch(
      /sacctmgr lists no association/,
    );
    expect(queueLimitItem(limits({ accountingRead: false }), plan, undefined, true).detail).toMatch(/automation node/);
  });
});
