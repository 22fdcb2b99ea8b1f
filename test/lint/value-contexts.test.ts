/**
 * Every context where bash itself, or a program it starts, evaluates text: a value there must be
 * refused by lint, and a value anywhere lint accepts must stay data. Checked as an attacker
 * would: values crafted to create a file, run through real bash (and python3, perl, awk, sed,
 * make) with the environment a task gets. A context counts as evaluating only if one of the
 * crafted values, run without lint, does create the file.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { lintText } from '../../src/lint/lint.js';
import { valueBecomesCode } from '../../src/lint/rules/value-becomes-code.js';
import { toShell } from '../../src/manifest/template.js';
import { taskEnv } from '../../src/render/task-env.js';
import type { TaskSpec } from '../../src/manifest/expand.js';

const dir = mkdtempSync(join(tmpdir(), 'campaign-contexts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MARK = join(dir, 'ran');
/** Tasks find python3 itself first, not a version manager's shim that takes a second to start. */
const PATH = `${dirname(spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).stdout.trim())}:${process.env.PATH}`;

/** Values written to break out of some context: each, if evaluated there, creates MARK. */
const ATTACKS = [
  // In the order the check of each context tries them: the ones that break most contexts first.
  `a[$(touch ${MARK})]`,
  `'); import os; os.system('touch ${MARK}'); print('`,
  `"; system("touch ${MARK}"); "`,
  `x/;e touch ${MARK};#`,
  `$(shell touch ${MARK})`,
  `$(touch ${MARK})`,
  `\`touch ${MARK}\``,
  `;touch ${MARK}`,
  `x; touch ${MARK}`,
  `'; touch ${MARK}; '`,
  `"; touch ${MARK}; "`,
  `x\ntouch ${MARK}\n`,
  `'; system("touch ${MARK}"); '`,
];

/**
 * Contexts that evaluate a value: as arithmetic, as a variable's name (whose subscript bash
 * evaluates), or as code. `@` is where a wrapper such as `timeout 5` may stand. Each runs
 * under bash, except where noted (no host to reach).
 */
const EVALUATING: readonly { command: string; runs?: false }[] = [
  { command: 'let "n=${v}"' },
  { command: 'let n=${v}' },
  { command: 'declare -i n=${v}' },
  { command: 'typeset -i n=${v}' },
  { command: 'f() { local -i n=${v}; }; f' },
  { command: 'declare -i n; n=${v}' },
  { command: 'declare -i n; read -r n <<< ${v}' },
  { command: 'printf -v "a[${v}]" x' },
  { command: 'printf -v ${v} x' },
  { command: 'a[${v}]=1' },
  { command: 'a=([${v}]=1)' },
  { command: 'declare -a a=([${v}]=1)' },
  { command: 'a=(0); read -r ${v} <<< x' },
  { command: 'test -v ${v}' },
  { command: '[ -v ${v} ]' },
  { command: '[[ -v ${v} ]]' },
  { command: 'a=(1 2); unset ${v}' },
  { command: 'declare -n r=${v}; echo "$r"' },
  { command: 'echo $(( ${v} ))' },
  { command: '(( ${v} ))' },
  { command: 'x=${v}; echo $((x))' },
  { command: 'x=${v}; echo $(( $x + 1 ))' },
  { command: 'x=${v}\ny=$x\nif [[ $y -gt 1 ]]; then echo big; fi' },
  { command: 'x=${v}; a=(1); echo "$${a[x]}"' },
  { command: 'x=${v}; echo "$${!x}"' },
  { command: 'read -r x <<< ${v}; echo $((x))' },
  { command: 'while read -r x; do echo $((x)); done <<< ${v}' },
  { command: 'f() { echo $(( $1 )); }; f ${v}' },
  { command: 'for x in ${v}; do echo $((x)); done' },
  { command: 'x=$(printf %s ${v}); echo $((x))' },
  { command: '@bash -c "echo ${v}"' },
  { command: '@sh -c "echo ${v}"' },
  { command: '@bash -ec "echo ${v}"' },
  { command: 'x=${v}; @bash -c "echo $x"' },
  { command: '@python3 -c "print(\'${v}\')"' },
  { command: '@perl -e "print \'${v}\'"' },
  { command: '@awk "BEGIN { print \\"${v}\\" }"' },
  { command: 'echo x | @sed "s/x/${v}/"' },
  { command: '@bash <<< "echo ${v}"' },
  { command: '@python3 <<< "print(\'${v}\')"' },
  { command: 'echo "echo ${v}" | @bash' },
  { command: "printf '%s\\n' \"print('${v}')\" | @python3 -" },
  { command: 'echo ${v} | xargs -I{} sh -c "echo {}"' },
  { command: 'eval "echo ${v}"' },
  { command: 'eval echo ${v}' },
  { command: 'trap "echo ${v}" EXIT' },
  { command: 'mapfile -C "echo ${v}" -c 1 lines <<< x' },
  { command: "printf 'all:\\n\\t@echo $$(LR)\\n' > mk; make -f mk LR=${v}" },
  { command: 'ssh -o BatchMode=yes nohost "echo ${v}"', runs: false },
  { command: 'ssh nohost cat ${v}', runs: false },
  { command: 'source ${v}', runs: false },
  { command: '. ${v}', runs: false },
];

