/**
 * Reading many outputs for their results: over a shell, in one command that stats them all and
 * one archive stream of those that changed; where there is no shell (an automation node, or
 * this machine), file by file. See report/results/gathering.ts for what is read and kept.
 */
import { gunzipSync } from 'node:zlib';
import { shellQuote } from '../render/shell.js';
import {
  END_BYTES,
  howToRead,
  joinEnds,
  transferGroups,
  WHOLE_LIMIT,
  type TakeFile,
} from '../report/results/gathering.js';
import { UserError } from '../errors.js';
import type { Transport } from './transport/transport.js';
import { untar } from './transport/tar.js';

/** How long one transfer of outputs may take: TRANSFER_BYTES over a slow link. */
const TRANSFER_TIMEOUT_MS = 300_000;
/** How many files are stat'ed or read at once, one by one. */
const AT_ONCE = 64;

/**
 * Over a shell in `workdir`: one command stats every path (paths travel on stdin, never in the
 * command's text), then one command per TRANSFER_BYTES of changed files sends them as a gzipped
 * tar (and the ends of large ones), base64 so the stream stays text.
 */
export async function gatherByArchive(
  transport: Transport,
  workdir: string,
  paths: readonly string[],
  known: ReadonlyMap<string, string>,
  endsSuffice: boolean,
  take: TakeFile,
): Promise<void> {
  if (paths.length === 0) return;
  const cd = `cd -- ${shellQuote(workdir)} || exit 3`;
  // Symlinks are followed, as a read of the file would (a `latest` link in a directory output).
  const listed = await transport.exec(
    `${cd}\nxargs -0 -r stat -L --printf '%n\\0%F\\0%s %i %y\\0' -- 2>/dev/null\nexit 0`,
    {
      stdin: paths.map((p) => `./${p}\0`).join(''),
      timeoutMs: TRANSFER_TIMEOUT_MS,
    },
  );
  if (listed.code !== 0) throw cannotGather(workdir, listed.stderr);
  const whole: { path: string; size: number; stamp: string }[] = [];
  const ends: { path: string; stamp: string }[] = [];
  const fields = listed.stdout.split('\0');
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const path = fields[i]!.replace(/^\.\//, '');
    const type = fields[i + 1]!;
    const stamp = fields[i + 2]!;
    if (type !== 'regular file' && type !== 'regular empty file') {
      take(path, { stamp, problem: `it is a ${type}, not a regular file` });
      continue;
    }
    if (known.get(path) === stamp) {
      take(path, { stamp });
      continue;
    }
    const size = Number(stamp.split(' ', 1)[0]);
    const how = howToRead(size, endsSuffice);
    if (how === 'whole') whole.push({ path, size, stamp });
    else if (how === 'ends') ends.push({ path, stamp });
    else take(path, { stamp, ...how });
  }
  const groups = transferGroups(whole);
  if (ends.length > 0 && groups.length === 0) groups.push([]);
  for (const [g, group] of groups.entries()) {
    const withEnds = g === 0 ? ends : [];
    const r = await transport.exec(
      [
        cd,
        "IFS= read -r -d '' n || exit 0",
        'i=0',
        `while [ "$i" -lt "$n" ] && IFS= read -r -d '' p; do`,
        `  printf '%s\\0' "$p"; head -c ${END_BYTES} -- "$p" | base64 -w0`,
        `  printf '\\0'; tail -c ${END_BYTES} -- "$p" | base64 -w0; printf '\\0'`,
        '  i=$((i + 1))',
        'done',
        // A file gone since it was listed is left out of the archive (tar says so on stderr); a
        // file linked twice (a symlink to a sibling output, a hard link) is carried twice.
        'tar -chzf - --hard-dereference --null --no-recursion -T - 2>/dev/null | base64 -w0',
      ].join('\n'),
      {
        stdin: `${withEnds.length}\0${[...withEnds, ...group].map((f) => `./${f.path}\0`).join('')}`,
        timeoutMs: TRANSFER_TIMEOUT_MS,
      },
    );
    if (r.code !== 0) throw cannotGather(workdir, r.stderr);
    const parts = r.stdout.split('\0');
    const stamps = new Map([...withEnds, ...group].map((f) => [f.path, f.stamp]));
    for (let i = 0; i < withEnds.length; i++) {
      const path = parts[3 * i]!.replace(/^\.\//, '');
      const text = joinEnds(fromBase64(parts[3 * i + 1]!), fromBase64(parts[3 * i + 2]!));
      take(path, { stamp: stamps.get(path)!, text });
    }
    const archive = parts[3 * withEnds.length] ?? '';
    if (group.length === 0 || archive === '') continue;
    for (const f of untar(gunzipSync(Buffer.from(archive, 'base64')))) {
      const path = f.path.replace(/^\.\//, '');
      const stamp = stamps.get(path);
      if (stamp !== undefined) take(path, { stamp, text: f.data.toString('utf8') });
    }
  }
}

/** File by file, through what any transport offers (SFTP, or `ls` and `cat` on an automation node). */
export async function gatherEach(
  files: Pick<Transport, 'stat' | 'readFile'>,
  root: string,
  paths: readonly string[],
  known: ReadonlyMap<string, string>,
  take: TakeFile,
): Promise<void> {
  for (let i = 0; i < paths.length; i += AT_ONCE) {
    await Promise.all(
      paths.slice(i, i + AT_ONCE).map(async (path) => {
        const st = await files.stat(`${root}/${path}`);
        if (st === undefined) return;
        const stamp = `${st.size} ${st.mtimeMs}`;
        if (!st.isFile) return take(path, { stamp, problem: 'it is not a regular file' });
        if (known.get(path) === stamp) return take(path, { stamp });
        // Without ranged reads, the ends of a large file cost its whole: it is read whole up to the limit.
        const how = howToRead(st.size, false);
        if (typeof how === 'object') return take(path, { stamp, ...how });
        const text = await files.readFile(`${root}/${path}`, { maxBytes: WHOLE_LIMIT });
        if (text !== undefined) take(path, { stamp, text });
      }),
    );
  }
}

function fromBase64(text: string): string {
  return Buffer.from(text, 'base64').toString('utf8');
}

function cannotGather(workdir: string, stderr: string): UserError {
  return new UserError({
    message: `cannot read the outputs in ${workdir}: ${stderr.trim() || 'the workdir cannot be entered'}`,
    fix: 'check that the workdir exists and is readable on the cluster, then run again',
  });
}
