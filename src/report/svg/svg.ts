/**
 * The little SVG the pictures need, written as text: every string that reaches the document
 * passes through `escapeXml`, so a phase name or grid value from a manifest cannot open a tag.
 */

/** Characters XML 1.0 cannot hold at all (C0 controls but tab/newline/return, lone surrogates, U+FFFE/F). */
const NOT_XML =
  // eslint-disable-next-line no-control-regex -- these control characters are what the pattern is for
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text safe in element content and in quoted attribute values. */
export function escapeXml(text: string): string {
  return text.replace(NOT_XML, '\uFFFD').replace(/[&<>"']/g, (char) => ENTITIES[char]!);
}

export type Attrs = Readonly<Record<string, string | number | undefined>>;

const num = (v: number): string => String(Math.round(v * 100) / 100);

function attributes(attrs: Attrs): string {
  return Object.entries(attrs)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${typeof v === 'number' ? num(v) : escapeXml(v!)}"`)
    .join('');
}

/** An element; `children` is markup already built by these functions. */
export function el(name: string, attrs: Attrs, children: readonly string[] = []): string {
  const open = `<${name}${attributes(attrs)}`;
  return children.length === 0 ? `${open}/>` : `${open}>${children.join('')}</${name}>`;
}

/** A text element holding `content` (escaped). */
export function text(x: number, y: number, content: string, attrs: Attrs = {}): string {
  return `<text${attributes({ x, y, ...attrs })}>${escapeXml(content)}</text>`;
}

/** A tooltip: browsers show an element's first `<title>` child on hover. */
export function title(content: string): string {
  return `<title>${escapeXml(content)}</title>`;
}

export const COLORS = {
  completed: '#2e9d5b',
  running: '#3b82f6',
  queued: '#c8d1dc',
  failed: '#d64541',
  timeout: '#e8912d',
  out_of_memory: '#8e44ad',
  node_fail: '#6b7a89',
  preempted: '#17a2b8',
  gate: '#a93226',
  unverified: '#b7950b',
  lost: '#95a5a6',
  cancelled: '#bdc3c7',
  ink: '#1f2933',
  muted: '#6b7785',
  grid: '#e4e9ef',
  paper: '#ffffff',
} as const;

export function classColor(cls: string | undefined): string {
  return (COLORS as Record<string, string>)[cls ?? 'running'] ?? COLORS.failed;
}

const STYLE =
  'text{font-family:"DejaVu Sans",system-ui,-apple-system,"Segoe UI",sans-serif;font-size:12px;fill:#1f2933}' +
  '.muted{fill:#6b7785}.small{font-size:10.5px}.heading{font-size:15px;font-weight:600}';

/** A standalone SVG document (opens in a browser; embeds in markdown as an image). */
export function svgDocument(width: number, height: number, heading: string, body: readonly string[]): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${num(width)}" height="${num(height)}" viewBox="0 0 ${num(width)} ${num(height)}" role="img">` +
    title(heading) +
    `<style>${STYLE}</style>` +
    el('rect', { x: 0, y: 0, width, height, fill: COLORS.paper }) +
    body.join('') +
    '</svg>\n'
  );
}

/** Round steps for an axis of `span` units: about `count` ticks at 1, 2 or 5 × 10^k. */
export function niceStep(span: number, count: number): number {
  if (!(span > 0)) return 1;
  const raw = span / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/** A time axis step in seconds that reads well: 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30 min, 1, 2, 3, 6, 12 h, days. */
export function timeStep(span: number, count: number): number {
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];
  const raw = span / Math.max(1, count);
  return steps.find((s) => s >= raw) ?? Math.ceil(raw / 86400) * 86400;
}

/**
 * The least and greatest of some numbers ([Infinity, -Infinity] for none), by a loop: spread into
 * Math.min, a few hundred thousand numbers overflow the call stack.
 */
export function extent(values: Iterable<number>): [number, number] {
  let least = Infinity;
  let greatest = -Infinity;
  for (const v of values) {
    if (v < least) least = v;
    if (v > greatest) greatest = v;
  }
  return [least, greatest];
}
