/**
 * Bash text read as commands and words, far enough to say where bash evaluates a template value
 * as arithmetic, as a variable's name or as code (`value-becomes-code`). Each template use
 * stands in the text as one marker character (`marker`), so every word, subscript and
 * arithmetic span knows which uses it holds, nested substitutions included.
 *
 * It reads what bash reads: quotes, `$'…'`, `$(…)`, backticks, `$((…))`, `((…))`, `$[…]`,
 * `${…}`, process substitution, `[[ … ]]`, assignments and compound array assignments, heredoc
 * bodies, `case` patterns, function definitions, comments, pipelines and lists. It does not
 * keep the grammar of compound commands (`if`, `while`, `{ … }`): their reserved words are
 * skipped and the commands inside read as the others are, which is enough for an analysis
 * that asks where a value goes, not in which order.
 *
 * It is one concern in one module, though long: a reader of one language, whose states (quotes,
 * substitutions, arithmetic, heredocs) each read the others nested inside them, so that cut
 * apart every piece would import every other.
 */

/** The first character standing for a template use: use k is `MARKER_BASE + k`, in the Private Use Area. */
const MARKER_BASE = 0xe000;
const MARKER_LAST = 0xf8ff;

/** The character that stands for template use `index` in the text read. */
export function marker(index: number): string {
  return String.fromCharCode(MARKER_BASE + index);
}

const useAt = (char: string): number | undefined => {
  const code = char.charCodeAt(0);
  return code >= MARKER_BASE && code <= MARKER_LAST ? code - MARKER_BASE : undefined;
};

/** What bash expands a piece of text to, as far as values go: the uses and the shell variables it holds. */
export interface Flow {
  /** Template uses anywhere in it, nested substitutions included. */
  uses: number[];
  /** Shell variables it expands (or, in arithmetic, names), anywhere in it. */
  refs: string[];
}

export interface Word extends Flow {
  /** The word with its quotes removed, when it expands nothing; undefined otherwise. */
  literal: string | undefined;
  /** Its literal parts alone, quotes removed (the names a `let` argument reads). */
  text: string;
}

export interface Assignment {
  name: string;
  value: Flow;
}

export interface Command {
  /** Prefix assignments (`x=1 cmd`, or a line of assignments only). */
  assignments: Assignment[];
  words: Word[];
  /** What the command reads on its standard input from the text itself: here-strings, heredoc bodies, `<` targets. */
  stdin: Word[];
  /** Whether a pipe feeds it (it is not the first stage of its pipeline). */
  piped: boolean;
  /** The uses the text holds before this command: what a pipe into it may carry. */
  before: number[];
}

/** Text bash evaluates as arithmetic or reads as a variable's name, with what it is. */
export interface Span extends Flow {
  context: string;
  /** For a subscript: the array's name (an associative array's subscript is not arithmetic). */
  array?: string;
}

export interface Reading {
  commands: Command[];
  arithmetic: Span[];
  /** Words bash reads as a variable's name wherever they stand: `${!x}`, `[[ -v … ]]`. */
  names: Span[];
  /** Names of the functions the text defines. */
  functions: Set<string>;
}

const BLANK = /[ \t]/;
const META = /[ \t\n;&|<>()]/;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*/;
/** Builtins whose arguments may be assignments, read as a command's prefix assignments are. */
export const DECLARATIONS = new Set(['declare', 'typeset', 'local', 'export', 'readonly']);
const RESERVED = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', '!', '{', '}', 'time']);
/** `[[ … ]]` operators that evaluate both sides as arithmetic. */
const ARITHMETIC_TEST = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

class Collector {
  readonly uses: number[] = [];
  readonly refs: string[] = [];
  expands = false;
  literal = '';

  add(flow: Flow): void {
    this.uses.push(...flow.uses);
    this.refs.push(...flow.refs);
    this.expands = true;
  }

  word(): Word {
    return { uses: this.uses, refs: this.refs, literal: this.expands ? undefined : this.literal, text: this.literal };
  }
}

interface PendingHeredoc {
  delimiter: string;
  tabs: boolean;
  quoted: boolean;
  command: Command;
}

/** How deep substitutions and subshells may nest before the reading gives up (a manifest's text nests a few). */
const MAX_DEPTH = 64;