/** Where a value is data, whatever it holds: what users write, which lint must accept. The word `V` is the value in any quoting. */
const DATA: readonly string[] = [
  "printf '%s\\n' V",
  'echo V',
  'echo "pre-${v}-post"',
  'printf \'%s\\n\' "$(printf %s V)"',
  'printf \'%s\\n\' "`printf %s V`"',
  'x=V; printf \'%s\\n\' "$x"',
  'x=V; echo "$${#x}"',
  'read -r x <<< V; printf \'%s\\n\' "$x"',
  'for x in V; do printf \'%s\\n\' "$x"; done',
  'if [[ V == x ]]; then echo same; fi',
  'x=V; if [[ $x == a ]]; then echo a; fi',
  '[ V = x ] || echo other',
  '[ V -eq 1 ] 2>/dev/null || echo other',
  'case V in a) echo a;; *) echo other;; esac',
  'declare -A m; m[V]=1',
  'cat <<< V',
  'echo V | tee out.txt',
  'cat > cfg.txt <<EOF\n${v}\nEOF',
  '@bash -c \'printf "%s\\n" "$1"\' _ V',
  "@python3 -c 'import sys; print(sys.argv[1])' V",
  '@python3 -c \'import os; print(os.environ["CAMPAIGN_AXIS_v"])\'',
  '@perl -e \'print $ARGV[0], "\\n"\' V',
  "@awk -v x=V 'BEGIN { print x }'",
  '@awk \'BEGIN { print ENVIRON["CAMPAIGN_AXIS_v"] }\'',
  '@sed -n p <<< V',
  "@python3 - V <<'EOF'\nimport sys\nprint(sys.argv[1])\nEOF",
  'env X=V bash -c \'printf "%s\\n" "$X"\'',
  "python3 -c 'import sys; print(sys.argv[1:])' --lr 1 --name V --out ${output}",
  'grep -F -e V /dev/null || echo none',
  'mkdir -p d && echo V > d/f.txt',
  '# a note on ${v}\necho ok',
  'f() { printf \'%s\\n\' "$1"; }; f V',
  'x=V; echo "$${x:-default}"',
  'if [ -n V ]; then echo set; fi',
];

const FORMS = ['${v}', '"${v}"', '"x-${v}"', '"$(printf %s ${v})"'];
const WRAPPERS = ['', 'timeout 5 ', 'env ', 'nice '];

interface Verdict {
  errors: string[];
  tasks: TaskSpec[];
}

function manifest(command: string, values: readonly string[]): string {
  return [
    'campaign: c',
    'cluster: { executor: local }',
    'workdir: runs',
    'phases:',
    '  - name: p',
    `    grid: ${JSON.stringify({ v: values })}`,
    `    command: ${JSON.stringify(command)}`,
    '    walltime: 1m',
    '    output: results/${tag}.txt',
  ].join('\n');
}

/** What value-becomes-code says of the command (other rules, such as tags that collide, are not asked), and the tasks. */
function lint(command: string, values: readonly string[]): Verdict {
  const text = manifest(command, values);
  const errors = lintText('test.yml', text, [valueBecomesCode]).findings.map((f) => `${f.rule}: ${f.message}`);
  return { errors, tasks: lintText('test.yml', text, []).context?.tasks.get('p') ?? [] };
}

/** Runs the task's command as a task runs it: the template as shell text, the values in the environment. */
function runTask(command: string, task: TaskSpec): void {
  spawnSync('bash', ['-c', toShell(command)], {
    cwd: dir,
    stdio: 'ignore',
    timeout: 20_000,
    env: { PATH, HOME: process.env.HOME, LC_ALL: 'C', ...taskEnv('c', task, 1, dir) },
  });
}

/** Does running this command with these values, lint or not, create MARK? */
function creates(command: string, values: readonly string[]): string | undefined {
  // No rule runs: this asks what bash does with the value, not what lint says of it.
  const tasks = lintText('test.yml', manifest(command, values), []).context?.tasks.get('p');
  for (const task of tasks ?? []) {
    rmSync(MARK, { force: true });
    runTask(command, task);
    if (existsSync(MARK)) return String(task.values.v);
  }
  return undefined;
}

const wrap = (command: string, wrapper: string): string => command.replace('@', wrapper);
const valueIn = (command: string, form: string): string => command.replace(/\bV\b/g, form);

