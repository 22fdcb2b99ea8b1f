/**
 * Where bash itself, or a program it starts, would evaluate a template value: as arithmetic, as
 * a variable's name (whose subscript bash evaluates), or as code. The analysis follows a value
 * through the variables it is assigned to, read into or passed in (`x=${v}; $((x))`), and
 * through the programs that take code as an argument or on their input (`bash -c "…"`,
 * `python3 -c`, `awk`, `sed`, `ssh host "…"`, `bash <<< "…"`, `… | bash`).
 */
import { DECLARATIONS, type Command, type Flow, type Reading, type Word } from './bash-reading.js';
import { basename, flagsOf, operands, RUNNERS, runnerName, runnerWords, unwrap } from './code-runners.js';

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

const union = (...flows: Flow[]): Flow => ({ uses: flows.flatMap((f) => f.uses), refs: flows.flatMap((f) => f.refs) });

/** Every place in the reading where a use would be evaluated, with the context and the variable it went through. */
export function valueProblems(reading: Reading): ValueProblem[] {
  const commands = reading.commands;
  const positional = ['@', '*', ...'123456789'];
  // Input a loop or a group reads from a redirection after its end: a `read` inside may get it.
  const groupInput = union(
    ...commands.filter((command) => command.words.length === 0).flatMap((command) => command.stdin),
  );
  const input = (bashCommand: Command): Flow =>
    union(...bashCommand.stdin, bashCommand.piped ? { uses: bashCommand.before, refs: [] } : groupInput);

  // What each shell variable may hold: the uses that reach it, through any chain of assignments.
  const flows: [string, Flow][] = [];
  const integers = new Set<string>();
  const associative = new Set<string>();
  for (const command of commands) {
    for (const a of command.assignments) flows.push([a.name, a.value]);
    const { words } = unwrap(command.words);
    const name = basename(words[0]);
    if (name === 'for' || name === 'select') {
      const variable = words[1]?.literal;
      if (variable && words[2]?.literal === 'in') flows.push([variable, union(...words.slice(3))]);
    } else if (name === 'read' || name === 'mapfile' || name === 'readarray') {
      const { operands: names, args } = operands(words, name === 'read' ? 'adinNptu' : 'dnOsuCc');
      for (const n of [...names, ...(args.has('a') ? [args.get('a')!] : [])])
        if (n.literal) flows.push([n.literal, input(command)]);
      if (name !== 'read' && names.length === 0) flows.push(['MAPFILE', input(command)]);
      if (name === 'read' && names.length === 0) flows.push(['REPLY', input(command)]);
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
        ...command.assignments.map((a) => a.name),
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

  for (const command of commands) {
    const { words, via } = unwrap(command.words);
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
    if (
      via === 'xargs' &&
      command.piped &&
      /(^|\s)(-I|-i|--replace)/.test(command.words.map((w) => w.literal ?? '').join(' '))
    )
      report(
        'code',
        {
          context: 'text piped into xargs -I, which puts it in the words of the command it runs',
          program: 'xargs',
          input: true,
        },
        {
          uses: command.before,
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
        report(
          'code',
          { context: `the input of ${name}${by}, which it runs as its program`, ...input },
          ...command.stdin,
        );
        if (command.piped)
          report(
            'code',
            { context: `text piped into ${name}${by}, which runs it as its program`, ...input },
            { uses: command.before, refs: [] },
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
          for (const a of command.assignments) {
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
