/**
 * Packing is planned and shown (plan/pack.ts) but the Slurm executor does not run packed
 * elements yet: a packed plan is refused before anything is sent, never sent one task per
 * element as if `pack` were not there.
 */
import { describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors.js';
import { SlurmExecutor } from '../../../src/exec/slurm/slurm-executor.js';
import { parseManifest } from '../../../src/manifest/load.js';
import { planCampaign } from '../../../src/plan/plan.js';

const manifest = (pack: string): string => `campaign: packed
cluster:
  executor: slurm
workdir: runs
phases:
  - name: short
    grid: { seed: [1, 2, 3, 4] }
    command: echo \${seed} > \${output}
    output: out/\${tag}.txt
    walltime: 1m
${pack}`;

const limits = { partitions: new Map<string, number | undefined>(), accountingRead: false, othersQueued: 0 };
const check = (text: string) => () =>
  SlurmExecutor.checkPlan(planCampaign(parseManifest('m.yml', text).manifest), limits);

describe('a packed plan on the Slurm executor', () => {
  it('is refused with the phase and the fix', () => {
    expect(check(manifest('    pack: 2\n'))).toThrow(UserError);
    expect(check(manifest('    pack: 2\n'))).toThrow(/phase short packs its tasks/);
  });

  it('without pack, is sent as before', () => {
    expect(check(manifest(''))).not.toThrow();
  });
});
