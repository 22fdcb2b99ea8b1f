/** Lint on the grid forms beyond the product: include, exclude and zip, where findings point and what they say. */
import { describe, expect, it } from 'vitest';
import { formatFinding, lintText, type LintResult } from '../../src/lint/lint.js';

const manifest = (grid: string, command = 'python train.py --n ${N} --seed ${seed} --out ${output}'): string =>
  `campaign: forms
cluster:
  executor: local
workdir: runs
phases:
  - name: train
    grid:
${grid}
    command: ${command}
    output: results/\${tag}.json
`;

const lint = (text: string): LintResult => lintText('test.yml', text);
const errors = (r: LintResult): string[] => r.findings.filter((f) => f.severity === 'error').map(formatFinding);
const lineOf = (text: string, needle: string): number => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

describe('grid forms in lint', () => {
  it('passes a grid with all three forms, its zipped axes known as variables', () => {
    const text = manifest(
      `      N: [384, 512]
      seed: [1, 2]
      zip:
        lr: [0.1, 0.01]
        batch: [32, 64]
      exclude:
        - { N: 512, lr: 0.01 }
      include:
        - { N: 1024, seed: 1, lr: 0.001, batch: 128 }`,
      'python train.py --n ${N} --seed ${seed} --lr ${lr} --batch ${batch} --out ${output}',
    );
    expect(errors(lint(text))).toEqual([]);
  });

  it('points a tag collision of an included cell at that cell', () => {
    const text = manifest(`      N: [384, 512]
      seed: ["a b", c]
      include:
        - { N: 384, seed: "a/b" }`);
    const found = lint(text).findings.filter((f) => f.rule === 'tag-collision');
    expect(found).toHaveLength(1);
    expect(found[0]!.position.line).toBe(lineOf(text, '- { N: 384, seed: "a/b" }'));
    expect(found[0]!.message).toMatch(
      /cells 1 and 5 of phase "train" \(seed: "a b" and "a\/b"\) both get tag "N384_seeda-b"/,
    );
  });

  it('says which axes an included cell lacks, and refuses one the grid already has', () => {
    const missing = lint(
      manifest(`      N: [384, 512]
      seed: [1, 2]
      include:
        - { N: 1024 }`),
    ).findings.filter((f) => f.rule === 'include-cell');
    expect(missing.map((f) => f.message)).toEqual([
      'included cell 1 of phase "train" lacks "seed": an included cell gives every axis one value',
    ]);
    expect(missing[0]!.fix).toBe('add seed: <value> to this cell');
    const repeated = lint(
      manifest(`      N: [384, 512]
      seed: [1, 2]
      include:
        - { seed: 2, N: 512 }`),
    ).findings.filter((f) => f.rule === 'include-cell');
    expect(repeated.map((f) => f.message)).toEqual([
      'included cell 1 of phase "train" (N=512, seed=2) is a cell of the grid already: two tasks would be one cell',
    ]);
    // An excluded cell may come back as an included one: exclusion applies to the product only.
    const back = manifest(`      N: [384, 512]
      seed: [1, 2]
      exclude: [{ N: 512, seed: 2 }]
      include:
        - { seed: 2, N: 512 }`);
    expect(errors(lint(back))).toEqual([]);
  });

  it('names a zipped axis named like a built-in at its key, and a misspelt exclude axis with the fix', () => {
    const reserved = manifest(`      zip:
        tag: [a, b]
        seed: [1, 2]
      N: 384`);
    const r = lint(reserved).findings.filter((f) => f.rule === 'reserved-axis');
    expect(r.map((f) => f.position.line)).toEqual([lineOf(reserved, 'tag: [a, b]')]);
    const typo = lint(
      manifest(`      N: [384, 512]
      seed: [1, 2]
      exclude: [{ Nn: 512 }]`),
    ).findings.filter((f) => f.rule === 'unknown-axis');
    expect(typo.map((f) => [f.message, f.fix])).toEqual([
      ['exclude entry 1 names axis "Nn", which is not a grid axis of phase "train"; did you mean "N"?', 'write "N"'],
    ]);
  });

  it('warns on a plain comma-separated value with the list to write, not on a quoted one', () => {
    const text = manifest(`      N: 384
      seed: 1, 2,3`);
    const found = lint(text).findings.filter((f) => f.rule === 'comma-list');
    expect(found.map((f) => f.fix)).toEqual([
      "write seed: [1, 2, 3] for 3 values, or quote it ('1, 2,3') if it is one",
    ]);
    expect(lint(manifest(`      N: 384\n      seed: "1,2,3"`)).findings.filter((f) => f.rule === 'comma-list')).toEqual(
      [],
    );
  });

  it('sizes a huge grid by its product before exclusion', () => {
    const values = `[${Array.from({ length: 1001 }, (_, i) => i).join(', ')}]`;
    const text = manifest(`      N: ${values}\n      seed: ${values}\n      exclude: [{ N: 0 }]`);
    const found = lint(text).findings.filter((f) => f.rule === 'grid-too-large');
    expect(found.map((f) => f.message)).toEqual([
      'the grid of phase "train" has 1001 N × 1001 seed = 1,002,001 cells, above the limit of 1,000,000 tasks per phase',
    ]);
  });

  it('counts the smoke cells a selection picks after exclusion and inclusion', () => {
    const text = (smokeTasks: string): string =>
      manifest(`      N: [384, 512]
      seed: [1, 2]
      exclude: [{ N: 512, seed: 2 }]
      include: [{ N: 1024, seed: 1 }]`).replace(
        '    output: results/${tag}.json\n',
        `    output: results/\${tag}.json\n    smoke:\n      tasks: ${smokeTasks}\n      trigger: [{ check: distinct_outputs }]\n`,
      );
    const warned = (t: string): number =>
      lint(text(t)).findings.filter((f) => f.rule === 'smoke-one-task-collision').length;
    expect(warned('{ N: 512 }')).toBe(1);
    expect(warned('{ N: [512, 1024] }')).toBe(0);
    expect(warned('{ seed: 2 }')).toBe(1);
  });
});
