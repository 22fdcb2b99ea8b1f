/**
 * Calibration on the real test cluster, over SSH: a campaign whose declared rate is wrong for
 * one stratum runs, and `campaign calibrate` finds the true rate (the tasks sleep a known time
 * per unit), flags that stratum, proposes a walltime that holds, and writes the patch.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Calibration } from '../../src/calibrate/calibrate.js';
import { parseManifest } from '../../src/manifest/load.js';
import { readState, runCli, useBuiltCliAndTemp, writeManifest } from '../helpers/cli.js';
import { clusterIsUp, slurmManifestHead } from '../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from '../exec/transport/sshd.js';

const clusterUp = clusterIsUp('calibration tests on the cluster');
const tempRoot = useBuiltCliAndTemp('calibrate-slurm');
const RUN = Date.now().toString(36);
let sshd: Sshd | undefined;

beforeAll(async () => {
  if (!clusterUp) return;
  sshd = await sshdUp();
  if (sshd) process.env.CAMPAIGN_SSH_KEY_FILE = sshd.keyFile;
}, 300_000);

/**
 * Seconds each unit truly takes, per stratum; the manifest declares 0.3 s for big. Each unit
 * ends at its time from the start (bash's own clock, `EPOCHREALTIME`, sleeping what is left), so
 * the forks of `sleep` on a machine under the whole suite's load do not add up (they stretched
 * a step of 1 s past calibrate's 10 % once).
 */
const TRUE_RATE = { small: 1, big: 1.5 };

describe.runIf(clusterUp)('campaign calibrate on the test cluster', () => {
  it('finds the true rate of the stratum declared wrong, proposes a walltime that fits, and writes the patch', async (ctx) => {
    if (!sshd) return ctx.skip();
    const dir = join(tempRoot(), 'cal');
    const workdir = join(dir, 'work');
    await mkdir(workdir, { recursive: true });
    const stateDir = join(dir, 'state');
    const manifest = await writeManifest(
      dir,
      `${slurmManifestHead(sshd, `cal-${RUN}`, workdir)}phases:
  - name: train
    grid: { size: [small, big], seed: [1, 2] }
    strata: [size]
    # each unit sleeps a known time: small ${TRUE_RATE.small} s, big ${TRUE_RATE.big} s
    command: |
      step_us=${TRUE_RATE.small * 1e6}; [ "\${size}" = big ] && step_us=${TRUE_RATE.big * 1e6}
      start=$\${EPOCHREALTIME/./}
      echo "unit 0 at $EPOCHREALTIME"
      for i in $(seq 1 \${units}); do
        left=$((start + i * step_us - $\${EPOCHREALTIME/./}))
        ((left > 0)) && sleep "$((left / 1000000)).$(printf %06d $((left % 1000000)))"
        echo "unit $i at $EPOCHREALTIME"
      done
      echo done > \${output}
    output: out/\${tag}.txt
    cost:
      unit: step
      units: 4
      per_unit: { size=small: ${TRUE_RATE.small}s, size=big: 0.3s }   # big is wrong on purpose
      measured_on: campaign-test
      margin: 1.5
      progress:
        log: '^unit (?<units>\\d+) at (?<at>[\\d.]+)$'
`,
    );
    const r = await runCli(['run', manifest, '--state-dir', stateDir, '--poll', '2'], { timeoutMs: 400_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);

    const json = await runCli(['calibrate', manifest, '--state-dir', stateDir, '--format', 'json'], {
      timeoutMs: 120_000,
    });
    expect(json.code, json.stderr).toBe(1);
    const c = JSON.parse(json.stdout) as Calibration;
    const strata = Object.fromEntries(c.phases[0]!.strata.map((s) => [s.stratum, s]));
    const big = strata['size=big']!;
    const small = strata['size=small']!;
    console.log(
      `measured: big ${big.measured.median.toFixed(3)} s/step (true ${TRUE_RATE.big}), small ${small.measured.median.toFixed(3)} s/step (true ${TRUE_RATE.small})`,
    );
    expect(big.samples).toHaveLength(2);
    // Within 15 %: the steps are sleeps, but under the whole suite's load on two cores each step's
    // own processes (sleep and date, forked by bash) stretch them; 10 % was missed by 0.03 % once.
    expect(Math.abs(big.measured.median / TRUE_RATE.big - 1)).toBeLessThan(0.15);
    expect(Math.abs(small.measured.median / TRUE_RATE.small - 1)).toBeLessThan(0.15);
    expect(big.flagged).toBe(true);
    expect(small.flagged).toBe(false);
    // The proposed walltime holds every measured big task, by the cluster's own clock.
    const state = await readState(stateDir);
    const elapsed = ['train/sizebig_seed1', 'train/sizebig_seed2'].map((id) => {
      const a = state.tasks[id]!.attempts[0]!;
      return (Date.parse(a.endedAt!) - Date.parse(a.startedAt!)) / 1000;
    });
    expect(big.fits).toBe(true);
    expect(big.proposed.seconds).toBeGreaterThanOrEqual(Math.max(...elapsed));
    expect(big.proposed.partition).toBe('debug');

    const text = await runCli(['calibrate', manifest, '--state-dir', stateDir, '--write'], { timeoutMs: 120_000 });
    expect(text.code).toBe(1);
    // Within the same 10 % of the true 1.5 s as the figures above (1.6 s in one loaded run).
    expect(text.stdout).toMatch(/train\s+size=big\s+2\s+1\.[3-6]\d*s\/step.*RATE DIFFERS/);
    expect(await readFile(join(stateDir, 'calibrate.patch'), 'utf8')).toContain('+      per_unit: { size=small: ');
    // Written back: the manifest keeps its comment and now holds the measured rates, measured here.
    const written = await readFile(manifest, 'utf8');
    expect(written).toContain('# big is wrong on purpose');
    const cost = parseManifest(manifest, written).manifest.phases[0]!.cost!;
    expect(cost.measured_on).toBe('campaign-test');
    const perUnit = cost.per_unit as Record<string, string>;
    expect(Math.abs(parseFloat(perUnit['size=big']!) / TRUE_RATE.big - 1)).toBeLessThan(0.1);
    // Measured again against the rates it wrote: nothing differs any more.
    const again = await runCli(['calibrate', manifest, '--state-dir', stateDir], { timeoutMs: 120_000 });
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain('The manifest already holds the measured rates.');
  }, 500_000);
});
