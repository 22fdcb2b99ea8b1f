/**
 * The fault tests again, with packing on (issue 37): a packed phase (several tasks run one
 * after another in one array element, each with its own markers, log and retries) on the real
 * test cluster over SSH, under a controller SIGKILLed (once while its sbatch has queued the
 * elements but not yet answered, then at random points) while its connection is cut at random
 * moments, its node set DOWN mid-pack, and the disk its tasks write to full mid-pack. What a
 * user relies on is checked each time: every task completed, each output written once (a
 * ledger each task appends to once its output is written, and a list of starts each attempt
 * appends to as it begins), no element or task sent more often than the fault forces (the
 * array tasks in sacct against the attempts in the state), the state valid. Setting the node
 * DOWN kills every job on it, so this file runs alone on the cluster, after the rest of the
 * suite (vitest.faults.config.ts). The time limit of an element reached mid-pack and a task
 * failing inside one are test/exec/slurm/pack.test.ts's.
 */
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEvents } from '../../../src/exec/store/event-log.js';
import { campaignStateSchema, type CampaignState } from '../../../src/state/state.js';
import {
  countByFirstWord,
  lines,
  readState,
  seededRandom,
  startCli,
  useBuiltCliAndTemp,
  waitUntil,
  type CliResult,
} from '../../helpers/cli.js';
import {
  arrayTasksRecorded,
  clusterEnv,
  clusterIsUp,
  jobsNamed,
  ONE_AT_A_TIME,
  failNode,
  resumeNode,
  slurm,
  slurmCampaign,
  type SlurmCampaign,
} from '../../helpers/slurm-cluster.js';
import { fillDisk, smallDisks } from '../../helpers/full-disk.js';
import { TcpRelay } from '../../helpers/tcp-relay.js';
import { sshdDown, sshdUp, type Sshd } from '../../exec/transport/sshd.js';

const clusterUp = clusterIsUp('packed fault tests');
const tempRoot = useBuiltCliAndTemp('packed-faults');
// An sshd of this file's own, whose hooks (wrappers first on the login node's PATH) no other
// test's commands go through (16024 is network.test.ts's).
const SSHD_DIR = '/tmp/campaign-sshd-packed';
const SSHD_PORT = 16028;
const hooks = join(SSHD_DIR, 'hooks');
let sshd: Sshd | undefined;
let node = '';
const mountTmpfs = smallDisks('packed disk-full test');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  if (!clusterUp) return;
  sshd = await sshdUp(SSHD_DIR, SSHD_PORT);
  node = clusterEnv().CAMPAIGN_CLUSTER_NODE!;
}, 300_000);

afterAll(async () => {
  // Whatever happened, the node goes back to service, for whoever comes next.
  if (node) resumeNode(node);
  await rm(hooks, { recursive: true, force: true });
  if (sshd) await sshdDown(SSHD_DIR);
});

/**
 * Puts a wrapper of sbatch on the login node's PATH: its first call (the pre-flight's
 * `--test-only` aside, which submits nothing) submits the job, then writes its own pid to the
 * file returned and keeps the job's id back until killed, so that the controller can be killed
 * after its job was queued but before it learnt the job's id (network.test.ts's holdAnswer).
 */
async function holdSbatch(): Promise<string> {
  const real = slurm('bash', ['-c', 'command -v sbatch']).trim();
  const held = join(hooks, 'sbatch.held');
  await mkdir(hooks, { recursive: true });
  await rm(held, { force: true });
  await writeFile(
    join(hooks, 'sbatch'),
    `#!/bin/bash
case " $* " in *" --test-only "*) exec ${real} "$@" ;; esac
out=$(${real} "$@"); rc=$?
if mkdir ${hooks}/sbatch.once 2>/dev/null; then echo "$$" > ${held}.tmp && mv ${held}.tmp ${held}; sleep 100; fi
printf '%s\\n' "$out"
exit "$rc"
`,
  );
  await chmod(join(hooks, 'sbatch'), 0o755);
  return held;
}

