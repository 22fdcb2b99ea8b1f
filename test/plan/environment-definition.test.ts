/**
 * The environment is part of a task's definition (plan/definition.ts, the setup part), and a
 * manifest without one keeps the digests it had before environments existed: states recorded
 * then must not see every task as changed.
 */
import { describe, expect, it } from 'vitest';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { changedParts } from '../../src/plan/definition.js';
import { planCampaign, type Plan } from '../../src/plan/plan.js';

const raw = (extra: { top?: unknown; train?: unknown; eval?: unknown } = {}) => ({
  campaign: 'c',
  cluster: { executor: 'local' },
  workdir: 'w',
  ...(extra.top === undefined ? {} : { environment: extra.top }),
  setup: 'export A=1',
  phases: [
    {
      name: 'train',
      grid: { seed: [1, 2] },
      command: 'python train.py ${seed} > ${output}',
      output: 'o_${seed}.txt',
      setup: 'cd src',
      ...(extra.train === undefined ? {} : { environment: extra.train }),
    },
    {
      name: 'eval',
      depends_on: 'train',
      command: 'python eval.py',
      ...(extra.eval === undefined ? {} : { environment: extra.eval }),
    },
  ],
});

const planOf = (m: unknown): Plan => planCampaign(manifestSchema.parse(m));

function digests(plan: Plan): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of plan.phases) {
    for (const t of p.tasks) out[t.id] = t.definition!;
    out[`${p.name}: stage`] = p.definitions.full.id;
    out[`${p.name}: setup part`] = p.definitions.full.parts.setup!;
  }
  return out;
}

describe('the environment in a task definition', () => {
  it('a manifest without an environment keeps the digests it had before there were environments', () => {
    // Computed from this manifest by the commit before environments (f55d3ec).
    const before = {
      'train/seed1': 'f9b6c837fe98a72c',
      'train/seed2': '4609c6ffdb4f8317',
      'train: stage': '4a8d5fff6b41',
      'train: setup part': '40136a64',
      'eval/task': '9266639c29c195fd',
      'eval: stage': 'c0e6c85daa48',
      'eval: setup part': 'a9c140a9',
    };
    expect(digests(planOf(raw()))).toEqual(before);
    // Nothing to activate is no environment: an empty one, or a phase's empty module list.
    expect(digests(planOf(raw({ top: {}, train: { modules: [] } })))).toEqual(before);
  });

  it('an environment changes the digests of the tasks that run in it, as a change of their setup', () => {
    const plain = planOf(raw());
    const withModules = planOf(raw({ train: { modules: ['python/3.11'] } }));
    const a = digests(plain);
    const b = digests(withModules);
    expect(b['train/seed1']).not.toBe(a['train/seed1']);
    expect(b['train/seed2']).not.toBe(a['train/seed2']);
    // eval runs in no environment and names none of train's outputs: it is the same task.
    expect(b['eval/task']).toBe(a['eval/task']);
    const train = (p: Plan) => p.phases.find((x) => x.name === 'train')!.definitions.full.parts;
    expect(changedParts(train(plain), train(withModules))).toEqual(['setup']);
  });

  it('each key of the environment counts, and the same resolved environment is the same task', () => {
    const of = (extra: Parameters<typeof raw>[0]) => digests(planOf(raw(extra)))['eval/task'];
    const seen = new Set([
      of({}),
      of({ eval: { modules: ['python/3.11'] } }),
      of({ eval: { modules: ['python/3.12'] } }),
      of({ eval: { modules: ['python/3.11', 'cuda/12.2'] } }),
      of({ eval: { conda: 'distill' } }),
      of({ eval: { venv: 'distill' } }),
    ]);
    expect(seen.size).toBe(6);
    // Written at the top or in the phase, what the phase resolves to is what counts.
    expect(of({ top: { conda: 'distill' }, train: { conda: 'distill' } })).toBe(
      of({ train: { conda: 'distill' }, eval: { conda: 'distill' } }),
    );
    // A phase's venv replaces the campaign's conda.
    const evalSetup = (extra: Parameters<typeof raw>[0]) => digests(planOf(raw(extra)))['eval: setup part'];
    expect(evalSetup({ top: { conda: 'distill' }, eval: { venv: '.venv' } })).toBe(
      evalSetup({ eval: { venv: '.venv' } }),
    );
  });
});
