/**
 * Manifest values reach the shell as environment variables, never through its parser
 * (manifest/template.ts): whatever a grid value holds, the command sees exactly that value.
 * Everything here runs through real bash.
 */
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandPhase } from '../../src/manifest/expand.js';
import { manifest as manifestSchema, type Scalar } from '../../src/manifest/schema.js';
import { toShell } from '../../src/manifest/template.js';
import { taskEnv } from '../../src/render/task-env.js';
import { shellQuote } from '../../src/render/shell.js';

/**
 * Cases per property, each a bash process: the properties' shrinking finds a failing value from
 * any of them, and every run draws new values, so a hundred per run is what the suite's time affords.
 */
const RUNS = 100;

/** Runs a bash script with exactly this environment (plus PATH), returning raw stdout. */
function bash(script: string, env: Record<string, string>): { stdout: Buffer; stderr: string; status: number | null } {
  // stdin is not a socket: bash would take itself for an rshd child and read ~/.bashrc.
  const r = spawnSync('bash', ['-c', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  return { stdout: r.stdout, stderr: r.stderr.toString('utf8'), status: r.status };
}

/** The shell's special characters, so that generated strings hit them often. */
const SPECIAL = [
  "'",
  '"',
  '$',
  '`',
  '\\',
  '\n',
  '\r',
  '\t',
  ' ',
  ';',
  '*',
  '?',
  '[',
  ']',
  '{',
  '}',
  '(',
  ')',
  '|',
  '&',
  '<',
  '>',
  '!',
  '#',
  '~',
  '=',
  '%',
  '-',
  ',',
  'a',
  'é',
  '😀',
];

/** Any string an environment variable can carry: every code point but NUL. */
const anyValue: fc.Arbitrary<string> = fc
  .oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: fc.constantFrom(...SPECIAL), maxLength: 40 }),
    fc.constantFrom('${HOME}', '$(id)', '`id`', "'", '"', '-n', '-e', '--', '*', '', ' ', '\n', '%s%d', '\\n'),
  )
  .filter((s) => !s.includes('\u0000'));

/** A one-phase manifest whose grid holds the given axes, validated by the real schema. */
function taskFor(grid: Record<string, Scalar>, command: string) {
  const m = manifestSchema.parse({
    campaign: 'c',
    cluster: { executor: 'local' },
    workdir: '.',
    phases: [{ name: 'p', grid, command }],
  });
  const tasks = expandPhase(m, m.phases[0]!);
  expect(tasks).toHaveLength(1);
  return { manifest: m, task: tasks[0]! };
}

const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');

/** Splits NUL-separated output (values never hold NUL) into its fields. */
function fields(out: Buffer): string[] {
  const text = out.toString('utf8');
  expect(text.endsWith('\u0000')).toBe(true);
  return text.slice(0, -1).split('\u0000');
}

