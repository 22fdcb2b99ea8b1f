/** Each warning rule fires on a small manifest and stays quiet once the manifest is fixed. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatFinding, lintText, type LintResult } from '../../src/lint/lint.js';
import type { RepositoryFacts } from '../../src/lint/rule.js';
import { RULES } from '../../src/lint/rules/index.js';

/** A manifest every rule is happy with; the cases below edit it. */
const BASE = `campaign: demo
cluster:
  executor: slurm
  name: cluster-a
  partitions:
    - { name: short, max_time: 3h }
    - { name: long, max_time: 24h }
workdir: runs
gates:
  capability: python -c "import demo"
phases:
  - name: train
    grid:
      N: [384, 512]
      seed: [1, 2]
    strata: [N]
    command: python train.py --n ${'${N}'} --seed ${'${seed}'} --epochs ${'${units}'} --out ${'${output}'}
    output: results/${'${tag}'}.jsonl
    flush: per_epoch
    resources: { gpus: 1, cpus: 4, mem: 16G }
    cost:
      unit: epoch
      units: 10
      per_unit: { N=384: 60s, N=512: 90s }
      measured_on: cluster-a
    smoke:
      tasks: 2
      overrides: { units: 1 }
      trigger:
        - check: all_completed
        - check: distinct_outputs
`;

/** BASE with `from` replaced by `to` (which must be there, so a case cannot silently test BASE). */
function edit(text: string, ...pairs: [string, string][]): string {
  let out = text;
  for (const [from, to] of pairs) {
    expect(out, `case edits text that is not there: ${from}`).toContain(from);
    out = out.replace(from, to);
  }
  return out;
}

const lint = (text: string): LintResult => lintText('test.yml', text);
const lineOf = (text: string, needle: string): number => {
  const i = text.split('\n').findIndex((l) => l.includes(needle));
  expect(i, `no line contains ${needle}`).toBeGreaterThanOrEqual(0);
  return i + 1;
};
const of = (r: LintResult, rule: string) => r.findings.filter((f) => f.rule === rule);

interface Case {
  name: string;
  bad: string;
  /** A text on the line the finding must be at. */
  at: string;
  good: string;
  /** What the manifest's repository holds, for rules that read it. */
  repository?: RepositoryFacts;
}

/** A repository that tracks the files the cases' commands run. */
const REPOSITORY: RepositoryFacts = { tracked: new Set(['train.py', 'src/model.py', 'README.md']) };

