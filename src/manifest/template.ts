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

/** Shell text with every variable turned into a double-quoted environment reference. */
export function toShell(text: string): string {
  return parseTemplate(text)
    .map((p) => (p.name === undefined ? p.literal : `"\${${envName(p.name)}}"`))
    .join('');
}

/** The template with values substituted as plain text (for paths and for display). */
export function substitute(text: string, values: Readonly<Record<string, Scalar | undefined>>): string {
  return parseTemplate(text)
    .map((p) => {
      if (p.name === undefined) return p.literal;
      const v = values[p.name];
      if (v === undefined) throw new Error(`template variable ${p.name} has no value (lint should have refused it)`);
      return String(v);
    })
    .join('');
}
