/**
 * The programs that take code: shells, interpreters and the other programs that run text given
 * as an argument or on their input (`bash -c`, `python3 -c`, `awk`, `sed`, `ssh host "…"`), the
 * wrappers that run the command their operands name (`timeout`, `env`, `xargs`), and the builtins
 * that evaluate their arguments. How each reads its options decides which of its words are
 * program text; value-contexts.ts follows values into those words.
 */
import { DECLARATIONS, type Word } from './bash-reading.js';

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

export const RUNNERS: Readonly<Record<string, Runner>> = {
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
export const WRAPPERS = new Set([
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
export const BUILTINS = new Set([
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

export const basename = (word: Word | undefined): string | undefined => word?.literal?.replace(/^.*\//, '');

/** The runner a program name is, by its table name (`python3.11` is python). */
export function runnerName(name: string): string | undefined {
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
export function unwrap(words: readonly Word[]): { words: readonly Word[]; via?: string } {
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
export function runnerWords(runner: Runner, words: readonly Word[]): RunnerWords {
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
export function operands(words: readonly Word[], withArg: string): { operands: Word[]; args: Map<string, Word> } {
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
export const flagsOf = (words: readonly Word[]): string =>
  words
    .slice(1)
    .map((w) => (w.literal && /^[-+][A-Za-z]+$/.test(w.literal) && w.literal[0] === '-' ? w.literal.slice(1) : ''))
    .join('');
