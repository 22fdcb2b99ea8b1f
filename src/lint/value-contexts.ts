/**
 * Where bash itself, or a program it starts, would evaluate a template value: as arithmetic, as
 * a variable's name (whose subscript bash evaluates), or as code. The analysis follows a value
 * through the variables it is assigned to, read into or passed in (`x=${v}; $((x))`), and
 * through the programs that take code as an argument or on their input (`bash -c "…"`,
 * `python3 -c`, `awk`, `sed`, `ssh host "…"`, `bash <<< "…"`, `… | bash`).
 */
import { DECLARATIONS, type Command, type Flow, type Reading, type Word } from './bash-reading.js';

export type ProblemKind = 'arithmetic' | 'name' | 'code' | 'command';

/** A use of a template value in a place where bash would evaluate its text. */
export interface ValueProblem {
  use: number;
  kind: ProblemKind;
  /** The place, in words: "let", "the program of bash -c". */
  context: string;
  /** The shell variable the value reached the place through, when not directly. */
  via?: string;
  /** For code: the program or builtin that would run it (`ssh`, `sed`, `eval`), and whether it reads it on its input. */
  program?: string;
  input?: boolean;
}

/** Where a value is evaluated: in words, and for code, by what. */
type Place = string | { context: string; program: string; input?: boolean };

/** How a program takes its program text, for the ones that take code as an argument or on their input. */
interface Runner {
  /** Options whose argument is a program: the next word, or the rest of the word (`-cprog`, `--eval=prog`). */
  code?: readonly string[];
  /** Short options that make the first operand the program (`bash -lc 'prog'`). */
  mode?: readonly string[];
  /** Short options that make it read its program on the input, whatever the operands (`bash -s`). */
  stdinMode?: readonly string[];
  /** Options that take an argument that is not code. */
  args?: readonly string[];
  /** Options naming where the program is (a file, a module): then no operand is code. */
  files?: readonly string[];
  /** The first operand is the program unless an option gave it (awk, sed). */
  firstOperand?: boolean;
  /** Every operand after the first is code (ssh's remote command, sqlite3's SQL). */
  afterFirst?: boolean;
  /** Every operand is code (watch, tmux: they hand their words to a shell). */
  allOperands?: boolean;
  /** It reads its program on the input when no operand names one (or the operand is `-`). */
  stdin?: boolean;
  /** Its options may follow its operands (`su user -c …`, `psql db -c …`). */
  interleaved?: boolean;
}

const SHELL: Runner = {
  mode: ['-c'],
  stdinMode: ['-s'],
  args: ['-o', '+o', '-O', '+O', '--rcfile', '--init-file'],
  stdin: true,
};
const SSH_ARGS = [...'BbcDEeFIiJLlmOoPpQRSWw'].map((l) => `-${l}`);

