/**
 * The files of a zip archive (an artifact as GitHub serves it), read through its central
 * directory: stored and deflated entries, no zip64 (a campaign's state is far below 4 GiB).
 *
 * An archive is what the network handed over, so it is read within bounds: only the entries
 * asked for are inflated, each no further than the size it declares (itself at most `limit`),
 * and each must match its CRC-32. A 255 KB archive can declare 256 MiB of zeros; that is
 * refused before it is inflated, not after.
 */
import * as zlib from 'node:zlib';

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

export interface UnzipOptions {
  /** The entries to read; every other is passed over uninflated. */
  names: ReadonlySet<string>;
  /** The most bytes one entry may hold. */
  limit: number;
}

/** Entry name → its bytes for the entries asked for; throws a plain Error saying what is wrong with a damaged archive. */
export function unzip(zip: Buffer, o: UnzipOptions): Map<string, Buffer> {
  // The end record is the last 22 bytes, unless a comment (at most 65535 bytes) follows it.
  let end = -1;
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 65_535); at--) {
    if (zip.readUInt32LE(at) === EOCD) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new Error('not a zip archive (no end of central directory)');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const files = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL) throw new Error('damaged zip central directory');
    const method = zip.readUInt16LE(at + 10);
    const crc = zip.readUInt32LE(at + 16);
    const packed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    at += 46 + nameLength + extraLength + commentLength;
    if (!o.names.has(name)) continue;
    if (files.has(name)) throw new Error(`the zip holds ${name} twice`);
    if (size > o.limit)
      throw new Error(`zip entry ${name} declares ${size} bytes, more than the ${o.limit} a state file may hold`);
    if (local + 30 > zip.length || zip.readUInt32LE(local) !== LOCAL) throw new Error(`damaged zip entry ${name}`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    if (start + packed > zip.length) throw new Error(`zip entry ${name} is cut short`);
    const data = zip.subarray(start, start + packed);
    let bytes: Buffer;
    if (method === 0) bytes = Buffer.from(data);
    else if (method === 8) bytes = inflateWithin(data, size, name);
    else throw new Error(`zip entry ${name} uses compression method ${method}, which is not read`);
    if (bytes.length !== size) throw new Error(`zip entry ${name} is ${bytes.length} bytes, not ${size}`);
    if (crc32(bytes) !== crc) throw new Error(`zip entry ${name} does not match its CRC-32`);
    files.set(name, bytes);
  }
  return files;
}

/** Inflates no more than `size` bytes (and one more, to tell a longer stream). */
function inflateWithin(data: Buffer, size: number, name: string): Buffer {
  try {
    return zlib.inflateRawSync(data, { maxOutputLength: size + 1 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw new Error(`zip entry ${name} inflates past the ${size} bytes it declares`, { cause: e });
    throw new Error(`zip entry ${name} does not inflate: ${(e as Error).message}`, { cause: e });
  }
}

/** The CRC-32 zip records of each entry: Node's own where it has one (from 20.15), else a table's. */
export function crc32(bytes: Uint8Array): number {
  const native = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;
  if (native) return native(bytes);
  let crc = 0xffffffff;
  for (const b of bytes) crc = CRC_TABLE[(crc ^ b) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let crc = n;
  for (let k = 0; k < 8; k++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  return crc >>> 0;
});
