/**
 * `${name}` templates. Strict: an unknown name is an error at its line, never left for the
 * shell to expand. `$${` writes a literal `${` (for a shell expansion such as `$${HOME}`).
 *
 * In shell text a variable becomes a quoted reference to an environment variable, so a value
 * never passes through the shell's parser: `--out ${output}` runs as `--out "${CAMPAIGN_OUTPUT}"`.
 */
import type { Scalar } from './schema.js';

export const BUILTINS = ['output', 'tag', 'task', 'phase', 'campaign', 'stage', 'units', 'attempt', 'code'] as const;
export type Builtin = (typeof BUILTINS)[number];

/** Names usable where the value is a path known before a task runs (output, preconditions). */
export const PATH_BUILTINS: readonly Builtin[] = ['tag', 'phase', 'campaign'];

export interface TemplatePart {
  literal?: string;
  name?: string;
  /** Offset of `${` in the template text. */
  offset: number;
}

const TOKEN = /\$\$\{|\$\{([^}]*)\}/g;

export function parseTemplate(text: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    if (m.index > last) parts.push({ literal: text.slice(last, m.index), offset: last });
    parts.push(m[0] === '$${' ? { literal: '${', offset: m.index } : { name: m[1]!.trim(), offset: m.index });
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push({ literal: text.slice(last), offset: last });
  return parts;
}

/** The variable names a template uses, in order of appearance. */
export function templateNames(text: string): string[] {
  return parseTemplate(text).flatMap((p) => (p.name === undefined ? [] : [p.name]));
}

/** The names a template uses that are not in `known`. */
export function unknownNames(text: string, known: ReadonlySet<string>): string[] {
  return templateNames(text).filter((n) => !known.has(n));
}

/** The environment variable a template name is passed in. */
export function envName(name: string): string {
  return (BUILTINS as readonly string[]).includes(name) ? `CAMPAIGN_${name.toUpperCase()}` : `CAMPAIGN_AXIS_${name}`;
}

/**
 * How bash reads the place a variable stands in: its quoting context, and whether bash
 * evaluates the text around it as code of its own (lint refuses the uses that would let a value
 * run: `value-becomes-code`).
 */
export interface VariableUse {
  name: string;
  /** Offset of `${` in the template text. */
  offset: number;
  context: QuoteContext;
  /** In a heredoc body: whether its delimiter is quoted, and whether its line only writes text (a plain `cat` or `tee`). */
  heredoc?: { quoted: boolean; writesText: boolean };
  /**
   * Bash evaluates the text as arithmetic, where it expands `$(…)` and `a[…]` in a value:
   * `$((…))`, `((…))`, `$[…]`, inside `${…}` (a subscript, an offset) and a `[[ … ]]` that
   * compares with -eq, -lt and the like.
   */
  arithmetic: boolean;
}

/** Every variable of shell text, in order, with the context bash reads it in. */
export function variableUses(text: string): VariableUse[] {
  const lexer = new QuoteLexer();
  const uses: (VariableUse & { cond?: number })[] = [];
  for (const p of parseTemplate(text)) {
    if (p.name === undefined) {
      lexer.feed(p.literal!);
      continue;
    }
    lexer.feed('\u0000'); // a variable is never part of a heredoc delimiter line
    const context = lexer.context();
    const heredoc = lexer.heredocBody();
    uses.push({
      name: p.name,
      offset: p.offset,
      context,
      ...(heredoc ? { heredoc: { quoted: heredoc.quoted, writesText: heredoc.writesText } } : {}),
      arithmetic: context === 'arith' || context === 'param',
      ...(context === 'cond' ? { cond: lexer.openCond() } : {}),
    });
  }
  return uses.map(({ cond, ...use }) =>
    cond === undefined ? use : { ...use, arithmetic: ARITHMETIC_TEST.test(lexer.condText(cond)) },
  );
}

/** A `[[ … ]]` operator that evaluates both sides as arithmetic. */
const ARITHMETIC_TEST = /\s-(?:eq|ne|lt|le|gt|ge)\s/;

/**
 * Shell text with every variable turned into a quoted environment reference. The reference
 * fits the quoting the template puts it in, so the value stays one word with no expansion:
 * `"${NAME}"` outside quotes (and inside `$(…)` or backticks), `${NAME}` inside double quotes
 * (a nested `"` would end the user's quotes and leave the value to word splitting and globbing)
 * and in heredoc bodies (where quotes are literal text), and closed-and-reopened quotes inside
 * single quotes (where the shell expands nothing; lint refuses a run of these, since the
 * quoted text may be code for another shell or interpreter).
 */
