/**
 * The plan against the base branch's (report/plan-diff.ts): every task of both plans is added,
 * removed, run again or unchanged, and only one of them; what changes only a cost (walltime)
 * runs nothing again; a command change runs its phase and the phases reading its outputs again.
 * The comment keeps a manifest value from becoming Markdown or HTML and stays within GitHub's
 * limit, saying what it left out.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { manifest as manifestSchema, type Manifest } from '../../src/manifest/schema.js';
import { planCampaign, type Plan } from '../../src/plan/plan.js';
import { commentMarker, diffPlans, renderPlanComment, unchangedPlan } from '../../src/report/plan-diff.js';

interface Shape {
  seeds: number[];
  widths: number[];
  command: string;
  walltime: string;
  evalCommand: string;
  smoke: 'none' | 'smoke' | 'full_run';
  withEval: boolean;
}

function manifestOf(s: Shape): Record<string, unknown> {
  const phases: Record<string, unknown>[] = [
    {
      name: 'train',
      grid: { seed: s.seeds, width: s.widths },
      command: s.command,
      output: 'models/w${width}_s${seed}.json',
      walltime: s.walltime,
      resources: { gpus: 2 },
      ...(s.smoke === 'smoke' ? { smoke: { tasks: 1, overrides: { args: '--dry' } } } : {}),
      // A full-run smoke task is a full task: counted once.
      ...(s.smoke === 'full_run' ? { smoke: { tasks: 1, full_run: true } } : {}),
    },
  ];
  if (s.withEval)
    phases.push({
      name: 'eval',
      depends_on: 'train',
      grid: { seed: s.seeds, width: s.widths },
      preconditions: [{ exists: 'models/w${width}_s${seed}.json' }],
      command: s.evalCommand,
      output: 'eval/w${width}_s${seed}.json',
      walltime: '10m',
    });
  return {
    campaign: 'c',
    cluster: { executor: 'slurm', partitions: [{ name: 'short', max_time: '4h' }] },
    workdir: 'w',
    phases,
  };
}

const planOf = (s: Shape): Plan => planCampaign(manifestSchema.parse(manifestOf(s)) as Manifest);

const shape = fc.record({
  seeds: fc.uniqueArray(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 4 }),
  widths: fc.uniqueArray(fc.constantFrom(8, 16, 32), { minLength: 1, maxLength: 3 }),
  command: fc.constantFrom('python train.py ${seed} > ${output}', 'python train.py --fast ${seed} > ${output}'),
  walltime: fc.constantFrom('20m', '1h', '2h'),
  evalCommand: fc.constantFrom('python eval.py ${seed} > ${output}', 'python eval2.py ${seed} > ${output}'),
  smoke: fc.constantFrom<Shape['smoke']>('none', 'smoke', 'full_run'),
  withEval: fc.boolean(),
});

/** Task ids of a plan, each once (a full-run smoke task is its full task). */
const idsOf = (plan: Plan): Set<string> =>
  new Set(plan.phases.flatMap((p) => [...p.tasks, ...p.smoke].map((t) => t.id)));

const base: Shape = {
  seeds: [1, 2],
  widths: [8, 16],
  command: 'python train.py ${seed} > ${output}',
  walltime: '1h',
  evalCommand: 'python eval.py ${seed} > ${output}',
  smoke: 'smoke',
  withEval: true,
};