const CASES: Record<string, Case[]> = {
  'pack-without-elements': [
    {
      name: 'pack on the local executor',
      bad: edit(
        BASE,
        [
          '  executor: slurm\n  name: cluster-a\n  partitions:\n    - { name: short, max_time: 3h }\n    - { name: long, max_time: 24h }\n',
          '  executor: local\n  name: cluster-a\n',
        ],
        ['    resources: { gpus: 1, cpus: 4, mem: 16G }\n', '    resources: { cpus: 4, mem: 16G }\n    pack: 4\n'],
      ),
      at: 'pack: 4',
      good: edit(
        BASE,
        [
          '  executor: slurm\n  name: cluster-a\n  partitions:\n    - { name: short, max_time: 3h }\n    - { name: long, max_time: 24h }\n',
          '  executor: local\n  name: cluster-a\n',
        ],
        ['    resources: { gpus: 1, cpus: 4, mem: 16G }\n', '    resources: { cpus: 4, mem: 16G }\n'],
      ),
    },
  ],
  'max-parallel-over-max-jobs': [
    {
      name: 'max_parallel above the jobs the campaign may have queued',
      bad: edit(BASE, ['  name: cluster-a\n', '  name: cluster-a\n  max_parallel: 8\n  max_jobs: 4\n']),
      at: 'max_parallel: 8',
      good: edit(BASE, ['  name: cluster-a\n', '  name: cluster-a\n  max_parallel: 4\n  max_jobs: 4\n']),
    },
  ],
  'code-not-declared': [
    {
      name: 'a command that runs a tracked script, without code',
      bad: BASE,
      at: 'command: python train.py',
      good: edit(BASE, ['workdir: runs\n', 'workdir: runs\ncode: { paths: [train.py, src/] }\n']),
      repository: REPOSITORY,
    },
    {
      name: 'a script run by bash, as ./name',
      bad: edit(BASE, ['command: python train.py', 'command: bash ./train.py']),
      at: 'command: bash ./train.py',
      good: edit(BASE, ['command: python train.py', 'command: bash ./other.py']),
      repository: REPOSITORY,
    },
  ],
  'walltime-not-measured': [
    {
      name: 'a fixed walltime without cost',
      bad: edit(
        BASE,
        ['    strata: [N]\n', ''],
        [
          '    cost:\n      unit: epoch\n      units: 10\n      per_unit: { N=384: 60s, N=512: 90s }\n      measured_on: cluster-a\n',
          '    walltime: 2h\n',
        ],
      ),
      at: 'walltime: 2h',
      good: BASE,
    },
    {
      name: 'neither cost nor walltime (the default hour)',
      bad: edit(BASE, [
        '    cost:\n      unit: epoch\n      units: 10\n      per_unit: { N=384: 60s, N=512: 90s }\n      measured_on: cluster-a\n',
        '',
      ]),
      at: '- name: train',
      good: BASE,
    },
    {
      name: 'a cost without measured_on',
      bad: edit(BASE, ['      measured_on: cluster-a\n', '']),
      at: '    cost:',
      good: BASE,
    },
    {
      name: 'a walltime overriding the cost model',
      bad: edit(BASE, ['    cost:\n', '    walltime: 1h\n    cost:\n']),
      at: 'walltime: 1h',
      good: BASE,
    },
  ],
  'rate-elsewhere': [
    {
      name: 'measured on another cluster',
      bad: edit(BASE, ['measured_on: cluster-a', 'measured_on: cluster-b']),
      at: 'measured_on: cluster-b',
      good: BASE,
    },
    {
      name: 'a cluster with no name',
      bad: edit(BASE, ['  name: cluster-a\n', '']),
      at: 'measured_on: cluster-a',
      good: BASE,
    },
    {
      name: 'measured at another configuration',
      bad: edit(
        BASE,
        ['    flush: per_epoch\n', '    flush: per_epoch\n    config: bf16 4 GPUs\n'],
        ['      measured_on: cluster-a\n', '      measured_on: cluster-a\n      config: fp32 1 GPU\n'],
      ),
      at: 'config: fp32 1 GPU',
      good: edit(
        BASE,
        ['    flush: per_epoch\n', '    flush: per_epoch\n    config: bf16 4 GPUs\n'],
        ['      measured_on: cluster-a\n', '      measured_on: cluster-a\n      config: bf16 4 GPUs\n'],
      ),
    },
  ],
  'one-walltime-for-strata': [
    {
      name: 'one walltime for rates that differ by stratum',
      bad: edit(BASE, ['    strata: [N]\n', ''], ['    cost:\n', '    walltime: 3h\n    cost:\n']),
      at: 'walltime: 3h',
      good: BASE,
    },
    {
      name: 'one walltime for declared strata',
      bad: edit(BASE, [
        '    cost:\n      unit: epoch\n      units: 10\n      per_unit: { N=384: 60s, N=512: 90s }\n      measured_on: cluster-a\n',
        '    walltime: 3h\n',
      ]),
      at: 'walltime: 3h',
      good: edit(
        BASE,
        ['    strata: [N]\n', ''],
        [
          '    cost:\n      unit: epoch\n      units: 10\n      per_unit: { N=384: 60s, N=512: 90s }\n      measured_on: cluster-a\n',
          '    walltime: 3h\n',
        ],
      ),
    },
  ],
  'checkpoint-before-walltime': [
    {
      name: 'a checkpoint signal as early as the walltime',
      bad: edit(BASE, ['    smoke:\n', '    checkpoint: { signal: USR1, before: 1h }\n    smoke:\n']),
      at: 'checkpoint:',
      good: edit(BASE, ['    smoke:\n', '    checkpoint: { signal: USR1, before: 5m }\n    smoke:\n']),
    },
  ],
  'mixed-resource-class': [
    {
      name: 'a stratum split by a resource that varies along another axis',
      bad: edit(BASE, [
        'resources: { gpus: 1, cpus: 4, mem: 16G }',
        'resources: { gpus: 1, cpus: { seed=1: 4, seed=2: 8 }, mem: 16G }',
      ]),
      at: 'resources:',
      good: edit(
        BASE,
        [
          'resources: { gpus: 1, cpus: 4, mem: 16G }',
          'resources: { gpus: 1, cpus: { seed=1: 4, seed=2: 8 }, mem: 16G }',
        ],
        ['strata: [N]', 'strata: [N, seed]'],
      ),
    },
    {
      name: 'CPU-only and GPU tasks in one phase',
      bad: edit(BASE, [
        'resources: { gpus: 1, cpus: 4, mem: 16G }',
        'resources: { gpus: { N=512: 1 }, cpus: 4, mem: 16G }',
      ]),
      at: 'resources:',
      good: edit(BASE, [
        'resources: { gpus: 1, cpus: 4, mem: 16G }',
        'resources: { gpus: { N=384: 1, N=512: 1 }, cpus: 4, mem: 16G }',
      ]),
    },
  ],
  'no-smoke-trigger': [
    {
      name: 'no smoke stage',
      bad: BASE.slice(0, BASE.indexOf('    smoke:\n')),
      at: '- name: train',
      good: BASE,
    },
    {
      name: 'a smoke stage without trigger',
      bad: edit(BASE, ['      trigger:\n        - check: all_completed\n        - check: distinct_outputs\n', '']),
      at: '    smoke:',
      good: BASE,
    },
  ],
  'smoke-one-task-collision': [
    {
      name: 'one smoke task with distinct_outputs',
      bad: edit(BASE, ['      tasks: 2\n', '      tasks: 1\n']),
      at: 'tasks: 1',
      good: BASE,
    },
    {
      name: 'smoke cells that select one cell',
      bad: edit(BASE, ['      tasks: 2\n', '      tasks: { N: 384, seed: [1] }\n']),
      at: 'tasks: { N: 384',
      good: edit(BASE, ['      tasks: 2\n', '      tasks: { N: 384 }\n']),
    },
  ],
  'smoke-units-unused': [
    {
      name: 'units override the command never sees',
      bad: edit(BASE, [' --epochs ${units}', '']),
      at: 'overrides: { units: 1 }',
      good: BASE,
    },
  ],
  'slurm-option-elsewhere': [
    {
      name: 'a QOS on the local executor',
      bad: edit(BASE, [
        '  executor: slurm\n  name: cluster-a\n  partitions:\n    - { name: short, max_time: 3h }\n    - { name: long, max_time: 24h }\n',
        '  executor: local\n',
      ]).replace('resources: { gpus: 1, cpus: 4, mem: 16G }', 'resources: { gpus: 1, cpus: 4, mem: 16G, qos: high }'),
      at: 'qos: high',
      good: edit(BASE, [
        '  executor: slurm\n  name: cluster-a\n  partitions:\n    - { name: short, max_time: 3h }\n    - { name: long, max_time: 24h }\n',
        '  executor: local\n',
      ]),
    },
  ],
  'pattern-nested-quantifier': [
    {
      name: 'a nested quantifier in a log_contains check',
      bad: edit(BASE, [
        '        - check: distinct_outputs\n',
        '        - check: distinct_outputs\n        - check: log_contains\n          pattern: "^epoch (\\\\d+ )+done$"\n',
      ]),
      at: 'pattern: "^epoch',
      good: edit(BASE, [
        '        - check: distinct_outputs\n',
        '        - check: distinct_outputs\n        - check: log_contains\n          pattern: "^epoch [\\\\d ]+done$"\n',
      ]),
    },
  ],
  'shell-antipattern': [
    {
      name: 'eval "$(...)" in the command',
      bad: edit(BASE, ['    command: python', '    command: eval "$(conda shell.bash hook)" && python']),
      at: 'eval "$(conda',
      good: BASE,
    },
    {
      name: 'eval `...` in the setup',
      bad: edit(BASE, ['workdir: runs\n', 'workdir: runs\nsetup: eval `ssh-agent -s`\n']),
      at: 'eval `ssh-agent',
      good: BASE,
    },
    {
      name: 'pgrep -f in the capability gate',
      bad: edit(BASE, ['capability: python -c "import demo"', 'capability: pgrep -f "vllm serve"']),
      at: 'pgrep -f',
      good: BASE,
    },
    {
      name: 'ps | grep in a command check of the trigger',
      bad: edit(BASE, [
        '        - check: distinct_outputs\n',
        '        - check: distinct_outputs\n        - check: command\n          run: test -z "$(ps aux | grep train.py)"\n',
      ]),
      at: 'ps aux | grep',
      good: edit(BASE, [
        '        - check: distinct_outputs\n',
        '        - check: distinct_outputs\n        - check: command\n          run: test ! -e train.pid\n',
      ]),
    },
    {
      name: 'pkill -f in a multi-line phase setup',
      bad: edit(BASE, [
        '    flush: per_epoch\n',
        '    flush: per_epoch\n    setup: |\n      export CUDA_HOME=/opt/cuda\n      pkill -f old_server || true\n',
      ]),
      at: 'pkill -f old_server',
      good: edit(BASE, [
        '    flush: per_epoch\n',
        '    flush: per_epoch\n    setup: |\n      export CUDA_HOME=/opt/cuda\n      kill "$(cat server.pid)" || true\n',
      ]),
    },
    {
      name: 'eval "$(conda shell.bash hook)" and conda activate in the setup',
      bad: edit(BASE, [
        'workdir: runs\n',
        'workdir: runs\nsetup: |\n  eval "$(conda shell.bash hook)"\n  conda activate distill\n',
      ]),
      at: 'conda activate distill',
      good: edit(BASE, ['workdir: runs\n', 'workdir: runs\nenvironment: { conda: distill }\n']),
    },
    {
      name: 'module load in a phase setup',
      bad: edit(BASE, ['    flush: per_epoch\n', '    flush: per_epoch\n    setup: module load cuda/12.2\n']),
      at: 'module load cuda',
      good: edit(BASE, ['    flush: per_epoch\n', '    flush: per_epoch\n    environment: { modules: [cuda/12.2] }\n']),
    },
    {
      name: 'a venv sourced in the setup',
      bad: edit(BASE, ['workdir: runs\n', 'workdir: runs\nsetup: source .venv/bin/activate && export A=1\n']),
      at: 'source .venv',
      good: edit(BASE, ['workdir: runs\n', 'workdir: runs\nenvironment: { venv: .venv }\nsetup: export A=1\n']),
    },
  ],
  'comma-list': [
    {
      name: 'seeds written as one comma-separated value',
      bad: edit(BASE, ['      seed: [1, 2]', '      seed: 1,2,3']),
      at: 'seed: 1,2,3',
      good: edit(BASE, ['      seed: [1, 2]', "      seed: '1,2,3'"]),
    },
  ],
  'exclude-matches-nothing': [
    {
      name: 'a selector whose pair holds in no cell',
      bad: edit(BASE, ['      seed: [1, 2]\n', '      seed: [1, 2]\n      exclude:\n        - { N: 512, seed: 3 }\n']),
      at: '- { N: 512, seed: 3 }',
      good: edit(BASE, ['      seed: [1, 2]\n', '      seed: [1, 2]\n      exclude:\n        - { N: 512, seed: 2 }\n']),
    },
  ],
  'flush-not-finer': [
    {
      name: 'flush at the end',
      bad: edit(BASE, ['flush: per_epoch', 'flush: at_end']),
      at: 'flush: at_end',
      good: BASE,
    },
    {
      name: 'a task of one unit flushed per unit',
      bad: edit(BASE, ['      units: 10\n', '      units: 1\n']),
      at: 'flush: per_epoch',
      good: BASE,
    },
    {
      name: 'a flush unit that is not the cost unit',
      bad: edit(BASE, ['flush: per_epoch', 'flush: per_step']),
      at: 'flush: per_step',
      good: BASE,
    },
  ],
  'results-metric-not-recorded': [
    {
      name: 'a metric the smoke records check does not require',
      bad: edit(BASE, [
        '        - check: distinct_outputs\n',
        '        - check: distinct_outputs\n        - check: records\n          fields: [loss]\n    results:\n      metrics: [loss, acc]\n',
      ]),
      at: 'metrics: [loss, acc]',
      good: edit(BASE, [
        '        - check: distinct_outputs\n',
        '        - check: distinct_outputs\n        - check: records\n          fields: [loss, acc]\n    results:\n      metrics: [loss, acc]\n',
      ]),
    },
  ],
};