export function toShell(text: string): string {
  const uses = variableUses(text);
  let k = 0;
  return parseTemplate(text)
    .map((p) => {
      if (p.name === undefined) return p.literal;
      const ref = `\${${envName(p.name)}}`;
      switch (uses[k++]!.context) {
        case 'dq':
        case 'heredoc':
          return ref;
        case 'sq':
          return `'"${ref}"'`;
        case 'ansi':
          return `'"${ref}"$'`;
        default:
          return `"${ref}"`;
      }
    })
    .join('');
}

export type QuoteContext = 'top' | 'dq' | 'sq' | 'ansi' | 'cmd' | 'bt' | 'arith' | 'param' | 'cond' | 'heredoc';

interface Heredoc {
  delimiter: string;
  /** `<<-`: leading tabs are stripped from body lines. */
  tabs: boolean;
  /** `<<'EOF'`, `<<"EOF"`, `<<\EOF`: the body is not expanded. */
  quoted: boolean;
  /** Its line is one `cat` or `tee`, piped nowhere: the body is written as text, not run. */
  writesText: boolean;
}

interface Frame {
  kind: QuoteContext;
  depth: number;
  /** What closes an `arith` frame: `))` or, for `$[…]`, `]`. */
  close?: string;
  /** Where a `cond` frame starts in the text fed so far. */
  start?: number;
}

