/**
 * The files of a zip archive (an artifact as GitHub serves it), read through its central
 * directory: stored and deflated entries, no zip64 (a campaign's state is far below 4 GiB).
 */
import { inflateRawSync } from 'node:zlib';

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** Entry name → its bytes; throws a plain Error saying what is wrong with a damaged archive. */
export function unzip(zip: Buffer): Map<string, Buffer> {
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
    const packed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    at += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith('/')) continue;
    if (local + 30 > zip.length || zip.readUInt32LE(local) !== LOCAL) throw new Error(`damaged zip entry ${name}`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    if (start + packed > zip.length) throw new Error(`zip entry ${name} is cut short`);
    const data = zip.subarray(start, start + packed);
    let bytes: Buffer;
    if (method === 0) bytes = Buffer.from(data);
    else if (method === 8) bytes = inflateRawSync(data);
    else throw new Error(`zip entry ${name} uses compression method ${method}, which is not read`);
    if (bytes.length !== size) throw new Error(`zip entry ${name} is ${bytes.length} bytes, not ${size}`);
    files.set(name, bytes);
  }
  return files;
}
