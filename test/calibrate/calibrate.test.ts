/** Calibration's arithmetic, the manifest patch it writes, and the schema for declaring progress. */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calibrate, type Calibration, type Sample } from '../../src/calibrate/calibrate.js';
import { patchManifest, unifiedDiff } from '../../src/calibrate/patch.js';
import { countRecords, logProgress } from '../../src/calibrate/progress.js';
import { renderCalibration } from '../../src/calibrate/report.js';
import { UserError } from '../../src/errors.js';
import { parseManifest } from '../../src/manifest/load.js';
import { planCampaign } from '../../src/plan/plan.js';
import { readState, runCli, useBuiltCliAndTemp, writeManifest } from '../helpers/cli.js';

describe('progress', () => {
  it('reads the units done and their timestamps from progress lines', () => {
    const log = ['[campaign] task 0 -> p/x', 'gen 1 t=100.5', 'noise', 'gen 2 t=102.5', 'gen 3 t=104.5'].join('\n');
    expect(logProgress('^gen (?<units>\\d+) t=(?<at>[\\d.]+)$', log)).toEqual({
      units: 3,
      points: [
        { units: 1, at: 100.5 },
        { units: 2, at: 102.5 },
        { units: 3, at: 104.5 },
      ],
    });
  });

  it('counts matching lines without a units group, takes Python named groups, and ISO timestamps', () => {
    expect(logProgress('^epoch done$', 'epoch done\nepoch done\nother\nepoch done\n')).toEqual({
      units: 3,
      points: [],
    });
    const iso = 'step=1 at 2026-11-30T09:00:00Z\nstep=2 at 2026-11-30T09:00:04Z\n';
    expect(logProgress('step=(?P<units>\\d+) at (?P<at>\\S+)', iso)?.points).toEqual([
      { units: 1, at: Date.parse('2026-11-30T09:00:00Z') / 1000 },
      { units: 2, at: Date.parse('2026-11-30T09:00:04Z') / 1000 },
    ]);
  });

  it('keeps the most units a restarted count reached, and has nothing to say without a match', () => {
    expect(logProgress('^u (?<units>\\d+)$', 'u 1\nu 2\nu 3\nu 1\nu 2\n')?.units).toBe(3);
    expect(logProgress('^u (?<units>\\d+)$', 'nothing here\n')).toBeUndefined();
  });

  it('counts records: JSON lines, a JSON array, one document', () => {
    expect(countRecords('{"a":1}\n{"a":2}\n\n{"a":3}\n')).toBe(3);
    expect(countRecords('[{"a":1},{"a":2}]')).toBe(2);
    expect(countRecords('{"a":1}')).toBe(1);
  });
});

const MANIFEST = `# distillation, calibrated by hand last spring
campaign: cal
cluster:
  executor: slurm
  name: cluster-a   # the cluster these rates hold on
  partitions:
    - { name: debug, max_time: 30m }
    - { name: short, max_time: 3h }
workdir: w
phases:
  - name: train
    grid: { N: [384, 512], seed: [1, 2] }
    command: python train.py --n \${N}   # the model
    output: out/\${tag}.jsonl
    cost:
      unit: generation
      units: 100
      per_unit: { N=384: 2s, N=512: 1s }   # N=512 is a guess
      measured_on: laptop
      margin: 1.5
      progress:
        log: '^gen (?<units>\\d+) t=(?<at>[\\d.]+)$'
`;

const T0 = Date.parse('2026-11-30T09:00:00Z');
const iso = (s: number): string => new Date(T0 + s * 1000).toISOString();

/** A finished attempt whose log has one line per unit: unit i done at `at(i)` seconds after its start. */
function sample(
  plan: ReturnType<typeof planCampaign>,
  id: string,
  units: number,
  at: (i: number) => number,
  elapsed: number,
): Sample {
  const task = plan.phases[0]!.tasks.find((t) => t.id === id)!;
  const lines = Array.from({ length: units }, (_, i) => `gen ${i + 1} t=${1000 + at(i + 1)}`);
  return {
    task,
    attempt: { n: 1, submittedAt: iso(0), startedAt: iso(1), endedAt: iso(1 + elapsed), class: 'completed' },
    log: ['[campaign] task 0 -> x', ...lines, 'done'].join('\n'),
  };
}

