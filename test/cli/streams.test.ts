/**
 * What goes where: data and the summary on stdout, progress and notes on stderr; `run --format
 * json` as one event per line; a reader that closes the pipe (`campaign … | head`) ends the
 * command quietly with status 141 and its lock released. Real runs on the local executor,
 * through a real shell pipe.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, runProgram, useBuiltCliAndTemp, writeManifest, type CliResult } from '../helpers/cli.js';

const tempRoot = useBuiltCliAndTemp('streams');

const MANIFEST = (name: string) => `campaign: ${name}
cluster: { executor: local, name: here, max_parallel: 4 }
workdir: work
phases:
  - name: train
    grid: { seed: [1, 2, 3] }
    command: >
      printf '{"loss": %s}\\n' \${seed} > \${output}
    output: results/\${tag}.jsonl
    walltime: 1m
    results:
      metrics: [loss]
      replicates: seed
`;

/** A fresh campaign of its own in `name`/: its manifest and state directory. */
async function campaign(name: string): Promise<{ manifest: string; state: string }> {
  const dir = join(tempRoot(), name);
  await mkdir(dir, { recursive: true });
  return { manifest: await writeManifest(dir, MANIFEST(name)), state: join(dir, 'state') };
}

/** `campaign ...args | reader` in bash: the command's exit status (PIPESTATUS) and its stderr. */
async function piped(args: string[], reader: string): Promise<{ status: number; stderr: string; result: CliResult }> {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const result = await runProgram('bash', ['-c', `${quoted} | ${reader}; echo "status=\${PIPESTATUS[0]}" >&2`], {
    timeoutMs: 90_000,
  });
  const status = Number(/status=(\d+)/.exec(result.stderr)?.[1]);
  return { status, stderr: result.stderr.replace(/status=\d+\n$/, ''), result };
}

/** What a closed pipe must not leave: Node's stack trace or error text. */
function quiet(stderr: string): void {
  expect(stderr).not.toMatch(/EPIPE|^\s+at |Error:|internal error/m);
}

describe('campaign run', () => {
  let done: { manifest: string; state: string };
  let first: CliResult;
  beforeAll(async () => {
    done = await campaign('separate');
    first = await runCli(['run', done.manifest, '--state-dir', done.state, '--poll', '0.2']);
  }, 120_000);

  it('writes the markdown summary alone on stdout (not a terminal), progress and notes on stderr', async () => {
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trimStart()).toMatch(/^# Campaign separate/);
    expect(first.stdout).toContain('**Every task completed.**');
    expect(first.stdout).not.toMatch(/\[campaign \S+\]/);
    expect(first.stdout).not.toContain('the summary is in');
    expect(first.stderr).toMatch(/\[campaign \S+\] train \[completed\] 3\/3 done/);
    expect(first.stderr).toMatch(/the summary is in \S*state\/summary\.md/);
    expect(first.stdout.trim()).toBe((await readFile(join(done.state, 'summary.md'), 'utf8')).trim());
  });

  it('at a terminal ends with the short form: the phases’ lines and where the summary is, not the markdown', async () => {
    const { manifest, state } = await campaign('terminal');
    // script(1) gives the run a terminal for stdout and stderr alike.
    const line = [process.execPath, BIN, 'run', manifest, '--state-dir', state, '--poll', '0.2'].join(' ');
    const r = await runProgram('script', ['-qec', line, '/dev/null'], { timeoutMs: 90_000 });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/^train \[completed\] 3\/3 done, 0 running, 0 pending, 0 failed\r?$/m);
    expect(r.stdout).toMatch(/the summary is in \S*state\/summary\.md/);
    expect(r.stdout).not.toContain('# Campaign terminal');
    expect(await readFile(join(state, 'summary.md'), 'utf8')).toContain('# Campaign terminal');
  });

  it('--format json: one JSON event per line on stdout, from start to end', async () => {
    const { manifest, state } = await campaign('ndjson');
    const r = await runCli(['run', manifest, '--state-dir', state, '--poll', '0.2', '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; [k: string]: unknown });
    expect(events[0]).toMatchObject({ event: 'start', campaign: 'ndjson', phases: ['train'], tasks: 3 });
    const end = events.at(-1)!;
    expect(end).toMatchObject({ event: 'end', complete: true, summary: join(state, 'summary.md'), stopped: [] });
    expect(existsSync(end.summary as string)).toBe(true);
    expect(events.filter((e) => e.event === 'end')).toHaveLength(1);
    // Every task is seen completing, once; the phase's counts end completed.
    const completed = events.filter((e) => e.event === 'task' && e.status === 'completed').map((e) => e.task);
    expect(completed.sort()).toEqual(['train/seed1', 'train/seed2', 'train/seed3']);
    const phases = events.filter((e) => e.event === 'phase');
    expect(phases.at(-1)).toMatchObject({ phase: 'train', status: 'completed', done: 3, total: 3 });
    expect(r.stderr).toContain('the summary is in');
  });
});

describe('a closed pipe', () => {
  let stored: { manifest: string; state: string };
  beforeAll(async () => {
    stored = await campaign('stored');
    const r = await runCli(['run', stored.manifest, '--state-dir', stored.state, '--poll', '0.2']);
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);

  it.each([
    ['plan', []],
    ['status', []],
    ['results', ['--tasks']],
  ])('ends %s quietly with status 141', async (command, extra) => {
    const r = await piped([command, stored.manifest, '--state-dir', stored.state, ...extra], 'true');
    expect(r.status, r.stderr).toBe(141);
    quiet(r.stderr);
  });

  it('ends run quietly with status 141 after its pass, its lock released', async () => {
    const { manifest, state } = await campaign('run-piped');
    for (const json of [true, false]) {
      const r = await piped(
        ['run', manifest, '--state-dir', state, '--poll', '0.2', ...(json ? ['--format', 'json'] : [])],
        'true',
      );
      expect(r.status, r.stderr).toBe(141);
      quiet(r.stderr);
      expect(existsSync(join(state, 'lock'))).toBe(false);
    }
    // Nothing was left for the next run to take over: it warns of no stale lock.
    const again = await runCli(['run', manifest, '--state-dir', state, '--poll', '0.2']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/lock/i);
  });

  it('with stderr in the same closed pipe, run still ends with 141 and releases its lock', async () => {
    const { manifest, state } = await campaign('both-piped');
    const quoted = [process.execPath, BIN, 'run', manifest, '--state-dir', state, '--poll', '0.2'].join(' ');
    const r = await runProgram('bash', ['-c', `${quoted} 2>&1 | true; echo "\${PIPESTATUS[0]}"`], {
      timeoutMs: 90_000,
    });
    expect(r.stdout.trim()).toBe('141');
    expect(existsSync(join(state, 'lock'))).toBe(false);
  });
});