const RUNNERS: Readonly<Record<string, Runner>> = {
  bash: SHELL,
  sh: SHELL,
  dash: SHELL,
  zsh: SHELL,
  ksh: SHELL,
  mksh: SHELL,
  ash: SHELL,
  yash: SHELL,
  rbash: SHELL,
  fish: SHELL,
  csh: SHELL,
  tcsh: SHELL,
  python: { code: ['-c'], args: ['-W', '-X'], files: ['-m'], stdin: true },
  perl: { code: ['-e', '-E'], args: ['-I', '-M', '-m'], stdin: true },
  ruby: { code: ['-e'], args: ['-I', '-r'], stdin: true },
  node: { code: ['-e', '--eval', '-p', '--print'], args: ['-r', '--require', '--import'], stdin: true },
  bun: { code: ['-e', '--eval', '-p', '--print'], stdin: true },
  Rscript: { code: ['-e'] },
  R: { code: ['-e'], stdin: true },
  julia: { code: ['-e', '-E', '--eval', '--print'], stdin: true },
  php: { code: ['-r'], stdin: true },
  lua: { code: ['-e'], stdin: true },
  tclsh: { stdin: true },
  osascript: { code: ['-e'], stdin: true },
  pwsh: { code: ['-c', '-Command', '-command'], stdin: true },
  awk: {
    code: ['-e', '--source'],
    args: ['-F', '-v', '--assign', '--field-separator'],
    files: ['-f', '--file', '-i', '--include', '-E', '--exec'],
    firstOperand: true,
  },
  sed: {
    code: ['-e', '--expression'],
    args: ['-l', '--line-length'],
    files: ['-f', '--file'],
    firstOperand: true,
  },
  ssh: { args: SSH_ARGS, afterFirst: true, stdin: true },
  su: { code: ['-c', '--command'], args: ['-s', '--shell', '-g', '--group', '-G', '-w'], interleaved: true },
  script: { code: ['-c', '--command'], args: ['-E', '-I', '-O', '-B', '-T', '-m'], interleaved: true },
  watch: { args: ['-n', '--interval', '-d'], allOperands: true },
  tmux: { allOperands: true },
  screen: { allOperands: true },
  hyperfine: { allOperands: true },
  parallel: { allOperands: true },
  psql: { code: ['-c', '--command'], args: ['-d', '-h', '-p', '-U', '-f'], stdin: true, interleaved: true },
  mysql: { code: ['-e', '--execute'], args: ['-u', '-h', '-P', '-D'], stdin: true, interleaved: true },
  sqlite3: { afterFirst: true, stdin: true },
};
const ALIASES: Readonly<Record<string, string>> = {
  python2: 'python',
  python3: 'python',
  pypy: 'python',
  pypy3: 'python',
  nodejs: 'node',
  gawk: 'awk',
  mawk: 'awk',
  nawk: 'awk',
  gsed: 'sed',
  runuser: 'su',
  powershell: 'pwsh',
  luajit: 'lua',
  wish: 'tclsh',
  perl5: 'perl',
};

/** Programs that run the command their operands name: the analysis looks through them. */
const WRAPPERS = new Set([
  'env',
  'nohup',
  'nice',
  'ionice',
  'timeout',
  'stdbuf',
  'taskset',
  'numactl',
  'chrt',
  'setsid',
  'unbuffer',
  'sudo',
  'doas',
  'srun',
  'mpirun',
  'mpiexec',
  'exec',
  'command',
  'builtin',
  'xargs',
  'find',
  'docker',
  'podman',
  'singularity',
  'apptainer',
  'conda',
  'mamba',
  'micromamba',
  'uv',
  'poetry',
  'pipenv',
  'pixi',
  'xvfb-run',
  'strace',
  'ltrace',
  'valgrind',
  'perf',
  'time',
  'chroot',
  'flock',
  'firejail',
  'bwrap',
  'systemd-run',
  'kubectl',
  'nsenter',
  'unshare',
  'prlimit',
]);

/** Builtins that evaluate their arguments as code, arithmetic or names. */
const BUILTINS = new Set([
  'eval',
  'source',
  '.',
  'let',
  'trap',
  'alias',
  'read',
  'mapfile',
  'readarray',
  'printf',
  'unset',
  'test',
  '[',
  'getopts',
  'make',
  ...DECLARATIONS,
]);

