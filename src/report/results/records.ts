/**
 * An output's records, found by content rather than by the file's name: JSON lines, one JSON
 * object or an array of them, or CSV with a header. Then the record that is the task's result,
 * and its metrics as numbers, each missing or non-numeric one said so, never taken as 0.
 */
import { parseCsv } from './csv.js';

export type OutputRecord = Readonly<Record<string, unknown>>;

export type Parsed = { records: OutputRecord[]; format: 'jsonl' | 'json' | 'csv' } | { error: string };

/** The records of an output's text. */
export function parseRecords(text: string): Parsed {
  const body = text.replace(/^\uFEFF/, '').trim();
  if (body === '') return { error: 'the output is empty' };
  if (body.startsWith('{') || body.startsWith('[')) {
    const whole = parseJson(body);
    if (whole.ok) {
      const records = Array.isArray(whole.value) ? whole.value : [whole.value];
      const bad = records.findIndex((r) => !isRecord(r));
      if (bad >= 0) return { error: `item ${bad + 1} of the JSON is not an object` };
      return { records: records as OutputRecord[], format: 'json' };
    }
    return jsonLines(body);
  }
  return csvRecords(body);
}

function isRecord(v: unknown): v is OutputRecord {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * JSON, where Python's json module writes NaN and Infinity bare (not JSON): those are read
 * as strings, so that a diverged run's metric is reported as what it is.
 */
function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    const quoted = text.replace(/([:[,]\s*)(-?Infinity|NaN)(?=\s*[,}\]])/g, '$1"$2"');
    if (quoted === text) return { ok: false };
    try {
      return { ok: true, value: JSON.parse(quoted) };
    } catch {
      return { ok: false };
    }
  }
}

function jsonLines(body: string): Parsed {
  const lines = body.split('\n');
  const records: OutputRecord[] = [];
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const parsed = parseJson(line);
    if (!parsed.ok)
      return { error: `line ${i + 1} is not JSON${i === lines.length - 1 ? ' (a record cut off mid-write?)' : ''}` };
    if (!isRecord(parsed.value)) return { error: `line ${i + 1} is not a JSON object` };
    records.push(parsed.value);
  }
  return { records, format: 'jsonl' };
}

/** CSV with a header line; a field that reads as a number is one, an empty field is absent. */
function csvRecords(body: string): Parsed {
  const rows = parseCsv(body);
  if (rows === undefined) return { error: 'the output is neither JSON nor CSV (a quote is never closed)' };
  const [header, ...data] = rows;
  if (header === undefined || (header.length < 2 && data.length === 0))
    return { error: 'the output is neither JSON nor CSV with a header line' };
  const records: OutputRecord[] = [];
  for (const [i, row] of data.entries()) {
    if (row.length !== header.length)
      return { error: `CSV line ${i + 2} has ${row.length} fields, the header ${header.length}` };
    const r: Record<string, unknown> = {};
    header.forEach((name, k) => {
      const v = row[k]!;
      if (v.trim() !== '') r[name] = numeric(v) ?? v;
    });
    records.push(r);
  }
  return { records, format: 'csv' };
}

function numeric(v: string): number | undefined {
  const n = Number(v.trim());
  return Number.isFinite(n) ? n : undefined;
}

/** How the result record is chosen: `last`, `all`, or the least or greatest value of a field. */
export type RecordRule = { kind: 'last' } | { kind: 'all' } | { kind: 'best'; field: string; by: 'min' | 'max' };

export function parseRecordRule(rule: string | undefined): RecordRule {
  if (rule === undefined || rule === 'last') return { kind: 'last' };
  if (rule === 'all') return { kind: 'all' };
  const m = /^best:(.+):(min|max)$/.exec(rule);
  if (!m) throw new Error(`not a record rule: ${rule}`);
  return { kind: 'best', field: m[1]!, by: m[2] as 'min' | 'max' };
}

/** The records that are the result, each with its place in the output (1-based); or why there is none. */
export function pickRecords(
  records: readonly OutputRecord[],
  rule: RecordRule,
): { picked: { index: number; record: OutputRecord }[] } | { error: string } {
  if (records.length === 0) return { error: 'the output holds no record' };
  const indexed = records.map((record, i) => ({ index: i + 1, record }));
  if (rule.kind === 'all') return { picked: indexed };
  if (rule.kind === 'last') return { picked: [indexed.at(-1)!] };
  let best: { index: number; record: OutputRecord; value: number } | undefined;
  for (const r of indexed) {
    const value = r.record[rule.field];
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    // The first of equal values wins: the earliest record that reached it.
    if (best === undefined || (rule.by === 'min' ? value < best.value : value > best.value)) best = { ...r, value };
  }
  if (best === undefined) return { error: `no record has a number in ${rule.field} (record: best)` };
  return { picked: [{ index: best.index, record: best.record }] };
}

/** The metrics of one record as numbers, and for each one that is not a number, why. */
export function metricValues(
  record: OutputRecord,
  metrics: readonly string[],
): { values: Record<string, number>; problems: string[] } {
  const values: Record<string, number> = {};
  const problems: string[] = [];
  for (const m of metrics) {
    if (!Object.hasOwn(record, m)) {
      problems.push(`no ${m}`);
      continue;
    }
    const v = record[m];
    if (typeof v === 'number' && Number.isFinite(v)) values[m] = v;
    else problems.push(`${m} is ${JSON.stringify(v) ?? String(v)}, not a number`);
  }
  return { values, problems };
}
