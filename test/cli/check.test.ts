/**
 * `campaign check` on this machine (the local executor, and ssh-gpu without a login against the
 * nvidia-smi stand-in): what blocks which phase, with the way out, exit 1 while anything
 * blocks and 0 once nothing does; nothing is run or submitted.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useBuiltCliAndTemp, writeManifest } from '../helpers/cli.js';
import { campaignDirs, uuidOf } from '../exec/ssh-gpu/helpers.js';

const tempRoot = useBuiltCliAndTemp('check');
const gpuDirs = campaignDirs(tempRoot);

describe('campaign check', () => {
  it('local: a missing venv and a missing input block their phase and its dependants; put in place, nothing blocks', async () => {
    const dir = tempRoot();
    const workdir = join(dir, 'work');
    await mkdir(workdir);
    const manifest = await writeManifest(
      dir,
      `campaign: pre
cluster: { executor: local }
workdir: ${workdir}
phases:
  - name: prep
    environment: { venv: .venv }
    preconditions: [ { exists: data/in.txt } ]
    command: cp data/in.txt \${output}
    output: out.txt
    walltime: 1m
  - name: after
    depends_on: [prep]
    command: cat out.txt > \${output}
    output: after.txt
    walltime: 1m
  - name: apart
    command: echo apart > \${output}
    output: apart.txt
    walltime: 1m
`,
    );
    const first = await runCli(['check', manifest]);
    expect(first.code, first.stdout + first.stderr).toBe(1);
    expect(first.stdout).toMatch(/^ok {4}login +this machine answers \(node .+\)$/m);
    expect(first.stdout).toMatch(new RegExp(`^ok {4}workdir +${workdir} is writable$`, 'm'));
    expect(first.stdout).toMatch(
      /^FAIL {2}environment +venv \.venv does not activate on the login node: .*\[blocks prep\]$/m,
    );
    expect(first.stdout).toMatch(
      /^FAIL {2}preconditions +1 of the 1 inputs of prep are missing: data\/in\.txt \[blocks prep\]$/m,
    );
    expect(first.stdout).toMatch(/^ +fix: put the inputs in place/m);
    expect(first.stdout).toMatch(/^2 of \d+ checks failed; blocked: prep, after$/m);
    // Nothing ran: the workdir holds only what was there.
    expect(await readdir(workdir)).toEqual([]);

    await mkdir(join(workdir, 'data'));
    await writeFile(join(workdir, 'data', 'in.txt'), 'x\n');
    await mkdir(join(workdir, '.venv', 'bin'), { recursive: true });
    await writeFile(join(workdir, '.venv', 'bin', 'activate'), 'export VIRTUAL_ENV=$PWD/.venv\n');
    const second = await runCli(['check', manifest]);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^ok {4}environment +venv \.venv activates$/m);
    expect(second.stdout).toMatch(/^nothing blocks the campaign \(\d+ checks\)$/m);
  });

  it('ssh-gpu on this machine: the free GPUs are counted, a busy one named with why', async () => {
    const { dir, workdir, gpus } = await gpuDirs('gpus', [
      [0, uuidOf(0), 3],
      [1, uuidOf(1), 4000],
    ]);
    const manifest = await writeManifest(
      dir,
      `campaign: gpus
cluster:
  executor: ssh-gpu
  probe: ${gpus.probe}
workdir: ${workdir}
phases:
  - { name: p, command: 'true', walltime: 1m }
`,
    );
    const r = await runCli(['check', manifest]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ok {4}gpus +1 of 2 GPUs free \(GPU 1: 4000 MiB in use \(free below 500 MiB\)\)$/m);
  });
});
