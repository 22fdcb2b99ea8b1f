/**
 * `${name}` templates. Strict: an unknown name is an error at its line, never left for the
 * shell to expand. `$${` writes a literal `${` (for a shell expansion such as `$${HOME}`).
 *
 * In shell text a variable becomes a quoted reference to an environment variable, so a value
 * never passes through the shell's parser: `--out ${output}` runs as `--out "${CAMPAIGN_OUTPUT}"`.
 */
import type { Scalar } from './schema.js';

export const BUILTINS = ['output', 'tag', 'task', 'phase', 'campaign', 'stage', 'units', 'attempt'] as const;
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
 * Shell text with every variable turned into a quoted environment reference. The reference
 * fits the quoting the template puts it in, so the value stays one word with no expansion:
 * `"${NAME}"` outside quotes (and inside `$(…)` or backticks), `${NAME}` inside double quotes
 * (a nested `"` would end the user's quotes and leave the value to word splitting and globbing)
 * and in heredoc bodies (where quotes are literal text), and closed-and-reopened quotes inside
 * single quotes (where the shell expands nothing).
 */
export function toShell(text: string): string {
  const lexer = new QuoteLexer();
  return parseTemplate(text)
    .map((p) => {
      if (p.name === undefined) {
        lexer.feed(p.literal!);
        return p.literal;
      }
      lexer.feed('\u0000'); // a variable is never part of a heredoc delimiter line
      const ref = `\${${envName(p.name)}}`;
      switch (lexer.context()) {
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

type QuoteContext = 'top' | 'dq' | 'sq' | 'ansi' | 'cmd' | 'bt' | 'arith' | 'heredoc';

interface Heredoc {
  delimiter: string;
  /** `<<-`: leading tabs are stripped from body lines. */
  tabs: boolean;
}

/**
 * Tracks bash quoting through shell text: quotes, `$'…'`, `$(…)`, `$((…))` and backticks
 * (which start a fresh context even inside double quotes), heredoc bodies, backslash escapes
 * and comments.
 */
class QuoteLexer {
  private readonly stack: { kind: QuoteContext; depth: number }[] = [{ kind: 'top', depth: 0 }];
  private escaped = false;
  private comment = false;
  private prev = '\n';
  /** Heredocs opened on the current line, whose bodies start at the next newline. */
  private pending: Heredoc[] = [];
  private heredoc: Heredoc | undefined;
  private line = '';

  context(): QuoteContext {
    return this.heredoc ? 'heredoc' : this.stack[this.stack.length - 1]!.kind;
  }

  feed(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      const next = text[i + 1];
      if (this.heredoc) {
        if (c !== '\n') {
          this.line += c;
          continue;
        }
        const line = this.heredoc.tabs ? this.line.replace(/^\t+/, '') : this.line;
        this.line = '';
        if (line === this.heredoc.delimiter) this.heredoc = this.pending.shift();
        continue;
      }
      const top = this.stack[this.stack.length - 1]!;
      const prev = this.prev;
      this.prev = c;
      if (this.escaped) {
        this.escaped = false;
        continue;
      }
      if (c === '\n' && this.pending.length > 0 && !['sq', 'dq', 'ansi'].includes(top.kind)) {
        this.comment = false;
        this.heredoc = this.pending.shift();
        continue;
      }
      if (this.comment) {
        if (c === '\n') this.comment = false;
        continue;
      }
      switch (top.kind) {
        case 'sq':
          if (c === "'") this.stack.pop();
          break;
        case 'ansi':
          if (c === '\\') this.escaped = true;
          else if (c === "'") this.stack.pop();
          break;
        case 'dq':
          if (c === '\\') this.escaped = true;
          else if (c === '"') this.stack.pop();
          else if (c === '$' && next === '(') i = this.open(text, i);
          else if (c === '`') this.stack.push({ kind: 'bt', depth: 0 });
          break;
        case 'arith':
          if (c === '(') top.depth++;
          else if (c === ')' && top.depth > 0) top.depth--;
          else if (c === ')' && next === ')') {
            this.stack.pop();
            i++;
          } else if (c === '"') this.stack.push({ kind: 'dq', depth: 0 });
          else if (c === '$' && next === '(') i = this.open(text, i);
          break;
        default:
          if (c === '\\') this.escaped = true;
          else if (c === '#' && /[\s;&|()]/.test(prev)) this.comment = true;
          else if (c === "'") this.stack.push({ kind: 'sq', depth: 0 });
          else if (c === '"') this.stack.push({ kind: 'dq', depth: 0 });
          else if (c === '$' && next === "'") {
            this.stack.push({ kind: 'ansi', depth: 0 });
            i++;
          } else if (c === '$' && next === '(') i = this.open(text, i);
          else if (c === '(' && next === '(' && /[\s;&|()]/.test(prev)) {
            this.stack.push({ kind: 'arith', depth: 0 });
            i++;
          } else if (c === '<' && next === '<') i = this.redirect(text, i);
          else if (c === '`') {
            if (top.kind === 'bt') this.stack.pop();
            else this.stack.push({ kind: 'bt', depth: 0 });
          } else if (top.kind === 'cmd' && c === '(') top.depth++;
          else if (top.kind === 'cmd' && c === ')') {
            if (top.depth === 0) this.stack.pop();
            else top.depth--;
          }
      }
    }
  }

  /** `$(` or `$((` at `i`; returns the index of its last character. */
  private open(text: string, i: number): number {
    const arith = text[i + 2] === '(';
    this.stack.push({ kind: arith ? 'arith' : 'cmd', depth: 0 });
    this.prev = '(';
    return i + (arith ? 2 : 1);
  }

  /** `<<` at `i`: a here-string, or a heredoc whose body starts at the next newline. */
  private redirect(text: string, i: number): number {
    if (text[i + 2] === '<') return i + 2;
    const m = /^<<(-?)[ \t]*((?:[^\s;&|<>()'"\\]|'[^']*'|"[^"]*"|\\.)+)/.exec(text.slice(i));
    if (!m) return i + 1;
    const delimiter = m[2]!.replace(/'([^']*)'|"([^"]*)"|\\(.)/g, (_, a, b, c) => a ?? b ?? c);
    this.pending.push({ delimiter, tabs: m[1] === '-' });
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
