/**
 * The ways existing lab-box queues break, each its own test, run with `campaign run` and the
 * ssh-gpu executor over real SSH against the nvidia-smi stand-in. Campaigns that can share a
 * run do (one that should complete, one that should not); each test reads one property of it.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { gpusOfHandle } from '../../../src/exec/ssh-gpu/server.js';
import { alive, readState, runCli, startCli, useBuiltCliAndTemp, waitUntil, writeManifest } from '../../helpers/cli.js';
import {
  campaignDirs,
  cluster,
  fourGpus,
  runCampaign,
  sshdUp,
  StandIn,
  uuidOf,
  type Ran,
  type Sshd,
} from './helpers.js';

const tempRoot = useBuiltCliAndTemp('ssh-gpu-modes');
let sshd: Sshd | undefined;

beforeAll(async () => {
  sshd = await sshdUp();
  if (sshd) process.env.CAMPAIGN_SSH_KEY_FILE = sshd.keyFile;
}, 180_000);

const setUp = campaignDirs(tempRoot);

/** Values that break a queue which splices them into a command line. */
const ODD = ["it's", 'a b  c', '$(touch pwned)', '; touch pwned2 #', '`touch pwned3`', '*'];

describe('a campaign that should complete', () => {
  let ran: Ran;
  let workdir: string;
  let gpus: StandIn;
  beforeAll(async () => {
    sshd ??= await sshdUp();
    if (!sshd) return;
    const s = await setUp('good');
    workdir = s.workdir;
    gpus = s.gpus;
    ran = await runCampaign(
      s.dir,
      `campaign: good
${cluster(sshd, gpus, '  oom:\n    retry: { attempts: 1, delay: 1s }\n')}workdir: ${workdir}
phases:
  - name: a
    walltime: 5m
    command: |
      ${gpus.log('end')}
  - name: b
    depends_on: a
    walltime: 5m
    output: b/pins.txt
    command: >
      ${gpus.log('start')} &&
      mkdir -p b && echo "$CUDA_VISIBLE_DEVICES" > b/first.txt;
      bash -c 'echo "$CUDA_VISIBLE_DEVICES"' > b/second.txt &&
      python3 -c 'import os; print(os.environ["CUDA_VISIBLE_DEVICES"])' > \${output}
  - name: values
    grid: { v: ${JSON.stringify(ODD)} }
    walltime: 5m
    output: values/\${tag}.txt
    command: |
      printf '%s' \${v} > \${output}
      echo 'torch.OutOfMemoryError: CUDA out of memory (caught; retrying with half the batch)'
      sleep 1
  - name: last
    grid: { seed: [1, 2, 3] }
    walltime: 5m
    output: last/\${seed}.txt
    command: |
      if [ \${seed} = 3 ] && [ \${attempt} = 1 ]; then echo 'CUDA error: out of memory' >&2; exit 1; fi
      echo \${seed} > \${output}
  - name: orphan
    walltime: 5m
    output: orphan.txt
    command: |
      ( trap '' HUP TERM; exec ${gpus.bin}/gpu-hold 3000 ) &
      echo $! > orphan.pid
      sleep 0.5
      echo ok > \${output}
`,
      180_000,
    );
  }, 240_000);

  it('ends with exit status 0 and every task completed', (ctx) => {
    if (!sshd) return ctx.skip();
    expect(ran.result.code, ran.result.stderr).toBe(0);
    for (const [id, t] of Object.entries(ran.state.tasks)) expect(t.status, id).toBe('completed');
  });

  it('depends_on given as a single string is honoured: b starts only after a ended', async (ctx) => {
    if (!sshd) return ctx.skip();
    const words = (await gpus.entries()).map((e) => e[0]);
    expect(words.indexOf('end')).toBeGreaterThanOrEqual(0);
    expect(words.indexOf('end')).toBeLessThan(words.indexOf('start'));
  });

  it('a folded YAML command (trailing newline, lines joined) runs as written', async (ctx) => {
    if (!sshd) return ctx.skip();
    expect(ran.state.tasks['b/task']!.attempts.map((a) => a.class)).toEqual(['completed']);
  });

  it('GPU pinning covers every command of a chain, by UUID: CUDA_VISIBLE_DEVICES is the same in each', async (ctx) => {
    if (!sshd) return ctx.skip();
    const [gpu] = gpusOfHandle(ran.state.tasks['b/task']!.attempts[0]!.handle);
    expect([0, 1, 2, 3].map(uuidOf)).toContain(gpu);
    for (const f of ['b/first.txt', 'b/second.txt', 'b/pins.txt'])
      expect(await readFile(join(workdir, f), 'utf8'), f).toBe(`${gpu}\n`);
  });

  it('ids and values with quotes, spaces, $( ), ; and backquotes reach the command byte for byte, never as shell code', async (ctx) => {
    if (!sshd) return ctx.skip();
    const outputs = Object.values(ran.state.tasks).length;
    expect(outputs).toBeGreaterThan(ODD.length);
    const texts = await Promise.all(
      Object.keys(ran.state.tasks)
        .filter((id) => id.startsWith('values/'))
        .map((id) => readFile(join(workdir, 'values', `${id.slice('values/'.length)}.txt`), 'utf8')),
    );
    expect(texts.sort()).toEqual([...ODD].sort());
    for (const f of ['pwned', 'pwned2', 'pwned3']) expect(existsSync(join(workdir, f)), f).toBe(false);
  });

  it('an output written in the first moment of the attempt is fresh, not stale', (ctx) => {
    if (!sshd) return ctx.skip();
    for (const [id, t] of Object.entries(ran.state.tasks)) {
      if (id.startsWith('values/'))
        expect(
          t.attempts.map((a) => a.class),
          id,
        ).toEqual(['completed']);
    }
  });

  it('an OOM message in the log of a run that exited 0 with its output is completed, never rerun', (ctx) => {
    if (!sshd) return ctx.skip();
    for (const [id, t] of Object.entries(ran.state.tasks)) {
      if (id.startsWith('values/')) expect(t.attempts, id).toHaveLength(1);
    }
  });

  it('the OOM retry of the last task is not skipped: it waits out the delay and runs', (ctx) => {
    if (!sshd) return ctx.skip();
    const t = ran.state.tasks['last/seed3']!;
    expect(t.attempts.map((a) => a.class)).toEqual(['out_of_memory', 'completed']);
  });

  it('a child that ignores SIGHUP and SIGTERM is killed with its task: it keeps no GPU memory', async (ctx) => {
    if (!sshd) return ctx.skip();
    const pid = Number(await readFile(join(workdir, 'orphan.pid'), 'utf8'));
    expect(pid).toBeGreaterThan(0);
    await waitUntil('the orphan to be gone', async () => ((await alive(pid)) ? undefined : true), 15_000);
    expect(await gpus.read()).not.toMatch(/, 300\d, /);
  });
});

