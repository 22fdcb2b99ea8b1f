/**
 * The bash body of one task (render/task-script.ts): shellcheck-clean for any input, and when
 * run by real bash it echoes the mapping, stops at the first failing gate with exit 97 and a
 * `[campaign] gate NAME: FAIL reason` line, and otherwise exits with the command's status.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { expandPhase } from '../../src/manifest/expand.js';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { manifestTaskEnv } from '../../src/render/task-env.js';
import {
  GATE_EXIT,
  GATE_LINE,
  renderTaskScript,
  scriptInputFor,
  type TaskScriptInput,
} from '../../src/render/task-script.js';

const root = mkdtempSync(join(tmpdir(), 'task-script-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let workdir: string;
let counter = 0;
beforeEach(() => {
  workdir = join(root, `w${counter++}`);
  mkdirSync(workdir);
});

// ---------------------------------------------------------------------------------------------
// shellcheck

interface Finding {
  file: string;
  line: number;
  code: number;
  level: string;
  message: string;
}

/** Runs shellcheck on the scripts at once; returns every finding at warning level or above. */
function shellcheck(scripts: readonly string[]): Finding[] {
  const dir = mkdtempSync(join(root, 'sc-'));
  const files = scripts.map((s, i) => {
    const f = join(dir, `s${i}.sh`);
    writeFileSync(f, s);
    return f;
  });
  const r = spawnSync('shellcheck', ['-s', 'bash', '-S', 'warning', '-f', 'json1', ...files], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  expect(r.status === 0 || r.status === 1, r.stderr).toBe(true);
  const parsed = JSON.parse(r.stdout) as { comments: Finding[] };
  return parsed.comments;
}

/** Shows a finding with the line it is about, so a failure reads like shellcheck's own output. */
function show(scripts: readonly string[], findings: readonly Finding[]): string {
  return findings
    .map((f) => {
      const i = Number(/s(\d+)\.sh$/.exec(f.file)![1]);
      const line = scripts[i]!.split('\n')[f.line - 1];
      return `script ${i} line ${f.line}: SC${f.code} (${f.level}) ${f.message}\n    ${line}`;
    })
    .join('\n');
}

/** A script with its per-task paths: the inputs and output reach the script through its environment. */
interface Case extends Omit<TaskScriptInput, 'inputs' | 'claimOutput'> {
  inputs: string[];
  output?: string;
}

function scriptOf(c: Case): TaskScriptInput {
  const { inputs, output, ...rest } = c;
  return { ...rest, inputs: inputs.length, claimOutput: output !== undefined };
}

function envOf(c: Case): Record<string, string> {
  const env: Record<string, string> = {};
  c.inputs.forEach((p, i) => (env[`CAMPAIGN_INPUT_${i}`] = p));
  if (c.output !== undefined) env.CAMPAIGN_OUTPUT = c.output;
  return env;
}

const render = (c: Case): string => renderTaskScript(scriptOf(c));

const base: Case = { campaign: 'c', index: 0, setup: [], command: 'true', inputs: [] };

/** Inputs a manifest can produce: gates, imports, capability, inputs, outputs, GPUs, odd quoting. */
const VARIETY: Case[] = [
  base,
  { ...base, index: 41, command: 'python run.py --n ${N} --out ${output}\n' },
  {
    campaign: 'distill-sweep',
    index: 3,
    setup: ['module load python/3.11\nsource .venv/bin/activate\n', 'export OMP_NUM_THREADS=${cpus_hint}'],
    command:
      'python run_distill.py --n_hidden ${N} --n_train_subset ${n} --seed ${seed} --generations ${units} --results ${output}\n',
    imports: ['numpy', 'torch', 'distill'],
    capability: 'python -c "import distill; distill.assert_constrained_decoding()"',
    inputs: ['checkpoints/teacher_N384.pt'],
    output: 'results/distill_N384_n50000_s42.jsonl',
    gpus: 1,
  },
  {
    ...base,
    setup: ['set -o pipefail', 'cd "$${HOME}/work" && echo "in ${phase}: $(pwd)"'],
    command: `python -c "print('\${x}', \\"it's\\")" && echo 'single \${x} quoted' | tee -a "log \${tag}.txt"`,
    inputs: ["data/it's a file.csv", 'data/$(rm -rf x).csv', 'data/`id`.csv', 'data/-n'],
    output: 'out/it\'s "here" $HOME.jsonl',
    gpus: 4,
  },
  {
    ...base,
    command: 'for s in 1 2 3; do\n  echo "step $s of ${x}"\ndone\n# a comment with ${x} and an apostrophe\'s\n',
    capability: 'test -n "${x}" # a comment',
  },
  { ...base, imports: ['a.b.c'], output: 'o', inputs: ['x y'] },
  {
    ...base,
    setup: ['cat > cfg.json <<EOF\n{"n": ${N}, "name": "${name}"}\nEOF\n'],
    command: 'python train.py --config cfg.json --steps $(( ${units} * 2 )) <<< "${name}"',
  },
];

describe('shellcheck', () => {
  it('passes shellcheck -S warning for a variety of inputs', () => {
    const scripts = VARIETY.map(render);
    const findings = shellcheck(scripts);
    expect(findings, show(scripts, findings)).toEqual([]);
  });

  const pathText = fc
    .string({
      unit: fc.constantFrom('a', 'b', '/', '.', '-', ' ', "'", '"', '$', '`', '\\', '*', '(', '#', '!'),
      minLength: 1,
      maxLength: 20,
    })
    .filter((s) => !s.startsWith('/'));
  const COMMANDS = [
    'python train.py --n ${N} --out ${output}',
    'python -c "import sys; print(\'${N}\')"',
    'echo \'the value is ${N}\' > "${output}"',
    'bash -c \'echo "$0"\' ${N}',
    'printf "%s\\n" "${N}-${tag}" >> results.txt\n',
    'if [ "${N}" = 1 ]; then\n  echo one\nelse\n  echo other\nfi',
  ];
  const inputArb: fc.Arbitrary<Case> = fc.record({
    campaign: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,10}$/),
    index: fc.nat({ max: 999 }),
    setup: fc.array(fc.constantFrom('module load x', 'export A="${N}"\nexport B=1', 'source env.sh'), { maxLength: 2 }),
    command: fc.constantFrom(...COMMANDS),
    imports: fc.option(fc.array(fc.constantFrom('numpy', 'torch', 'a.b'), { minLength: 1, maxLength: 3 }), {
      nil: undefined,
    }),
    capability: fc.option(fc.constantFrom('python -c "import x"', 'nvidia-smi -L | grep -q "${N}"'), {
      nil: undefined,
    }),
    inputs: fc.array(pathText, { maxLength: 3 }),
    output: fc.option(pathText, { nil: undefined }),
    gpus: fc.option(fc.integer({ min: 0, max: 8 }), { nil: undefined }),
    code: fc.option(fc.constantFrom('0123abcd89ef4567'), { nil: undefined }),
  });

  it('passes shellcheck -S warning for generated combinations of every option', () => {
    const inputs = fc.sample(inputArb, { numRuns: 60, seed: 4242 });
    const scripts = inputs.map(render);
    const findings = shellcheck(scripts);
    expect(findings, show(scripts, findings)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Running the scripts

interface Run {
  status: number | null;
  log: string;
  lines: string[];
}

/** Runs a rendered script with real bash, from another directory, with CAMPAIGN_* in its environment. */
function run(input: Case | TaskScriptInput, env: Record<string, string> = {}): Run {
  const script = join(root, `script-${counter++}.sh`);
  const isCase = Array.isArray(input.inputs);
  writeFileSync(script, isCase ? render(input as Case) : renderTaskScript(input as TaskScriptInput));
  if (isCase) env = { ...envOf(input as Case), ...env };
  const r = spawnSync('bash', [script], {
    cwd: root,
    // stdin is not a socket: bash would take itself for an rshd child and read ~/.bashrc.
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
      CAMPAIGN_TASK: 'p/a',
      CAMPAIGN_WORKDIR: workdir,
      CAMPAIGN_CAMPAIGN: 'c',
      CAMPAIGN_PHASE: 'p',
      CAMPAIGN_TAG: 'a',
      CAMPAIGN_ATTEMPT: '1',
      ...env,
    },
  });
  if (r.error) throw r.error;
  const log = r.stdout + r.stderr;
  return { status: r.status, log, lines: log.split('\n') };
}

const gateLines = (r: Run): string[] => r.lines.filter((l) => l.startsWith('[campaign] gate '));

describe('running the script', () => {
  it('echoes the array index and the task id first', () => {
    const r = run({ ...base, index: 3 }, { CAMPAIGN_TASK: 'distill/N384_n50000_seed42' });
    expect(r.lines[0]).toBe('[campaign] task 3 -> distill/N384_n50000_seed42');
    expect(r.status).toBe(0);
  });

  it("exits with the command's status", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 255 }), (code) => {
        const r = run({ ...base, command: `echo before; (exit ${code})` });
        expect(r.status).toBe(code);
        expect(r.lines).toContain('before');
        expect(r.log).not.toMatch(GATE_LINE);
      }),
      { numRuns: 25 },
    );
  });

  it('runs the command in the workdir with the values from the environment', () => {
    const value = `it's "a" $HOME \`id\` *`;
    const r = run(
      { ...base, command: 'printf %s ${x} > "${output}"; printf %s "${x}" >> ${output}', output: 'out/r.txt' },
      { CAMPAIGN_AXIS_x: value, CAMPAIGN_OUTPUT: 'out/r.txt' },
    );
    expect(r.status).toBe(0);
    expect(readFileSync(join(workdir, 'out/r.txt'), 'utf8')).toBe(value + value);
  });

  it('a failing setup line stops the task with exit 97 and a setup gate line; nothing after it runs', () => {
    const r = run({
      ...base,
      setup: ['echo first > setup1', 'sh -c "exit 3"\necho second > setup2'],
      command: 'touch ran',
    });
    expect(r.status).toBe(GATE_EXIT);
    expect(gateLines(r)).toEqual(['[campaign] gate setup: FAIL the setup stopped with exit status 3']);
    expect(r.log).toMatch(GATE_LINE);
    expect(existsSync(join(workdir, 'setup1'))).toBe(true);
    expect(existsSync(join(workdir, 'setup2'))).toBe(false);
    expect(existsSync(join(workdir, 'ran'))).toBe(false);
  });

  it('setup may use unset variables (activate scripts do), and may fail inside a condition', () => {
    const r = run({
      ...base,
      setup: ['echo "[${UNSET_SOMETHING:-}$UNSET_OTHER]" > s', 'if false; then :; fi\nfalse || true'],
      command: 'cat s',
    });
    expect(r.status).toBe(0);
    expect(r.lines).toContain('[]');
    expect(gateLines(r)).toEqual([]);
  });

  it('a missing input stops the task before the command, naming the path', () => {
    mkdirSync(join(workdir, 'data'));
    writeFileSync(join(workdir, 'data/present.csv'), '');
    const r = run({ ...base, inputs: ['data/present.csv', "data/it's missing.csv"], command: 'touch ran' });
    expect(r.status).toBe(GATE_EXIT);
    expect(gateLines(r)).toEqual(["[campaign] gate inputs: FAIL missing data/it's missing.csv"]);
    expect(GATE_LINE.exec(r.log)?.[1]).toBe('inputs');
    expect(existsSync(join(workdir, 'ran'))).toBe(false);
  });

  it('present inputs pass the gate', () => {
    mkdirSync(join(workdir, 'data'));
    writeFileSync(join(workdir, 'data/a b.csv'), '');
    const r = run({ ...base, inputs: ['data/a b.csv'], command: 'touch ran' });
    expect(r.status).toBe(0);
    expect(gateLines(r)).toEqual(['[campaign] gate inputs: ok']);
    expect(existsSync(join(workdir, 'ran'))).toBe(true);
  });

  it('an output path is claimed by its first task: a second task is stopped, naming the owner', () => {
    const input = { ...base, output: 'results/x y.jsonl', command: 'echo "$CAMPAIGN_TASK" >> "results/x y.jsonl"' };
    const first = run(input, { CAMPAIGN_TASK: 'p/a' });
    expect(first.status).toBe(0);
    expect(gateLines(first)).toEqual(['[campaign] gate output: ok']);
    const second = run(input, { CAMPAIGN_TASK: 'p/b' });
    expect(second.status).toBe(GATE_EXIT);
    expect(gateLines(second)).toEqual([
      '[campaign] gate output: FAIL results/x y.jsonl belongs to task p/a of campaign c: choose another output path (or another workdir) for this campaign',
    ]);
    // The second task never wrote into the first one's result.
    expect(readFileSync(join(workdir, 'results/x y.jsonl'), 'utf8')).toBe('p/a\n');
    // Its own task again (a retry) may write it.
    expect(run(input, { CAMPAIGN_TASK: 'p/a' }).status).toBe(0);
  });

  it('a task of another campaign with the same task id is stopped, naming the campaign that owns the path', () => {
    const input = { ...base, output: 'out.txt', command: 'echo "$CAMPAIGN_CAMPAIGN" > out.txt' };
    expect(run(input, { CAMPAIGN_CAMPAIGN: 'first' }).status).toBe(0);
    const second = run(input, { CAMPAIGN_CAMPAIGN: 'second' });
    expect(second.status).toBe(GATE_EXIT);
    expect(gateLines(second)).toEqual([
      '[campaign] gate output: FAIL out.txt belongs to task p/a of campaign first: choose another output path (or another workdir) for this campaign',
    ]);
    expect(readFileSync(join(workdir, 'out.txt'), 'utf8')).toBe('first\n');
  });

  it('an output already there that no task claims is refused, left as it was, and not claimed', () => {
    mkdirSync(join(workdir, 'results'));
    writeFileSync(join(workdir, 'results/old.json'), 'by hand\n');
    const input = { ...base, output: 'results/old.json', command: 'echo new > results/old.json' };
    const r = run(input);
    expect(r.status).toBe(GATE_EXIT);
    expect(gateLines(r)[0]).toMatch(/results\/old.json is already there and no task of a campaign claims it/);
    expect(readFileSync(join(workdir, 'results/old.json'), 'utf8')).toBe('by hand\n');
    expect(existsSync(join(workdir, '.campaign/claims/results/old.json'))).toBe(false);
  });

  it('the same task run again (a retry) may reclaim its own output', () => {
    const input = { ...base, output: 'r/out.jsonl', command: 'echo "$CAMPAIGN_ATTEMPT" >> r/out.jsonl' };
    expect(run(input, { CAMPAIGN_ATTEMPT: '1' }).status).toBe(0);
    const again = run(input, { CAMPAIGN_ATTEMPT: '2' });
    expect(again.status).toBe(0);
    expect(gateLines(again)).toEqual(['[campaign] gate output: ok']);
    expect(readFileSync(join(workdir, 'r/out.jsonl'), 'utf8')).toBe('1\n2\n');
  });

  it('a failing capability check stops the task with its exit status', () => {
    const r = run({ ...base, capability: 'echo checking; exit 3', command: 'touch ran' });
    expect(r.status).toBe(GATE_EXIT);
    expect(gateLines(r)).toEqual(['[campaign] gate capability: FAIL the capability check exited 3']);
    expect(r.lines).toContain('checking');
    expect(existsSync(join(workdir, 'ran'))).toBe(false);
  });

  it('the most fatal gate reports first: a failed capability stops before inputs and output are looked at', () => {
    const r = run({ ...base, capability: 'false', inputs: ['missing'], output: 'o/x', command: 'touch ran' });
    expect(gateLines(r)).toEqual(['[campaign] gate capability: FAIL the capability check exited 1']);
    expect(existsSync(join(workdir, '.campaign'))).toBe(false);
  });

  it('checks the number of visible GPUs', () => {
    const two = { ...base, gpus: 2, command: 'touch ran' };
    const ok = run({ ...two, command: 'touch ok' }, { CUDA_VISIBLE_DEVICES: '0,1' });
    expect(gateLines(ok)).toEqual(['[campaign] gate devices: ok']);
    expect(existsSync(join(workdir, 'ok'))).toBe(true);
    const short = run(two, { CUDA_VISIBLE_DEVICES: '3' });
    expect(short.status).toBe(GATE_EXIT);
    expect(gateLines(short)).toEqual([
      '[campaign] gate devices: FAIL asked for 2 GPUs, got 1 (CUDA_VISIBLE_DEVICES=3)',
    ]);
    const none = run(two);
    expect(gateLines(none)).toEqual(['[campaign] gate devices: FAIL asked for 2 GPUs, got 0 (CUDA_VISIBLE_DEVICES=)']);
    expect(existsSync(join(workdir, 'ran'))).toBe(false);
  });

  it('imports are checked with the python on PATH, and a missing module names itself', () => {
    const ok = run({ ...base, imports: ['json', 'os.path'] });
    expect(ok.status).toBe(0);
    expect(gateLines(ok)).toEqual(['[campaign] gate imports: ok']);
    const bad = run({ ...base, imports: ['json', 'no_such_module_campaign'], command: 'touch ran' });
    expect(bad.status).toBe(GATE_EXIT);
    expect(gateLines(bad)).toEqual([
      "[campaign] gate imports: FAIL ModuleNotFoundError: No module named 'no_such_module_campaign'",
    ]);
  });

  it('a workdir that cannot be entered is a gate failure, not a command failure', () => {
    const r = run(base, { CAMPAIGN_WORKDIR: join(root, 'does-not-exist') });
    expect(r.status).toBe(GATE_EXIT);
    expect(gateLines(r)[0]).toMatch(/^\[campaign\] gate workdir: FAIL cannot enter /);
  });
});