describe('every context that evaluates a value is refused; every accepted one keeps it data', () => {
  it.each(EVALUATING.filter((c) => c.runs !== false))('$command does evaluate a crafted value', ({ command }) => {
    expect(creates(wrap(command, ''), ATTACKS), 'no crafted value ran: this context may not evaluate').toBeDefined();
  });

  it.each(EVALUATING)('refuses $command, whatever wraps it', ({ command }) => {
    for (const wrapper of command.includes('@') ? WRAPPERS : ['']) {
      const { errors } = lint(wrap(command, wrapper), ['plain']);
      expect(errors, wrap(command, wrapper)).toEqual([expect.stringMatching(/^value-becomes-code: \$\{v\}/)]);
    }
  });

  it.each(DATA)('accepts %j', (command) => {
    for (const form of command.includes('V') ? FORMS : ['${v}'])
      for (const wrapper of command.includes('@') ? WRAPPERS : ['']) {
        const text = wrap(valueIn(command, form), wrapper);
        expect(lint(text, ATTACKS).errors, text).toEqual([]);
      }
  });

  it('runs no crafted value in any snippet lint accepts, and refuses every evaluating one (property)', () => {
    const snippet = fc.oneof(
      fc.record({
        command: fc.constantFrom(...EVALUATING.map((c) => c.command)),
        evaluates: fc.constant(true),
        form: fc.constant('${v}'),
        wrapper: fc.constantFrom(...WRAPPERS),
      }),
      fc.record({
        command: fc.constantFrom(...DATA),
        evaluates: fc.constant(false),
        form: fc.constantFrom(...FORMS),
        wrapper: fc.constantFrom(...WRAPPERS),
      }),
    );
    const joined = fc.tuple(
      snippet,
      fc.constantFrom('', 'true; ', 'cd . && '),
      fc.constantFrom('', ' || true', '\ntrue'),
    );
    fc.assert(
      fc.property(joined, fc.subarray(ATTACKS, { minLength: 1, maxLength: 4 }), ([s, before, after], values) => {
        const command = before + wrap(valueIn(s.command, s.form), s.wrapper) + after;
        const { errors, tasks } = lint(command, values);
        if (s.evaluates) expect(errors, command).toContainEqual(expect.stringMatching(/^value-becomes-code: /));
        if (errors.length > 0) return;
        for (const task of tasks) {
          rmSync(MARK, { force: true });
          runTask(command, task);
          expect(existsSync(MARK), `${command} ran ${JSON.stringify(task.values.v)}`).toBe(false);
        }
      }),
      { numRuns: 80 },
    );
    // Each run starts bash (and python3, perl, awk or sed) up to four times: on a loaded machine, minutes.
  }, 300_000);

  it('accepts any context for a numeric axis, which no context can turn into code', () => {
    for (const { command } of EVALUATING)
      expect(lint(wrap(command, ''), ['1', '2.5', '-3']).errors, command).toEqual([]);
  });
});

describe('what a refusal says', () => {
  it('points at the value, on its own line, and names the variable it went through and the way out', () => {
    const text = [
      'campaign: c',
      'cluster: { executor: local }',
      'workdir: runs',
      'phases:',
      '  - name: p',
      '    grid: { n: [1, two] }',
      '    command: |',
      '      count=${n}',
      '      echo $((count + 1)) > ${output}',
      '    walltime: 1m',
      '    output: results/${tag}.txt',
    ].join('\n');
    const [finding, ...rest] = lintText('test.yml', text).findings.filter((f) => f.severity === 'error');
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      rule: 'value-becomes-code',
      position: { line: 8, column: 13 },
      message: expect.stringContaining('${n}, through $count, is evaluated as arithmetic in $((…))'),
    });
    expect(finding!.message).toContain('value 2 of axis "n" ("two") is not a number');
  });

  it('gives the fix for the program that would run the value', () => {
    const fixes = (command: string): string[] =>
      lintText(
        'test.yml',
        `campaign: c\ncluster: { executor: local }\nworkdir: runs\nphases:\n  - name: p\n    grid: { v: [a] }\n    command: ${JSON.stringify(command)}\n    walltime: 1m\n    output: o/\${tag}\n`,
      ).findings.map((f) => f.fix ?? '');
    expect(fixes('bash -c "echo ${v}"')).toContainEqual(expect.stringContaining(`bash -c 'echo "$1"' _ \${v}`));
    expect(fixes('ssh gpu1 "nvidia-smi -i ${v}"')).toContainEqual(expect.stringContaining('printf %q'));
    expect(fixes('read ${v} <<< x')).toContainEqual(expect.stringContaining('read -r x'));
    expect(fixes('make LR=${v}')).toContainEqual(expect.stringContaining('$$CAMPAIGN_AXIS_v'));
  });

  it('reads the command a value names as that program: ${prog} <<< "…" is refused where prog may be bash', () => {
    const errors = (programs: string[]): string[] =>
      lintText(
        't.yml',
        `campaign: c\ncluster: { executor: local }\nworkdir: runs\nphases:\n  - name: p\n    grid: { prog: ${JSON.stringify(programs)}, v: [a] }\n    command: \${prog} <<< "echo \${v}"\n    walltime: 1m\n    output: o/\${tag}\n`,
      ).findings.flatMap((f) => (f.severity === 'error' ? [f.message] : []));
    expect(errors(['cat', 'bash'])).toEqual([
      expect.stringContaining('${v} becomes program text in the input of bash'),
    ]);
    expect(errors(['cat', 'tac'])).toEqual([]);
  });
});