describe('a campaign that should not complete', () => {
  let ran: Ran;
  let workdir: string;
  let manifest: string;
  beforeAll(async () => {
    sshd ??= await sshdUp();
    if (!sshd) return;
    const s = await setUp('bad');
    workdir = s.workdir;
    const yaml = `campaign: bad
${cluster(sshd, s.gpus)}workdir: ${workdir}
phases:
  - name: up
    walltime: 5m
    command: echo 'the model diverged' >&2; exit 3
  - name: down
    depends_on: [up]
    walltime: 5m
    command: echo never
  - name: sibling
    grid: { seed: [1, 10] }
    walltime: 5m
    output: out/seed\${seed}.json
    command: |
      if [ \${seed} = 10 ]; then echo '{}' > \${output}; fi
  - name: env
    setup: source /nonexistent/venv/bin/activate
    walltime: 5m
    command: echo never > never.txt
`;
    ran = await runCampaign(s.dir, yaml);
    manifest = join(s.dir, 'campaign.yml');
  }, 240_000);

  it('an upstream phase that fails blocks its dependents with the reason; the run ends instead of hanging', (ctx) => {
    if (!sshd) return ctx.skip();
    expect(ran.state.phases.down!.status).toBe('blocked');
    expect(ran.state.phases.down!.reason).toMatch(/^dependency up failed: 1 of 1 tasks did not complete/);
    expect(ran.state.tasks['down/task']).toMatchObject({ status: 'blocked', attempts: [] });
  });

  it('the controller ends with exit status 1, and campaign status says 1 too', async (ctx) => {
    if (!sshd) return ctx.skip();
    expect(ran.result.code).toBe(1);
    const status = await runCli(['status', manifest, '--state-dir', ran.stateDir]);
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/up\/task: failed: exit 3/);
  });

  it("an output path that is a prefix of a sibling's (seed1 / seed10) is not satisfied by the sibling's file", (ctx) => {
    if (!sshd) return ctx.skip();
    expect(ran.state.tasks['sibling/seed1']!.attempts[0]!.class).toBe('unverified');
    expect(ran.state.tasks['sibling/seed10']!.attempts[0]!.class).toBe('completed');
  });

  it('a failing setup leaves an exit marker naming the step, and is a gate failure, not a lost task', async (ctx) => {
    if (!sshd) return ctx.skip();
    const a = ran.state.tasks['env/task']!.attempts[0]!;
    expect(a.class).toBe('gate');
    expect(a.reason).toMatch(/^gate setup: the setup stopped/);
    const marker = await readFile(join(a.log!, '..', 'exit'), 'utf8');
    expect(marker).toMatch(/^97 \d+ \d+ exit setup -\n$/);
    expect(existsSync(join(workdir, 'never.txt'))).toBe(false);
  });
});

