/**
 * The summary's pictures: a real campaign (local executor, with a retry, a failure and a
 * blocked phase) writes them next to summary.md, and headless Chromium parses and draws them.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readState, runCli, useBuiltCliAndTemp, writeManifest } from '../helpers/cli.js';
import { chromium, countColor, decodePng, dumpDom, inked, screenshot } from '../helpers/chromium.js';
import { COLORS } from '../../src/report/svg/svg.js';

if (!chromium)
  console.warn('\n*** picture rendering tests SKIPPED: no chromium (scripts/ensure-tools installs it) ***\n');

const tempRoot = useBuiltCliAndTemp('pictures');
/** A grid value full of markup: it reaches labels and tooltips, and must stay text. */
const HOSTILE = `<b a="1">&amp;</b>'`;

const MANIFEST = `campaign: pictures
cluster:
  executor: local
  name: laptop
  max_parallel: 4
workdir: work
phases:
  - name: train
    grid: { size: [small, ${JSON.stringify(HOSTILE)}], seed: [1, 2] }
    strata: [size]
    command: |
      # the second seed of the hostile stratum fails once, then passes on its retry
      if [ "\${seed}" = 2 ] && [ "\${size}" != small ] && [ ! -e .failed-once ]; then touch .failed-once; exit 3; fi
      sleep 0.3; echo done > \${output}
    output: out/\${tag}.txt
    cost: { unit: step, units: 2, per_unit: 0.2s }
    retry:
      failed: { attempts: 1 }
  - name: ablate
    grid: { drop: [a, b] }
    command: 'sleep 0.2; [ "\${drop}" = a ] || exit 1; echo ok > \${output}'
    output: ablate/\${tag}.txt
    walltime: 1m
  - name: report
    depends_on: [train, ablate]
    command: echo report > \${output}
    output: report.txt
    walltime: 1m
`;

let stateDir = '';

beforeAll(async () => {
  const dir = join(tempRoot(), 'campaign');
  await mkdir(join(dir, 'work'), { recursive: true });
  const manifest = await writeManifest(dir, MANIFEST);
  stateDir = join(dir, 'state');
  const r = await runCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.2'], { timeoutMs: 120_000 });
  // ablate/dropb fails, so report is blocked: the campaign does not complete.
  expect(r.code, r.stdout + r.stderr).toBe(1);
}, 180_000);

describe('pictures in the summary artifact', () => {
  it('writes the three pictures next to summary.md and links them', async () => {
    const summary = await readFile(join(stateDir, 'summary.md'), 'utf8');
    for (const f of ['timeline.svg', 'runtimes.svg', 'phases.svg']) {
      expect(summary).toContain(`](${f})`);
      const svg = await readFile(join(stateDir, f), 'utf8');
      expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    }
    const state = await readState(stateDir);
    expect(state.tasks[`train/size-b-a-1-amp-b-_seed2`]?.attempts.map((a) => a.class)).toEqual(['failed', 'completed']);
  });

  describe.runIf(chromium !== undefined)('rendered by headless Chromium', () => {
    /** Parses a picture in Chromium: an XML error would show as a parsererror element. */
    async function dom(file: string): Promise<string> {
      const text = await dumpDom(join(stateDir, file));
      expect(text).not.toContain('parsererror');
      expect(text).toContain('<svg');
      return text;
    }

    async function draw(file: string): Promise<ReturnType<typeof decodePng>> {
      const svg = await readFile(join(stateDir, file), 'utf8');
      const [, w, h] = /width="(\d+)" height="(\d+)"/.exec(svg)!;
      const png = await screenshot(
        join(stateDir, file),
        join(stateDir, file.replace('.svg', '.png')),
        Number(w),
        Number(h),
      );
      const pixels = decodePng(png);
      expect([pixels.width, pixels.height]).toEqual([Number(w), Number(h)]);
      expect(inked(pixels)).toBeGreaterThan(2000);
      return pixels;
    }

    it('timeline: a bar per attempt, the retry outlined, failures crossed, labels kept as text', async () => {
      const text = await dom('timeline.svg');
      // 4 train + 2 ablate tasks, one train task twice; report never ran.
      expect(text.match(/<g class="bar /g)).toHaveLength(7);
      expect(text.match(/class="bar completed retry"/g)).toHaveLength(1);
      expect(text.match(/class="failure-mark"/g)).toHaveLength(2);
      // The hostile grid value is a label, escaped, not markup.
      expect(text).toContain('train · size=&lt;b a="1"&gt;&amp;amp;&lt;/b&gt;\'');
      expect(text).not.toContain('<b a="1">');
      const pixels = await draw('timeline.svg');
      expect(countColor(pixels, COLORS.completed)).toBeGreaterThan(300);
      expect(countColor(pixels, COLORS.failed)).toBeGreaterThan(40);
    }, 120_000);

    it('runtimes: a row per phase and stratum with a dot per finished attempt, and the walltime line', async () => {
      const text = await dom('runtimes.svg');
      expect(text.match(/<g class="stratum"/g)).toHaveLength(3);
      expect(text.match(/<circle [^>]*class="dot /g)).toHaveLength(7);
      expect(text).toContain('class="walltime"');
      const pixels = await draw('runtimes.svg');
      expect(countColor(pixels, COLORS.failed)).toBeGreaterThan(100);
    }, 120_000);

    it('phases: a box per phase in its state, and the dependency arrows', async () => {
      const text = await dom('phases.svg');
      expect(text).toContain('class="phase completed" data-phase="train"');
      expect(text).toContain('class="phase failed" data-phase="ablate"');
      expect(text).toContain('class="phase blocked" data-phase="report"');
      expect(text.match(/class="edge"/g)).toHaveLength(2);
      const pixels = await draw('phases.svg');
      expect(countColor(pixels, COLORS.completed)).toBeGreaterThan(200);
      expect(countColor(pixels, COLORS.failed)).toBeGreaterThan(200);
    }, 120_000);
  });
});
