/**
 * Lint is the first thing a user's broken manifest meets: whatever the text, it must answer
 * with findings at real positions and never throw. 10,000 cases per run of the suite
 * (CAMPAIGN_FUZZ_RUNS scales it): mutations of every example, and generated structures.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { formatFinding, lintText } from '../../src/lint/lint.js';

const EXAMPLES = ['distill.yml', 'quickstart.yml', 'gpu-box.yml'].map((f) =>
  readFileSync(join(import.meta.dirname, '..', '..', 'examples', f), 'utf8'),
);
const RUNS = Number(process.env.CAMPAIGN_FUZZ_RUNS ?? 10_000);

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

/** Lints the text and checks every finding points inside it. */
function lintsSoundly(text: string): void {
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
}

/** Values of every shape where the schema expects one: scalars, lists, maps, templates. */
const value: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom('${N}', '${output}', '30s', '2h', '1.5x', 'N=384', 'all', '~/x', '../../etc', '500MiB'),
);
const PHASE_KEYS = [
  'name',
  'grid',
  'command',
  'output',
  'walltime',
  'cost',
  'smoke',
  'depends_on',
  'resources',
  'retry',
];
const TOP_KEYS = ['campaign', 'cluster', 'workdir', 'setup', 'defaults', 'phases'];
const structure = fc.record(
  {
    ...Object.fromEntries(TOP_KEYS.map((k) => [k, value])),
    phases: fc.array(fc.record(Object.fromEntries(PHASE_KEYS.map((k) => [k, value])), { requiredKeys: [] }), {
      maxLength: 3,
    }),
  },
  { requiredKeys: [] },
);

describe('lint on mutated and generated manifests', () => {
  it('never throws and always points inside the file, whatever the mutations of the examples', () => {
    fc.assert(
      fc.property(
        fc.nat(EXAMPLES.length - 1),
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        (example, mutations) => lintsSoundly(mutations.reduce(apply, EXAMPLES[example]!)),
      ),
      { numRuns: Math.ceil(RUNS * 0.8) },
    );
  }, 600_000);

  it('never throws and always points inside the file, whatever structure the YAML holds', () => {
    fc.assert(
      fc.property(structure, (doc) => lintsSoundly(stringify(doc))),
      { numRuns: Math.ceil(RUNS * 0.2) },
    );
  }, 600_000);
});
