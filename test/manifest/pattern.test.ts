/**
 * The manifest's regular expressions match in linear time (manifest/pattern.ts): a pattern that
 * makes a backtracking engine run for minutes on one log line (`^step (a+)+$`) answers at once
 * in log_contains, oom.patterns and progress.log, so the controller stays free to save on SIGTERM.
 * A backtracking engine would hold each of these tests past vitest's time limit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { logProgress } from '../../src/calibrate/progress.js';
import { expandPhase } from '../../src/manifest/expand.js';
import {
  capLines,
  compilePattern,
  hasNestedQuantifier,
  MAX_LINE_CHARS,
  patternError,
} from '../../src/manifest/pattern.js';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { classifyEnd, oomPatterns } from '../../src/judge/attempt-end.js';
import { evaluateChecklist, type SmokeFacts } from '../../src/judge/checklist.js';
import type { TaskState } from '../../src/state/state.js';

const EVIL = '^step (a+)+$';
/** 44 characters that almost match: 2^39 ways to split the a's for a backtracking engine. */
const LINE = `step ${'a'.repeat(38)}!`;
const LOG = `starting\n${LINE}\n`.repeat(1000);

describe('patterns match in linear time', () => {
  it('an exponential pattern for a backtracking engine answers at once, and right', () => {
    const p = compilePattern(EVIL);
    expect(p.test(LOG)).toBe(false);
    expect(p.test(`${LOG}step aaa\n`)).toBe(true);
  });

  it('in a smoke check log_contains', () => {
    const m = manifestSchema.parse({
      campaign: 'c',
      cluster: { executor: 'local' },
      workdir: '.',
      phases: [{ name: 'p', command: 'true', grid: { x: [1, 2] } }],
    });
    const [a, b] = expandPhase(m, m.phases[0]!);
    const state = { status: 'completed', attempts: [] } as unknown as TaskState;
    const facts: SmokeFacts[] = [
      { task: a!, state, log: LOG, commands: {} },
      { task: b!, state, log: `${LOG}step aa\n`, commands: {} },
    ];
    const result = evaluateChecklist([{ check: 'log_contains', pattern: EVIL }], facts).find(
      (r) => r.check === 'log_contains',
    );
    expect(result!.passed).toBe(false);
    expect(result!.detail).toContain(`${a!.tag}: log has no line matching /${EVIL}/`);
    expect(result!.detail).not.toContain(b!.tag);
  });

  it('in oom.patterns', () => {
    const end = classifyEnd({
      marker: { code: 1, at: '2026-01-01T00:00:00Z', cause: 'exit' },
      log: LOG,
      walltimeSeconds: 60,
      oomPatterns: oomPatterns([EVIL]),
    });
    expect(end).toMatchObject({ cls: 'failed', reason: 'exit 1' });
  });

  it('in progress.log, with named groups in either syntax', () => {
    expect(logProgress('^step (?<units>\\d+)(a+)+$', LOG)).toBeUndefined();
    const log = 'step 1 at 10\nstep 2 at 20\nnoise\nstep 3 at 35\n';
    expect(logProgress('^step (?P<units>\\d+) at (?<at>\\d+)$', log)).toEqual({
      units: 3,
      points: [
        { units: 1, at: 10 },
        { units: 2, at: 20 },
        { units: 3, at: 35 },
      ],
    });
  });

  it('cuts lines past the cap, and leaves other text as it is', () => {
    const short = 'a\nbb\n';
    expect(capLines(short)).toBe(short);
    const long = `x${'y'.repeat(MAX_LINE_CHARS * 2)}z\nend`;
    expect(capLines(long)).toBe(`x${'y'.repeat(MAX_LINE_CHARS - 1)}\nend`);
    expect(compilePattern('z$').test(long)).toBe(false);
    expect(compilePattern('^end$').test(long)).toBe(true);
  });

  it('refuses what linear time cannot match, with the reason', () => {
    expect(patternError('(a)\\1')).toMatch(/invalid escape sequence.*RE2 syntax.*no backreferences or lookarounds/);
    expect(patternError('(?=a)b')).toMatch(/Perl syntax/);
    expect(patternError('CUDA out of memory|torch\\.OutOfMemoryError')).toBeUndefined();
    const r = manifestSchema.safeParse({
      campaign: 'c',
      cluster: { executor: 'local' },
      workdir: '.',
      phases: [
        { name: 'p', command: 'true', smoke: { tasks: 1, trigger: [{ check: 'log_contains', pattern: '(?<=x)y' }] } },
      ],
    });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toMatch(/^not a regular expression campaign can match: /);
  });
});

describe('hasNestedQuantifier', () => {
  it.each([
    ['(a+)+', true],
    ['^step (a+)+$', true],
    ['(\\w*)*x', true],
    ['([a-z]+){2,}', true],
    ['((ab)*c)+', true],
    ['(a|b)+', false],
    ['a+b*', false],
    ['(a+)?', false],
    ['\\(a+\\)+', false],
    ['[(a+)+]', false],
    ['CUDA out of memory', false],
  ])('%s: %s', (pattern, nested) => {
    expect(hasNestedQuantifier(pattern)).toBe(nested);
  });

  it('never throws, whatever the text', () => {
    fc.assert(fc.property(fc.string(), (s) => typeof hasNestedQuantifier(s) === 'boolean'));
  });
});
