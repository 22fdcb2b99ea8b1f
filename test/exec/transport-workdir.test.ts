/**
 * The workdir through a transport, in batches (issue 37: a pass ending a thousand packed tasks):
 * outputs looked at together say what each looked at alone says (a symlink, a file under a
 * symlinked folder, a folder, nothing), in one command; records written together arrive whole,
 * whatever their names and contents, in a command per few hundred.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TaskSpec } from '../../src/manifest/expand.js';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { TransportWorkdir } from '../../src/exec/transport-workdir.js';
import { LocalTransport } from '../../src/exec/transport/local.js';
import { LinkError } from '../../src/exec/transport/transport.js';

const root = await mkdtemp(join(tmpdir(), 'campaign-remote-workdir-'));
afterAll(() => rm(root, { recursive: true, force: true }));

const workdirOf = async (name: string): Promise<string> => {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  return dir;
};
const open = (workdir: string) => {
  const transport = new LocalTransport();
  const m = manifestSchema.parse({
    campaign: 'c',
    cluster: { executor: 'local' },
    workdir,
    phases: [{ name: 'p', command: 'true', grid: { k: [1] }, output: 'o/${k}.txt' }],
  });
  return { transport, remote: new TransportWorkdir(transport, m, { folder: '.campaign/local/c' }) };
};
const task = (output: string): TaskSpec => ({
  id: `p/${output}`,
  phase: 'p',
  stage: 'full',
  cell: 0,
  tag: output,
  values: {},
  stratum: 'all',
  output,
});

describe('outputs looked at together', () => {
  it('say what each looked at alone says, in one command', async () => {
    const workdir = await workdirOf('look');
    const outside = await workdirOf('look-outside');
    await mkdir(join(workdir, 'o'));
    await writeFile(join(workdir, 'o', 'fresh.txt'), 'x\n');
    await writeFile(join(workdir, 'o', 'old.txt'), 'x\n');
    await utimes(join(workdir, 'o', 'old.txt'), new Date('2020-01-01'), new Date('2020-01-01'));
    await writeFile(join(workdir, 'o', 'a name\nwith a newline.txt'), 'x\n');
    await writeFile(join(workdir, 'o', 'empty.txt'), '');
    await writeFile(join(workdir, 'o', 'sibling.txt'), 'x\n');
    await symlink(join(workdir, 'o', 'sibling.txt'), join(workdir, 'o', 'link.txt'));
    await symlink(join(workdir, 'o', 'nowhere.txt'), join(workdir, 'o', 'dangling.txt'));
    await writeFile(join(outside, 'elsewhere.txt'), 'x\n');
    await symlink(outside, join(workdir, 'linked-dir'));
    await mkdir(join(workdir, 'o', 'a-dir.txt'));
    const outputs = [
      'o/fresh.txt',
      'o/old.txt',
      'o/a name\nwith a newline.txt',
      'o/empty.txt',
      'o/link.txt',
      'o/dangling.txt',
      'o/missing.txt',
      'missing-dir/x.txt',
      'linked-dir/elsewhere.txt',
      'o/a-dir.txt',
    ].map(task);
    const since = new Date(Date.now() - 60_000).toISOString();
    const { transport, remote } = open(workdir);
    const alone = await Promise.all(outputs.map((t) => remote.freshness(t, since)));
    const before = transport.commandsSent;
    remote.lookOutputs(outputs);
    // Looked at when the first is asked for.
    expect(transport.commandsSent - before).toBe(0);
    const together = await Promise.all(outputs.map((t) => remote.freshness(t, since)));
    // Every output was answered from the one look.
    expect(transport.commandsSent - before).toBe(1);
    expect(together).toEqual(alone);
    expect(alone.map((f) => [f.exists, f.fresh, f.linkedTo !== undefined])).toEqual([
      [true, true, false],
      [true, false, false],
      [true, true, false],
      [true, true, false],
      [true, false, true],
      [false, false, false],
      [false, false, false],
      [false, false, false],
      [true, false, true],
      [false, false, false],
    ]);
    remote.forget();
    await remote.freshness(outputs[0]!, since);
  });
});

describe('a connection that drops while the workdir is looked up', () => {
  it('fails that check alone: the next pass asks again and judges the output', async () => {
    const workdir = await workdirOf('dropped');
    await mkdir(join(workdir, 'o'));
    await writeFile(join(workdir, 'o', 'done.txt'), 'x\n');
    const { transport, remote } = open(workdir);
    const realpath = transport.realpath.bind(transport);
    let drops = 1;
    transport.realpath = (path) => {
      if (path === workdir && drops-- > 0) return Promise.reject(new LinkError('the connection dropped'));
      return realpath(path);
    };
    const since = new Date(Date.now() - 60_000).toISOString();
    await expect(remote.freshness(task('o/done.txt'), since)).rejects.toThrow('the connection dropped');
    expect(await remote.freshness(task('o/done.txt'), since)).toMatchObject({ exists: true, fresh: true });
  });
});

describe('records written together', () => {
  it('arrive whole in their folders, a command per few hundred', async () => {
    const workdir = await workdirOf('write');
    const { transport, remote } = open(workdir);
    const files = Array.from({ length: 600 }, (_, i) => ({
      path: `${['a', 'b/c', 'd e'][i % 3]}/.${i}.txt.provenance.json`,
      text: `{"i": ${i}, "text": "é\\n"}\n\n`,
    }));
    files.push({ path: 'top level.json', text: 'no newline at the end' });
    files.push({ path: 'b/c/name\nwith a newline', text: '' });
    const before = transport.commandsSent;
    expect(await remote.writeFiles(files)).toEqual([]);
    expect(transport.commandsSent - before).toBeLessThanOrEqual(2);
    for (const f of files) expect(await readFile(join(workdir, f.path), 'utf8'), f.path).toBe(f.text);
    // No staging folder left behind.
    for (const dir of ['.', 'a', 'b/c', 'd e'])
      expect(
        (await readdir(join(workdir, dir))).filter((n) => n.startsWith('.campaign-write-')),
        dir,
      ).toEqual([]);
  });

  it('carry a NUL in a record as it is', async () => {
    const workdir = await workdirOf('write-nul');
    const { remote } = open(workdir);
    const files = [
      { path: 'x/one', text: 'a\0b\n' },
      { path: 'x/two', text: 'plain\n' },
    ];
    expect(await remote.writeFiles(files)).toEqual([]);
    for (const f of files) expect(await readFile(join(workdir, f.path), 'utf8')).toBe(f.text);
  });

  it('say which could not be written, and write the rest', async () => {
    const workdir = await workdirOf('write-fail');
    await writeFile(join(workdir, 'blocked'), 'a file where a folder should be\n');
    const { remote } = open(workdir);
    const failed = await remote.writeFiles([
      { path: 'blocked/x.json', text: '1' },
      { path: 'fine/y.json', text: '2' },
    ]);
    expect(failed).toEqual(['blocked/x.json']);
    expect(await readFile(join(workdir, 'fine/y.json'), 'utf8')).toBe('2');
  });
});
