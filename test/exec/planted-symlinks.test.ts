/**
 * Writes in the workdir never follow a symlink that a task, or another user of a shared workdir,
 * planted: the provenance record's temporary file and the record itself, in the shell text every
 * executor's workdir runs through its transport (run here by real bash, the local executor's as
 * well), and the directories `run --fresh` moves the earlier attempts and outputs into.
 */
import { lstat, mkdir, mkdtemp, readFile, readdir, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import { LocalExecutor } from '../../src/exec/local/local-executor.js';
import { TransportWorkdir } from '../../src/exec/transport-workdir.js';
import { LocalTransport } from '../../src/exec/transport/local.js';
import { manifest as manifestSchema } from '../../src/manifest/schema.js';
import { asideDir } from '../../src/render/set-aside.js';

const root = await mkdtemp(join(tmpdir(), 'campaign-planted-'));
afterAll(() => rm(root, { recursive: true, force: true }));

let workdir = '';
let outside = '';
let count = 0;
beforeEach(async () => {
  count += 1;
  workdir = join(root, `work-${count}`);
  outside = join(root, `outside-${count}`);
  await mkdir(join(workdir, 'o'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(outside, 'victim'), 'precious\n');
});

const manifest = () =>
  manifestSchema.parse({
    campaign: 'c',
    cluster: { executor: 'local' },
    workdir,
    phases: [{ name: 'p', command: 'true', grid: { k: [1] }, output: 'o/${k}.txt' }],
  });

const SIDECAR = 'o/.1.txt.provenance.json';
const RECORD = '{"attempt": 1}\n';

/** The workdir written as the local executor's (over this machine's transport), and as one behind a transport. */
const writers: Record<string, (files: { path: string; text: string }[]) => Promise<string[]>> = {
  local: (files) => new LocalExecutor({ manifest: manifest(), workdir }).workdir.writeFiles(files),
  'through a transport': (files) =>
    new TransportWorkdir(new LocalTransport(), manifest(), { folder: '.campaign/local/c' }).writeFiles(files),
};

describe.each(Object.entries(writers))('the provenance record, written %s', (_, write) => {
  it('never writes through a symlink planted where its temporary file would go', async () => {
    // The names a temporary file had before: `<record>.tmp`.
    await symlink(join(outside, 'victim'), join(workdir, `${SIDECAR}.tmp`));
    expect(await write([{ path: SIDECAR, text: RECORD }])).toEqual([]);
    expect(await readFile(join(outside, 'victim'), 'utf8')).toBe('precious\n');
    expect(await readFile(join(workdir, SIDECAR), 'utf8')).toBe(RECORD);
  });

  it('replaces a symlink planted at the record itself, to a file or to a directory', async () => {
    await symlink(join(outside, 'victim'), join(workdir, SIDECAR));
    await symlink(outside, join(workdir, 'o/.2.txt.provenance.json'));
    const files = [
      { path: SIDECAR, text: RECORD },
      { path: 'o/.2.txt.provenance.json', text: RECORD },
    ];
    expect(await write(files)).toEqual([]);
    expect(await readFile(join(outside, 'victim'), 'utf8')).toBe('precious\n');
    expect(await readdir(outside)).toEqual(['victim']);
    for (const f of files) {
      expect((await lstat(join(workdir, f.path))).isFile()).toBe(true);
      expect(await readFile(join(workdir, f.path), 'utf8')).toBe(RECORD);
    }
  });
});

/** A claim of the campaign `c` on an output, as a run leaves it. */
async function claim(output: string): Promise<void> {
  await mkdir(join(workdir, '.campaign/claims', output, '..'), { recursive: true });
  await writeFile(join(workdir, '.campaign/claims', output), 'c p/k1\n');
  await writeFile(join(workdir, output), 'earlier\n');
}

/** The set-aside of the local executor's workdir, and of one behind a transport: the same shell text, run by bash. */
const setAsides: Record<string, (dest: string) => Promise<unknown>> = {
  local: (dest) => new LocalExecutor({ manifest: manifest(), workdir }).workdir.setAside(dest),
  'through a transport': (dest) =>
    new TransportWorkdir(new LocalTransport(), manifest(), { folder: '.campaign/local/c' }).setAside(dest),
};

const errorOf = async (p: Promise<unknown>): Promise<UserError> => {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(UserError);
  return e as UserError;
};

describe.each(Object.entries(setAsides))('run --fresh, %s', (_, setAside) => {
  it('moves nothing into a symlink planted where its aside directory goes', async () => {
    await claim('o/1.txt');
    await mkdir(join(workdir, '.campaign'), { recursive: true });
    await symlink(outside, join(workdir, '.campaign/aside'));
    const e = await errorOf(setAside(asideDir('c', 'stamp')));
    expect(e.message).toMatch(/\.campaign\/aside is a symlink/);
    expect(await readdir(outside)).toEqual(['victim']);
    expect(await readFile(join(workdir, 'o/1.txt'), 'utf8')).toBe('earlier\n');
  });

  it('takes no attempts from outside the workdir through a symlinked directory of the campaign', async () => {
    await mkdir(join(outside, 'c', 'attempts'), { recursive: true });
    await mkdir(join(workdir, '.campaign'), { recursive: true });
    await symlink(outside, join(workdir, '.campaign/local'));
    const e = await errorOf(setAside(asideDir('c', 'stamp')));
    expect(e.message).toMatch(/\.campaign\/local is a symlink/);
    expect((await readdir(outside)).sort()).toEqual(['c', 'victim']);
    expect(await readdir(join(outside, 'c'))).toEqual(['attempts']);
  });

  it('moves an output that is a symlink as the link, and nothing through it', async () => {
    // o/1.txt is a link to a directory outside; o/1.txt/victim then names a file through it.
    await claim('o/2.txt');
    await symlink(outside, join(workdir, 'o/1.txt'));
    await mkdir(join(workdir, '.campaign/claims/o'), { recursive: true });
    await writeFile(join(workdir, '.campaign/claims/o/1.txt'), 'c p/k1\n');
    await setAside(asideDir('c', 'stamp'));
    const aside = join(workdir, asideDir('c', 'stamp'), 'outputs/o');
    expect(await readlink(join(aside, '1.txt'))).toBe(outside);
    expect(await readFile(join(aside, '2.txt'), 'utf8')).toBe('earlier\n');
    expect(await readdir(outside)).toEqual(['victim']);
  });
});
