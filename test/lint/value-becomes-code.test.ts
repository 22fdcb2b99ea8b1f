/**
 * A grid value never becomes code (DESIGN rule 9), in any quoting context the template parser
 * knows: where the template can keep the value out of the shell's parser it does, and where
 * it cannot (single quotes, a heredoc fed to a program, arithmetic on text) lint refuses the
 * manifest. Checked the way an attacker would: crafted values that try to create a file, run
 * through real bash (and python3) with the environment a task gets.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { lintText } from '../../src/lint/lint.js';
import { toShell } from '../../src/manifest/template.js';
import { taskEnv } from '../../src/render/task-env.js';

const dir = mkdtempSync(join(tmpdir(), 'campaign-code-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CANARY = join(dir, 'ran');
/** Tasks find python3 itself first, not a version manager's shim that takes a second to start. */
const PATH = `${dirname(spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).stdout.trim())}:${process.env.PATH}`;

/** Values written to break out of every context: each, if run as code, creates CANARY. */
const ATTACKS = [
  `'; touch ${CANARY}; '`,
  `"); import os; os.system("touch ${CANARY}"); print("`,
  `'); import os; os.system('touch ${CANARY}'); print('`,
  `$(touch ${CANARY})`,
  `\`touch ${CANARY}\``,
  `a[$(touch ${CANARY})]`,
  `x[$(touch ${CANARY})]+1`,
  `EOF\ntouch ${CANARY}\nEOF`,
  `\\'; touch ${CANARY}; #`,
  `1; touch ${CANARY}`,
];

interface Verdict {
  errors: string[];
  run?: { status: number | null; stdout: string; stderr: string };
}

/** Lints a one-phase manifest with this command and values; when lint accepts it, runs the task's command. */
function lintAndRun(command: string, values: Record<string, (string | number)[]>): Verdict {
  const text = [
    'campaign: c',
    'cluster: { executor: local }',
    'workdir: runs',
    'phases:',
    '  - name: p',
    `    grid: ${JSON.stringify(values)}`,
    `    command: ${JSON.stringify(command)}`,
    '    walltime: 1m',
    '    output: results/${tag}.txt',
  ].join('\n');
  const result = lintText('test.yml', text);
  const errors = result.findings.filter((f) => f.severity === 'error').map((f) => `${f.rule}: ${f.message}`);
  if (errors.length > 0 || !result.context) return { errors };
  rmSync(CANARY, { force: true });
  let last: Verdict['run'];
  for (const task of result.context.tasks.get('p')!) {
    const r = spawnSync('bash', ['-c', toShell(command)], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH, HOME: process.env.HOME, LC_ALL: 'C', ...taskEnv('c', task, 1, dir) },
      encoding: 'utf8',
    });
    last = { status: r.status, stdout: r.stdout, stderr: r.stderr };
  }
  return { errors, ...(last ? { run: last } : {}) };
}

/** Where a value cannot be kept out of code: lint must refuse every value, harmless or not. */
const REFUSED = [
  ["bash -c 'echo ${v}'", 'single quotes around code for bash -c'],
  ['python3 -c \'print("${v}")\'', 'single quotes around code for python3 -c'],
  ["printf '%s\\n' $'a ${v}'", "ANSI-C quotes $'…'"],
  ['bash <<EOF\necho ${v}\nEOF', 'an unquoted heredoc fed to bash'],
  ['python3 - <<EOF\nprint("${v}")\nEOF', 'an unquoted heredoc fed to python3'],
  ['cat <<EOF | bash\necho ${v}\nEOF', 'a heredoc cat pipes into bash'],
  ["bash <<'EOF'\necho ${v}\nEOF", 'a quoted heredoc, where the value would not even arrive'],
] as const;

/** Arithmetic: lint accepts numbers only. */
const ARITHMETIC = [
  ['echo $(( ${v} + 1 ))', '$((…))'],
  ['(( ${v} > 0 )) && echo pos || echo neg', '((…))'],
  ['if [[ ${v} -gt 0 ]]; then echo pos; fi', '[[ … -gt … ]]'],
  ['a=(x y z); echo "$${a[${v}]}"', 'an array subscript'],
  ['echo $[ ${v} * 2 ]', '$[…]'],
  ['s=abcdef; echo "$${s:${v}:2}"', 'a substring offset'],
] as const;

/** Contexts where the value is data, whatever it holds: lint accepts them and nothing runs. */
const DATA = [
  ['printf "%s\\n" ${v}', 'unquoted'],
  ['printf "%s\\n" "pre-${v}-post"', 'double quotes'],
  ['printf "%s\\n" "$(printf %s ${v})"', '$(…)'],
  ['printf "%s\\n" "`printf %s ${v}`"', 'backticks'],
  ['cat > out.txt <<EOF\n${v}\nEOF\ncat out.txt', 'a heredoc cat writes to a file'],
  ['if [[ ${v} == x ]]; then echo same; fi', '[[ … == … ]], compared as text'],
  ['bash -c \'printf "%s\\n" "$1"\' _ ${v}', 'an argument of bash -c'],
  ['python3 -c \'import os; print(os.environ["CAMPAIGN_AXIS_v"])\'', 'the environment, read by python3'],
] as const;

describe('a value never becomes code (lint, then real bash)', () => {
  it.each(REFUSED)('refuses %j (%s), with the way out', (command) => {
    const { errors } = lintAndRun(command, { v: ['plain'] });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^value-becomes-code: \$\{v\} /);
  });

  it.each(ARITHMETIC)('refuses text in %j (%s) and runs numbers', (command) => {
    for (const attack of ATTACKS) {
      const { errors } = lintAndRun(command, { v: [1, attack] });
      expect(errors, attack).toEqual([
        expect.stringMatching(/^value-becomes-code: \$\{v\} is evaluated as arithmetic here.*value 2 of axis "v"/),
      ]);
    }
    const { errors, run } = lintAndRun(command, { v: [1, '2'] });
    expect(errors).toEqual([]);
    expect(run!.stderr).toBe('');
  });

  it.each(DATA)('accepts %j (%s): no crafted value runs, and the value arrives whole', (command) => {
    for (const attack of ATTACKS) {
      const { errors, run } = lintAndRun(command, { v: [attack] });
      expect(errors).toEqual([]);
      expect(existsSync(CANARY), `${command} ran ${JSON.stringify(attack)}`).toBe(false);
      if (!command.includes('==')) expect(run!.stdout).toContain(attack.replace(/\n+$/, ''));
    }
  });

  it('holds for any value in any of these contexts (property)', () => {
    const contexts = [...REFUSED, ...ARITHMETIC, ...DATA].map(([c]) => c);
    const value = fc.oneof(
      fc.constantFrom(...ATTACKS),
      fc.integer({ min: -5, max: 5 }),
      fc.string({
        unit: fc.constantFrom("'", '"', '$', '(', ')', '`', ';', '[', ']', ' ', 'a', '1', '\n', '\\'),
        maxLength: 12,
      }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...contexts), value, (command, v) => {
        lintAndRun(command, { v: [v] });
        expect(existsSync(CANARY)).toBe(false);
      }),
      { numRuns: 150 },
    );
  });

  it('a heredoc that writes a config file gets the value as text', () => {
    const command = 'cat > cfg.json <<EOF\n{"label": "${v}"}\nEOF';
    const { errors } = lintAndRun(command, { v: ['$(touch x) `id`'] });
    expect(errors).toEqual([]);
    expect(readFileSync(join(dir, 'cfg.json'), 'utf8')).toBe('{"label": "$(touch x) `id`"}\n');
  });
});
