/**
 * The calibration as an edit a user can commit: the manifest rewritten through YAML's Document
 * API (comments, key order and layout outside the changed values survive), and a unified diff.
 */
import { isMap, isScalar, parseDocument, stringify, type Document, type Node, type YAMLMap } from 'yaml';
import type { Cost } from '../manifest/schema.js';
import type { Calibration } from './calibrate.js';

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** A value as YAML writes it inline: `2.05s`, `1.2`, `"a: b"`. */
const inline = (value: unknown): string =>
  stringify(value, { collectionStyle: 'flow', flowCollectionPadding: true }).trimEnd();

/**
 * Edits on the text itself, placed by the parsed document's source ranges: the YAML library's
 * own printer would restyle the whole file (flow sequences, comment spacing), and a patch a
 * user commits should change only the values it is about.
 */
class TextEdits {
  readonly edits: Edit[] = [];
  constructor(
    private readonly text: string,
    private readonly doc: Document,
  ) {}

  /** Sets the value at `path`: replaces it, or adds the key to its map. */
  set(path: (string | number)[], value: unknown): void {
    const node = this.doc.getIn(path, true) as Node | undefined;
    if (node?.range) {
      if (isScalar(node) && (node.value === value || String(node.value) === String(value))) return;
      this.edits.push({ start: node.range[0], end: node.range[1], text: inline(value) });
      return;
    }
    const parent = this.doc.getIn(path.slice(0, -1), true) as YAMLMap | undefined;
    if (!isMap(parent) || !parent.range) return;
    this.add(parent, String(path[path.length - 1]), value);
  }

  private add(map: YAMLMap, key: string, value: unknown): void {
    const last = map.items[map.items.length - 1];
    const lastValue = last?.value as Node | undefined;
    if (map.flow || !last || !lastValue?.range) {
      // `{ a: 1 }` → `{ a: 1, key: v }`; an empty `{}` → `{ key: v }`.
      const at = lastValue?.range ? lastValue.range[1] : map.range![0] + 1;
      this.edits.push({ start: at, end: at, text: `${last ? ', ' : ' '}${key}: ${inline(value)}${last ? '' : ' '}` });
      return;
    }
    // A block map: a new line after the last entry, at the first key's indentation.
    const firstKey = map.items[0]!.key as Node;
    const lineStart = this.text.lastIndexOf('\n', firstKey.range![0] - 1) + 1;
    const indent = ' '.repeat(firstKey.range![0] - lineStart);
    const eol = this.text.indexOf('\n', lastValue.range[1] - 1);
    const at = eol < 0 ? this.text.length : eol + 1;
    this.edits.push({ start: at, end: at, text: `${eol < 0 ? '\n' : ''}${indent}${key}: ${inline(value)}\n` });
  }

  apply(): string {
    let out = this.text;
    for (const e of [...this.edits].sort((a, b) => b.start - a.start)) {
      out = out.slice(0, e.start) + e.text + out.slice(e.end);
    }
    return out;
  }
}

/** The manifest text with each calibrated phase's cost section set to the measured one. */
export function patchManifest(text: string, calibration: Calibration): string {
  const doc = parseDocument(text);
  const edits = new TextEdits(text, doc);
  const phases = doc.get('phases', true) as { items?: unknown[] } | undefined;
  const names = phases?.items?.map((p) => (isMap(p) ? String(p.get('name')) : undefined)) ?? [];
  for (const pc of calibration.phases) {
    const i = names.indexOf(pc.phase);
    if (pc.strata.length === 0 || i < 0) continue;
    const base = ['phases', i, 'cost'];
    const cost: Cost = pc.cost;
    const node = doc.getIn([...base, 'per_unit'], true);
    if (typeof cost.per_unit === 'object' && isMap(node)) {
      for (const [key, value] of Object.entries(cost.per_unit)) edits.set([...base, 'per_unit', key], value);
    } else edits.set([...base, 'per_unit'], cost.per_unit);
    for (const key of ['trend', 'measured_on', 'config'] as const) {
      if (cost[key] !== undefined) edits.set([...base, key], cost[key]);
    }
  }
  return edits.apply();
}

type Op = { kind: ' ' | '-' | '+'; line: string };

/** Line operations turning `a` into `b` (longest common subsequence; manifests are small). */
function lineOps(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ kind: ' ', line: a[i++]! });
      j++;
    } else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) ops.push({ kind: '-', line: a[i++]! });
    else ops.push({ kind: '+', line: b[j++]! });
  }
  return ops;
}

/** A unified diff (`git apply`, `patch -p1`) with three lines of context; empty when nothing changed. */
export function unifiedDiff(path: string, before: string, after: string, context = 3): string {
  if (before === after) return '';
  const split = (t: string): string[] => (t.endsWith('\n') ? t.slice(0, -1) : t).split('\n');
  const ops = lineOps(split(before), split(after));
  const changed = ops.map((o, k) => (o.kind !== ' ' ? k : -1)).filter((k) => k >= 0);
  // Hunks: runs of changes whose contexts touch.
  const hunks: [number, number][] = [];
  for (const k of changed) {
    const last = hunks[hunks.length - 1];
    if (last && k - last[1] <= 2 * context) last[1] = k;
    else hunks.push([k, k]);
  }
  const out = [`--- a/${path}`, `+++ b/${path}`];
  for (const [first, last] of hunks) {
    const from = Math.max(0, first - context);
    const to = Math.min(ops.length - 1, last + context);
    let oldLine = 1;
    let newLine = 1;
    for (let k = 0; k < from; k++) {
      if (ops[k]!.kind !== '+') oldLine++;
      if (ops[k]!.kind !== '-') newLine++;
    }
    const body = ops.slice(from, to + 1);
    const oldCount = body.filter((o) => o.kind !== '+').length;
    const newCount = body.filter((o) => o.kind !== '-').length;
    out.push(
      `@@ -${oldCount === 0 ? oldLine - 1 : oldLine},${oldCount} +${newCount === 0 ? newLine - 1 : newLine},${newCount} @@`,
    );
    for (const o of body) out.push(`${o.kind}${o.line}`);
  }
  return out.join('\n') + '\n';
}
