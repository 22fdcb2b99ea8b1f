/**
 * Every manifest under test/fixtures/broken has one defect, marked on its line with a trailing
 * `# expect: <rule-id>` (or, where YAML leaves no room for a comment, a first line
 * `# expect-line: <n> <rule-id>`). Lint must report that rule as an error at exactly that line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatFinding, lintText } from '../../src/lint/lint.js';
import { RULES } from '../../src/lint/rules/index.js';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'broken');
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.yml') || f.endsWith('.yaml'))
  .sort();

interface Expectation {
  line: number;
  rule: string;
}

function expectations(text: string): Expectation[] {
  const out: Expectation[] = [];
  text.split('\n').forEach((line, i) => {
    const m = /#\s*expect:\s*([a-z][a-z0-9-]*)\s*$/.exec(line);
    if (m) out.push({ line: i + 1, rule: m[1]! });
  });
  const first = /^#\s*expect-line:\s*(\d+)\s+([a-z][a-z0-9-]*)\s*$/m.exec(text.split('\n')[0] ?? '');
  if (first) out.push({ line: Number(first[1]), rule: first[2]! });
  return out;
}

describe('broken manifests', () => {
  it('has enough fixtures', () => {
    expect(files.length).toBeGreaterThanOrEqual(24);
  });

  it('covers every error rule and the schema', () => {
    const covered = new Set(files.flatMap((f) => expectations(readFileSync(join(DIR, f), 'utf8')).map((e) => e.rule)));
    const errorRules = RULES.filter((r) => r.severity === 'error').map((r) => r.id);
    for (const id of ['schema', ...errorRules]) expect(covered, `no fixture for ${id}`).toContain(id);
  });

  describe.each(files)('%s', (name) => {
    const file = `test/fixtures/broken/${name}`;
    const text = readFileSync(join(DIR, name), 'utf8');
    const expected = expectations(text);
    const { findings } = lintText(file, text);
    const lineCount = text.split('\n').length;

    it('declares what it expects', () => {
      expect(expected.length).toBeGreaterThan(0);
    });

    it.each(expected)('reports $rule at line $line', ({ rule, line }) => {
      const hit = findings.find((f) => f.rule === rule && f.severity === 'error' && f.position.line === line);
      expect(hit, `no ${rule} error at line ${line}; got:\n${findings.map(formatFinding).join('\n')}`).toBeDefined();
      expect(hit!.position.column).toBeGreaterThanOrEqual(1);
      expect(hit!.position.file).toBe(file);
      expect(formatFinding(hit!).startsWith(`${file}:${line}:${hit!.position.column}: error ${rule}: `)).toBe(true);
      expect(hit!.message.length).toBeGreaterThan(0);
    });

    it('reports no error of another kind (one defect each)', () => {
      const rules = new Set(expected.map((e) => e.rule));
      const others = findings.filter((f) => f.severity === 'error' && !rules.has(f.rule));
      expect(others.map(formatFinding)).toEqual([]);
    });

    it('puts every finding on a real line, never a default 1:1', () => {
      const atStart = expected.some((e) => e.line === 1);
      for (const f of findings) {
        expect(f.position.line).toBeGreaterThanOrEqual(1);
        expect(f.position.line).toBeLessThanOrEqual(lineCount);
        expect(f.position.column).toBeGreaterThanOrEqual(1);
        if (!atStart) expect([f.position.line, f.position.column], formatFinding(f)).not.toEqual([1, 1]);
      }
    });

    it('gives rule findings a fix', () => {
      for (const f of findings.filter((x) => x.rule !== 'schema')) expect(f.fix, formatFinding(f)).toBeTruthy();
    });
  });
});
