/** Reads a manifest: YAML with positions, then the zod schema, each error at its line. */
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { UserError, type Problem } from '../errors.js';
import { manifest as manifestSchema, type Manifest } from './schema.js';
import { SourceMap, type Path } from './source.js';
import { closest } from './suggest.js';

export interface LoadedManifest {
  manifest: Manifest;
  source: SourceMap;
}

/** Parses and validates; throws a UserError listing every problem with its position. */
export function parseManifest(file: string, text: string): LoadedManifest {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const source = new SourceMap(file, text, doc, lines);
  if (doc.errors.length > 0) {
    throw new UserError(
      doc.errors.map((e) => ({
        message: `YAML: ${e.message.split('\n')[0]}`,
        position: source.offset(e.pos[0]),
        fix: 'check indentation and quoting on this line',
      })),
    );
  }
  const data = toData(doc, source);
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new UserError({
      message: 'a manifest is a YAML mapping with keys campaign, cluster, workdir and phases',
      position: source.at([]),
      fix: 'start from examples/quickstart.yml',
    });
  }
  // Without zod's fast path: it writes and compiles a parser for each object schema on its first
  // parse, which for a manifest, parsed once per process, costs more than it saves (about 15 ms
  // of a command's start-up).
  const parsed = manifestSchema.safeParse(data, { jitless: true });
  if (!parsed.success) {
    throw new UserError(parsed.error.issues.flatMap((issue) => describeIssue(issue, data, source)));
  }
  return { manifest: parsed.data, source };
}

/** The document as plain data; an alias the parser accepted but cannot resolve is the user's error. */
function toData(doc: ReturnType<typeof parseDocument>, source: SourceMap): unknown {
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    if (!(e instanceof ReferenceError)) throw e;
    const alias = /: (\S+)$/.exec(e.message)?.[1];
    const at = alias === undefined ? -1 : source.text.indexOf(`*${alias}`);
    throw new UserError({
      message: `YAML: ${e.message}`,
      position: source.offset(Math.max(0, at)),
      fix: 'define the anchor (&name) before the alias (*name), or quote a value that starts with *',
    });
  }
}

function describeIssue(issue: z.core.$ZodIssue, data: unknown, source: SourceMap): Problem[] {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  const where = path.length > 0 ? path.join('.') : 'the manifest';
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeys(manifestSchema, path, data);
    return issue.keys.map((key) => {
      const suggestion = closest(key, known);
      return {
        message: `unknown key "${key}" in ${where}${suggestion ? `; did you mean "${suggestion}"?` : ''}`,
        position: source.at([...path, key], { key: true }),
        fix: suggestion ? `rename it to "${suggestion}"` : `use one of: ${[...known].join(', ')}`,
      };
    });
  }
  if (issue.code === 'invalid_union' && 'options' in issue && Array.isArray(issue.options)) {
    const options = issue.options.map(String);
    const suggestion = closest(String(valueAt(data, path) ?? ''), options);
    return [
      {
        message: `${where} must be one of: ${options.join(', ')}`,
        position: source.at(path),
        ...(suggestion ? { fix: `did you mean "${suggestion}"?` } : {}),
      },
    ];
  }
  if (issue.code === 'invalid_union' && 'errors' in issue && Array.isArray(issue.errors)) {
    // No branch fits: say what each would have wanted, in the words of its first problem.
    const wants = [...new Set(issue.errors.map((branch) => branch[0]?.message.replace(/^Invalid input: /, '')))];
    return [
      {
        message: `${where}: ${wants.filter(Boolean).join('; or ') || issue.message}`,
        position: source.at(path),
        fix: 'write one value, or a map from selectors such as N=384 to values',
      },
    ];
  }
  const missing = issue.code === 'invalid_type' && valueAt(data, path) === undefined;
  return [
    {
      message: missing ? `${where} is required` : `${where}: ${issue.message}`,
      position: source.at(path),
      ...(missing ? { fix: `add "${String(path[path.length - 1])}"` } : {}),
    },
  ];
}

function valueAt(data: unknown, path: Path): unknown {
  let v = data;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[p];
  }
  return v;
}

type Def = { type: string; [k: string]: unknown };
const defOf = (s: unknown): Def => (s as { _zod: { def: Def } })._zod.def;

/** The object schemas a path may land on, choosing union branches by the data. */
function objectsAt(schema: unknown, path: Path, data: unknown): Def[] {
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
      return objectsAt(def.innerType, path, data);
    case 'pipe':
      return objectsAt(def.in, path, data);
    case 'union': {
      const options = def.options as unknown[];
      const fitting = options.filter((o) => fitsDiscriminator(o, data));
      return (fitting.length > 0 ? fitting : options).flatMap((o) => objectsAt(o, path, data));
    }
    case 'object': {
      if (path.length === 0) return [def];
      const child = (def.shape as Record<string, unknown>)[String(path[0])];
      return child ? objectsAt(child, path.slice(1), valueAt(data, path.slice(0, 1))) : [];
    }
    case 'array':
      return path.length === 0 ? [] : objectsAt(def.element, path.slice(1), valueAt(data, path.slice(0, 1)));
    case 'record':
      return path.length === 0 ? [] : objectsAt(def.valueType, path.slice(1), valueAt(data, path.slice(0, 1)));
    default:
      return [];
  }
}

function fitsDiscriminator(option: unknown, data: unknown): boolean {
  const def = defOf(option);
  if (def.type !== 'object' || data === null || typeof data !== 'object') return false;
  return Object.entries(def.shape as Record<string, unknown>).some(([key, s]) => {
    const d = defOf(s);
    return d.type === 'literal' && (d.values as unknown[]).includes((data as Record<string, unknown>)[key]);
  });
}

function knownKeys(schema: unknown, path: Path, data: unknown): Set<string> {
  return new Set(objectsAt(schema, path, data).flatMap((d) => Object.keys(d.shape as object)));
}