const basename = (word: Word | undefined): string | undefined => word?.literal?.replace(/^.*\//, '');

/** The runner a program name is, by its table name (`python3.11` is python). */
function runnerName(name: string): string | undefined {
  if (RUNNERS[name]) return name;
  if (ALIASES[name]) return ALIASES[name];
  const versioned = /^(python|pypy|perl|ruby|lua|php|node)[0-9.]*$/.exec(name);
  return versioned ? (versioned[1] === 'pypy' ? 'python' : versioned[1]) : undefined;
}

/**
 * Whether a program of this name takes code or names (a shell, an interpreter, eval, read, a
 * wrapper around one): a value that may be such a name cannot stand where a command's name is.
 */
export function runsText(value: string): boolean {
  const name = value.replace(/^.*\//, '');
  return runnerName(name) !== undefined || WRAPPERS.has(name) || BUILTINS.has(name);
}

/** The words of a command from the program a wrapper runs: `timeout 5 bash -c …` is bash's. */
function unwrap(words: readonly Word[]): { words: readonly Word[]; via?: string } {
  const name = basename(words[0]);
  if (name === undefined || !WRAPPERS.has(name)) return { words };
  const j = words.findIndex((w, k) => {
    const n = basename(w);
    return k > 0 && n !== undefined && (runnerName(n) !== undefined || BUILTINS.has(n));
  });
  return j < 0 ? { words: [] } : { words: unwrap(words.slice(j)).words, via: name };
}

interface RunnerWords {
  /** The words that are program text. */
  code: Word[];
  /** Whether it reads its program on the input. */
  stdin: boolean;
}

/** Which of a runner's words are program text, reading its options as it does. */
function runnerWords(runner: Runner, words: readonly Word[]): RunnerWords {
  const code: Word[] = [];
  const operands: Word[] = [];
  let mode = false;
  let stdinMode = false;
  let file = false;
  let given = false;
  for (let k = 1; k < words.length; k++) {
    const word = words[k]!;
    const lit = word.literal;
    if (lit === '--' || lit === ':::' || lit === '::::') {
      if (lit === '--') operands.push(...words.slice(k + 1));
      break;
    }
    if (lit === undefined || !/^[-+]./.test(lit) || (operands.length > 0 && !runner.interleaved)) {
      operands.push(word);
      if (runner.code && !runner.interleaved && !runner.afterFirst && !runner.allOperands && !runner.firstOperand) {
        // An interpreter's first operand is its script: what follows is the script's arguments.
        operands.push(...words.slice(k + 1));
        break;
      }
      continue;
    }
    if (lit.startsWith('--')) {
      const [name, attached] = lit.split(/=(.*)/s) as [string, string | undefined];
      if (runner.code?.includes(name)) {
        given = true;
        if (attached !== undefined) code.push(word);
        else if (words[k + 1]) code.push(words[++k]!);
      } else if (runner.files?.includes(name)) {
        file = true;
        if (attached === undefined) k++;
      } else if (runner.args?.includes(name) && attached === undefined) k++;
      continue;
    }
    if (runner.code?.includes(lit) || runner.files?.includes(lit) || runner.args?.includes(lit)) {
      if (runner.code?.includes(lit)) {
        given = true;
        if (words[k + 1]) code.push(words[k + 1]!);
      } else if (runner.files?.includes(lit)) file = true;
      k++;
      continue;
    }
    // A cluster of short options: -lc, -ne, -uc'…', -F: …
    const sign = lit[0]!;
    for (let j = 1; j < lit.length; j++) {
      const option = `${sign}${lit[j]}`;
      const rest = lit.slice(j + 1);
      if (runner.mode?.includes(option)) mode = true;
      if (runner.stdinMode?.includes(option)) stdinMode = true;
      if (runner.code?.includes(option)) {
        given = true;
        if (rest) code.push(word);
        else if (words[k + 1]) code.push(words[++k]!);
        break;
      }
      if (runner.files?.includes(option) || runner.args?.includes(option)) {
        if (runner.files?.includes(option)) file = true;
        if (!rest) k++;
        break;
      }
    }
  }
  if (mode && operands[0]) code.push(operands[0]);
  if (runner.firstOperand && !given && !file && operands[0]) code.push(operands[0]);
  if (runner.afterFirst) code.push(...operands.slice(1));
  if (runner.allOperands) code.push(...operands);
  const stdin =
    !!runner.stdin &&
    !file &&
    (stdinMode ||
      (!mode &&
        !given &&
        (runner.afterFirst ? operands.length <= 1 : operands.length === 0 || operands[0]!.literal === '-')));
  return { code, stdin };
}

const OPTION = /^-[A-Za-z]+$/;

/** The operands of a builtin: its words after the options, with the argument each option in `withArg` takes. */
function operands(words: readonly Word[], withArg: string): { operands: Word[]; args: Map<string, Word> } {
  const args = new Map<string, Word>();
  let k = 1;
  for (; k < words.length; k++) {
    const lit = words[k]!.literal;
    if (lit === '--') {
      k++;
      break;
    }
    if (lit === undefined || !OPTION.test(lit)) break;
    for (let j = 1; j < lit.length; j++) {
      if (!withArg.includes(lit[j]!)) continue;
      const rest = lit.slice(j + 1);
      if (!rest && words[k + 1]) args.set(lit[j]!, words[++k]!);
      break;
    }
  }
  return { operands: words.slice(k), args };
}

/** The flags of a declaration builtin (`declare -ai` gives a and i). */
const flagsOf = (words: readonly Word[]): string =>
  words
    .slice(1)
    .map((w) => (w.literal && /^[-+][A-Za-z]+$/.test(w.literal) && w.literal[0] === '-' ? w.literal.slice(1) : ''))
    .join('');

const union = (...flows: Flow[]): Flow => ({ uses: flows.flatMap((f) => f.uses), refs: flows.flatMap((f) => f.refs) });

/** Every place in the reading where a use would be evaluated, with the context and the variable it went through. */
export function valueProblems(reading: Reading): ValueProblem[] {
  const commands = reading.commands;
  const positional = ['@', '*', ...'123456789'];
  // Input a loop or a group reads from a redirection after its end: a `read` inside may get it.
  const groupInput = union(...commands.filter((c) => c.words.length === 0).flatMap((c) => c.stdin));
  const input = (c: Command): Flow => union(...c.stdin, c.piped ? { uses: c.before, refs: [] } : groupInput);

  // What each shell variable may hold: the uses that reach it, through any chain of assignments.
  const flows: [string, Flow][] = [];
  const integers = new Set<string>();
  const associative = new Set<string>();
  for (const c of commands) {
    for (const a of c.assignments) flows.push([a.name, a.value]);
    const { words } = unwrap(c.words);
    const name = basename(words[0]);
    if (name === 'for' || name === 'select') {
      const variable = words[1]?.literal;
      if (variable && words[2]?.literal === 'in') flows.push([variable, union(...words.slice(3))]);
    } else if (name === 'read' || name === 'mapfile' || name === 'readarray') {
      const { operands: names, args } = operands(words, name === 'read' ? 'adinNptu' : 'dnOsuCc');
      for (const n of [...names, ...(args.has('a') ? [args.get('a')!] : [])])
        if (n.literal) flows.push([n.literal, input(c)]);
      if (name !== 'read' && names.length === 0) flows.push(['MAPFILE', input(c)]);
      if (name === 'read' && names.length === 0) flows.push(['REPLY', input(c)]);
    } else if (name === 'printf') {
      const { operands: rest, args } = operands(words, 'v');
      const target = args.get('v')?.literal;
      if (target) flows.push([target.replace(/\[.*$/s, ''), union(...rest)]);
    } else if (name === 'set' || (name !== undefined && reading.functions.has(name))) {
      for (const p of positional) flows.push([p, union(...words.slice(1))]);
    }
    if (name !== undefined && DECLARATIONS.has(name)) {
      const flags = flagsOf(words);
      const declared = [
        ...c.assignments.map((a) => a.name),
        ...words.slice(1).flatMap((w) => (w.literal && /^[A-Za-z_]\w*$/.test(w.literal) ? [w.literal] : [])),
      ];
      if (flags.includes('i')) declared.forEach((n) => integers.add(n));
      if (flags.includes('A')) declared.forEach((n) => associative.add(n));
    }
  }
  const holds = new Map<string, Set<number>>();
  for (let changed = true; changed;) {
    changed = false;
    for (const [name, flow] of flows) {
      const into = holds.get(name) ?? new Set<number>();
      holds.set(name, into);
      for (const { use } of sources(flow))
        if (!into.has(use)) {
          into.add(use);
          changed = true;
        }
    }
  }
  function sources(flow: Flow): { use: number; via?: string }[] {
    return [
      ...flow.uses.map((use) => ({ use })),
      ...flow.refs.flatMap((ref) => [...(holds.get(ref) ?? [])].map((use) => ({ use, via: ref }))),
    ];
  }

  const problems: ValueProblem[] = [];
  const report = (kind: ProblemKind, place: Place, ...flows: Flow[]): void => {
    const where = typeof place === 'string' ? { context: place } : place;
    for (const s of sources(union(...flows))) problems.push({ ...s, kind, ...where });
  };

  for (const span of reading.arithmetic)
    if (!span.array || !associative.has(span.array)) report('arithmetic', span.context, span);
  for (const span of reading.names) report('name', span.context, span);
  for (const variable of integers)
    for (const use of holds.get(variable) ?? [])
      problems.push({
        use,
        kind: 'arithmetic',
        context: `${variable}, an integer variable (declare -i ${variable})`,
        via: variable,
      });

  for (const c of commands) {
    const { words, via } = unwrap(c.words);
    const head = words[0];
    const name = basename(head);
    const by = via ? ` (run by ${via})` : '';
    if (head && name === undefined && head.literal === undefined) {
      if (head.uses.length > 0) report('command', "the command's name", head);
      // A program named by an expansion may be an interpreter: its -c or -e argument may be code.
      words.forEach((w, k) => {
        if (k > 0 && /^(-[ceEr]|--eval|--command|--execute)$/.test(words[k - 1]!.literal ?? ''))
          report('code', `the argument of ${words[k - 1]!.literal} of a program named by an expansion`, w);
      });
      continue;
    }
    if (name === undefined) continue;
    const rest = words.slice(1);
    if (via === 'xargs' && c.piped && /(^|\s)(-I|-i|--replace)/.test(c.words.map((w) => w.literal ?? '').join(' ')))
      report(
        'code',
        {
          context: 'text piped into xargs -I, which puts it in the words of the command it runs',
          program: 'xargs',
          input: true,
        },
        {
          uses: c.before,
          refs: [],
        },
      );
    const runner = runnerName(name);
    if (runner) {
      const { code, stdin } = runnerWords(RUNNERS[runner]!, words);
      const what = runner === 'ssh' ? 'the remote command of ssh' : `the program of ${name}`;
      report('code', { context: what + by, program: runner }, ...code);
      if (stdin) {
        const input = { program: runner, input: true };
        report('code', { context: `the input of ${name}${by}, which it runs as its program`, ...input }, ...c.stdin);
        if (c.piped)
          report(
            'code',
            { context: `text piped into ${name}${by}, which runs it as its program`, ...input },
            { uses: c.before, refs: [] },
          );
      }
      continue;
    }
    switch (name) {
      case 'eval':
        report('code', { context: `the arguments of eval${by}`, program: 'eval' }, ...rest);
        break;
      case 'source':
      case '.':
        if (rest[0])
          report(
            'code',
            { context: `the file ${name} reads${by}, which runs in the task's own shell`, program: 'source' },
            rest[0],
          );
        break;
      case 'trap':
        report('code', { context: 'the action of trap', program: 'eval' }, ...rest);
        break;
      case 'alias':
        report('code', { context: 'alias', program: 'eval' }, ...rest);
        break;
      case 'make':
        report(
          'code',
          { context: 'a variable of make, which expands $(…) in its value', program: 'make' },
          ...rest.filter((w) => /^[A-Za-z_]\w*\+?:{0,2}=/.test(w.text)),
        );
        break;
      case 'let':
        for (const w of rest) report('arithmetic', 'let', w, nameRefs(w));
        break;
      case 'printf': {
        const target = operands(words, 'v').args.get('v');
        if (target) report('name', 'the name printf -v assigns', target);
        break;
      }
      case 'read': {
        const { operands: names, args } = operands(words, 'adinNptu');
        report('name', 'a name read assigns', ...names, ...(args.has('a') ? [args.get('a')!] : []));
        break;
      }
      case 'mapfile':
      case 'readarray': {
        const { operands: names, args } = operands(words, 'dnOsuCc');
        report('name', `the name ${name} assigns`, ...names);
        if (args.has('C')) report('code', { context: `the callback of ${name} -C`, program: 'eval' }, args.get('C')!);
        break;
      }
      case 'unset':
        report('name', 'a name unset removes', ...operands(words, '').operands);
        break;
      case 'getopts':
        if (rest[1]) report('name', 'the name getopts assigns', rest[1]);
        break;
      case 'test':
      case '[':
        words.forEach((w, k) => {
          if (k > 0 && /^-[vR]$/.test(words[k - 1]!.literal ?? ''))
            report('name', `${name} ${words[k - 1]!.literal} …`, w);
        });
        break;
      default:
        if (DECLARATIONS.has(name)) {
          const flags = flagsOf(words);
          report('name', `a name ${name} declares`, ...rest.filter((w) => w.literal === undefined));
          for (const a of c.assignments) {
            if (flags.includes('i')) report('arithmetic', `${name} -i`, a.value);
            if (flags.includes('n')) report('name', `${name} -n, a reference by name`, a.value);
          }
        }
    }
  }
  return problems;
}

/** The names a literal part of a `let` argument reads as variables. */
function nameRefs(word: Word): Flow {
  return { uses: [], refs: word.text.match(/[A-Za-z_]\w*/g) ?? [] };
}
