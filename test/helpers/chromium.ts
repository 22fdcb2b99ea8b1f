/**
 * Headless Chromium (Debian's `chromium`) as a test instrument: a screenshot of a page, or its
 * DOM after parsing; and the screenshot's pixels, decoded here (PNG: zlib and row filters).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inflateSync } from 'node:zlib';

export const chromium: string | undefined = (() => {
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
      return name;
    } catch {
      // not this one
    }
  }
  return undefined;
})();

/** The flags the issue asks for: no sandbox (root in CI), no network chatter, a fresh profile. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--hide-scrollbars',
];

async function run(args: string[]): Promise<string> {
  const profile = await mkdtemp(join(tmpdir(), 'campaign-chromium-'));
  try {
    return await new Promise<string>((resolve, reject) => {
      execFile(
        chromium!,
        [...FLAGS, `--user-data-dir=${profile}`, ...args],
        { timeout: 90_000, maxBuffer: 64 * 1024 * 1024 },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
      );
    });
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
}

/** Screenshot of a file at a window size; returns the PNG bytes. */
export async function screenshot(file: string, out: string, width: number, height: number): Promise<Buffer> {
  await run([`--screenshot=${out}`, `--window-size=${width},${height}`, pathToFileURL(file).href]);
  return readFile(out);
}

/**
 * The DOM Chromium built from a file, serialised. `settle`: let the page's own work (promises,
 * timers) run this many milliseconds of virtual time first.
 */
export function dumpDom(file: string, settle?: number): Promise<string> {
  return run([
    ...(settle === undefined ? [] : [`--virtual-time-budget=${settle}`]),
    '--dump-dom',
    pathToFileURL(file).href,
  ]);
}

export interface Pixels {
  width: number;
  height: number;
  /** RGBA, row by row. */
  data: Uint8Array;
}

/** Decodes an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes). */
export function decodePng(png: Buffer): Pixels {
  if (png.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 4;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[12] !== 0) throw new Error('only 8-bit non-interlaced PNGs');
      channels = data[9] === 6 ? 4 : data[9] === 2 ? 3 : 0;
      if (channels === 0) throw new Error(`PNG colour type ${data[9]} not handled`);
    } else if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const rows = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? rows[y * stride + i - channels]! : 0;
      const b = y > 0 ? rows[(y - 1) * stride + i]! : 0;
      const c = y > 0 && i >= channels ? rows[(y - 1) * stride + i - channels]! : 0;
      const p = a + b - c;
      const pa = Math.abs(p - a);
      const pb = Math.abs(p - b);
      const pc = Math.abs(p - c);
      const predictor = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][filter];
      if (predictor === undefined) throw new Error(`PNG filter ${filter} unknown`);
      rows[y * stride + i] = (src[i]! + predictor) & 0xff;
    }
  }
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    for (let k = 0; k < 3; k++) data[i * 4 + k] = rows[i * channels + k]!;
    data[i * 4 + 3] = channels === 4 ? rows[i * channels + 3]! : 255;
  }
  return { width, height, data };
}

/** How many pixels are within `tolerance` of a colour (`#rrggbb`). */
export function countColor(p: Pixels, hex: string, tolerance = 24): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  let n = 0;
  for (let i = 0; i < p.width * p.height; i++) {
    const d = Math.abs(p.data[i * 4]! - r!) + Math.abs(p.data[i * 4 + 1]! - g!) + Math.abs(p.data[i * 4 + 2]! - b!);
    if (d <= tolerance) n++;
  }
  return n;
}

/** Pixels that are not the white paper. */
export function inked(p: Pixels): number {
  let n = 0;
  for (let i = 0; i < p.width * p.height; i++) {
    if (p.data[i * 4]! < 245 || p.data[i * 4 + 1]! < 245 || p.data[i * 4 + 2]! < 245) n++;
  }
  return n;
}
