import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, truncate, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import { readEvents } from '../../src/exec/store/event-log.js';
import { FileStateStore } from '../../src/exec/store/file-store.js';
import type { LockHolder } from '../../src/exec/store/lock.js';
import { builtModule } from '../helpers/cli.js';
import { errorOf } from '../helpers/errors.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'file-store-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A store in a not-yet-existing directory, collecting its warnings. */
function store(name = 'c'): { store: FileStateStore; warnings: string[] } {
  const warnings: string[] = [];
  return {
    store: new FileStateStore(join(root, name), { onWarning: (m) => warnings.push(m) }),
    warnings,
  };
}

/** The pid of a process that has exited and been reaped. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid!;
}

/** JSON has no -0 (it is written as 0): the one thing a JS value loses through JSON. */
function withoutMinusZero(v: unknown): unknown {
  if (Object.is(v, -0)) return 0;
  if (Array.isArray(v)) return v.map(withoutMinusZero);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withoutMinusZero(x)]));
  }
  return v;
}

describe('state', () => {
  it('loads undefined before the first save, then what was saved', async () => {
    const { store: s } = store();
    expect(await s.load()).toBeUndefined();
    await s.save({ phase: 'train', done: [1, 2] });
    expect(await s.load()).toEqual({ phase: 'train', done: [1, 2] });
    await s.save({ phase: 'eval' });
    expect(await s.load()).toEqual({ phase: 'eval' });
    expect(JSON.parse(await readFile(join(s.dir, 'state.prev.json'), 'utf8'))).toEqual({
      phase: 'train',
      done: [1, 2],
    });
  });

  it('falls back to state.prev.json when state.json is truncated, keeping the corrupt file', async () => {
    const { store: s, warnings } = store();
    await s.save({ n: 1, note: 'first' });
    await s.save({ n: 2, note: 'second' });
    await truncate(s.statePath, 10);

    expect(await s.load()).toEqual({ n: 1, note: 'first' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('corrupt');
    expect(warnings[0]).toContain(s.statePath);
    const corrupt = (await readdir(s.dir)).filter((f) => f.startsWith('state.corrupt-'));
    expect(corrupt).toHaveLength(1);
    expect(await readFile(join(s.dir, corrupt[0]!), 'utf8')).toBe('{"n":2,"no');

    // The fallback was put in place: the next load is clean.
    expect(await s.load()).toEqual({ n: 1, note: 'first' });
    expect(warnings).toHaveLength(1);
  });

  it('throws a UserError naming the path when state.json is corrupt and there is no fallback', async () => {
    const { store: s } = store();
    await s.save({ n: 1 });
    await writeFile(s.statePath, '{"n": 1');
    const err = await errorOf(s.load());
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toContain('corrupt');
    expect(err.message).toContain(s.statePath);
    // Nothing moved: a later pass must not mistake the campaign for a new one.
    expect(await readFile(s.statePath, 'utf8')).toBe('{"n": 1');
  });

  it('throws a UserError when both state.json and state.prev.json are corrupt', async () => {
    const { store: s } = store();
    await s.save({ n: 1 });
    await s.save({ n: 2 });
    await writeFile(s.statePath, '');
    await writeFile(join(s.dir, 'state.prev.json'), '{');
    const err = await errorOf(s.load());
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toContain(s.statePath);
  });

  it('leaves the previous state and no temp file when a save fails', async () => {
    const { store: s } = store();
    await s.save({ n: 0 });
    await s.save({ n: 1 });
    await expect(s.save({ n: 2n })).rejects.toThrow(TypeError);
    expect(await s.load()).toEqual({ n: 1 });
    expect((await readdir(s.dir)).sort()).toEqual(['state.json', 'state.prev.json']);
  });

  it('removes its temp file when a save fails after writing it', async () => {
    const { store: s } = store();
    await s.save({ n: 0 });
    await s.save({ n: 1 });
    // A directory where the fallback link goes makes the save fail after the temp file is written.
    await rm(join(s.dir, 'state.prev.json'));
    await mkdir(join(s.dir, 'state.prev.json'));
    await expect(s.save({ n: 2 })).rejects.toThrow();
    expect(await s.load()).toEqual({ n: 1 });
    expect((await readdir(s.dir)).sort()).toEqual(['state.json', 'state.prev.json']);
  });

  it('does not write a state equal to the one saved, and keeps the fallback it had', async () => {
    const { store: s } = store();
    await s.save({ n: 1 });
    await s.save({ n: 2 });
    const before = await stat(s.statePath);
    await s.save({ n: 2 });
    const after = await stat(s.statePath);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    expect(JSON.parse(await readFile(join(s.dir, 'state.prev.json'), 'utf8'))).toEqual({ n: 1 });
    // Nor one equal to what it loaded.
    const { store: again } = store();
    await again.load();
    await again.save({ n: 2 });
    expect((await stat(s.statePath)).ino).toBe(before.ino);
    // A changed state is written, and so is an equal one whose file has gone.
    await s.save({ n: 3 });
    expect(await s.load()).toEqual({ n: 3 });
    await rm(s.statePath);
    await s.save({ n: 3 });
    expect(await s.load()).toEqual({ n: 3 });
  });

  it('writes the state again after a save that failed', async () => {
    const { store: s } = store();
    await s.save({ n: 1 });
    await rm(join(s.dir, 'state.prev.json'), { force: true });
    await mkdir(join(s.dir, 'state.prev.json'));
    await expect(s.save({ n: 2 })).rejects.toThrow();
    await rm(join(s.dir, 'state.prev.json'), { recursive: true });
    await s.save({ n: 2 });
    expect(await s.load()).toEqual({ n: 2 });
    expect(JSON.parse(await readFile(join(s.dir, 'state.prev.json'), 'utf8'))).toEqual({ n: 1 });
  });

  it('loads any saved JSON value equal', async () => {
    const { store: s } = store();
    await fc.assert(
      fc.asyncProperty(fc.jsonValue().map(withoutMinusZero), async (value) => {
        await s.save(value);
        expect(await s.load()).toEqual(value);
      }),
      { numRuns: 100 },
    );
  });
});

describe('events', () => {
  it('reads what was appended, in order', async () => {
    const { store: s } = store();
    expect(await readEvents(s.eventsPath)).toEqual([]);
    await s.append([
      { kind: 'submitted', id: 1 },
      { kind: 'submitted', id: 2 },
    ]);
    await s.append([]);
    await s.append([{ kind: 'done', id: 1 }]);
    expect(await readEvents(s.eventsPath)).toEqual([
      { kind: 'submitted', id: 1 },
      { kind: 'submitted', id: 2 },
      { kind: 'done', id: 1 },
    ]);
  });

  it('skips a truncated final line', async () => {
    const { store: s } = store();
    await s.append([{ id: 1 }, { id: 2 }]);
    await writeFile(s.eventsPath, '{"id": 3, "par', { flag: 'a' });
    expect(await readEvents(s.eventsPath)).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('appends after a truncated final line without corrupting the log', async () => {
    const { store: s, warnings } = store();
    await s.append([{ id: 1 }]);
    await writeFile(s.eventsPath, '{"id": 2, "par', { flag: 'a' });
    await s.append([{ id: 3 }]);
    expect(await readEvents(s.eventsPath)).toEqual([{ id: 1 }, { id: 3 }]);
    expect(warnings.join()).toContain('partial line');

    // A complete last line that only lost its newline is kept.
    await writeFile(s.eventsPath, '{"id": 4}', { flag: 'a' });
    await s.append([{ id: 5 }]);
    expect(await readEvents(s.eventsPath)).toEqual([{ id: 1 }, { id: 3 }, { id: 4 }, { id: 5 }]);
  });

  it('an event log past what one string can hold (600 MiB, sparse) is read and appended to, line by line', async () => {
    // On a log read whole, V8 cannot make the string (its limit is just under 512 MiB).
    const { store: s, warnings } = store();
    await s.append([{ id: 1 }]);
    await truncate(s.eventsPath, 600 * 2 ** 20); // the rest is one "line" of NUL bytes, no newline
    expect(await readEvents(s.eventsPath)).toEqual([{ id: 1 }]);
    await s.append([{ id: 2 }]);
    expect(warnings.join()).toMatch(/ended in 600 MiB without a line break, which is no event; dropped it/);
    expect(await readEvents(s.eventsPath)).toEqual([{ id: 1 }, { id: 2 }]);
    // In the middle, a line that long is damage, said at its line.
    await truncate(s.eventsPath, 600 * 2 ** 20);
    await writeFile(s.eventsPath, '\n{"id": 3}\n', { flag: 'a' });
    const err = await errorOf(readEvents(s.eventsPath));
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toMatch(/:3:1.*a line over 16 MiB/s);
  });

  it('throws a UserError for a corrupt line in the middle', async () => {
    const { store: s } = store();
    await mkdir(s.dir, { recursive: true });
    await writeFile(s.eventsPath, '{"id": 1}\n{"id": \n{"id": 3}\n');
    const err = await errorOf(readEvents(s.eventsPath));
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toContain(`${s.eventsPath}:2:1`);
  });
});

describe('lock', () => {
  const lockPath = (s: FileStateStore) => join(s.dir, 'lock');

  it('refuses a second acquire, naming the holder', async () => {
    const { store: s } = store();
    const lock = await s.acquire('campaign run m.yml');
    expect(lock.holder.pid).toBe(process.pid);
    const err = await errorOf(new FileStateStore(s.dir).acquire('campaign status'));
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toContain(`pid ${process.pid}`);
    expect(err.message).toContain(hostname());
    expect(err.message).toContain('campaign run m.yml');
    expect(err.message).toContain(lockPath(s));

    await lock.release();
    const again = await s.acquire('campaign status');
    await again.release();
    await expect(readFile(lockPath(s))).rejects.toThrow(/ENOENT/);
  });

  it('release leaves a lock that is no longer ours', async () => {
    const { store: s } = store();
    const lock = await s.acquire('a');
    const other: LockHolder = { pid: process.pid, host: hostname(), started: 'x', command: 'b' };
    await writeFile(lockPath(s), JSON.stringify(other));
    await lock.release();
    expect(JSON.parse(await readFile(lockPath(s), 'utf8'))).toEqual(other);
  });

  it('takes over a lock whose process is dead', async () => {
    const { store: s, warnings } = store();
    await mkdir(s.dir, { recursive: true });
    const pid = await deadPid();
    const dead: LockHolder = { pid, host: hostname(), started: new Date().toISOString(), command: 'crashed' };
    await writeFile(lockPath(s), JSON.stringify(dead));
    const lock = await s.acquire('campaign run');
    expect(JSON.parse(await readFile(lockPath(s), 'utf8'))).toEqual(lock.holder);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`pid ${pid}`);
  });

  it('refuses a lock held on another host, whatever its pid', async () => {
    const { store: s } = store();
    await mkdir(s.dir, { recursive: true });
    const remote: LockHolder = { pid: await deadPid(), host: `not-${hostname()}`, started: 'x', command: 'c' };
    await writeFile(lockPath(s), JSON.stringify(remote));
    const err = await errorOf(s.acquire('d'));
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toContain(`not-${hostname()}`);
  });

  it('refuses a fresh unparseable lock but takes over an old one', async () => {
    const { store: s, warnings } = store();
    await mkdir(s.dir, { recursive: true });
    await writeFile(lockPath(s), '{"pid": 12');
    expect(await errorOf(s.acquire('a'))).toBeInstanceOf(UserError);

    const old = new Date(Date.now() - 60_000);
    await utimes(lockPath(s), old, old);
    await s.acquire('a');
    expect(warnings).toHaveLength(1);
  });

  it('lets exactly one of two racing processes win, for a free lock and for a stale one', async () => {
    const rounds = 10;
    const free = Array.from({ length: rounds }, (_, i) => join(root, `free-${i}`));
    const stale = Array.from({ length: rounds }, (_, i) => join(root, `stale-${i}`));
    const pid = await deadPid();
    for (const dir of stale) {
      await mkdir(dir);
      const dead: LockHolder = { pid, host: hostname(), started: 'x', command: 'crashed' };
      await writeFile(join(dir, 'lock'), JSON.stringify(dead));
    }
    const go = join(root, 'go');
    // Each child loads the module, says ready, spins until the go file exists, tries every lock,
    // reports, and then stays alive (holding what it won) until its stdin is closed: a winner
    // that exited early would leave a lock that the other may rightly take over as stale.
    const script = `
      const { existsSync } = require('node:fs');
      (async () => {
        const { FileStateStore } = await import(process.env.MODULE_URL);
        process.stdout.write('ready\\n');
        while (!existsSync(process.env.GO)) {}
        const results = [];
        for (const dir of JSON.parse(process.env.DIRS)) {
          try {
            await new FileStateStore(dir).acquire('race');
            results.push('won');
          } catch (e) {
            results.push(e.name === 'UserError' ? 'refused' : 'error: ' + e.message);
          }
        }
        process.stdout.write(JSON.stringify(results) + '\\n');
        process.stdin.on('end', () => process.exit(0)).resume();
      })();
    `;
    // The children load lib/'s module in plain node: the sources through tsx cost each about 0.6 s of CPU more.
    const moduleUrl = await builtModule('exec/store/file-store.ts');
    const env = {
      ...process.env,
      MODULE_URL: moduleUrl,
      GO: go,
      DIRS: JSON.stringify([...free, ...stale]),
    };
    const children = [0, 1].map(() => {
      const child = spawn(process.execPath, ['-e', script], { env });
      let out = '';
      let err = '';
      const onOutput = new Set<() => void>();
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        for (const f of onOutput) f();
      });
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const exited = once(child, 'exit');
      /** Resolves with the child's nth output line (0-based) once it is complete. */
      const line = (n: number) =>
        new Promise<string>((res, rej) => {
          const check = () => {
            const lines = out.split('\n');
            if (lines.length > n + 1) res(lines[n]!);
          };
          onOutput.add(check);
          void exited.then(() => rej(new Error(`child exited early: ${err}`)));
          check();
        });
      return { child, exited, line };
    });
    try {
      await Promise.all(children.map((c) => c.line(0)));
      await writeFile(go, '');
      const [a, b] = (await Promise.all(children.map((c) => c.line(1)))).map((l) => JSON.parse(l) as string[]);
      for (let i = 0; i < 2 * rounds; i++) {
        expect([a![i], b![i]].sort(), `round ${i}`).toEqual(['refused', 'won']);
      }
    } finally {
      for (const c of children) c.child.stdin.end();
      await Promise.all(children.map((c) => c.exited));
    }
  }, 60_000);
});
