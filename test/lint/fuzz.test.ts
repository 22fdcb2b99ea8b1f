/**
 * Lint is the first thing a user's broken manifest meets: whatever the text, it must answer
 * with findings at real positions and never throw.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatFinding, lintText } from '../../src/lint/lint.js';

const DISTILL = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'distill.yml'), 'utf8');

type Mutation =
  | { kind: 'delete-line'; at: number }
  | { kind: 'duplicate-line'; at: number }
  | { kind: 'swap-chars'; at: number; other: number }
  | { kind: 'insert'; at: number; text: string };

/** Pieces that matter to YAML, templates, selectors and durations. */
const PIECES = [
  '${',
  '}',
  '$${',
  ':',
  ': ',
  '-',
  '- ',
  '\t',
  ' ',
  '\n',
  '[',
  ']',
  '{',
  '}',
  ',',
  '"',
  "'",
  '#',
  '&a',
  '*a',
  '!',
  '|',
  '>',
  '=',
  'N',
  'n=',
  '0',
  '9',
  '..',
  '/',
  '~',
  'h',
  's',
  'x',
];

const insertion = fc
  .array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 3 })), { minLength: 1, maxLength: 4 })
  .map((parts) => parts.join(''));

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('delete-line' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate-line' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('swap-chars' as const), at: fc.nat(), other: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: insertion }),
);

function apply(text: string, m: Mutation): string {
  if (m.kind === 'delete-line' || m.kind === 'duplicate-line') {
    const lines = text.split('\n');
    const i = m.at % lines.length;
    if (m.kind === 'delete-line') lines.splice(i, 1);
    else lines.splice(i, 0, lines[i]!);
    return lines.join('\n');
  }
  if (text.length === 0) return m.kind === 'insert' ? m.text : text;
  const i = m.at % text.length;
  if (m.kind === 'insert') return text.slice(0, i) + m.text + text.slice(i);
  const j = m.other % text.length;
  const chars = [...text];
  if (i >= chars.length || j >= chars.length) return text;
  [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  return chars.join('');
}

describe('lint on mutated manifests', () => {
  it('never throws and always points inside the file', () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (mutations) => {
        const text = mutations.reduce(apply, DISTILL);
        const lines = text.split('\n').length;
        const { findings } = lintText('m.yml', text);
        for (const f of findings) {
          const where = `${formatFinding(f)}\n--- text ---\n${text}`;
          expect(Number.isInteger(f.position.line), where).toBe(true);
          expect(f.position.line, where).toBeGreaterThanOrEqual(1);
          expect(f.position.line, where).toBeLessThanOrEqual(lines);
          expect(f.position.column, where).toBeGreaterThanOrEqual(1);
          expect(f.position.file).toBe('m.yml');
          expect(f.message.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 2000 },
    );
  }, 120_000);
});