describe('calibrate', () => {
  const { manifest } = parseManifest('cal.yml', MANIFEST);
  const plan = planCampaign(manifest);
  // N=384 as declared (2 s a unit); N=512 at 3 s then 4.5 s a unit: slower than declared, and rising.
  const samples = [
    sample(plan, 'train/N384_seed1', 100, (i) => 2 * i, 203),
    sample(plan, 'train/N384_seed2', 100, (i) => 2.04 * i, 206),
    sample(plan, 'train/N512_seed1', 100, (i) => (i <= 50 ? 3 * i : 150 + 4.5 * (i - 50)), 380),
    sample(plan, 'train/N512_seed2', 100, (i) => (i <= 50 ? 3 * i : 150 + 4.5 * (i - 50)), 378),
  ];
  const c = calibrate(manifest, plan, samples);
  const [n384, n512] = c.phases[0]!.strata;

  it('measures seconds per unit per stratum, with spread, and flags the stratum that differs', () => {
    expect(n384!.stratum).toBe('N=384');
    expect(n384!.measured.median).toBeCloseTo(2.02, 2);
    expect(n384!.measured.min).toBeCloseTo(2, 2);
    expect(n384!.measured.max).toBeCloseTo(2.04, 2);
    expect(n384!.flagged).toBe(false);
    expect(n512!.flagged).toBe(true);
    expect(n512!.declared).toBe(1);
  });

  it('finds the rise within runs from timestamped progress lines: the early rate, and the trend', () => {
    expect(n384!.trend).toBeCloseTo(1, 1);
    expect(n384!.proposedTrend).toBe(1);
    expect(n512!.trend).toBeCloseTo(1.5, 1);
    expect(n512!.proposedRate).toBeCloseTo(3, 1);
    expect(n512!.ratio).toBeCloseTo(3, 1);
  });

  it('reports headroom and the walltime the planner would now choose, which holds the runs measured', () => {
    // Both ran under the plan's budget from the declared rate: 1 s × 100 × 1.5 = 2m30s → 3 min, for N=512.
    expect(n512!.headroom.budget).toBe(180);
    expect(n512!.headroom.share).toBeCloseTo(380 / 180, 2);
    // 3 s × 100 × trend 1.5 × margin 1.5 = 675 s → 11m15s → 12 min, in debug.
    expect(n512!.proposed.seconds).toBe(720);
    expect(n512!.proposed.partition).toBe('debug');
    expect(n512!.fits).toBe(true);
    const report = renderCalibration(c);
    expect(report).toMatch(/train\s+N=512\s+2\s+3s\/generation/);
    expect(report).toContain('RATE DIFFERS');
    expect(report).toContain('211% of 3m');
  });

  it('writes the cost section as measured, keeping comments and layout, as a diff git applies', async () => {
    const patched = patchManifest(MANIFEST, c);
    const changed = unifiedDiff('cal.yml', MANIFEST, patched)
      .split('\n')
      .filter((l) => /^[-+][^-+]/.test(l));
    expect(changed).toEqual([
      '-      per_unit: { N=384: 2s, N=512: 1s }   # N=512 is a guess',
      '-      measured_on: laptop',
      '+      per_unit: { N=384: 2.02s, N=512: 3s }   # N=512 is a guess',
      '+      measured_on: cluster-a',
      '+      trend: 1.5',
    ]);
    const m = parseManifest('cal.yml', patched).manifest;
    expect(m.phases[0]!.cost).toMatchObject({
      per_unit: { 'N=384': '2.02s', 'N=512': '3s' },
      measured_on: 'cluster-a',
      trend: 1.5,
      margin: 1.5,
    });
    const dir = await mkdtemp(join(tmpdir(), 'campaign-patch-'));
    try {
      await writeFile(join(dir, 'cal.yml'), MANIFEST);
      await writeFile(join(dir, 'cal.patch'), unifiedDiff('cal.yml', MANIFEST, patched));
      execFileSync('git', ['apply', 'cal.patch'], { cwd: dir });
      expect(await readFile(join(dir, 'cal.yml'), 'utf8')).toBe(patched);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('gives each stratum its own rate where one rate served strata that differ', () => {
    const text = MANIFEST.replace('per_unit: { N=384: 2s, N=512: 1s }   # N=512 is a guess', 'per_unit: 2s')
      .replace("      progress:\n        log: '^gen (?<units>\\d+) t=(?<at>[\\d.]+)$'\n", '')
      .replace('grid: { N: [384, 512], seed: [1, 2] }', 'grid: { N: [384, 512, 768], seed: [1, 2] }\n    strata: [N]');
    const { manifest: m } = parseManifest('cal.yml', text);
    const p = planCampaign(m);
    // No progress declared: a completed task did its planned units.
    const s = [sample(p, 'train/N384_seed1', 100, (i) => i, 200), sample(p, 'train/N512_seed1', 100, (i) => i, 400)];
    const patched = parseManifest('cal.yml', patchManifest(text, calibrate(m, p, s))).manifest;
    expect(patched.phases[0]!.cost!.per_unit).toEqual({ 'N=384': '2s', 'N=512': '4s', 'N=768': '2s' });
  });

  it('does not measure attempts that failed, or that report no progress', () => {
    const failed = { ...samples[0]!, attempt: { ...samples[0]!.attempt, class: 'failed' as const } };
    const silent = { ...samples[1]!, log: 'no progress here' };
    const r = calibrate(manifest, plan, [failed, silent]);
    expect(r.phases[0]!.strata).toEqual([]);
    expect(r.phases[0]!.skipped).toEqual([{ task: 'train/N384_seed2', why: 'no progress line in its log' }]);
    expect(patchManifest(MANIFEST, r)).toBe(MANIFEST);
  });
});

describe('cost.progress in the schema', () => {
  const withProgress = (progress: string): string =>
    MANIFEST.replace(
      "      progress:\n        log: '^gen (?<units>\\d+) t=(?<at>[\\d.]+)$'\n",
      `      progress: ${progress}\n`,
    );

  it('takes a log pattern or a record count, not both, not neither', () => {
    expect(() => parseManifest('x.yml', withProgress('{ records: true }'))).not.toThrow();
    for (const bad of ["{ records: true, log: 'x' }", '{}']) {
      expect(() => parseManifest('x.yml', withProgress(bad))).toThrow(
        /declare one of log \(a pattern\) or records: true/,
      );
    }
  });

  it('refuses a pattern that is not a regular expression, at its line', () => {
    try {
      parseManifest('x.yml', withProgress("{ log: 'gen (' }"));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(UserError);
      expect((e as UserError).message).toMatch(
        /^x\.yml:21:\d+: phases\.0\.cost\.progress\.log: not a regular expression campaign can match: missing closing \)/,
      );
    }
  });
});

describe('campaign calibrate on this machine (local executor), counting output records', () => {
  const tempRoot = useBuiltCliAndTemp('calibrate-local');

  it('counts each task’s records, judges headroom by the walltime it ran under, and --write applies the patch', async () => {
    const dir = join(tempRoot(), 'c');
    await mkdir(join(dir, 'work'), { recursive: true });
    const manifest = await writeManifest(
      dir,
      `campaign: cal-local
cluster: { executor: local, name: here, max_parallel: 2 }
workdir: work
phases:
  - name: p
    grid: { seed: [1, 2] }
    # one JSON record per step; each step sleeps 0.3 s
    command: |
      for i in $(seq 1 \${units}); do sleep 0.3; echo "{\\"step\\": $i}"; done > \${output}
    output: out/\${tag}.jsonl
    cost: { unit: step, units: 3, per_unit: 5s, progress: { records: true } }
`,
    );
    const stateDir = join(dir, 'state');
    const r = await runCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.2'], { timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    const state = await readState(stateDir);
    // 5 s × 3 × margin 1.2 = 18 s, one minute at least: what each attempt was submitted with.
    expect(state.tasks['p/seed1']!.attempts[0]!.walltimeSeconds).toBe(60);
    const json = await runCli(['calibrate', manifest, '--state-dir', stateDir, '--format', 'json']);
    expect(json.code).toBe(1);
    const [s] = (JSON.parse(json.stdout) as Calibration).phases[0]!.strata;
    expect(s!.samples.map((m) => [m.units, m.unitsFrom])).toEqual([
      [3, 'records'],
      [3, 'records'],
    ]);
    // No timestamps: elapsed over units, start-up included, and never below the sleeps.
    expect(s!.measured.min).toBeGreaterThanOrEqual(0.3);
    expect(s!.measured.max).toBeLessThan(2);
    expect(s!.flagged).toBe(true);
    const written = await runCli(['calibrate', manifest, '--state-dir', stateDir, '--write']);
    expect(written.stdout).toContain('applied to');
    const cost = parseManifest(manifest, await readFile(manifest, 'utf8')).manifest.phases[0]!.cost!;
    expect(cost.per_unit).toMatch(/^\d+(\.\d+)?s$/);
    expect(cost.measured_on).toBe('here');
    // The plan now budgets from the measured rate, but the headroom stays judged by the minute the tasks had.
    const again = JSON.parse(
      (await runCli(['calibrate', manifest, '--state-dir', stateDir, '--format', 'json'])).stdout,
    ) as Calibration;
    expect(again.phases[0]!.strata[0]!.headroom.budget).toBe(60);
    expect(again.phases[0]!.strata[0]!.flagged).toBe(false);
  }, 180_000);
});

describe('the patch, whatever the layout of the cost section', () => {
  const styles = {
    flow: (perUnit: string) =>
      `    cost: { unit: step, units: 4, per_unit: ${perUnit}, progress: { log: '^u (?<units>\\d+) (?<at>[\\d.]+)$' } }\n`,
    block: (perUnit: string) =>
      `    cost:\n      unit: step   # a comment\n      units: 4\n      per_unit: ${perUnit}\n      progress:\n        log: '^u (?<units>\\d+) (?<at>[\\d.]+)$'\n`,
    nested: (perUnit: string) =>
      `    cost:\n      unit: step\n      per_unit:\n${perUnit
        .slice(2, -2)
        .split(', ')
        .map((e) => `        ${e}\n`)
        .join('')}      units: 4\n      progress:\n        log: '^u (?<units>\\d+) (?<at>[\\d.]+)$'\n`,
  };

  it('changes only the measured values: the rest of the manifest reads the same', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<keyof typeof styles>('flow', 'block', 'nested'),
        fc.integer({ min: 1, max: 400 }).map((x) => x / 100),
        fc.integer({ min: 1, max: 400 }).map((x) => x / 100),
        fc.double({ min: 1, max: 2, noNaN: true }),
        (style, a, b, rise) => {
          const perUnit = '{ k=1: 1s, k=2: 2s }';
          const text = `# top comment\ncampaign: c\ncluster: { executor: local, name: here }\nworkdir: w\nphases:\n  - name: p   # trailing\n    grid: { k: [1, 2] }\n    command: run \${k}\n${styles[style](perUnit)}  - name: q\n    command: 'true'\n`;
          const { manifest } = parseManifest('m.yml', text);
          const plan = planCampaign(manifest);
          const log = (rate: number): string =>
            Array.from(
              { length: 5 },
              (_, i) => `u ${i} ${(i <= 2 ? i * rate : 2 * rate + (i - 2) * rate * rise).toFixed(4)}`,
            ).join('\n');
          const samples: Sample[] = plan.phases[0]!.tasks.map((task, i) => ({
            task,
            attempt: { n: 1, submittedAt: iso(0), startedAt: iso(0), endedAt: iso(20), class: 'completed' },
            log: log(i === 0 ? a : b),
          }));
          const c = calibrate(manifest, plan, samples);
          const patched = patchManifest(text, c);
          const after = parseManifest('m.yml', patched).manifest;
          // Everything but the cost section is as it was, comments included.
          expect({ ...after, phases: after.phases.map((p) => ({ ...p, cost: undefined })) }).toEqual({
            ...manifest,
            phases: manifest.phases.map((p) => ({ ...p, cost: undefined })),
          });
          for (const comment of ['# top comment', '# trailing']) expect(patched).toContain(comment);
          const cost = after.phases[0]!.cost!;
          expect(cost).toMatchObject({
            unit: 'step',
            units: 4,
            measured_on: 'here',
            progress: manifest.phases[0]!.cost!.progress,
          });
          expect(cost.per_unit).toEqual(c.phases[0]!.cost.per_unit);
          expect(cost.trend).toEqual(c.phases[0]!.cost.trend);
          // Only lines of the cost section change.
          const changed = unifiedDiff('m.yml', text, patched)
            .split('\n')
            .filter((l) => /^[-+][^-+]/.test(l));
          for (const l of changed) expect(l).toMatch(/per_unit|k=1|k=2|measured_on|trend|cost:/);
        },
      ),
      { numRuns: 150 },
    );
  });
});
