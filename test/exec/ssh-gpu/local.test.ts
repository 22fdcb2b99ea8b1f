/**
 * `executor: ssh-gpu` without `login`: the GPUs of this machine, driven through the local
 * transport (no SSH), against the nvidia-smi stand-in. This is how the executor meets a real
 * GPU machine's nvidia-smi when campaign runs on it.
 */
import { describe, expect, it } from 'vitest';
import { useBuiltCliAndTemp } from '../../helpers/cli.js';
import { campaignDirs, expectOnePerGpu, runCampaign, uuidOf } from './helpers.js';

const setUp = campaignDirs(useBuiltCliAndTemp('ssh-gpu-local'));

describe('ssh-gpu on this machine, without login', () => {
  it('runs a grid on the GPUs the probe lists, one task per GPU at a time, with no SSH key at all', async () => {
    const { dir, workdir, gpus } = await setUp(
      'here',
      [0, 1].map((i) => [i, uuidOf(i), 3]),
    );
    const r = await runCampaign(
      dir,
      `campaign: here
cluster:
  executor: ssh-gpu
  probe: ${gpus.probe}
  probe_timeout: 3s
workdir: ${workdir}
phases:
  - name: grid
    grid: { n: [1, 2, 3, 4] }
    walltime: 5m
    output: out/\${n}.txt
    command: |
      ${gpus.log('start')}
      ${gpus.bin}/gpu-hold 2000 0.5
      ${gpus.log('end')}
      echo done > \${output}
`,
    );
    expect(r.result.code, r.result.stderr).toBe(0);
    for (const t of Object.values(r.state.tasks)) expect(t.attempts.map((a) => a.class)).toEqual(['completed']);
    const used = expectOnePerGpu(await gpus.entries());
    expect([...used].sort()).toEqual([uuidOf(0), uuidOf(1)]);
  }, 120_000);

  it('a full output that falls short of its records is unverified, read over the transport, and its retry completes', async () => {
    const { dir, workdir, gpus } = await setUp('records', [[0, uuidOf(0), 3]]);
    const r = await runCampaign(
      dir,
      `campaign: records
cluster:
  executor: ssh-gpu
  probe: ${gpus.probe}
workdir: ${workdir}
phases:
  - name: p
    command: |
      for ((g = 1; g <= \${units}; g++)); do printf '{"g": %d}\\n' "$g"; done > \${output}
      if [ \${attempt} = 1 ]; then printf '{"g"' >> \${output}; fi
    output: out.jsonl
    flush: per_step
    cost: { unit: step, units: 2, per_unit: 1s, measured_on: here, progress: { records: true } }
    retry: { failed: { attempts: 1 } }
`,
    );
    expect(r.result.code, r.result.stderr).toBe(0);
    const t = r.state.tasks['p/task']!;
    expect(t.attempts.map((a) => [a.class, a.reason])).toEqual([
      ['unverified', `exit 0 but ${workdir}/out.jsonl: line 3 is not JSON (a record cut off mid-write?)`],
      ['completed', undefined],
    ]);
  }, 120_000);
});