/** Takes the sbatch wrapper away and ends the call it holds, if any. */
async function releaseSbatch(held: string): Promise<void> {
  await rm(join(hooks, 'sbatch'), { force: true });
  await rm(join(hooks, 'sbatch.once'), { recursive: true, force: true });
  const pid = Number(await readFile(held, 'utf8').catch(() => '0'));
  if (pid > 0) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // It went with its connection.
    }
  }
}

/**
 * Each attempt appends `<k> <attempt>` to starts.txt as it begins, and to ledger.txt once its
 * output is written (`>>`, so that a second write would show in it too); `before` runs in
 * between, before the output is written. An append of one short line is atomic.
 */
function ledgered(before: string): string {
  return `    command: |
      printf '%s %s\\n' \${k} \${attempt} >> starts.txt
      ${before}
      echo \${k} >> \${output} && printf '%s %s\\n' \${k} \${attempt} >> ledger.txt
`;
}

/** A packed phase `p` of k = 1..n, `pack` tasks to an element, its outputs in `outDir`, its command as given. */
function packedPhase(n: number, pack: number, command: string, extra = '', outDir = ''): string {
  return `  - name: p
    grid: { k: [${Array.from({ length: n }, (_, i) => i + 1).join(', ')}] }
    output: ${outDir}o_\${k}.txt
    walltime: 5m
    pack: ${pack}
${command}${extra}`;
}

function start(c: SlurmCampaign): ReturnType<typeof startCli> {
  return startCli(['run', c.manifest, '--state-dir', c.stateDir, '--poll', '1'], {
    env: { ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd!.keyFile },
  });
}

/** Each task's attempts, by k, as their classes (`unstarted` for an attempt its element never started). */
function classesByK(state: CampaignState): Map<number, string[]> {
  const byK = new Map<number, string[]>();
  for (const [id, t] of Object.entries(state.tasks)) {
    const k = Number(/k(\d+)$/.exec(id)![1]);
    byK.set(
      k,
      t.attempts.map((a) => (a.unstarted ? 'unstarted' : (a.class ?? 'open'))),
    );
  }
  return byK;
}

/**
 * What holds once a campaign of k = 1..n has ended well: every task completed; its output
 * written exactly once (its content is its k, appended) and one ledger line for it; `starts`
 * lines in starts.txt for each k (one unless given); and the cluster ran exactly the elements
 * the state knows of: the array tasks in sacct, each of them ended, are the distinct handles
 * of the attempts sent, less those taken out of the queue before they started (`held: `; an
 * index cancelled while pending never gets a record of its own in sacct).
 */
async function completedOnce(
  c: SlurmCampaign,
  n: number,
  starts: (k: number) => number = () => 1,
  context = '',
  outDir = '',
): Promise<CampaignState> {
  const state = await readState(c.stateDir);
  const ks = Array.from({ length: n }, (_, i) => i + 1);
  expect(Object.keys(state.tasks), context).toHaveLength(n);
  for (const [id, t] of Object.entries(state.tasks)) expect(t.status, `${id} ${context}`).toBe('completed');
  const ledger = countByFirstWord(await lines(join(c.workdir, 'ledger.txt')));
  const started = countByFirstWord(await lines(join(c.workdir, 'starts.txt')));
  for (const k of ks) {
    expect((await readFile(join(c.workdir, `${outDir}o_${k}.txt`), 'utf8')).trim(), `o_${k} ${context}`).toBe(
      String(k),
    );
    expect(ledger.get(String(k)), `ledger lines of k=${k} ${context}`).toBe(1);
    expect(started.get(String(k)), `starts of k=${k} ${context}`).toBe(starts(k));
  }
  expect([...ledger.keys()].sort(), context).toEqual(ks.map(String).sort());
  const attempts = Object.values(state.tasks).flatMap((t) => t.attempts);
  const handles = new Set(attempts.flatMap((a) => (a.handle && !a.reason?.startsWith('held: ') ? [a.handle] : [])));
  // An element held while it waited in the queue was cancelled before it started: sacct keeps a
  // record of its own for it at times, and at times only the array's.
  const held = new Set(attempts.flatMap((a) => (a.handle && a.reason?.startsWith('held: ') ? [a.handle] : [])));
  const elements = (await arrayTasksRecorded(`${c.name}~`, handles.size)).filter(
    (e) => !(held.has(`${e.job}_${e.index}`) && e.state === 'CANCELLED'),
  );
  expect(elements.map((e) => `${e.job}_${e.index}`).sort(), context).toEqual([...handles].sort());
  return state;
}

