/**
 * The regular expressions a manifest declares (`log_contains`, `oom.patterns`, `progress.log`),
 * matched in linear time. JavaScript's engine backtracks: `^step (a+)+$` against one line of a
 * log held the controller for minutes, deaf to SIGTERM. RE2's engine cannot do that, so a
 * pattern is compiled by it, and one it cannot compile (a backreference, a lookaround) is
 * refused when the manifest is read, with the reason.
 */
import { RE2JS } from 're2js';

/**
 * Lines longer than this are cut before matching: a log line of megabytes (a progress bar
 * redrawn with `\r`, a binary dump) says nothing a pattern should find past its start.
 */
export const MAX_LINE_CHARS = 16 * 1024;

export interface LineMatch {
  text: string;
  groups: Readonly<Record<string, string | undefined>>;
}

export interface Pattern {
  /** As the manifest wrote it, for messages. */
  readonly source: string;
  /** Whether any line of `text` matches. */
  test(text: string): boolean;
  /** Every non-overlapping match, in order. */
  matches(text: string): Generator<LineMatch>;
}

/** Python's `(?P<name>` and JavaScript's `(?<name>` both name a group. */
const pythonGroups = (source: string): string => source.replace(/\(\?P</g, '(?<');

/** Why RE2 cannot compile `source`, in its words; undefined when it can. */
export function patternError(source: string): string | undefined {
  try {
    RE2JS.compile(pythonGroups(source), RE2JS.MULTILINE);
    return undefined;
  } catch (e) {
    const message = e instanceof Error ? e.message.replace(/^error parsing regexp: /, '') : String(e);
    return `${message} (patterns use RE2 syntax, which matches in linear time: no backreferences or lookarounds)`;
  }
}

/** A pattern the manifest's schema accepted (patternError is undefined for it). */
export function compilePattern(source: string): Pattern {
  const re = RE2JS.compile(pythonGroups(source), RE2JS.MULTILINE);
  const names = Object.keys(re.namedGroups());
  function* matches(text: string): Generator<LineMatch> {
    const m = re.matcher(capLines(text));
    while (m.find()) {
      const groups: Record<string, string | undefined> = {};
      for (const n of names) groups[n] = m.group(n) ?? undefined;
      yield { text: m.group() ?? '', groups };
    }
  }
  return {
    source,
    test: (text) => re.matcher(capLines(text)).find(),
    matches,
  };
}

/** `text` with every line cut to MAX_LINE_CHARS; the same string when none is longer. */
export function capLines(text: string): string {
  let start = 0;
  let long = false;
  while (start < text.length) {
    const end = text.indexOf('\n', start);
    const stop = end === -1 ? text.length : end;
    if (stop - start > MAX_LINE_CHARS) {
      long = true;
      break;
    }
    start = stop + 1;
  }
  if (!long) return text;
  return text
    .split('\n')
    .map((l) => (l.length > MAX_LINE_CHARS ? l.slice(0, MAX_LINE_CHARS) : l))
    .join('\n');
}

/**
 * A group quantified inside a quantified group (`(a+)+`, `(\w*)*`). Harmless here, but the
 * same pattern in Python's `re` or `grep -P` backtracks exponentially, and a pattern is often
 * copied between them.
 */
export function hasNestedQuantifier(source: string): boolean {
  const stack: boolean[] = [];
  let quantifiedInside = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (char === '\\') {
      i++;
      quantifiedInside ||= /[+*{]/.test(source[i + 1] ?? '');
      continue;
    }
    if (char === '[') {
      const close = source.indexOf(']', i + 2);
      if (close === -1) return false;
      i = close;
      quantifiedInside ||= /[+*{]/.test(source[i + 1] ?? '');
      continue;
    }
    if (char === '(') {
      stack.push(quantifiedInside);
      quantifiedInside = false;
      continue;
    }
    if (char === ')') {
      const inner: boolean = quantifiedInside;
      const outer = stack.pop() ?? false;
      const quantified = /[+*{]/.test(source[i + 1] ?? '');
      if (inner && quantified) return true;
      quantifiedInside = outer || inner || quantified;
      continue;
    }
    if (/[+*]/.test(char) || (char === '{' && /^\{\d+(,\d*)?\}/.test(source.slice(i)))) quantifiedInside = true;
  }
  return false;
}