/**
 * Reads shell text whose template uses are markers (see `marker`); undefined when it nests
 * deeper than `MAX_DEPTH`, which the analysis cannot then vouch for.
 */
export function readBash(text: string): Reading | undefined {
  const reading: Reading = { commands: [], arithmetic: [], names: [], functions: new Set() };
  try {
    new Reader(text, reading, new Set(), 0).list('');
  } catch (e) {
    if (e instanceof TooDeep) return undefined;
    throw e;
  }
  return reading;
}

class TooDeep extends Error {}

class Reader {
  private i = 0;
  private readonly pending: PendingHeredoc[] = [];

  constructor(
    private readonly s: string,
    private readonly out: Reading,
    /** Uses met so far, shared with nested readers, for what a pipe may carry. */
    private readonly seen: Set<number>,
    private depth: number,
  ) {}

  /** Commands up to `stop` (one of its characters, unquoted, where a word could start) or the end. */
  list(stop: string): Flow {
    if (++this.depth > MAX_DEPTH) throw new TooDeep();
    const flow: Flow = { uses: [], refs: [] };
    const cases: ('pattern' | 'body')[] = [];
    let command = this.fresh(false);
    const end = (piped: boolean): void => {
      if (command.words.length > 0 || command.assignments.length > 0 || command.stdin.length > 0)
        this.out.commands.push(command);
      command = this.fresh(piped);
    };
    while (this.i < this.s.length) {
      const char = this.s[this.i]!;
      const next = this.s[this.i + 1];
      if (BLANK.test(char)) {
        this.i++;
        continue;
      }
      if (stop.includes(char)) break;
      if (char === '\\' && next === '\n') {
        this.i += 2;
        continue;
      }
      if (char === '#') {
        while (this.i < this.s.length && this.s[this.i] !== '\n') this.i++;
        continue;
      }
      if (char === '\n') {
        this.i++;
        end(false);
        this.heredocBodies();
        continue;
      }
      if (char === ';' || char === '&' || char === '|') {
        const op = /^(;;&|;;|;&|&&|\|\||\|&|&>>|&>|[;&|])/.exec(this.s.slice(this.i))![0];
        if (op.startsWith('&>')) {
          this.i += op.length;
          this.target();
          continue;
        }
        this.i += op.length;
        end(op === '|' || op === '|&');
        if (op.startsWith(';;') || op === ';&') cases[cases.length - 1] = 'pattern';
        continue;
      }
      if (cases[cases.length - 1] === 'pattern' && command.words.length === 0) {
        if (this.s.startsWith('esac', this.i) && (this.i + 4 >= this.s.length || META.test(this.s[this.i + 4]!))) {
          this.i += 4;
          cases.pop();
          continue;
        }
        this.pattern();
        cases[cases.length - 1] = 'body';
        continue;
      }
      if (char === '(' && next === '(' && command.words.length === 0) {
        this.i += 2;
        this.arithmetic('))', '((…))');
        continue;
      }
      if (char === '(') {
        this.i++;
        if (command.words.length === 1 && /^\s*\)/.test(this.s.slice(this.i))) {
          // name () { … }: a function definition.
          this.i = this.s.indexOf(')', this.i) + 1;
          const name = command.words[0]!.literal;
          if (name !== undefined) this.out.functions.add(name);
          command = this.fresh(false);
          continue;
        }
        end(false);
        this.merge(flow, this.list(')'));
        this.i++;
        continue;
      }
      if (char === ')') {
        // A `)` no open paren accounts for: a case pattern this reading missed; skip it.
        this.i++;
        continue;
      }
      if ((char === '<' || char === '>') && next !== '(') {
        this.redirect(command);
        continue;
      }
      if (command.words.length === 0 && this.s.startsWith('[[', this.i) && /\s/.test(this.s[this.i + 2] ?? '')) {
        this.i += 2;
        const words = this.condition();
        this.merge(flow, ...words);
        command.words.push({ uses: [], refs: [], literal: '[[', text: '[[' }, ...words);
        continue;
      }
      const first = command.words[0]?.literal;
      if (
        (first === undefined ? command.words.length === 0 : DECLARATIONS.has(first)) &&
        this.assignment(command, flow)
      )
        continue;
      const start = this.i;
      const word = this.word(META);
      if (this.i === start) {
        this.i++; // a character no rule above reads (a stray quote at the end): skip it.
        continue;
      }
      // A file descriptor before a redirection (2>, {fd}>) is not a word.
      if (/^(\d+|\{[A-Za-z_]\w*\})$/.test(word.literal ?? '') && /[<>]/.test(this.s[this.i] ?? '')) continue;
      this.merge(flow, word);
      if (command.words.length === 0 && word.literal !== undefined && RESERVED.has(word.literal)) continue;
      if (command.words.length === 0 && word.literal === 'function') {
        this.skipBlanks();
        const name = this.word(META);
        if (name.literal !== undefined) this.out.functions.add(name.literal.replace(/\(\)$/, ''));
        continue;
      }
      command.words.push(word);
      if (command.words[0]!.literal === 'case' && word.literal === 'in' && command.words.length > 2) {
        end(false);
        cases.push('pattern');
      } else if (
        ['for', 'select'].includes(command.words[0]!.literal ?? '') &&
        command.words.length === 2 &&
        this.s.startsWith('((', this.i)
      ) {
        command = this.fresh(false);
        this.i += 2;
        this.arithmetic('))', 'for ((…))');
      }
    }
    end(false);
    this.depth--;
    return flow;
  }

  private fresh(piped: boolean): Command {
    return { assignments: [], words: [], stdin: [], piped, before: [...this.seen] };
  }

  private merge(into: Flow, ...flows: Flow[]): void {
    for (const f of flows) {
      into.uses.push(...f.uses);
      into.refs.push(...f.refs);
    }
  }

  private skipBlanks(): void {
    while (BLANK.test(this.s[this.i] ?? '')) this.i++;
  }

  /** A case pattern, to its `)`. */
  private pattern(): void {
    if (this.s[this.i] === '(') this.i++;
    while (this.i < this.s.length && this.s[this.i] !== ')') {
      if (/[\s|]/.test(this.s[this.i]!)) this.i++;
      else this.word(/[\s|)]/);
    }
    this.i++;
  }

  /** A redirection at `i`: here-strings and `<` feed the command's input; heredocs are read at the next newline. */
  private redirect(command: Command): void {
    const op = /^(<<<|<<-|<<|<>|<&|>&|>>|>\||<|>)/.exec(this.s.slice(this.i))![0];
    this.i += op.length;
    if (op === '<<' || op === '<<-') {
      this.skipBlanks();
      const m = /^((?:[^\s;&|<>()'"\\]|'[^']*'|"[^"]*"|\\.)+)/.exec(this.s.slice(this.i));
      if (!m) return;
      this.i += m[0].length;
      const delimiter = m[1]!.replace(/'([^']*)'|"([^"]*)"|\\(.)/g, (_, a, b, escaped) => a ?? b ?? escaped);
      this.pending.push({ delimiter, tabs: op === '<<-', quoted: delimiter !== m[1], command });
      return;
    }
    const target = this.target();
    if (op === '<<<' || op === '<') command.stdin.push(target);
  }

  private target(): Word {
    this.skipBlanks();
    return this.word(META);
  }

  /** The bodies of the heredocs opened on the line just ended. */
  private heredocBodies(): void {
    for (const h of this.pending.splice(0)) {
      const lines: string[] = [];
      while (this.i < this.s.length) {
        const eol = this.s.indexOf('\n', this.i);
        const raw = this.s.slice(this.i, eol < 0 ? this.s.length : eol);
        this.i = eol < 0 ? this.s.length : eol + 1;
        if ((h.tabs ? raw.replace(/^\t+/, '') : raw) === h.delimiter) break;
        lines.push(raw);
      }
      const body = lines.join('\n');
      const reader = new Reader(body, this.out, this.seen, this.depth);
      h.command.stdin.push(h.quoted ? reader.quotedBody() : reader.doubleQuoted(''));
    }
  }

  /** A quoted heredoc's body: nothing expands, but a marker in it is still a use (lint refuses it apart). */
  private quotedBody(): Word {
    const uses = [...this.s].flatMap((char) => {
      const k = useAt(char);
      return k === undefined ? [] : [k];
    });
    uses.forEach((k) => this.seen.add(k));
    return { uses, refs: [], literal: uses.length > 0 ? undefined : this.s, text: this.s };
  }

  /** `name=`, `name[…]=`, `name+=`, `name=(…)` at `i`; false (and nothing read) when there is none. */
  private assignment(command: Command, flow: Flow): boolean {
    const m = IDENT.exec(this.s.slice(this.i));
    if (!m) return false;
    const start = this.i;
    const spans = this.out.arithmetic.length;
    this.i += m[0].length;
    if (this.s[this.i] === '[') {
      this.i++;
      this.arithmetic(']', `the subscript of ${m[0]}[…]=`, m[0]);
    }
    if (this.s[this.i] === '+') this.i++;
    if (this.s[this.i] !== '=') {
      // Not an assignment (a word such as file[0-9].txt): read it again as a word.
      this.out.arithmetic.length = spans;
      this.i = start;
      return false;
    }
    this.i++;
    const value = this.s[this.i] === '(' ? this.elements(m[0]) : this.word(META);
    this.merge(flow, value);
    command.assignments.push({ name: m[0], value });
    return true;
  }

  /** The elements of `name=(…)`; a `[…]=` subscript in them is arithmetic. */
  private elements(name: string): Flow {
    this.i++;
    const flow: Flow = { uses: [], refs: [] };
    while (this.i < this.s.length && this.s[this.i] !== ')') {
      const char = this.s[this.i]!;
      if (/\s/.test(char)) {
        this.i++;
        continue;
      }
      if (char === '#') {
        while (this.i < this.s.length && this.s[this.i] !== '\n') this.i++;
        continue;
      }
      if (char === '[') {
        this.i++;
        this.arithmetic(']', `the subscript of ${name}=([…]=…)`, name);
        if (this.s[this.i] === '=') this.i++;
      }
      const start = this.i;
      this.merge(flow, this.word(META));
      if (this.i === start) this.i++;
    }
    this.i++;
    return flow;
  }

  /**
   * Arithmetic text to `close` (`))` or `]`), nested parentheses and brackets allowed: every
   * name in it is a variable bash reads as arithmetic, and every use is evaluated.
   */
  private arithmetic(close: string, context: string, array?: string): Flow {
    const flow: Flow = { uses: [], refs: [] };
    let depth = 0;
    while (this.i < this.s.length) {
      const char = this.s[this.i]!;
      if (depth === 0 && this.s.startsWith(close, this.i)) {
        this.i += close.length;
        break;
      }
      if (char === '(' || char === '[') depth++;
      else if ((char === ')' || char === ']') && depth > 0) depth--;
      const k = useAt(char);
      if (k !== undefined) {
        this.seen.add(k);
        flow.uses.push(k);
        this.i++;
      } else if (char === '$' || char === '`' || char === '"' || char === "'" || char === '\\') {
        this.merge(flow, this.expansion(false));
      } else if (/[A-Za-z_]/.test(char)) {
        const name = IDENT.exec(this.s.slice(this.i))![0];
        flow.refs.push(name);
        this.i += name.length;
      } else this.i++;
    }
    this.out.arithmetic.push({ ...flow, context, ...(array ? { array } : {}) });
    return flow;
  }

  /** `[[ … ]]`, after its `[[`: its words, with the operands of -eq and the like as arithmetic and of -v as names. */
  private condition(): Word[] {
    const words: Word[] = [];
    while (this.i < this.s.length) {
      this.skipBlanks();
      if (this.s[this.i] === '\\' && this.s[this.i + 1] === '\n') {
        this.i += 2;
        continue;
      }
      if (this.s[this.i] === '\n') {
        this.i++;
        continue;
      }
      if (this.s.startsWith(']]', this.i)) {
        this.i += 2;
        break;
      }
      const op = /^(&&|\|\||[()!<>])/.exec(this.s.slice(this.i));
      if (op) {
        this.i += op[0].length;
        words.push({ uses: [], refs: [], literal: op[0], text: op[0] });
        continue;
      }
      const regex = words[words.length - 1]?.literal === '=~';
      const start = this.i;
      words.push(regex ? this.regex() : this.word(/[\s]/));
      if (this.i === start) this.i++;
    }
    words.forEach((word, j) => {
      const operator = words[j + 1]?.literal ?? '';
      const before = words[j - 1]?.literal ?? '';
      if (ARITHMETIC_TEST.has(operator) || ARITHMETIC_TEST.has(before))
        this.out.arithmetic.push({
          ...this.operand(word),
          context: `[[ … ${ARITHMETIC_TEST.has(operator) ? operator : before} … ]]`,
        });
      if (before === '-v' || before === '-R') this.out.names.push({ ...word, context: `[[ ${before} … ]]` });
    });
    return words;
  }

  /** An operand of arithmetic: a bare name in it is a variable. */
  private operand(word: Word): Flow {
    const name = word.literal !== undefined ? IDENT.exec(word.literal) : null;
    return { uses: word.uses, refs: name ? [...word.refs, name[0]] : word.refs };
  }

  /** The right side of `=~`: a word in which parentheses and `|` are part of the pattern. */
  private regex(): Word {
    const collector = new Collector();
    let depth = 0;
    while (this.i < this.s.length) {
      const char = this.s[this.i]!;
      if (depth === 0 && /\s/.test(char)) break;
      if (char === '(') depth++;
      else if (char === ')') depth--;
      if (!this.piece(collector)) {
        collector.literal += char;
        this.i++;
      }
    }
    return collector.word();
  }

  /** One word, to an unquoted character of `stop`. */
  word(stop: RegExp): Word {
    const collector = new Collector();
    while (this.i < this.s.length) {
      const char = this.s[this.i]!;
      if ((char === '<' || char === '>') && this.s[this.i + 1] === '(') {
        this.i += 2;
        collector.add(this.list(')'));
        this.i++;
        continue;
      }
      if (/[?*+@!]/.test(char) && this.s[this.i + 1] === '(') {
        // An extended glob, @(a|b): its parentheses belong to the word.
        collector.literal += char;
        this.i++;
        let depth = 0;
        while (this.i < this.s.length) {
          const d = this.s[this.i]!;
          if (d === '(') depth++;
          if (d === ')' && --depth === 0) {
            this.i++;
            break;
          }
          if (!this.piece(collector)) {
            collector.literal += d;
            this.i++;
          }
        }
        continue;
      }
      if (stop.test(char)) break;
      if (!this.piece(collector)) {
        collector.literal += char;
        this.i++;
      }
    }
    return collector.word();
  }

  /** A quoted part, an escape, an expansion or a marker at `i`, into the collector; false when `i` holds a plain character. */
  private piece(collector: Collector): boolean {
    const char = this.s[this.i]!;
    const k = useAt(char);
    if (k !== undefined) {
      this.seen.add(k);
      collector.add({ uses: [k], refs: [] });
      this.i++;
      return true;
    }
    if (char === '\\') {
      if (this.s[this.i + 1] !== '\n') collector.literal += this.s[this.i + 1] ?? '';
      this.i += 2;
      return true;
    }
    if (char === "'") {
      const end = this.s.indexOf("'", this.i + 1);
      const body = this.s.slice(this.i + 1, end < 0 ? this.s.length : end);
      this.i = end < 0 ? this.s.length : end + 1;
      this.literalWithUses(collector, body);
      return true;
    }
    if (char === '$' && this.s[this.i + 1] === "'") {
      this.i += 2;
      let body = '';
      while (this.i < this.s.length && this.s[this.i] !== "'") {
        if (this.s[this.i] === '\\') body += this.s[this.i++];
        body += this.s[this.i++] ?? '';
      }
      this.i++;
      this.literalWithUses(collector, body);
      return true;
    }
    if (char === '"' || (char === '$' && this.s[this.i + 1] === '"')) {
      this.i += char === '"' ? 1 : 2;
      const inner = this.doubleQuoted('"');
      this.i++;
      if (inner.literal === undefined) collector.add(inner);
      else collector.literal += inner.literal;
      return true;
    }
    if (char === '$' || char === '`') {
      const flow = this.expansion(true);
      if (flow) collector.add(flow);
      else {
        collector.literal += '$';
        this.i++;
      }
      return true;
    }
    return false;
  }

  /** Text in single quotes: literal, but a marker there is still a use (lint refuses it apart). */
  private literalWithUses(collector: Collector, body: string): void {
    for (const ch of body) {
      const k = useAt(ch);
      if (k === undefined) collector.literal += ch;
      else {
        this.seen.add(k);
        collector.add({ uses: [k], refs: [] });
      }
    }
  }

  /** The inside of double quotes (or of an unquoted heredoc body), to `close` or the end. */
  doubleQuoted(close: string): Word {
    const collector = new Collector();
    while (this.i < this.s.length) {
      const char = this.s[this.i]!;
      if (close && char === close) break;
      const k = useAt(char);
      if (k !== undefined) {
        this.seen.add(k);
        collector.add({ uses: [k], refs: [] });
        this.i++;
      } else if (char === '\\') {
        const n = this.s[this.i + 1] ?? '';
        collector.literal += /[$`"\\\n]/.test(n) ? (n === '\n' ? '' : n) : char + n;
        this.i += 2;
      } else if (char === '$' || char === '`') {
        const flow = this.expansion(true);
        if (flow) collector.add(flow);
        else {
          collector.literal += '$';
          this.i++;
        }
      } else {
        collector.literal += char;
        this.i++;
      }
    }
    return collector.word();
  }

  /** An expansion at `i` (`$…`, a backtick, or, in arithmetic, a quoted part); undefined for a lone `$` when `strict`. */
  private expansion(strict: true): Flow | undefined;
  private expansion(strict: false): Flow;
  private expansion(strict: boolean): Flow | undefined {
    if (++this.depth > MAX_DEPTH) throw new TooDeep();
    try {
      return this.expand(strict);
    } finally {
      this.depth--;
    }
  }

  private expand(strict: boolean): Flow | undefined {
    const char = this.s[this.i]!;
    const next = this.s[this.i + 1] ?? '';
    if (char === '`') return this.backticks();
    if (char === '"') {
      this.i++;
      const inner = this.doubleQuoted('"');
      this.i++;
      return inner;
    }
    if (char === "'" || char === '\\') {
      const collector = new Collector();
      this.piece(collector);
      return collector.word();
    }
    if (next === '(' && this.s[this.i + 2] === '(') {
      this.i += 3;
      return this.arithmetic('))', '$((…))');
    }
    if (next === '(') {
      this.i += 2;
      const flow = this.list(')');
      this.i++;
      return flow;
    }
    if (next === '[') {
      this.i += 2;
      return this.arithmetic(']', '$[…]');
    }
    if (next === '{') {
      this.i += 2;
      return this.parameter();
    }
    const name = /^([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(this.s.slice(this.i + 1));
    if (name) {
      this.i += 1 + name[0].length;
      return { uses: [], refs: [name[0]] };
    }
    if (strict) return undefined;
    this.i++;
    return { uses: [], refs: [] };
  }

  /** Backticks: their text, unescaped as bash does, read as commands. */
  private backticks(): Flow {
    this.i++;
    let body = '';
    while (this.i < this.s.length && this.s[this.i] !== '`') {
      if (this.s[this.i] === '\\' && /[$`\\]/.test(this.s[this.i + 1] ?? '')) this.i++;
      body += this.s[this.i++];
    }
    this.i++;
    return new Reader(body, this.out, this.seen, this.depth).list('');
  }

  /** `${…}` after its `${`: a subscript and an offset are arithmetic; `${!name}` reads a value as a name. */
  private parameter(): Flow {
    const flow: Flow = { uses: [], refs: [] };
    const prefix = /^[!#]?/.exec(this.s.slice(this.i))![0];
    this.i += prefix.length;
    const name = /^([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])/.exec(this.s.slice(this.i));
    if (name) {
      this.i += name[0].length;
      flow.refs.push(name[0]);
      if (prefix === '!' && this.s[this.i] === '}')
        this.out.names.push({ uses: [], refs: [name[0]], context: '${!…}, an indirect expansion' });
    }
    if (this.s[this.i] === '[') {
      this.i++;
      this.merge(flow, this.arithmetic(']', `the subscript of \${${name?.[0] ?? ''}[…]}`, name?.[0]));
    }
    if (this.s[this.i] === ':' && !/[-=+?]/.test(this.s[this.i + 1] ?? '')) {
      this.i++;
      // An offset and a length: arithmetic up to the closing brace.
      this.merge(flow, this.arithmetic('}', `the offset of \${${name?.[0] ?? ''}:…}`));
      return flow;
    }
    // The rest is a word (a default, a pattern): data, its expansions included.
    let depth = 0;
    const collector = new Collector();
    while (this.i < this.s.length) {
      const char = this.s[this.i]!;
      if (char === '}' && depth === 0) {
        this.i++;
        break;
      }
      if (char === '{') depth++;
      if (char === '}') depth--;
      if (!this.piece(collector)) {
        collector.literal += char;
        this.i++;
      }
    }
    this.merge(flow, collector);
    return flow;
  }
}