describe('the clean manifest', () => {
  it('has no finding at all', () => {
    expect(lint(BASE).findings.map(formatFinding)).toEqual([]);
  });
});

describe('every warning rule has cases', () => {
  it.each(RULES.filter((r) => r.severity === 'warning').map((r) => r.id))('%s', (id) => {
    expect(CASES[id]?.length ?? 0).toBeGreaterThan(0);
  });
});

describe.each(Object.entries(CASES))('%s', (rule, cases) => {
  it.each(cases)('fires on $name and not once fixed', ({ bad, at, good, repository }) => {
    const lint = (text: string): LintResult => lintText('test.yml', text, RULES, repository);
    const found = of(lint(bad), rule);
    expect(found.length, `no ${rule} finding in:\n${bad}`).toBeGreaterThan(0);
    expect(found.map((f) => f.position.line)).toContain(lineOf(bad, at));
    for (const f of found) {
      expect(f.severity).toBe('warning');
      expect(f.fix).toBeTruthy();
      expect(formatFinding(f)).toMatch(new RegExp(`^test\\.yml:\\d+:\\d+: warning ${rule}: `));
    }
    expect(of(lint(good), rule).map(formatFinding)).toEqual([]);
  });
});

describe('values a run could not use', () => {
  it('refuses a grid value holding a NUL byte, at the value', () => {
    const bad = edit(BASE, ['      seed: [1, 2]', '      seed: [1, "a\\0b"]']);
    const found = of(lint(bad), 'value-not-carried');
    expect(found.map((f) => [f.severity, f.position.line])).toEqual([['error', lineOf(bad, 'seed: [1,')]]);
    expect(found[0]!.message).toMatch(/value 2 of axis "seed" in phase "train" holds a NUL byte/);
  });

  it('refuses a tag too long to be a file name, and passes one that fits', () => {
    const bad = edit(BASE, ['      seed: [1, 2]', `      seed: [1, ${'x'.repeat(300)}]`]);
    const found = of(lint(bad), 'tag-too-long');
    expect(found).toHaveLength(1);
    expect(found[0]!.severity).toBe('error');
    expect(found[0]!.message).toMatch(/the tag of cell 2 of phase "train" is \d+ bytes \(2 tags over 200\)/);
    expect(of(lint(edit(BASE, ['      seed: [1, 2]', `      seed: [1, ${'x'.repeat(150)}]`])), 'tag-too-long')).toEqual(
      [],
    );
  });
});