describe('refused before anything runs', () => {
  it('a misspelled dependency: exit 2, naming the line and the phase meant', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { dir, gpus } = await setUp('misspelled');
    const file = await writeManifest(
      dir,
      `campaign: misspelled
${cluster(sshd, gpus)}workdir: ${dir}
phases:
  - name: train
    walltime: 5m
    command: echo a
  - name: evaluate
    depends_on: [trian]
    walltime: 5m
    command: echo b
`,
    );
    const r = await runCli(['run', file, '--state-dir', join(dir, 'state')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/campaign\.yml:\d+:\d+: .*trian.*train/);
    expect(await gpus.probes()).toBe(0);
  });

  it('a phase with no tasks (an empty grid axis): exit 2, naming the line', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { dir, gpus } = await setUp('empty');
    const file = await writeManifest(
      dir,
      `campaign: empty
${cluster(sshd, gpus)}workdir: ${dir}
phases:
  - name: train
    grid: { seed: [] }
    walltime: 5m
    command: echo a
`,
    );
    const r = await runCli(['run', file, '--state-dir', join(dir, 'state')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/campaign\.yml:\d+:\d+: .*seed/);
  });

  it('a probe that fails outright (not installed): exit 2 before any launch, naming the probe and the fix', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { dir, gpus } = await setUp('no-probe');
    const file = await writeManifest(
      dir,
      `campaign: no-probe
${cluster(sshd, gpus).replace(gpus.probe, `${dir}/missing/nvidia-smi --query-gpu=index,uuid,memory.used,memory.total --format=csv,noheader,nounits`)}workdir: ${dir}
phases:
  - name: train
    walltime: 5m
    command: echo a > a.txt
`,
    );
    const r = await runCli(['run', file, '--state-dir', join(dir, 'state')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the GPU probe exited 127: .*No such file or directory on root@127\.0\.0\.1:16022/);
    expect(r.stderr).toMatch(/fix: install nvidia-smi on the server, or set cluster\.probe/);
    expect(existsSync(join(dir, 'a.txt'))).toBe(false);
  });

  it('cluster.gpus naming a GPU the server does not have: exit 2, naming it and what the server lists', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { dir, gpus } = await setUp('no-gpu7');
    const file = await writeManifest(
      dir,
      `campaign: no-gpu7
${cluster(sshd, gpus, '  gpus: [0, 7]\n')}workdir: ${dir}
phases:
  - name: train
    walltime: 5m
    command: echo a
`,
    );
    const r = await runCli(['run', file, '--state-dir', join(dir, 'state')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'cluster.gpus names GPU 7, which the probe on root@127.0.0.1:16022 does not list (it lists 0, 1, 2, 3)',
    );
  });
});

