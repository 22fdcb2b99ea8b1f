/**
 * The ssh-gpu executor driven directly over real SSH, for what a campaign run cannot show
 * quickly: the walltime and a cancel killing the whole process group (SIGTERM, then SIGKILL for
 * what ignores it), a launch found again by a fresh executor, and a hung probe.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActiveAttempt } from '../../../src/exec/executor.js';
import { SshGpuExecutor } from '../../../src/exec/ssh-gpu/ssh-gpu-executor.js';
import { SshTransport } from '../../../src/exec/transport/ssh.js';
import { parseManifest } from '../../../src/manifest/load.js';
import { planCampaign } from '../../../src/plan/plan.js';
import type { Submission, TaskEvent } from '../../../src/state/events.js';
import { alive, makeTemp, waitUntil } from '../../helpers/cli.js';
import { cluster, fourGpus, sshdUp, StandIn, type Sshd } from './helpers.js';

let sshd: Sshd | undefined;
let root: string;
const opened: SshGpuExecutor[] = [];

beforeAll(async () => {
  sshd = await sshdUp();
  root = await makeTemp('ssh-gpu-executor');
}, 180_000);
afterAll(async () => {
  for (const e of opened) await e.close();
});

/** A one-task campaign's executor, its submission (walltime as given) and the stand-in. */
async function setUp(name: string, commandFor: (bin: string) => string, walltimeSeconds = 300) {
  const dir = join(root, name);
  const workdir = join(dir, 'work');
  await mkdir(workdir, { recursive: true });
  const gpus = await StandIn.install(join(dir, 'gpus'), fourGpus());
  const text = `campaign: ${name}
${cluster(sshd!, gpus)}workdir: ${workdir}
phases:
  - name: p
    walltime: 5m
    command: |
${commandFor(gpus.bin)
  .split('\n')
  .map((l) => `      ${l}`)
  .join('\n')}
`;
  const manifest = parseManifest(join(dir, 'campaign.yml'), text).manifest;
  const plan = planCampaign(manifest);
  const phase = plan.phases[0]!;
  const array = { ...phase.arrays[0]!, budget: { ...phase.arrays[0]!.budget, seconds: walltimeSeconds } };
  const sub: Submission = { task: phase.tasks[0]!, attempt: 1, array, index: 0 };
  const warnings: string[] = [];
  const open = (): SshGpuExecutor => {
    const transport = new SshTransport({
      target: sshd!.target,
      hostKeyFingerprint: sshd!.fingerprint,
      keyFile: sshd!.keyFile,
    });
    const e = new SshGpuExecutor({ manifest, transport, warn: (w) => warnings.push(w), killAfterSeconds: 2 });
    opened.push(e);
    return e;
  };
  return { dir, workdir, gpus, sub, open, warnings };
}

function active(sub: Submission, e: TaskEvent): ActiveAttempt {
  if (e.type !== 'submitted') throw new Error(`not launched: ${JSON.stringify(e)}`);
  return {
    task: sub.task,
    attempt: { n: e.attempt, submittedAt: e.at, handle: e.handle, ...(e.log ? { log: e.log } : {}) },
    walltimeSeconds: sub.array.budget.seconds,
  };
}

/** Observes until the attempt has finished; returns the finished event. */
async function finished(executor: SshGpuExecutor, a: ActiveAttempt): Promise<Extract<TaskEvent, { type: 'finished' }>> {
  return waitUntil(
    'the attempt to finish',
    async () => {
      const events = await executor.observe([a]);
      return events.find((e): e is Extract<TaskEvent, { type: 'finished' }> => e.type === 'finished');
    },
    60_000,
    200,
  );
}

/** A task whose child ignores SIGHUP and SIGTERM and holds 3000 MiB, and which ignores SIGTERM itself. */
const STUBBORN = (bin: string): string => `( trap '' HUP TERM; exec ${bin}/gpu-hold 3000 ) &
echo $! > child.pid
trap '' TERM
while :; do sleep 0.1; done`;

describe('the ssh-gpu executor', () => {
  it('the walltime kills the whole process group, SIGKILL for what ignores SIGTERM; classed timeout; no GPU memory left', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { sub, open, gpus, workdir } = await setUp('walltime', STUBBORN, 2);
    const executor = open();
    const [launched] = await executor.submit([sub]);
    const a = active(sub, launched!);
    await waitUntil('the child to hold its GPU', async () =>
      (await gpus.read()).includes(', 3003, ') ? true : undefined,
    );
    const end = await finished(executor, a);
    expect(end.class).toBe('timeout');
    expect(end.reason).toBe('walltime 2s reached; killed after ignoring SIGTERM');
    expect(end.exitCode).toBe(137);
    const child = Number(await readFile(join(workdir, 'child.pid'), 'utf8'));
    await waitUntil('the child to be gone', async () => ((await alive(child)) ? undefined : true), 10_000);
    expect(await gpus.read()).not.toContain(', 3003, ');
  }, 120_000);

  it('a cancel kills the whole process group, escalating to SIGKILL; classed cancelled; no GPU memory left', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { sub, open, gpus, workdir } = await setUp('cancel', STUBBORN);
    const executor = open();
    const [launched] = await executor.submit([sub]);
    const a = active(sub, launched!);
    await waitUntil('the child to hold its GPU', async () =>
      (await gpus.read()).includes(', 3003, ') ? true : undefined,
    );
    await executor.cancel([a]);
    const end = await finished(executor, a);
    expect(end.class).toBe('cancelled');
    expect(end.reason).toBe('by campaign cancel (exit 137)');
    expect(end.exitCode).toBe(137);
    const child = Number(await readFile(join(workdir, 'child.pid'), 'utf8'));
    await waitUntil('the child to be gone', async () => ((await alive(child)) ? undefined : true), 10_000);
    expect(await gpus.read()).not.toContain(', 3003, ');
  }, 120_000);

  it('a launch is found by a fresh executor (a controller that crashed before saving) and not launched again', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { sub, open, gpus } = await setUp('found', (bin) => `printf 'start\\n' >> ${bin}/../ledger\nsleep 2`);
    const [first] = await open().submit([sub]);
    const [again] = await open().submit([sub]);
    expect(first!.type).toBe('submitted');
    expect(again).toEqual(first);
    const end = await finished(open(), active(sub, again!));
    expect(end.class).toBe('completed');
    expect(await gpus.entries()).toEqual([['start']]);
  }, 120_000);

  it('observing while the probe hangs returns, still sees attempts end, and says the probe did not answer', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { sub, open, gpus, warnings } = await setUp('hang', () => 'true');
    const executor = open();
    const [launched] = await executor.submit([sub]);
    await gpus.hang(true);
    const end = await finished(executor, active(sub, launched!));
    expect(end.class).toBe('completed');
    expect(warnings).toContain('the GPU probe did not answer within 3s; no task starts until it answers');
    await gpus.hang(false);
  }, 120_000);
});