describe('positions and messages', () => {
  it('points an environment activated in a setup at the manifest key that does it', () => {
    const text = edit(BASE, [
      'workdir: runs\n',
      'workdir: runs\nsetup: |\n  module load python/3.11\n  eval "$(/opt/miniforge3/bin/conda shell.bash hook)"\n  conda activate distill\n  . venv/bin/activate\n',
    ]);
    const fixes = of(lint(text), 'shell-antipattern')
      .map((f) => [f.position.line, f.fix] as const)
      .sort((a, b) => a[0] - b[0]);
    expect(fixes).toEqual([
      [lineOf(text, 'module load'), expect.stringContaining('environment.modules')],
      [lineOf(text, 'eval "$('), expect.stringContaining('environment.conda')],
      [lineOf(text, 'conda activate'), expect.stringContaining('environment.conda')],
      [lineOf(text, '. venv/bin'), expect.stringContaining('environment.venv')],
    ]);
  });

  it('leaves module load and conda activate alone outside a setup, and keeps the eval warning there', () => {
    const text = edit(BASE, ['    command: python', '    command: module load x && conda activate y && python']);
    expect(of(lint(text), 'shell-antipattern')).toEqual([]);
    const evalText = edit(BASE, ['    command: python', '    command: eval "$(ssh-agent -s)" && python']);
    expect(of(lint(evalText), 'shell-antipattern').map((f) => f.fix)).toEqual([
      'run the command directly, or keep its output as data: x="$(cmd)"',
    ]);
  });

  it('points a shell antipattern at the match itself', () => {
    const text = edit(BASE, ['    command: python', '    command: eval "$(conda shell.bash hook)" && python']);
    const [f] = of(lint(text), 'shell-antipattern');
    const line = lineOf(text, 'eval "$(');
    expect(f!.position).toMatchObject({ line, column: text.split('\n')[line - 1]!.indexOf('eval') + 1 });
  });

  it('names a longer cycle in order, at the first phase of it', () => {
    const text = `campaign: c
cluster: { executor: local }
workdir: w
phases:
  - name: a
    depends_on: [c]
    command: run a
  - name: b
    depends_on: [a]
    command: run b
  - name: c
    depends_on: b
    command: run c
`;
    const found = of(lint(text), 'dependency-cycle');
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toContain('a -> c -> b -> a');
    expect(found[0]!.position.line).toBe(6);
  });

  it('refuses a huge grid without expanding it', () => {
    const axis = (n: string): string => `      ${n}: [${Array.from({ length: 1000 }, (_, i) => i).join(', ')}]\n`;
    const text = edit(BASE, [
      '      N: [384, 512]\n      seed: [1, 2]\n',
      `      N: [384, 512]\n      seed: [1, 2]\n${axis('a')}${axis('b')}${axis('c')}`,
    ]);
    const started = Date.now();
    const found = of(lint(text), 'grid-too-large');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toContain('4,000,000,000');
  });

  it('gives the arithmetic of a budget above the cap', () => {
    const text = edit(BASE, ['      units: 10\n', '      units: 2000\n']);
    const found = of(lint(text), 'walltime-budget');
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]!.message).toMatch(/above the largest partition cap .* × /);
  });
});

describe('the examples', () => {
  const read = (f: string): string => readFileSync(join(import.meta.dirname, '..', '..', 'examples', f), 'utf8');

  it('distill.yml lints clean', () => {
    expect(lintText('examples/distill.yml', read('distill.yml')).findings.map(formatFinding)).toEqual([]);
  });

  it('narval.yml lints clean', () => {
    expect(lintText('examples/narval.yml', read('narval.yml')).findings.map(formatFinding)).toEqual([]);
  });

  it('gpu-box.yml has no error, only the unmeasured walltime', () => {
    const { findings, context } = lintText('examples/gpu-box.yml', read('gpu-box.yml'));
    expect(findings.filter((f) => f.severity === 'error').map(formatFinding)).toEqual([]);
    expect(findings.map((f) => f.rule)).toEqual(['walltime-not-measured']);
    expect(context).toBeDefined();
  });
});