describe('a manifest task end to end (scriptInputFor + manifestTaskEnv)', () => {
  const m = manifestSchema.parse({
    campaign: 'c',
    cluster: { executor: 'local' },
    workdir: '.',
    phases: [
      {
        name: 'distill',
        grid: { N: [384], note: ['it\'s a "test" $HOME'] },
        command: 'printf \'%s|%s\\n\' ${N} "${note}" > ${output}',
        output: 'results/N${N}.txt',
        preconditions: [{ exists: 'ckpt/teacher_N${N}.pt' }],
        setup: 'export FROM_SETUP="${N}"',
      },
    ],
  });
  const task = expandPhase(m, m.phases[0]!)[0]!;

  it('blocks on the rendered precondition path, then runs once it exists', () => {
    const env = (): Record<string, string> => manifestTaskEnv(m, task, 1, workdir);
    const blocked = run(scriptInputFor(m, task, 0), env());
    expect(blocked.lines[0]).toBe(`[campaign] task 0 -> ${task.id}`);
    expect(gateLines(blocked)).toEqual(['[campaign] gate inputs: FAIL missing ckpt/teacher_N384.pt']);
    const ckpt = join(workdir, 'ckpt/teacher_N384.pt');
    mkdirSync(dirname(ckpt), { recursive: true });
    writeFileSync(ckpt, '');
    const ok = run(scriptInputFor(m, task, 0), env());
    expect(ok.status).toBe(0);
    expect(gateLines(ok)).toEqual(['[campaign] gate inputs: ok', '[campaign] gate output: ok']);
    expect(readFileSync(join(workdir, 'results/N384.txt'), 'utf8')).toBe(`384|it's a "test" $HOME\n`);
  });
});
