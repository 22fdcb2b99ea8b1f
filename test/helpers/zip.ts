/** Zip archives as GitHub serves them, with what each entry claims of itself set by the test. */
import { deflateRawSync } from 'node:zlib';
import { crc32 } from '../../src/github/unzip.js';

export interface ZipEntry {
  name: string;
  data: Buffer;
  /** What the archive says of it, where it lies. */
  size?: number;
  crc?: number;
  stored?: boolean;
}

/** A zip archive as GitHub serves one (deflated entries, a central directory), saying of each entry what `ZipEntry` says. */
export function zipOf(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const packed = e.stored ? e.data : deflateRawSync(e.data);
    const fields = (b: Buffer, at: number): void => {
      b.writeUInt16LE(e.stored ? 0 : 8, at);
      b.writeUInt32LE(e.crc ?? crc32(e.data), at + 6);
      b.writeUInt32LE(packed.length, at + 10);
      b.writeUInt32LE(e.size ?? e.data.length, at + 14);
      b.writeUInt16LE(name.length, at + 18);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    fields(local, 8);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    fields(central, 10);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += 30 + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