describe('the plan against the base branch', () => {
  it('accounts for every task of both plans exactly once', () => {
    fc.assert(
      fc.property(shape, shape, (b, h) => {
        const before = planOf(b);
        const after = planOf(h);
        const d = diffPlans(before, after);
        const added = d.phases.flatMap((p) => p.added);
        const removed = d.phases.flatMap((p) => p.removed);
        const changed = d.phases.flatMap((p) => p.changed);
        const unchanged = d.phases.reduce((n, p) => n + p.unchanged, 0);
        const baseIds = idsOf(before);
        const headIds = idsOf(after);
        // Each head task is added, changed or unchanged; each base task removed, changed or unchanged.
        expect(added.length + changed.length + unchanged).toBe(headIds.size);
        expect(removed.length + changed.length + unchanged).toBe(baseIds.size);
        for (const id of added) expect(baseIds.has(id) || !headIds.has(id)).toBe(false);
        for (const id of removed) expect(headIds.has(id) || !baseIds.has(id)).toBe(false);
        for (const id of changed) expect(baseIds.has(id) && headIds.has(id)).toBe(true);
        expect(new Set([...added, ...removed, ...changed]).size).toBe(added.length + removed.length + changed.length);
        expect(d.after.tasks).toBe(headIds.size);
        expect(d.before!.tasks).toBe(baseIds.size);
        expect(unchangedPlan(d)).toBe(
          added.length + removed.length + changed.length === 0 &&
            d.before!.gpuHours === d.after.gpuHours &&
            d.before!.walltimeHours === d.after.walltimeHours,
        );
        expect(renderPlanComment(d, { file: 'campaigns/c.yml' }).startsWith(commentMarker('c'))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('runs nothing again when only a walltime changes, and says what it costs', () => {
    fc.assert(
      fc.property(shape, fc.constantFrom('20m', '1h', '2h'), (s, walltime) => {
        const d = diffPlans(planOf(s), planOf({ ...s, walltime }));
        for (const p of d.phases) expect([p.added, p.removed, p.changed]).toEqual([[], [], []]);
        const train = d.phases.find((p) => p.phase === 'train')!;
        expect(train.after!.walltimeHours / train.before!.walltimeHours).toBeCloseTo(
          (walltime === '20m' ? 1 / 3 : walltime === '1h' ? 1 : 2) /
            (s.walltime === '20m' ? 1 / 3 : s.walltime === '1h' ? 1 : 2),
        );
      }),
      { numRuns: 30 },
    );
  });

  it('runs a phase again when its command changes, and the phases that read its outputs', () => {
    fc.assert(
      fc.property(shape, (s) => {
        const other = s.command.includes('--fast') ? base.command : 'python train.py --fast ${seed} > ${output}';
        const d = diffPlans(planOf(s), planOf({ ...s, command: other }));
        const train = d.phases.find((p) => p.phase === 'train')!;
        expect(train.changed.length).toBe(train.after!.tasks);
        expect(train.parts).toEqual(['command']);
        if (s.withEval) {
          const ev = d.phases.find((p) => p.phase === 'eval')!;
          expect(ev.changed.length).toBe(ev.after!.tasks);
          expect(ev.parts).toEqual(['upstream results']);
        }
      }),
      { numRuns: 30 },
    );
    // The dependant's own command changes only its own tasks.
    const d = diffPlans(planOf(base), planOf({ ...base, evalCommand: 'python eval2.py ${seed} > ${output}' }));
    expect(d.phases.map((p) => [p.phase, p.changed.length, p.parts])).toEqual([
      ['train', 0, []],
      ['eval', 4, ['command']],
    ]);
  });

  it('counts every task as added for a new manifest, as removed for a deleted one, and a phase dropped as removed', () => {
    const head = planOf(base);
    const d = diffPlans(undefined, head);
    expect(d.phases.map((p) => p.added.length)).toEqual([5, 4]);
    expect(d.before).toBeUndefined();
    const dropped = diffPlans(head, planOf({ ...base, withEval: false }));
    expect(dropped.phases.map((p) => [p.phase, p.removed.length, p.after === undefined])).toEqual([
      ['train', 0, false],
      ['eval', 4, true],
    ]);
    const text = renderPlanComment(d, {
      file: 'campaigns/c.yml',
      missing: 'new',
    });
    expect(text).toContain('`campaigns/c.yml` is new in this pull request: every task is counted as added.');
    expect(text).toContain('- → ');
    // A deleted manifest is compared with a plan of no phases.
    const deleted = diffPlans(head, { ...head, phases: [] });
    expect(deleted.phases.map((p) => [p.phase, p.removed.length])).toEqual([
      ['train', 5],
      ['eval', 4],
    ]);
    const gone = renderPlanComment(deleted, { file: 'campaigns/c.yml', missing: 'deleted' });
    expect(gone).toContain('**0 added, 9 removed, 0 run again**');
    expect(gone).toContain('every task is counted as removed');
  });
});

describe('the plan comment', () => {
  it('keeps a manifest value code, never Markdown or HTML', () => {
    const values = ['<img src=x onerror=alert(1)>', '**bold** | x', 'a`b``c', '[link](http://e)'];
    const m = manifestOf(base) as { phases: Record<string, unknown>[] };
    m.phases = [{ ...m.phases[0]!, grid: { note: values }, output: 'out/${tag}.json' }];
    const plan = planCampaign(manifestSchema.parse(m) as Manifest);
    const text = renderPlanComment(diffPlans(undefined, plan), { file: 'campaigns/<b>x</b>.yml' });
    // Outside fenced code blocks and code spans, no value appears as it is.
    const outside = text.replace(/^(`{3,})\n[\s\S]*?\n\1$/gm, '').replace(/(`+) [\s\S]*? \1|(`+)[^`]*?\2/g, '');
    for (const v of [...values, '<b>x</b>']) expect(outside).not.toContain(v);
    // Inside a block, a value with backticks cannot close the fence.
    const fences = [...text.matchAll(/^(`{3,})$/gm)].map((x) => x[1]!.length);
    expect(Math.min(...fences)).toBeGreaterThanOrEqual(3);
    expect(text).toContain('(`campaigns/<b>x</b>.yml`)');
    // A backtick in the text lengthens the code span's fence.
    expect(renderPlanComment(diffPlans(undefined, plan), { file: 'a`b.yml' })).toContain('(`` a`b.yml ``)');
  });

  it("is cut to GitHub's limit, saying how many tasks it left out", () => {
    const many = { ...base, seeds: Array.from({ length: 400 }, (_, i) => i + 1), widths: [8, 16, 32] };
    const d = diffPlans(undefined, planOf(many));
    const limit = 4000;
    const text = renderPlanComment(d, { file: 'campaigns/c.yml', limit });
    expect(text.length).toBeLessThanOrEqual(limit);
    expect(text).toMatch(/… and \d+ more, cut to fit GitHub's comment limit\./);
    const full = renderPlanComment(d, { file: 'campaigns/c.yml' });
    expect(full.length).toBeGreaterThan(limit);
    expect(full.length).toBeLessThanOrEqual(65_536);
    // Shown and left out add up to the phase's tasks.
    const shown = text.split('\n').filter((l) => l.startsWith('train/')).length;
    const left = Number(/… and (\d+) more/.exec(text)![1]);
    expect(shown + left).toBe(d.phases[0]!.added.length);
  });

  it('says so when nothing of the plan changes', () => {
    const d = diffPlans(planOf(base), planOf(base));
    expect(unchangedPlan(d)).toBe(true);
    expect(renderPlanComment(d, { file: 'campaigns/c.yml' })).toContain('changes nothing of the plan');
  });
});