/** Is the heredoc's whole line one plain `cat` or `tee` (redirections allowed, nothing after)? */
const WRITES_TEXT = /^\s*(?:cat|tee)(?:\s[^;&|`()]*)?$/;

/**
 * Tracks bash quoting through shell text: quotes, `$'…'`, `$(…)`, `$((…))`, `$[…]`, `${…}`
 * and backticks (which start a fresh context even inside double quotes), `[[ … ]]`, heredoc
 * bodies, backslash escapes and comments.
 */
class QuoteLexer {
  private readonly stack: Frame[] = [{ kind: 'top', depth: 0 }];
  private escaped = false;
  private comment = false;
  private prev = '\n';
  /** Heredocs opened on the current line, whose bodies start at the next newline. */
  private pending: Heredoc[] = [];
  private heredoc: Heredoc | undefined;
  private line = '';
  /** Everything fed so far, for the text of a `[[ … ]]` and of a heredoc's line. */
  private fed = '';
  private readonly conds: { start: number; end?: number }[] = [];

  context(): QuoteContext {
    return this.heredoc ? 'heredoc' : this.stack[this.stack.length - 1]!.kind;
  }

  heredocBody(): Heredoc | undefined {
    return this.heredoc;
  }

  /** The index of the innermost open `[[ … ]]`. */
  openCond(): number {
    for (let k = this.conds.length - 1; k >= 0; k--) if (this.conds[k]!.end === undefined) return k;
    return -1;
  }

  /** The text of a `[[ … ]]`, to its end or to the end of the text. */
  condText(index: number): string {
    const condition = this.conds[index]!;
    return this.fed.slice(condition.start, condition.end);
  }

  feed(text: string): void {
    const base = this.fed.length;
    this.fed += text;
    for (let i = 0; i < text.length; i++) {
      const char = text[i]!;
      const next = text[i + 1];
      if (this.heredoc) {
        if (char !== '\n') {
          this.line += char;
          continue;
        }
        const line = this.heredoc.tabs ? this.line.replace(/^\t+/, '') : this.line;
        this.line = '';
        if (line === this.heredoc.delimiter) this.heredoc = this.pending.shift();
        continue;
      }
      const top = this.stack[this.stack.length - 1]!;
      const prev = this.prev;
      this.prev = char;
      if (this.escaped) {
        this.escaped = false;
        continue;
      }
      if (char === '\n' && this.pending.length > 0 && !['sq', 'dq', 'ansi'].includes(top.kind)) {
        this.comment = false;
        const line = this.fed.slice(this.fed.lastIndexOf('\n', base + i - 1) + 1, base + i);
        for (const h of this.pending) h.writesText = WRITES_TEXT.test(line);
        this.heredoc = this.pending.shift();
        continue;
      }
      if (this.comment) {
        if (char === '\n') this.comment = false;
        continue;
      }
      switch (top.kind) {
        case 'sq':
          if (char === "'") this.stack.pop();
          break;
        case 'ansi':
          if (char === '\\') this.escaped = true;
          else if (char === "'") this.stack.pop();
          break;
        case 'dq':
          if (char === '\\') this.escaped = true;
          else if (char === '"') this.stack.pop();
          else if (char === '$' && (next === '(' || next === '[' || next === '{')) i = this.open(text, i);
          else if (char === '`') this.stack.push({ kind: 'bt', depth: 0 });
          break;
        case 'param':
          if (char === '\\') this.escaped = true;
          else if (char === '"') this.stack.push({ kind: 'dq', depth: 0 });
          else if (char === '$' && (next === '(' || next === '[' || next === '{')) i = this.open(text, i);
          else if (char === '{') top.depth++;
          else if (char === '}' && top.depth > 0) top.depth--;
          else if (char === '}') this.stack.pop();
          break;
        case 'arith':
          if (top.close === ']') {
            if (char === '[') top.depth++;
            else if (char === ']' && top.depth > 0) top.depth--;
            else if (char === ']') this.stack.pop();
          } else if (char === '(') top.depth++;
          else if (char === ')' && top.depth > 0) top.depth--;
          else if (char === ')' && next === ')') {
            this.stack.pop();
            i++;
          }
          if (char === '"') this.stack.push({ kind: 'dq', depth: 0 });
          else if (char === '$' && (next === '(' || next === '[' || next === '{')) i = this.open(text, i);
          break;
        default:
          if (char === '\\') this.escaped = true;
          else if (char === '#' && /[\s;&|()]/.test(prev)) this.comment = true;
          else if (char === "'") this.stack.push({ kind: 'sq', depth: 0 });
          else if (char === '"') this.stack.push({ kind: 'dq', depth: 0 });
          else if (char === '$' && next === "'") {
            this.stack.push({ kind: 'ansi', depth: 0 });
            i++;
          } else if (char === '$' && (next === '(' || next === '[' || next === '{')) i = this.open(text, i);
          else if (char === '(' && next === '(' && /[\s;&|()]/.test(prev)) {
            this.stack.push({ kind: 'arith', depth: 0, close: '))' });
            i++;
          } else if (char === '[' && next === '[' && /[\s;&|()]/.test(prev) && /\s/.test(text[i + 2] ?? '')) {
            this.conds.push({ start: base + i });
            this.stack.push({ kind: 'cond', depth: 0, start: base + i });
            i++;
          } else if (top.kind === 'cond' && char === ']' && next === ']' && /\s/.test(prev)) {
            this.conds[this.openCond()]!.end = base + i + 2;
            this.stack.pop();
            i++;
          } else if (char === '<' && next === '<') i = this.redirect(text, i);
          else if (char === '`') {
            if (top.kind === 'bt') this.stack.pop();
            else this.stack.push({ kind: 'bt', depth: 0 });
          } else if (top.kind === 'cmd' && char === '(') top.depth++;
          else if (top.kind === 'cmd' && char === ')') {
            if (top.depth === 0) this.stack.pop();
            else top.depth--;
          }
      }
    }
  }

  /** `$(`, `$((`, `$[` or `${` at `i`; returns the index of its last character. */
  private open(text: string, i: number): number {
    const next = text[i + 1];
    if (next === '[') {
      this.stack.push({ kind: 'arith', depth: 0, close: ']' });
      this.prev = '[';
      return i + 1;
    }
    if (next === '{') {
      this.stack.push({ kind: 'param', depth: 0 });
      this.prev = '{';
      return i + 1;
    }
    const arith = text[i + 2] === '(';
    this.stack.push(arith ? { kind: 'arith', depth: 0, close: '))' } : { kind: 'cmd', depth: 0 });
    this.prev = '(';
    return i + (arith ? 2 : 1);
  }

  /** `<<` at `i`: a here-string, or a heredoc whose body starts at the next newline. */
  private redirect(text: string, i: number): number {
    if (text[i + 2] === '<') return i + 2;
    const m = /^<<(-?)[ \t]*((?:[^\s;&|<>()'"\\]|'[^']*'|"[^"]*"|\\.)+)/.exec(text.slice(i));
    if (!m) return i + 1;
    const delimiter = m[2]!.replace(/'([^']*)'|"([^"]*)"|\\(.)/g, (_, a, b, escaped) => a ?? b ?? escaped);
    this.pending.push({ delimiter, tabs: m[1] === '-', quoted: delimiter !== m[2], writesText: false });
    this.prev = m[0][m[0].length - 1]!;
    return i + m[0].length - 1;
  }
}

/** The template with values substituted as plain text (for paths and for display). */
export function substitute(text: string, values: Readonly<Record<string, Scalar | undefined>>): string {
  return compileTemplate(text)((name) => values[name]);
}

/**
 * A template parsed once, to be filled many times (a phase's output path for every task):
 * `lookup` gives the value of a name.
 */
export function compileTemplate(text: string): (lookup: (name: string) => Scalar | undefined) => string {
  const parts = parseTemplate(text);
  return (lookup) => {
    let out = '';
    for (const p of parts) {
      if (p.name === undefined) {
        out += p.literal;
        continue;
      }
      const v = lookup(p.name);
      if (v === undefined) throw new Error(`template variable ${p.name} has no value (lint should have refused it)`);
      out += String(v);
    }
    return out;
  };
}