describe('around the controller', () => {
  it('two campaigns with the same task names in one workdir, at once: neither touches the other', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { dir, workdir, gpus } = await setUp('two');
    const yaml = (name: string) => `campaign: ${name}
${cluster(sshd!, gpus)}workdir: ${workdir}
phases:
  - name: p
    grid: { seed: [1, 2] }
    walltime: 5m
    output: \${campaign}/\${seed}.txt
    command: |
      ${gpus.log('start')}
      sleep 1
      mkdir -p \${campaign} && echo \${campaign} > \${output}
`;
    const a = join(dir, 'a');
    const b = join(dir, 'b');
    await mkdir(a);
    await mkdir(b);
    const [ra, rb] = await Promise.all([runCampaign(a, yaml('alpha')), runCampaign(b, yaml('beta'))]);
    expect(ra.result.code, ra.result.stderr).toBe(0);
    expect(rb.result.code, rb.result.stderr).toBe(0);
    const starts = (await gpus.entries()).map((e) => e[2]).sort();
    // Each campaign's tasks ran once, each under its own campaign's directory.
    expect(starts).toEqual(['p/seed1', 'p/seed1', 'p/seed2', 'p/seed2']);
    for (const [name, r] of [
      ['alpha', ra],
      ['beta', rb],
    ] as const) {
      for (const t of Object.values(r.state.tasks)) {
        expect(t.attempts).toHaveLength(1);
        expect(t.attempts[0]!.log).toContain(`/.campaign/ssh-gpu/${name}/attempts/`);
      }
      expect(await readFile(join(workdir, name, '1.txt'), 'utf8')).toBe(`${name}\n`);
    }
  }, 180_000);

  it('a second controller on the same state is refused (exit 2, naming the first); the first finishes', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { dir, workdir, gpus } = await setUp('two-controllers');
    const file = await writeManifest(
      dir,
      `campaign: twice
${cluster(sshd, gpus)}workdir: ${workdir}
phases:
  - name: p
    walltime: 5m
    command: |
      ${gpus.log('start')}
      while [ ! -e ${dir}/release ]; do sleep 0.1; done
`,
    );
    const stateDir = join(dir, 'state');
    const first = startCli(['run', file, '--state-dir', stateDir, '--poll', '0.3']);
    await waitUntil('the task to start', async () => ((await gpus.entries()).length > 0 ? true : undefined));
    const second = await runCli(['run', file, '--state-dir', stateDir, '--poll', '0.3']);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(new RegExp(`pid ${first.child.pid}`));
    await writeFile(join(dir, 'release'), '');
    expect((await first.done).code).toBe(0);
    expect(await gpus.entries()).toHaveLength(1);
  }, 120_000);

  it('a hung probe does not freeze the controller: passes go on, nothing starts, and it resumes when the probe answers', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { dir, workdir, gpus } = await setUp('hung');
    await gpus.hang(true);
    const file = await writeManifest(
      dir,
      `campaign: hung
${cluster(sshd, gpus)}workdir: ${workdir}
phases:
  - name: p
    grid: { seed: [1, 2] }
    walltime: 5m
    command: |
      ${gpus.log('start')}
`,
    );
    const stateDir = join(dir, 'state');
    const run = startCli(['run', file, '--state-dir', stateDir, '--poll', '0.3']);
    // Two passes while the probe hangs, each asking it again: each gives up on it after probe_timeout (3s).
    await waitUntil('two passes during the hang', async () => ((await gpus.asked()) >= 2 ? true : undefined), 60_000);
    expect(await gpus.entries()).toEqual([]);
    await gpus.mark('answered');
    await gpus.hang(false);
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/the GPU probe did not answer within 3s; no task starts until it answers/);
    expect((await gpus.entries()).map((e) => e[0])).toEqual(['answered', 'start', 'start']);
  }, 120_000);

  it('a probe that never answers does not make the campaign wait forever: after 20 tries its tasks fail, exit 1', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { dir, workdir, gpus } = await setUp('never');
    await gpus.hang(true);
    const r = await runCampaign(
      dir,
      `campaign: never
${cluster(sshd, gpus).replace('probe_timeout: 3s', 'probe_timeout: 1s')}workdir: ${workdir}
phases:
  - name: p
    walltime: 5m
    command: |
      ${gpus.log('start')}
`,
      180_000,
    );
    expect(r.result.code).toBe(1);
    expect(r.state.tasks['p/task']!.reason).toBe(
      'could not start: the GPU probe failed 20 times in a row (the GPU probe did not answer within 1s)',
    );
    expect(await gpus.entries()).toEqual([]);
    await gpus.hang(false);
  }, 240_000);

  it('campaign cancel stops the running tasks, each whole process group, and records them cancelled; a later run starts none again', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { dir, workdir, gpus } = await setUp('cancel');
    const file = await writeManifest(
      dir,
      `campaign: cancel
${cluster(sshd, gpus)}workdir: ${workdir}
phases:
  - name: p
    grid: { seed: [1, 2] }
    walltime: 5m
    command: |
      ${gpus.log('start')}
      ( trap '' HUP TERM; exec ${gpus.bin}/gpu-hold 3000 ) &
      trap '' TERM
      while :; do sleep 0.1; done
`,
    );
    const stateDir = join(dir, 'state');
    const run = startCli(['run', file, '--state-dir', stateDir, '--poll', '0.3']);
    await waitUntil('both tasks to hold their GPU', async () =>
      ((await gpus.read()).match(/, 3003, /g) ?? []).length === 2 ? true : undefined,
    );
    await waitUntil('the state to record them', async () => {
      const s = await readState(stateDir).catch(() => undefined);
      return s && Object.values(s.tasks).every((t) => t.attempts.length === 1) ? true : undefined;
    });
    // Stopping the controller leaves the tasks running, as it says.
    run.child.kill('SIGINT');
    expect((await run.done).code).toBe(130);
    expect((await gpus.read()).match(/, 3003, /g)).toHaveLength(2);

    const r = await runCli(['cancel', file, '--state-dir', stateDir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(['cancelled p/seed1', 'cancelled p/seed2']);
    const state = await readState(stateDir);
    for (const t of Object.values(state.tasks)) {
      expect(t.status).toBe('failed');
      expect(t.reason).toBe('cancelled: by campaign cancel (exit 137)');
    }
    await waitUntil('the GPUs to be free', async () => ((await gpus.read()).includes(', 3003, ') ? undefined : true));

    const again = await runCli(['run', file, '--state-dir', stateDir, '--poll', '0.3']);
    expect(again.code).toBe(1);
    expect((await gpus.entries()).filter((e) => e[0] === 'start')).toHaveLength(2);
  }, 120_000);

  it('[N/A] in the probe output marks that GPU unusable and says so; the campaign runs on the others', async (ctx) => {
    if (!sshd) return ctx.skip();
    const rows = fourGpus();
    rows[1] = [1, uuidOf(1), '[N/A]'];
    const { dir, workdir, gpus } = await setUp('na', rows);
    const r = await runCampaign(
      dir,
      `campaign: na
${cluster(sshd, gpus)}workdir: ${workdir}
phases:
  - name: p
    grid: { seed: [1, 2, 3, 4, 5, 6] }
    walltime: 5m
    command: |
      ${gpus.log('start')}
`,
    );
    expect(r.result.code, r.result.stderr).toBe(0);
    expect(r.result.stderr).toContain(
      `GPU 1 is not used: memory.used is "[N/A]" (probe line "1, ${uuidOf(1)}, [N/A], 81559")`,
    );
    const used = new Set((await gpus.entries()).map((e) => e[1]));
    expect(used.has(uuidOf(1))).toBe(false);
    expect(used.size).toBe(3);
  }, 120_000);

  it('a launch that failed is shown failed ("could not start", exit 1), never running', async (ctx) => {
    if (!sshd) return ctx.skip();
    const { dir, gpus } = await setUp('launch-fails');
    // The workdir is a file: no attempt directory can be made in it.
    const workdir = join(dir, 'not-a-dir');
    await writeFile(workdir, '');
    const r = await runCampaign(
      dir,
      `campaign: launch-fails
${cluster(sshd, gpus)}workdir: ${workdir}
phases:
  - name: p
    walltime: 5m
    command: echo never
`,
    );
    expect(r.result.code).toBe(1);
    const t = r.state.tasks['p/task']!;
    expect(t.status).toBe('failed');
    expect(t.reason).toMatch(/^could not start: cannot write the attempt's files: /);
    expect(t.attempts[0]!.handle).toBeUndefined();
    await rm(workdir);
  }, 120_000);
});
