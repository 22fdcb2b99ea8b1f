/**
 * The regular files of a tar archive, as GNU tar writes one (ustar headers, GNU long names,
 * pax path records): enough to bring many small files over a link in one stream.
 */

export interface TarFile {
  path: string;
  data: Buffer;
}

const BLOCK = 512;

/** The archive's regular files, in order; throws on an archive cut short or not tar at all. */
export function untar(archive: Buffer): TarFile[] {
  const files: TarFile[] = [];
  let longName: string | undefined;
  let at = 0;
  while (at + BLOCK <= archive.length) {
    const header = archive.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break;
    if (!checksumHolds(header)) throw new Error(`not a tar header at byte ${at}`);
    const size = octal(header.subarray(124, 136));
    const type = String.fromCharCode(header[156]!);
    const start = at + BLOCK;
    if (start + size > archive.length) throw new Error(`the archive ends inside ${field(header, 0, 100)}`);
    const data = archive.subarray(start, start + size);
    at = start + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'L') {
      longName = data.toString('utf8').replace(/\0+$/, '');
      continue;
    }
    if (type === 'x') {
      longName = paxPath(data) ?? longName;
      continue;
    }
    const prefix = field(header, 345, 155);
    const name = longName ?? (prefix === '' ? field(header, 0, 100) : `${prefix}/${field(header, 0, 100)}`);
    longName = undefined;
    if (type === '0' || type === '\0') files.push({ path: name, data: Buffer.from(data) });
  }
  return files;
}

function field(header: Buffer, from: number, length: number): string {
  const raw = header.subarray(from, from + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? length : end).toString('utf8');
}

function octal(raw: Buffer): number {
  // GNU tar writes sizes of 8 GiB and more in base-256 (high bit set); no output read here is that large.
  if ((raw[0]! & 0x80) !== 0) throw new Error('a tar entry of 8 GiB or more');
  const text = raw.toString('ascii').replace(/\0.*$/s, '').trim();
  return text === '' ? 0 : parseInt(text, 8);
}

function checksumHolds(header: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
  return sum === octal(header.subarray(148, 156));
}

/** The `path` of a pax extended header ("<length> path=<value>\n" records). */
function paxPath(data: Buffer): string | undefined {
  let at = 0;
  let path: string | undefined;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space < 0) break;
    const length = parseInt(data.subarray(at, space).toString('ascii'), 10);
    if (!(length > 0)) break;
    const record = data.subarray(space + 1, at + length - 1).toString('utf8');
    if (record.startsWith('path=')) path = record.slice(5);
    at += length;
  }
  return path;
}
