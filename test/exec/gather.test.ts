/**
 * Gathering outputs for their results: over a real sshd on loopback (scripts/sshd/up), as one
 * command that stats them all and one archive stream of those that changed; and file by file,
 * over SFTP and on this machine. A second gathering with nothing changed reads nothing.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatherByArchive, gatherEach } from '../../src/exec/gather.js';
import { LocalTransport } from '../../src/exec/transport/local.js';
import { SshTransport } from '../../src/exec/transport/ssh.js';
import { ENDS_FROM, type GatheredFile } from '../../src/report/results/gathering.js';
import { outputResult } from '../../src/report/results/output-result.js';
import { type Sshd, sshdUp } from './transport/sshd.js';

let sshd: Sshd | undefined;
let ssh: SshTransport | undefined;
let workdir: string;

// A JSON-lines output past ENDS_FROM, and a CSV one: only their ends travel when the last record counts.
const bigLines = Array.from({ length: Math.ceil(ENDS_FROM / 30) + 10 }, (_, i) =>
  JSON.stringify({ step: i, loss: 1 / (i + 1) }),
);
const bigCsv = ['step,loss', ...Array.from({ length: Math.ceil(ENDS_FROM / 6) + 10 }, (_, i) => `${i},${i % 97}`)];
const small: Record<string, string> = {
  'a.json': '{"loss": 1}\n',
  'sub dir/b c.jsonl': '{"loss": 2}\n{"loss": 3}\n',
  '-dash.csv': 'step,loss\n1,4\n',
  'line\nbreak.json': '{"loss": 5}',
  'ünïcode/日本.json': '{"loss": 6}',
  'empty.json': '',
  [`${'long-directory-name/'.repeat(8)}metrics.json`]: '{"loss": 7}',
};
const paths = [...Object.keys(small), 'big.jsonl', 'big.csv', 'a-directory', 'linked.json', 'gone.json'];

beforeAll(async () => {
  workdir = await mkdtemp(join(tmpdir(), 'gather-'));
  for (const [p, text] of Object.entries(small)) {
    await mkdir(join(workdir, p, '..'), { recursive: true });
    await writeFile(join(workdir, p), text);
  }
  await writeFile(join(workdir, 'big.jsonl'), bigLines.join('\n') + '\n');
  await writeFile(join(workdir, 'big.csv'), bigCsv.join('\n') + '\n');
  await mkdir(join(workdir, 'a-directory'));
  await symlink(join(workdir, 'a.json'), join(workdir, 'linked.json'));
  sshd = await sshdUp();
  if (sshd)
    ssh = new SshTransport({ target: sshd.target, hostKeyFingerprint: sshd.fingerprint, keyFile: sshd.keyFile });
}, 200_000);

afterAll(async () => {
  await ssh?.close();
  await rm(workdir, { recursive: true, force: true });
});

type Gathering = (known: ReadonlyMap<string, string>) => Promise<Map<string, GatheredFile>>;

/** The files a gathering passed, by path. */
function collect(
  run: (take: (path: string, f: GatheredFile) => void) => Promise<void>,
): Promise<Map<string, GatheredFile>> {
  const got = new Map<string, GatheredFile>();
  return run((path, f) => {
    expect(got.has(path), `${path} passed twice`).toBe(false);
    got.set(path, f);
  }).then(() => got);
}

const stamps = (got: Map<string, GatheredFile>): Map<string, string> => new Map([...got].map(([p, f]) => [p, f.stamp]));
const texts = (got: Map<string, GatheredFile>): Record<string, string | undefined> =>
  Object.fromEntries([...got].map(([p, f]) => [p, f.text]));
const last = { kind: 'last' } as const;

describe('gathering over SSH in one archive stream (real sshd)', () => {
  const gather: Gathering = (known) => collect((take) => gatherByArchive(ssh!, workdir, paths, known, true, take));

  it('reads every file in two commands, large ones at their ends only; then nothing; then what changed', async (ctx) => {
    if (!ssh) return ctx.skip();
    const before = ssh.commandsSent;
    const first = await gather(new Map());
    expect(ssh.commandsSent - before).toBe(2);
    expect(texts(first)).toMatchObject({ ...small, 'linked.json': small['a.json'] });
    expect(first.has('gone.json')).toBe(false);
    expect(first.get('a-directory')).toMatchObject({ problem: 'it is a directory, not a regular file' });
    // The large ones: far less than their size, and their last record is the file's.
    for (const big of ['big.jsonl', 'big.csv']) {
      const text = first.get(big)!.text!;
      expect(text.length, big).toBeLessThan(200 * 1024);
      const values = (t: string) => {
        const r = outputResult(t, last, ['loss']);
        return 'records' in r ? r.records.map((x) => x.values) : r;
      };
      expect(values(text), big).toEqual(values(big === 'big.csv' ? bigCsv.join('\n') : bigLines.join('\n')));
    }

    const again = ssh.commandsSent;
    const second = await gather(stamps(first));
    expect(ssh.commandsSent - again).toBe(1);
    expect([...second.keys()].sort()).toEqual([...first.keys()].sort());
    for (const [p, f] of second) if (p !== 'a-directory') expect(f, p).toEqual({ stamp: first.get(p)!.stamp });

    // Rewritten to the same size: the stamp changes all the same, and only that file travels.
    await writeFile(join(workdir, 'sub dir/b c.jsonl'), '{"loss": 8}\n{"loss": 9}\n');
    const third = await gather(stamps(second));
    expect(
      [...third].filter(([, f]) => f.text !== undefined).map(([p, f]) => [p, f.text]),
      'only the rewritten file is read',
    ).toEqual([['sub dir/b c.jsonl', '{"loss": 8}\n{"loss": 9}\n']]);
    await writeFile(join(workdir, 'sub dir/b c.jsonl'), small['sub dir/b c.jsonl']!);
  });

  it('says a workdir that is not there, and the way out', async (ctx) => {
    if (!ssh) return ctx.skip();
    await expect(gatherByArchive(ssh, join(workdir, 'nowhere'), ['a.json'], new Map(), true, () => {})).rejects.toThrow(
      /cannot read the outputs in .*nowhere: .*No such file or directory/,
    );
  });
});

describe('gathering file by file', () => {
  for (const [label, transport] of [
    ['over SFTP (an automation node allows no shell; real sshd)', (): SshTransport | undefined => ssh],
    ['on this machine', (): LocalTransport => new LocalTransport()],
  ] as const) {
    it(`reads every file whole, then only what changed: ${label}`, async (ctx) => {
      const t = transport();
      if (!t) return ctx.skip();
      const gather: Gathering = (known) => collect((take) => gatherEach(t, workdir, paths, known, take));
      const first = await gather(new Map());
      expect(texts(first)).toMatchObject({
        ...small,
        'linked.json': small['a.json'],
        'big.jsonl': bigLines.join('\n') + '\n',
        'big.csv': bigCsv.join('\n') + '\n',
      });
      expect(first.has('gone.json')).toBe(false);
      expect(first.get('a-directory')?.problem).toMatch(/not a regular file/);
      const second = await gather(stamps(first));
      expect([...second.values()].filter((f) => f.text !== undefined)).toEqual([]);
    });
  }
});