/** The saved state parses as a campaign state, and every line of the event log as an event. */
async function stateIsValid(stateDir: string, context: string): Promise<void> {
  const text = await readFile(join(stateDir, 'state.json'), 'utf8').catch(() => undefined);
  if (text !== undefined) {
    const parsed = campaignStateSchema.safeParse(JSON.parse(text));
    expect(parsed.success, `state.json ${context}: ${parsed.error?.message}`).toBe(true);
  }
  await readEvents(join(stateDir, 'events.jsonl')); // throws on a corrupt line
}

describe.runIf(clusterUp)('faults under a packed phase (real cluster, over SSH)', () => {
  it('the controller SIGKILLed at random points and its connection cut at random moments: every packed task runs once', async (ctx) => {
    if (!sshd) return ctx.skip();
    const seed = Number(process.env.CAMPAIGN_PACKED_SEED ?? Date.now() % 100_000);
    const context = `(seed ${seed}: CAMPAIGN_PACKED_SEED replays its choices)`;
    const random = seededRandom(seed);
    const relay = await TcpRelay.start(Number(/:(\d+)$/.exec(sshd.target)![1]));
    try {
      // 20 tasks, 4 to an element: 5 elements, all of them in the queue at once, so one sbatch.
      const c = await slurmCampaign(
        tempRoot(),
        'packed-chaos',
        { ...sshd, target: sshd.target.replace(/:\d+$/, `:${relay.port}`) },
        packedPhase(20, 4, ledgered('sleep 1')),
        5,
      );
      const KILLS = 6;
      const CUTS = 6;
      let kills = 0;
      let cuts = 0;
      let final: CliResult | undefined;
      // The first life is killed at the worst point for packing: its one sbatch has queued all
      // five elements, but their job id never came back. The next must find that job, not send
      // the twenty tasks again.
      const held = await holdSbatch();
      for (let life = 1; final === undefined; life++) {
        expect(life, `too many restarts ${context}`).toBeLessThan(40);
        const run = start(c);
        let ended = false;
        void run.done.then(() => (ended = true));
        if (life === 1) {
          try {
            await waitUntil('sbatch to hold its answer', () => readFile(held, 'utf8'), 60_000, 50);
          } finally {
            run.child.kill('SIGKILL');
            await releaseSbatch(held);
          }
        } else {
          // Each later life is killed after a random while (until there have been enough
          // kills), and its connection cut at random moments meanwhile (until there have been
          // enough cuts).
          const killAt = Date.now() + (kills < KILLS ? 300 + random() * 2500 : 120_000);
          while (!ended && Date.now() < killAt) {
            await sleep(Math.min(killAt - Date.now(), 300 + random() * 1200));
            if (!ended && cuts < CUTS && random() < 0.4 && relay.cut() > 0) cuts++;
          }
        }
        if (!ended) run.child.kill('SIGKILL'); // the controller alone: its jobs run on in Slurm
        const r = await run.done;
        expect(r.stderr, context).not.toMatch(/internal error/);
        if (r.signal === 'SIGKILL') {
          kills++;
          // Whatever the kill interrupted, what is saved is whole and valid.
          await stateIsValid(c.stateDir, `after kill ${kills} ${context}`);
        } else if (r.code === 2 && /is being locked by another process .*not yet complete/.test(r.stderr)) {
          // A kill between creating the lock file and writing its holder leaves a lock nobody
          // can name, honoured for 10 s in case its writer is still at work (sigkill.test.ts).
          await sleep(10_500);
        } else if (r.code === 2 && /connection to the cluster/.test(r.stderr)) {
          // A cut while the executor was opened ends the command, asking to run it again.
        } else {
          expect(r.code, `life ${life} ${context}:\n${r.stdout}\n${r.stderr}`).toBe(0);
          final = r;
        }
      }
      console.log(`packed chaos: seed ${seed}, ${kills} kills, ${cuts} cuts`);
      expect(kills, `the campaign ended before enough kills ${context}`).toBeGreaterThanOrEqual(3);
      expect(cuts, `no cut landed on an open connection ${context}`).toBeGreaterThan(0);
      const state = await completedOnce(c, 20, () => 1, context);
      // Nothing failed, so nothing was sent again: one attempt each, and 5 elements in all.
      for (const [id, t] of Object.entries(state.tasks)) expect(t.attempts, `${id} ${context}`).toHaveLength(1);
      expect(new Set(Object.values(state.tasks).map((t) => t.attempts[0]!.handle)).size, context).toBe(5);
      expect(jobsNamed(`${c.name}~`), `one sbatch in all ${context}`).toHaveLength(1);
    } finally {
      await relay.close();
    }
  }, 300_000);

  it('the node set DOWN mid-pack: the tasks done stay done, the running one is a node failure, the unstarted ones are sent again with no retry spent', async (ctx) => {
    if (!sshd) return ctx.skip();
    // One element of four: k=1 done, k=2 running (its first attempt for ever), k=3 and k=4 not
    // started, when the node goes down.
    const c = await slurmCampaign(
      tempRoot(),
      'packed-down',
      sshd,
      packedPhase(4, 4, ledgered('if [ ${k} = 2 ] && [ ${attempt} = 1 ]; then sleep 600; fi')),
      1,
    );
    const run = start(c);
    try {
      await waitUntil(
        'k=1 done and k=2 started',
        async () => {
          const started = await lines(join(c.workdir, 'starts.txt'));
          return started.includes('2 1') ? true : undefined;
        },
        120_000,
        100,
      );
      await failNode(node, `${c.name}~`);
      const r = await run.done;
      expect(r.code, r.stdout + r.stderr).toBe(0);
    } finally {
      run.child.kill('SIGKILL');
    }
    // k=2 started twice (its first attempt killed with the node); the others once each.
    const state = await completedOnce(c, 4, (k) => (k === 2 ? 2 : 1));
    const byK = classesByK(state);
    expect(byK.get(1)).toEqual(['completed']);
    expect(byK.get(2)).toEqual(['node_fail', 'completed']);
    expect(byK.get(3)).toEqual(['unstarted', 'completed']);
    expect(byK.get(4)).toEqual(['unstarted', 'completed']);
    const task = (k: number) => state.tasks[`p/k${k}`]!;
    expect(task(2).attempts[0]!.node).toBe(node);
    for (const k of [3, 4]) {
      // Never started, and recorded as such: not a failure, so no retry rule was consulted (the
      // class of an element cancelled under them allows none, and they completed).
      const first = task(k).attempts[0]!;
      expect(first.startedAt, `k=${k}`).toBeUndefined();
      expect(first.reason, `k=${k}`).toMatch(/ended NODE_FAIL before this task's turn/);
    }
    // The four first attempts shared the element that was lost; the node failure was sent again
    // alone (docs/SLURM.md), never with the tasks that had not started.
    const firstElement = new Set([1, 2, 3, 4].map((k) => task(k).attempts[0]!.handle));
    expect(firstElement.size).toBe(1);
    const retryOf2 = task(2).attempts[1]!.handle;
    expect([3, 4].map((k) => task(k).attempts[1]!.handle)).not.toContain(retryOf2);
  }, 300_000);

  it("the tasks' output disk full mid-pack: the tasks that found it full spend no retry, the waiting element is held, and all complete once there is room", async (ctx) => {
    if (!sshd) return ctx.skip();
    // Two elements of four, one in the cluster at a time (each holds a license of one): the
    // second waits in the queue while the first runs. Flag files in the workdir order what a
    // loaded machine would otherwise leave to chance: k=3's first attempt writes once the test
    // has filled the disk (after k=2 has written), and k=4's once the controller, having seen
    // k=3 find it full, has held the second element, before the first ends and frees the license.
    const c = await slurmCampaign(
      tempRoot(),
      'packed-full',
      sshd,
      packedPhase(
        8,
        4,
        ledgered(
          'if [ ${attempt} = 1 ] && [ ${k} -ge 3 ]; then until [ -e disk-filled ]; do sleep 0.1; done; fi; if [ ${attempt} = 1 ] && [ ${k} = 4 ]; then until [ -e element-held ]; do sleep 0.1; done; fi',
        ),
        `    slurm_args: ["--licenses=${ONE_AT_A_TIME.diskFull}"]
    retry: { failed: { attempts: 3 } }
`,
        'out/',
      ),
      2,
    );
    const out = join(c.workdir, 'out');
    await mkdir(out);
    if (!mountTmpfs(out, '1m')) return ctx.skip();
    const first = start(c);
    try {
      await waitUntil(
        'k=2 written',
        async () => ((await lines(join(c.workdir, 'ledger.txt'))).length >= 2 ? true : undefined),
        120_000,
        50,
      );
      await fillDisk(join(out, 'filler'));
      await writeFile(join(c.workdir, 'disk-filled'), '');
      await waitUntil(
        'the waiting element held',
        async () =>
          (await readFile(join(c.stateDir, 'events.jsonl'), 'utf8').catch(() => '')).includes('"held: ')
            ? true
            : undefined,
        120_000,
        100,
      );
      await writeFile(join(c.workdir, 'element-held'), '');
      const r = await first.done;
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stderr).toMatch(/paused: \d+ tasks? found the disk full/);
    } finally {
      first.child.kill('SIGKILL');
    }
    let state = await readState(c.stateDir);
    const firstClasses = classesByK(state);
    expect(firstClasses.get(1)).toEqual(['completed']);
    expect(firstClasses.get(2)).toEqual(['completed']);
    // k=3 found the disk full itself, mid-pack; no task spent a retry on it, though the phase allows three for failures.
    expect(firstClasses.get(3)).toEqual(['disk_full']);
    for (let k = 4; k <= 8; k++) expect(firstClasses.get(k), `k=${k}`).toEqual(['disk_full']);
    // The second element was held in the queue: its tasks never started.
    for (let k = 5; k <= 8; k++) {
      const a = state.tasks[`p/k${k}`]!.attempts[0]!;
      expect(a.reason, `k=${k}`).toMatch(/^held: /);
      expect(a.startedAt, `k=${k}`).toBeUndefined();
    }

    await rm(join(out, 'filler'));
    const second = await start(c).done;
    expect(second.code, second.stdout + second.stderr).toBe(0);
    // k=3 and k=4 began their first attempts (and found the disk full); 5 to 8 only their second.
    state = await completedOnce(c, 8, (k) => (k === 3 || k === 4 ? 2 : 1), '', 'out/');
    const byK = classesByK(state);
    for (const k of [1, 2]) expect(byK.get(k), `k=${k}`).toEqual(['completed']);
    for (let k = 3; k <= 8; k++) expect(byK.get(k), `k=${k}`).toEqual(['disk_full', 'completed']);
  }, 300_000);
});
