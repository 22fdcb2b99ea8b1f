/**
 * Shipping a code snapshot (DESIGN rule 11) to `<workdir>/.campaign/code/<id>/`: once per
 * content, made read-only, and never changed after; a snapshot already there costs one check.
 * Over a shell (this machine's too) it is one tar stream on one command's stdin; through an
 * automation node, the file transfer it allows (SFTP) and no command. Each is written to a
 * temporary folder beside its place and renamed there whole, so no task ever sees half of one.
 */
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import { UserError } from '../errors.js';
import { SNAPSHOT_ID, type CodeFacts, type CodeMode } from '../plan/code.js';
import { codeDir } from '../render/task-script.js';
import { shellQuote } from '../render/shell.js';
import type { Transport } from './transport/transport.js';

/** A file of a snapshot, with its content. */
export interface CodeFile {
  /** Relative to the repository's root, and so to the snapshot's folder. */
  path: string;
  mode: CodeMode;
  data: Buffer;
}

/** A snapshot: what the plan knows of it, and its files. */
export interface CodeSnapshot {
  facts: CodeFacts;
  files: readonly CodeFile[];
  bytes: number;
}

const BLOCK = 512;

/** A ustar header; names that do not fit go before it in a pax record. */
function header(name: string, size: number, type: '0' | '2' | 'x', mode: number, link = ''): Buffer {
  const h = Buffer.alloc(BLOCK);
  const put = (text: string, at: number, length: number): void => {
    h.write(text.slice(0, length), at, length, 'utf8');
  };
  const octal = (n: number, length: number): string => n.toString(8).padStart(length - 1, '0');
  put(name, 0, 100);
  put(octal(mode, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(Math.floor(Date.now() / 1000), 12), 136, 12);
  h.fill(0x20, 148, 156);
  put(type, 156, 1);
  put(link, 157, 100);
  put('ustar\u000000', 257, 8);
  let sum = 0;
  for (const byte of h) sum += byte;
  put(`${octal(sum, 7)}\u0000`, 148, 8);
  return h;
}

/** One pax record: its length counts its own digits. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length) length++;
  return `${length}${body}`;
}

const padding = (size: number): Buffer => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);

/** The snapshot's files as a tar archive, as GNU tar reads one. */
export function tarOf(files: readonly CodeFile[]): Buffer {
  const parts: Buffer[] = [];
  for (const f of files) {
    const link = f.mode === 'link' ? f.data.toString('utf8') : '';
    const long = Buffer.byteLength(f.path) > 99 || Buffer.byteLength(link) > 99;
    if (long) {
      const pax = Buffer.from(paxRecord('path', f.path) + (link ? paxRecord('linkpath', link) : ''));
      parts.push(header('././@PaxHeader', pax.length, 'x', 0o644), pax, padding(pax.length));
    }
    const name = long ? f.path.slice(0, 99) : f.path;
    if (f.mode === 'link') parts.push(header(name, 0, '2', 0o777, long ? '' : link));
    else {
      parts.push(header(name, f.data.length, '0', f.mode === 'exec' ? 0o755 : 0o644), f.data, padding(f.data.length));
    }
  }
  parts.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(parts);
}

/** Why a snapshot could not be shipped, with the way out. */
function notShipped(where: string, why: string): UserError {
  return new UserError({
    message: `cannot ship the code snapshot to ${where}: ${why}`,
    fix: 'fix the permissions or free the space named, then run again: nothing was submitted with it',
  });
}

/**
 * Over a login with a shell: one check, then, where it is missing, one command that unpacks the
 * tar stream on its stdin into a temporary folder, makes it read-only and renames it in place.
 * `.campaign` and its `code` folder must be real folders: a planted link is refused.
 */
export async function shipOverShell(transport: Transport, workdir: string, snapshot: CodeSnapshot): Promise<void> {
  const target = posix.join(workdir, codeDir(snapshot.facts.id));
  const root = posix.dirname(target);
  const there = await transport.exec(`[ -d ${shellQuote(target)} ] && [ ! -L ${shellQuote(target)} ]`);
  if (there.code === 0) return;
  const script = [
    `root=${shellQuote(root)}`,
    `target=${shellQuote(target)}`,
    'mkdir -p -- "${root%/*/*}" || exit 3',
    'for d in "${root%/*}" "$root"; do',
    '  if [ -L "$d" ]; then echo "$d is a symbolic link" >&2; exit 3; fi',
    '  [ -d "$d" ] || mkdir -- "$d" || exit 3',
    'done',
    '[ -d "$target" ] && exit 0',
    `tmp=$(mktemp -d "$root/.ship-${snapshot.facts.id}-XXXXXX") || exit 3`,
    'tar -x -f - -C "$tmp" --no-same-owner || { rm -rf -- "$tmp"; exit 3; }',
    // A folder renamed within its parent needs no write permission of its own.
    'chmod -R a-w -- "$tmp"',
    // Another controller may have shipped the same content meanwhile: theirs stands.
    'mv -T -- "$tmp" "$target" 2>/dev/null && exit 0',
    'chmod -R u+w -- "$tmp"; rm -rf -- "$tmp"',
    '[ -d "$target" ] || exit 3',
  ].join('\n');
  const r = await transport.exec(script, { stdin: tarOf(snapshot.files), timeoutMs: 600_000 });
  if (r.code !== 0) throw notShipped(target, r.stderr.trim() || `exit ${r.code}`);
}

/** How many SFTP writes are in flight at once. */
const SFTP_BATCH = 64;

/**
 * Through an automation node: file transfer alone (SFTP), no command. The files are written
 * read-only into a temporary folder, which is renamed in place; its folders stay writable
 * (SFTP changes no folder's mode here), and `campaign gc` can remove it.
 */
export async function shipOverSftp(transport: Transport, workdir: string, snapshot: CodeSnapshot): Promise<void> {
  const target = posix.join(workdir, codeDir(snapshot.facts.id));
  // SFTP's realpath answers for a path that does not exist: stat says whether it does.
  const there = async (): Promise<boolean> => (await transport.stat(target))?.isFile === false;
  if (await there()) return;
  const tmp = `${posix.dirname(target)}/.ship-${snapshot.facts.id}-${randomBytes(4).toString('hex')}`;
  const dirs = new Set(snapshot.files.map((f) => posix.dirname(posix.join(tmp, f.path))));
  for (const dir of [...dirs].sort()) await transport.mkdirp(dir);
  const links = snapshot.files.filter((f) => f.mode === 'link');
  if (links.length > 0)
    throw notShipped(target, `the automation node's file transfer cannot make links (${links[0]!.path})`);
  for (let i = 0; i < snapshot.files.length; i += SFTP_BATCH) {
    await Promise.all(
      snapshot.files
        .slice(i, i + SFTP_BATCH)
        .map((f) => transport.writeFile(posix.join(tmp, f.path), f.data, { mode: f.mode === 'exec' ? 0o555 : 0o444 })),
    );
  }
  await transport.rename(tmp, target).catch(async (e: unknown) => {
    // Another controller may have shipped the same content meanwhile: theirs stands.
    if (!(await there())) throw e;
  });
}

/** The snapshot ids of a listing of `.campaign/code/`, leaving out temporary folders and strays. */
const snapshotNames = (names: readonly string[]): string[] => names.filter((n) => SNAPSHOT_ID.test(n)).sort();

/**
 * Removes the snapshots behind a shell that `keep` does not name, in one command (the ids to
 * keep on its stdin); returns the ids removed.
 */
export async function removeSnapshotsOverShell(
  transport: Transport,
  workdir: string,
  keep: ReadonlySet<string>,
): Promise<string[]> {
  const root = posix.join(workdir, '.campaign', 'code');
  const r = await transport.exec(
    [
      `root=${shellQuote(root)}`,
      '[ -d "$root" ] && [ ! -L "$root" ] || exit 0',
      'keep=$(cat)',
      'for d in "$root"/*/; do',
      '  id=${d%/}; id=${id##*/}',
      '  [[ $id =~ ^[0-9a-f]{16}$ ]] || continue',
      '  case $keep in *"$id"*) continue ;; esac',
      '  chmod -R u+w -- "$root/$id" && rm -rf -- "$root/$id" && printf \'%s\\n\' "$id"',
      'done',
    ].join('\n'),
    { stdin: [...keep].join('\n') },
  );
  if (r.code !== 0)
    throw new UserError({
      message: `cannot remove code snapshots in ${root}: ${r.stderr.trim() || `exit ${r.code}`}`,
      fix: 'fix the permissions named and run campaign gc again: what was removed stays removed',
    });
  return snapshotNames(r.stdout.split('\n'));
}