describe('template variables in shell text (toShell + taskEnv, real bash)', () => {
  it('printf %s ${x} prints exactly the grid value', () => {
    fc.assert(
      fc.property(anyValue, (value) => {
        const command = 'printf %s ${x}';
        const { task } = taskFor({ x: value }, command);
        const env = taskEnv('c', task, 1, '/tmp');
        expect(env.CAMPAIGN_AXIS_x).toBe(value);
        const r = bash(toShell(command), env);
        expect(r.stderr).toBe('');
        expect(r.stdout.equals(utf8(value))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('a variable inside double quotes in the template stays one word, unexpanded', () => {
    fc.assert(
      fc.property(anyValue, (value) => {
        const command = 'printf %s "pre-${x}-post"';
        const { task } = taskFor({ x: value }, command);
        const r = bash(toShell(command), taskEnv('c', task, 1, '/tmp'));
        expect(r.stderr).toBe('');
        expect(r.stdout.equals(utf8(`pre-${value}-post`))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('several variables in every quoting context a command may use keep their values', () => {
    // Unquoted, double-quoted, single-quoted, $'…', inside "$(…)" and backticks, and twice in one word.
    const command = [
      "printf '%s\\0'",
      '${x}',
      '"a ${y} b"',
      "'c ${x} d'",
      "$'e\\'${y}\\tf'",
      '"$(printf %s ${x})"',
      '"$(printf %s "${y}")"',
      '"`printf %s ${x}`"',
      '${x}${y}',
      '"${x}"-${y}',
    ].join(' ');
    fc.assert(
      fc.property(anyValue, anyValue, (x, y) => {
        const { task } = taskFor({ x, y }, command);
        const r = bash(toShell(command), taskEnv('c', task, 1, '/tmp'));
        expect(r.stderr).toBe('');
        // $(…) and backticks drop trailing newlines: that is the shell's documented behaviour.
        const trimmed = (s: string): string => s.replace(/\n+$/, '');
        expect(fields(r.stdout)).toEqual([
          x,
          `a ${y} b`,
          `c ${x} d`,
          `e'${y}\tf`,
          trimmed(x),
          trimmed(y),
          trimmed(x),
          `${x}${y}`,
          `${x}-${y}`,
        ]);
      }),
      { numRuns: RUNS },
    );
  });

  it('a variable in a heredoc body is its value, without quotes around it (setup writing a config file)', () => {
    const command = [
      'cat <<EOF',
      '{"x": ${x}, "y": "${y}"} \'${x}\'',
      'EOF',
      "cat <<-'END'",
      '\t$${HOME} stays as written',
      '\tEND',
      "printf '%s' ${y} <<< ${x}",
    ].join('\n');
    fc.assert(
      fc.property(anyValue, anyValue, (x, y) => {
        const { task } = taskFor({ x, y }, command);
        const r = bash(toShell(command), { ...taskEnv('c', task, 1, '/tmp'), HOME: '/home/h' });
        expect(r.stderr).toBe('');
        expect(r.stdout.equals(utf8(`{"x": ${x}, "y": "${y}"} '${x}'\n\${HOME} stays as written\n${y}`))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('arithmetic takes numeric values, and a shift is not mistaken for a heredoc', () => {
    const command = "printf '%s\\0' $(( ${n} + 1 )) \"$(( 1 << ${k} ))\"; (( ${n} >= 0 )) && printf '%s\\0' ${x}";
    fc.assert(
      fc.property(fc.integer({ min: -1e6, max: 1e6 }), fc.integer({ min: 0, max: 30 }), anyValue, (n, k, x) => {
        const { task } = taskFor({ n, k, x }, command);
        const r = bash(toShell(command), taskEnv('c', task, 1, '/tmp'));
        expect(r.stderr).toBe('');
        expect(fields(r.stdout)).toEqual([String(n + 1), String(2 ** k), ...(n >= 0 ? [x] : [])]);
      }),
      { numRuns: 100 },
    );
  });

  it('numbers and booleans reach the command as their text', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean()),
        (value) => {
          const command = 'printf %s ${x} "${x}"';
          const { task } = taskFor({ x: value }, command);
          const r = bash(toShell(command), taskEnv('c', task, 1, '/tmp'));
          expect(r.stdout.toString('utf8')).toBe(String(value).repeat(2));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('built-in variables arrive too: tag, task, phase, campaign, attempt, output', () => {
    const { task } = taskFor({ x: 'a b' }, 'true');
    const command = 'printf \'%s\\0\' ${tag} ${task} ${phase} ${campaign} ${attempt} ${stage} "${output}"';
    const r = bash(toShell(command), taskEnv('camp', task, 3, '/w'));
    expect(fields(r.stdout)).toEqual([task.tag, task.id, 'p', 'camp', '3', 'full', '']);
  });

  it('a value that looks like shell code is data, never run', () => {
    const value = '$(touch /tmp/x); `id`; ${HOME}';
    const { task } = taskFor({ x: value }, 'printf %s ${x}');
    const r = bash(toShell('printf %s ${x} "${x}"'), { ...taskEnv('c', task, 1, '/tmp'), HOME: '/home/someone' });
    expect(r.stdout.toString('utf8')).toBe(value + value);
  });

  it('$${HOME} is a literal ${HOME} for the shell, which expands it', () => {
    expect(toShell('echo $${HOME}')).toBe('echo ${HOME}');
    expect(toShell('echo "$${HOME}/x"')).toBe('echo "${HOME}/x"');
    const r = bash(toShell('printf \'%s\\0\' $${HOME} "$${HOME}/x" ${x}'), {
      HOME: '/home/some one',
      CAMPAIGN_AXIS_x: '${HOME}',
    });
    // Unquoted ${HOME} is split by the shell as the user wrote it; the variable's value is not expanded.
    expect(fields(r.stdout)).toEqual(['/home/some', 'one', '/home/some one/x', '${HOME}']);
  });
});

describe('shellQuote (real bash)', () => {
  it('printf %s <quoted> prints exactly the value', () => {
    fc.assert(
      fc.property(anyValue, (value) => {
        const quoted = shellQuote(value);
        const r = bash(`printf %s ${quoted}`, {});
        expect(r.stderr).toBe('');
        expect(r.stdout.equals(utf8(value))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('a quoted value is one word, also after other words and inside an assignment', () => {
    fc.assert(
      fc.property(fc.array(anyValue, { minLength: 1, maxLength: 5 }), (values) => {
        const script = `v=${shellQuote(values[0]!)}; printf '%s\\0' "$v" ${values.map(shellQuote).join(' ')}`;
        const r = bash(script, {});
        expect(r.stderr).toBe('');
        expect(fields(r.stdout)).toEqual([values[0], ...values]);
      }),
      { numRuns: RUNS },
    );
  });

  it('leaves plain words bare and quotes the empty string', () => {
    expect(shellQuote('results/a_1.jsonl')).toBe('results/a_1.jsonl');
    expect(shellQuote('')).toBe("''");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
  });
});
