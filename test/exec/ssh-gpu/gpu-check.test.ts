/**
 * scripts/gpu-check/run, the executor's check against a real GPU, run here on stand-ins: the
 * nvidia-smi stand-in for the probe and a PyTorch stand-in (test/fixtures/torch-stand-in) whose
 * too-large allocation raises torch.OutOfMemoryError as PyTorch does. No GPU exists here; this
 * shows the script works end to end and tells a right run from a wrong one, so that a machine
 * with a GPU only has to run it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runProgram, useBuiltCliAndTemp } from '../../helpers/cli.js';
import { StandIn, uuidOf } from './helpers.js';

const tempRoot = useBuiltCliAndTemp('gpu-check');

async function gpuCheck(label: string, env: NodeJS.ProcessEnv = {}) {
  const dir = join(tempRoot(), label);
  const gpus = await StandIn.install(
    join(dir, 'gpus'),
    [0, 1].map((i) => [i, uuidOf(i), 3]),
  );
  const r = await runProgram('bash', [join(REPO, 'scripts/gpu-check/run'), join(dir, 'check')], {
    timeoutMs: 90_000,
    env: {
      ...process.env,
      PATH: `${gpus.bin}:${process.env.PATH}`,
      PYTHONPATH: join(REPO, 'test/fixtures/torch-stand-in'),
      ...env,
    },
  });
  return { ...r, dir: join(dir, 'check') };
}

describe('scripts/gpu-check/run on the nvidia-smi and PyTorch stand-ins (no GPU here)', () => {
  it('prints the probe, sees the OOM classified and retried on the other GPU, the rest completed, and exits 0', async () => {
    const r = await gpuCheck('oom');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`  0, ${uuidOf(0)}, 3, 81559\n  1, ${uuidOf(1)}, 3, 81559\n`);
    expect(r.stderr).toMatch(/oom-once attempt 1: out_of_memory \(exit 1; the log matches \/CUDA out of memory\/\)/);
    expect(r.stderr).toMatch(/log: torch\.OutOfMemoryError: CUDA out of memory\. Tried to allocate 160\.00 GiB/);
    expect(r.stderr).toMatch(/oom-once attempt 2: completed/);
    expect(r.stderr).toMatch(/says-oom attempt 1: completed/);
    expect(r.stderr).not.toMatch(/says-oom attempt 2/);
    expect(r.stderr).toMatch(/gpu-check: as expected\n$/);
    const first = /oom-once on (GPU-\S+):/.exec(r.stderr)![1];
    const retried = JSON.parse(await readFile(join(r.dir, 'work/out/oom-once.json'), 'utf8')) as { visible: string };
    expect([uuidOf(0), uuidOf(1)]).toContain(retried.visible);
    expect(retried.visible).not.toBe(first);
  }, 120_000);

  it('says so and exits 1 when the failure is not an out-of-memory one (the task ends failed, not retried)', async () => {
    const r = await gpuCheck('not-oom', {
      TORCH_STAND_IN_MESSAGE: 'CUDA error: an illegal memory access was encountered',
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/oom-once attempt 1: failed \(exit 1\)/);
    expect(r.stderr).toMatch(/oom-once: expected out_of_memory, completed, got failed\n/);
    expect(r.stderr).toMatch(/gpu-check: NOT as expected \(run exit 1\)\n$/);
  }, 120_000);
});
