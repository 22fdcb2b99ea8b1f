/**
 * What an output must hold (judge/checklist.ts, judge/attempt-end.ts): the records check the
 * smoke checklist runs, and the same expectation carried to full tasks at completion.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asSmoke, expandPhase } from '../../src/manifest/expand.js';
import { manifest as manifestSchema, type Manifest } from '../../src/manifest/schema.js';
import { recordsVerdict } from '../../src/judge/attempt-end.js';
import { evaluateChecklist, fullRecordExpectation, recordProblems } from '../../src/judge/checklist.js';
import type { TaskSpec } from '../../src/manifest/expand.js';

const jsonl = (records: object[]): string => records.map((r) => JSON.stringify(r) + '\n').join('');

describe('recordProblems', () => {
  it('accepts JSON lines or one JSON array with the count and fields asked', () => {
    const records = [1, 2, 3].map((step) => ({ step, loss: 0.5 }));
    expect(recordProblems(jsonl(records), 3, ['step', 'loss'])).toEqual([]);
    expect(recordProblems(JSON.stringify(records, null, 2), 3, ['step'])).toEqual([]);
    expect(recordProblems(jsonl(records), 4, [])).toEqual(['3 records, expected 4']);
    expect(recordProblems(jsonl([{ step: 1 }]), undefined, ['step', 'loss'])).toEqual(['record 1 lacks loss']);
  });

  it('never accepts an output cut short anywhere: any prefix short of the last record fails a count of n', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ step: fc.nat(), loss: fc.double({ noNaN: true, noDefaultInfinity: true }) }), {
          minLength: 1,
          maxLength: 20,
        }),
        fc.nat(),
        (records, cut) => {
          const text = jsonl(records);
          // Short of the last record's closing brace: without just the final newline it is whole.
          const prefix = text.slice(0, cut % (text.length - 1));
          expect(recordProblems(prefix, records.length, ['step', 'loss'])).not.toEqual([]);
        },
      ),
    );
  });
});

function parsed(text: string): Manifest {
  return manifestSchema.parse(JSON.parse(text)) as Manifest;
}

describe('fullRecordExpectation', () => {
  const base = {
    campaign: 'c',
    cluster: { executor: 'local' },
    workdir: 'w',
  };
  const phase = {
    name: 'p',
    grid: { k: [1, 2] },
    command: 'x',
    output: 'o_${k}.jsonl',
    cost: { unit: 'step', units: 7, per_unit: '1s', measured_on: 'here', progress: { records: true } },
    smoke: {
      tasks: 1,
      overrides: { units: 2 },
      trigger: [
        { check: 'records', count: 2, fields: ['step'] },
        { check: 'records', fields: ['step', 'loss'] },
      ],
    },
  };

  it("asks a full task for one record per unit and every field the smoke checks name; smoke tasks are the checklist's", () => {
    const m = parsed(JSON.stringify({ ...base, phases: [phase] }));
    const full = expandPhase(m, m.phases[0]!)[0]!;
    expect(fullRecordExpectation(m, full)).toEqual({ count: 7, fields: ['step', 'loss'] });
    expect(fullRecordExpectation(m, asSmoke(full, 2))).toBeUndefined();
  });

  it('asks nothing where the phase declares neither records progress nor a records check', () => {
    const bare = { ...phase, cost: { ...phase.cost, progress: undefined }, smoke: { tasks: 1 } };
    const m = parsed(JSON.stringify({ ...base, phases: [bare] }));
    const full = expandPhase(m, m.phases[0]!)[0]!;
    expect(fullRecordExpectation(m, full)).toBeUndefined();
  });

  it('a verdict names the output and its first problem', () => {
    const expect_ = { count: 2, fields: ['step'] };
    expect(recordsVerdict('COMPLETED', 'o.jsonl', { expect: expect_, text: '{"step": 1}\n{"st' })).toEqual({
      cls: 'unverified',
      reason: 'COMPLETED but o.jsonl: line 2 is not JSON (a record cut off mid-write?)',
    });
    expect(recordsVerdict('COMPLETED', 'o.jsonl', { expect: expect_, text: jsonl([{ step: 1 }, { step: 2 }]) })).toBe(
      undefined,
    );
  });
});

describe('a smoke task refused an output another campaign owns', () => {
  // The reason as a real run records it (the output gate of render/task-script.ts).
  const refused = (tag: string) =>
    `gate output: _smoke/train/results/${tag}.jsonl belongs to task train/smoke/${tag} of campaign first-sweep: choose another output path (or another workdir) for this campaign`;
  const fact = (tag: string) => ({
    task: {
      id: `train/smoke/${tag}`,
      phase: 'train',
      stage: 'smoke',
      cell: 0,
      tag,
      values: {},
      stratum: 'all',
      output: `_smoke/train/results/${tag}.jsonl`,
    } as TaskSpec,
    state: {
      status: 'failed' as const,
      reason: `gate: ${refused(tag)}`,
      attempts: [{ n: 1, submittedAt: '2026-01-01T00:00:00Z', class: 'gate' as const, reason: refused(tag) }],
    },
    log: '',
    // The owner's file is there, older than this campaign's attempt.
    output: { exists: true, fresh: false, digest: 'd' },
    commands: {},
  });

  it('names the owner in every failed check, instead of the interpretation written for a program that ran', () => {
    const results = evaluateChecklist(
      [
        { check: 'all_completed' },
        { check: 'distinct_outputs', otherwise: 'a value is not reaching the program' },
        { check: 'records', count: 2 },
      ],
      [fact('seed1'), fact('seed2')],
    );
    expect(results.every((r) => !r.passed)).toBe(true);
    for (const r of results) {
      expect(r.otherwise).toMatch(
        /^the output paths belong to campaign first-sweep: give this campaign its own workdir/,
      );
      expect(r.otherwise).not.toContain('not reaching the program');
    }
    expect(results[1]!.detail).toContain(
      'seed1: _smoke/train/results/seed1.jsonl belongs to task train/smoke/seed1 of campaign first-sweep',
    );
    expect(results[1]!.detail).not.toContain('stale');
  });
});
