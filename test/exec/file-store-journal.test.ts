import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import { FileStateStore, type FileStateStoreOptions } from '../../src/exec/store/file-store.js';
import { builtModule } from '../helpers/cli.js';
import { errorOf } from '../helpers/errors.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'file-store-journal-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A store that journals every state with a tasks record, collecting its warnings. */
function store(opts: FileStateStoreOptions = {}, name = 'c'): { store: FileStateStore; warnings: string[] } {
  const warnings: string[] = [];
  return {
    store: new FileStateStore(join(root, name), { journalAbove: 1, onWarning: (m) => warnings.push(m), ...opts }),
    warnings,
  };
}

type Task = { status: string; attempts: { n: number; at: string }[] };
type State = {
  version: number;
  campaign: string;
  updated: string;
  phases: Record<string, unknown>;
  tasks: Record<string, Task>;
};

function initial(n = 20): State {
  const tasks: Record<string, Task> = {};
  for (let i = 0; i < n; i++) tasks[`t${i}`] = { status: 'pending', attempts: [] };
  return { version: 1, campaign: 'c', updated: '0', phases: { p: { status: 'waiting' } }, tasks };
}

/** The state with these tasks changed (new entries; the others keep their identity), as the controller does. */
function change(s: State, ids: string[], status: string, updated = String(Number(s.updated) + 1)): State {
  const tasks = { ...s.tasks };
  for (const id of ids) tasks[id] = { status, attempts: [...(tasks[id]?.attempts ?? []), { n: 1, at: updated }] };
  return { ...s, updated, tasks };
}

async function sizeOf(path: string): Promise<number | undefined> {
  return (await stat(path).catch(() => undefined))?.size;
}

function without<T extends object>(o: T, key: string): T {
  return Object.fromEntries(Object.entries(o).filter(([k]) => k !== key)) as T;
}

async function journalLines(s: FileStateStore): Promise<Record<string, unknown>[]> {
  const text = await readFile(s.journalPath, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('journal', () => {
  it('appends only the changed entries, and loads the last state saved', async () => {
    const { store: s } = store({ compactAbove: 100 });
    let state = initial();
    await s.save(state);
    const snapshot = await stat(s.statePath);
    expect(JSON.parse(await readFile(s.statePath, 'utf8'))).toEqual({ ...state, journalSeq: 1 });

    state = change(state, ['t1', 't2'], 'running');
    await s.save(state);
    state = {
      ...change({ ...state, tasks: without(state.tasks, 't3') }, ['t1'], 'completed'),
      phases: { p: { status: 'full' } },
    };
    state = change(state, ['t20'], 'pending', state.updated); // a task added
    await s.save(state);

    const lines = await journalLines(s);
    expect(lines.map((l) => [l.seq, Object.keys(l.set as object), l.del])).toEqual([
      [2, ['t1', 't2'], []],
      [3, ['t1', 't20'], ['t3']],
    ]);
    expect(lines[1]!.top).toEqual(without(state, 'tasks'));
    // state.json was not written again.
    const after = await stat(s.statePath);
    expect([after.ino, after.mtimeMs]).toEqual([snapshot.ino, snapshot.mtimeMs]);

    expect(await s.load()).toEqual(state);
    expect(await store({}, 'c').store.load()).toEqual(state);
  });

  it('writes nothing for an equal state, by identity or, after a load, by value', async () => {
    const { store: s } = store({ compactAbove: 100 });
    let state = initial();
    await s.save(state);
    state = change(state, ['t1'], 'running');
    await s.save(state);
    const size = (await stat(s.journalPath)).size;
    await s.save(state);
    await s.save({ ...state, tasks: { ...state.tasks } });
    expect((await stat(s.journalPath)).size).toBe(size);

    // A fresh store's caller holds copies (a schema parse makes new objects): equal entries are not written.
    const { store: again } = store({ compactAbove: 100 });
    const loaded = structuredClone(await again.load()) as State;
    await again.save(loaded);
    expect((await stat(s.journalPath)).size).toBe(size);
    await again.save(change(loaded, ['t5'], 'running'));
    const last = (await journalLines(s)).at(-1)!;
    expect(Object.keys(last.set as object)).toEqual(['t5']);
  });

  it('saves past compactAbove append; compactIfDue then writes state.json whole, numbered, and the journal goes', async () => {
    const { store: s } = store({ compactAbove: 0.5 });
    let state = initial(40);
    await s.save(state);
    const first = await stat(s.statePath);
    // Saves until the journal is past due, each one checked by compactIfDue as the controller does between passes...
    for (let i = 0; ((await sizeOf(s.journalPath)) ?? 0) <= first.size * 0.5; i++) {
      expect(await s.compactIfDue()).toBe(false);
      await s.save((state = change(state, [`t${i}`, `t${i + 10}`], 'running')));
    }
    // ...and one more: a save past due still appends.
    await s.save((state = change(state, ['t39'], 'failed')));
    const after = await stat(s.statePath);
    expect([after.ino, after.mtimeMs]).toEqual([first.ino, first.mtimeMs]);
    const lines = await journalLines(s);
    expect(lines.length).toBeGreaterThan(2);

    expect(await s.compactIfDue()).toBe(true);
    const stored = JSON.parse(await readFile(s.statePath, 'utf8')) as Record<string, unknown>;
    expect(stored.journalSeq).toBeGreaterThan(lines.at(-1)!.seq as number);
    expect(without(stored, 'journalSeq')).toEqual(state);
    expect(await readdir(s.dir)).not.toContain('state.journal.jsonl');
    expect(await store().store.load()).toEqual(state);
    // The snapshot before is the fallback.
    expect(JSON.parse(await readFile(join(s.dir, 'state.prev.json'), 'utf8'))).toMatchObject({ journalSeq: 1 });
    // Saving goes on in the journal after it.
    await s.save((state = change(state, ['t1'], 'completed')));
    expect((await journalLines(s)).map((l) => l.seq)).toEqual([(stored.journalSeq as number) + 1]);
    expect(await store().store.load()).toEqual(state);
  });

  it('compactIfDue touches no file when no compaction is due', async () => {
    const { store: s } = store({ compactAbove: 0.5 });
    // Nothing saved or loaded: it does not even make the directory.
    expect(await s.compactIfDue()).toBe(false);
    await expect(stat(s.dir)).rejects.toThrow();
    const state = initial(40);
    await s.save(state);
    await s.save(change(state, ['t1'], 'running'));
    const files = async (): Promise<unknown[]> =>
      Promise.all(
        (await readdir(s.dir)).map(async (f) => {
          const { ino, size, mtimeMs } = await stat(join(s.dir, f));
          return { f, ino, size, mtimeMs };
        }),
      );
    const before = await files();
    expect(await s.compactIfDue()).toBe(false);
    // A fresh store that loaded the state, and one holding a small state without a journal.
    const { store: again } = store({ compactAbove: 0.5 });
    await again.load();
    expect(await again.compactIfDue()).toBe(false);
    expect(await files()).toEqual(before);
    const { store: small } = store({ journalAbove: 100_000 }, 'small');
    await small.save(initial(3));
    const { ino, mtimeMs } = await stat(small.statePath);
    expect(await small.compactIfDue()).toBe(false);
    expect(await stat(small.statePath)).toMatchObject({ ino, mtimeMs });
    expect(await readdir(small.dir)).toEqual(['state.json']);
  });

  it('a save compacts on its own once the journal would pass four times compactAbove', async () => {
    const { store: s } = store({ compactAbove: 0.5 });
    let state = initial(40);
    await s.save(state);
    const snapshot = await stat(s.statePath);
    let journal = 0;
    for (let i = 0; (await stat(s.statePath)).ino === snapshot.ino; i++) {
      journal = (await sizeOf(s.journalPath)) ?? 0;
      expect(journal).toBeLessThanOrEqual(snapshot.size * 2);
      await s.save((state = change(state, [`t${i % 40}`, `t${(i + 10) % 40}`], 'running')));
    }
    // Long past the compactAbove that compactIfDue goes by, and the line would take it past 4 times that.
    expect(journal).toBeGreaterThan(snapshot.size * 1.5);
    expect(await readdir(s.dir)).not.toContain('state.journal.jsonl');
    const stored = JSON.parse(await readFile(s.statePath, 'utf8')) as Record<string, unknown>;
    expect(without(stored, 'journalSeq')).toEqual(state);
    expect(await store().store.load()).toEqual(state);
  });

  it('skips the lines a compaction holds when a crash left the journal behind', async () => {
    const { store: s } = store({ compactAbove: 100 });
    let state = initial();
    await s.save(state);
    for (let i = 0; i < 3; i++) await s.save((state = change(state, [`t${i}`], 'running')));
    const journal = await readFile(s.journalPath);
    // A compaction (here: state.json gone, so the next save writes it whole) and a crash before the journal's removal.
    await rm(s.statePath);
    await s.save((state = change(state, ['t9'], 'failed')));
    expect(JSON.parse(await readFile(s.statePath, 'utf8'))).toMatchObject({ journalSeq: 5 });
    await writeFile(s.journalPath, journal);
    const { store: again, warnings } = store({ compactAbove: 100 });
    expect(await again.load()).toEqual(state);
    expect(warnings).toEqual([]);
    // And saving after it goes on from there.
    await again.save((state = change(state, ['t10'], 'running')));
    expect(await store().store.load()).toEqual(state);
  });

  it('drops a torn last line with a warning, and appends after it cleanly', async () => {
    const { store: s, warnings } = store({ compactAbove: 100 });
    let state = initial();
    await s.save(state);
    await s.save((state = change(state, ['t1'], 'running')));
    await appendFile(s.journalPath, '{"seq":3,"top":{"version":1},"set":{"t2":{"sta');

    const { store: reader, warnings: seen } = store({ compactAbove: 100 });
    expect(await reader.load()).toEqual(state);
    expect(seen.join()).toContain('partial line');
    expect(seen.join()).toContain(s.journalPath);

    await s.save((state = change(state, ['t2'], 'completed')));
    expect(warnings.join()).toContain('partial line');
    expect((await journalLines(s)).map((l) => l.seq)).toEqual([2, 3]);
    expect(await store().store.load()).toEqual(state);
  });

  it('throws a UserError naming the journal when a line in the middle is corrupt', async () => {
    const { store: s } = store({ compactAbove: 100 });
    let state = initial();
    await s.save(state);
    for (let i = 0; i < 3; i++) await s.save((state = change(state, [`t${i}`], 'running')));
    const lines = (await readFile(s.journalPath, 'utf8')).split('\n');
    lines[1] = lines[1]!.slice(0, 20);
    await writeFile(s.journalPath, lines.join('\n'));
    const err = await errorOf(store().store.load());
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toContain(`${s.journalPath}:2:1`);
    expect((err as UserError).problems[0]!.fix).toContain('move');
    // Nothing was changed on disk.
    expect(await readFile(s.journalPath, 'utf8')).toBe(lines.join('\n'));
  });

  it('throws a UserError when the journal does not follow state.json', async () => {
    const { store: s } = store({ compactAbove: 100 });
    const state = initial();
    await s.save(state);
    await s.save(change(state, ['t1'], 'running'));
    const journal = await readFile(s.journalPath, 'utf8');
    await writeFile(s.journalPath, journal.replace('"seq":2', '"seq":4'));
    const err = await errorOf(store().store.load());
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toContain(s.journalPath);
    expect(err.message).toContain('does not follow');
  });

  it('falls back to state.prev.json when state.json is corrupt, keeping a journal that does not follow it', async () => {
    const { store: s } = store({ compactAbove: 0.3 });
    let state = initial(40);
    await s.save(state);
    for (let i = 0; i < 30 && !(await s.compactIfDue()); i++) {
      await s.save((state = change(state, [`t${i}`], 'running')));
    }
    // Compacted: state.prev.json is the first state.json, and the journal starts after the new one.
    const prev = initial(40);
    await s.save((state = change(state, ['t39'], 'failed')));
    expect(await journalLines(s)).toHaveLength(1);
    await writeFile(s.statePath, '{"version":1,');
    const { store: again, warnings } = store();
    expect(await again.load()).toEqual(prev);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('corrupt');
    expect(warnings[0]).toContain('did not follow');
    const files = await readdir(s.dir);
    expect(files.filter((f) => f.startsWith('state.corrupt-')).sort()).toHaveLength(2);
    expect(files).not.toContain('state.journal.jsonl');
    // The next load is clean, and saving goes on.
    expect(await store().store.load()).toEqual(prev);
    await again.save(state);
    expect(await store().store.load()).toEqual(state);
  });

  it('switches to the journal above the threshold, and back to a plain state.json below it', async () => {
    const { store: s } = store({ journalAbove: 2000, compactAbove: 0.5 });
    let state = initial(5);
    await s.save(state);
    expect(await readFile(s.statePath, 'utf8')).toBe(JSON.stringify(state));
    // Grows past 2000 bytes: state.json is written numbered, and the next saves go to the journal.
    state = change(
      state,
      Array.from({ length: 40 }, (_, i) => `t${i}`),
      'pending',
    );
    await s.save(state);
    expect(JSON.parse(await readFile(s.statePath, 'utf8'))).toHaveProperty('journalSeq');
    await s.save((state = change(state, ['t1'], 'running')));
    expect(await journalLines(s)).toHaveLength(1);
    expect(await store().store.load()).toEqual(state);
    // Shrinks: the next compaction writes a plain state.json and removes the journal.
    for (let i = 0; i < 20 && (await journalLines(s)).length > 0; i++) {
      state = {
        ...change(state, [], 'x'),
        tasks: { t1: state.tasks.t1!, [`n${i}`]: { status: 'pending', attempts: [] } },
      };
      await s.save(state);
      await s.compactIfDue();
    }
    expect(await readFile(s.statePath, 'utf8')).toBe(JSON.stringify(state));
    expect(await readdir(s.dir)).not.toContain('state.journal.jsonl');
    expect(await store().store.load()).toEqual(state);
    await s.save((state = change(state, ['t1'], 'completed')));
    expect(await readFile(s.statePath, 'utf8')).toBe(JSON.stringify(state));
  });

  it('writes a record of thousands of tasks in a compaction as JSON.stringify writes it, left-out entries and __proto__ too', async () => {
    const { store: s } = store({ journalAbove: 1000 });
    const tasks: Record<string, Task | undefined> = initial(4_500).tasks;
    // Whole pieces of entries that JSON leaves out, and a few among the others.
    for (let i = 2_000; i < 4_000; i++) tasks[`t${i}`] = undefined;
    for (let i = 0; i < 2_000; i += 7) tasks[`t${i}`] = undefined;
    Object.defineProperty(tasks, '__proto__', {
      value: { status: 'odd', attempts: [] },
      enumerable: true,
      writable: true,
      configurable: true,
    });
    const state = { ...initial(0), tasks };
    await s.save(state);
    const text = await readFile(s.statePath, 'utf8');
    expect(text).toBe(`${JSON.stringify(state).slice(0, -1)},"journalSeq":1}`);
    expect(await store().store.load()).toEqual(JSON.parse(JSON.stringify(state)));
    // Only left-out entries, and none at all.
    for (const tasks of [{ a: undefined }, {}]) {
      const { store: t } = store({ journalAbove: 1 }, `d${Object.keys(tasks).length}`);
      await t.save({ ...initial(0), tasks });
      expect(JSON.parse(await readFile(t.statePath, 'utf8')).tasks).toEqual({});
    }
  });

  it('leaves a state without a tasks record, and a small one, exactly as before', async () => {
    const { store: s } = store({ journalAbove: 1 });
    await s.save({ phase: 'train', done: [1, 2] });
    expect(await readFile(s.statePath, 'utf8')).toBe('{"phase":"train","done":[1,2]}');
    const big = new FileStateStore(join(root, 'd')); // the default threshold, 4 MiB
    const state = initial();
    await big.save(state);
    expect(await readFile(big.statePath, 'utf8')).toBe(JSON.stringify(state));
    expect(await readdir(big.dir)).toEqual(['state.json']);
  });

  it('refuses a state that holds its own journalSeq key', async () => {
    const { store: s } = store();
    await expect(s.save({ ...initial(), journalSeq: 3 })).rejects.toThrow(TypeError);
  });

  it('a store that never loaded replaces the state, journal and all', async () => {
    const { store: s } = store({ compactAbove: 100 });
    const state = initial();
    await s.save(state);
    await s.save(change(state, ['t1'], 'running'));
    const other = { ...initial(3), campaign: 'other' };
    await store({ compactAbove: 100 }).store.save(other);
    expect(await readdir(s.dir)).not.toContain('state.journal.jsonl');
    expect(await store().store.load()).toEqual(other);
  });

  it('loads what was saved last, whatever the changes and thresholds', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), id: fc.nat(15), status: fc.constantFrom('a', 'b', 'c') }),
      fc.record({ kind: fc.constant('del' as const), id: fc.nat(15) }),
      fc.record({ kind: fc.constant('top' as const), updated: fc.string({ maxLength: 3 }) }),
      fc.record({ kind: fc.constant('reload' as const) }),
      fc.record({ kind: fc.constant('compact' as const) }),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(op, { maxLength: 4 }), { minLength: 1, maxLength: 12 }),
        fc.constantFrom(1, 300, 100_000),
        fc.constantFrom(0.1, 0.5, 3),
        async (saves, journalAbove, compactAbove) => {
          const opts = { journalAbove, compactAbove };
          const name = `p${run++}`;
          let { store: s } = store(opts, name);
          let state = initial(8);
          let saved: State | undefined;
          for (const ops of saves) {
            let tasks = state.tasks;
            const own = (): Record<string, Task> => (tasks === state.tasks ? (tasks = { ...tasks }) : tasks);
            for (const o of ops) {
              if (o.kind === 'set') own()[`t${o.id}`] = { status: o.status, attempts: [] };
              else if (o.kind === 'del') Reflect.deleteProperty(own(), `t${o.id}`);
              else if (o.kind === 'top') state = { ...state, updated: o.updated };
              else if (o.kind === 'compact') {
                await s.compactIfDue();
                expect(await store(opts, name).store.load()).toEqual(saved);
              } else {
                s = store(opts, name).store;
                state = ((await s.load()) as State | undefined) ?? state;
                tasks = { ...tasks }; // the changes so far carry over, never into a record saved before
              }
            }
            state = { ...state, tasks };
            await s.save((saved = state));
            expect(await store(opts, name).store.load()).toEqual(state);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

/**
 * The saves of the crash test: the state after save n, built from the one before as the
 * controller builds it (a new object for each changed entry, the others kept). The child process
 * evaluates the same source.
 */
const SAVES = `
function next(prev, n) {
  const tasks = {};
  for (let k = 0; k < 60; k++) {
    const id = 'task-' + k;
    if (k >= 45 && (n + k) % 4 === 0) continue;
    const old = prev && prev.tasks[id];
    tasks[id] = old && (n + k) % 7 !== 0
      ? old
      : { status: ['pending', 'running', 'completed'][(n + k) % 3], last: n, attempts: [{ n: k, log: 'x'.repeat(k % 9) }] };
  }
  return { version: 1, campaign: 'kill', n, updated: 'u' + n, phases: { p: { status: n % 2 ? 'a' : 'b' } }, tasks };
}`;

describe('journal under SIGKILL', () => {
  it('never loses a save that returned, and always loads a state some save wrote', async () => {
    const { next } = new Function(`${SAVES}; return { next };`)() as {
      next: (prev: unknown, n: number) => { n: number };
    };
    const stateAfter = (n: number): unknown => {
      let s: unknown;
      for (let i = 1; i <= n; i++) s = next(s, i);
      return s;
    };
    // The child loads what there is and saves on from there until it is killed, saying each
    // save's number once the save has returned. With TIDY set it calls compactIfDue after each
    // save, as the controller does between passes, and kills itself in the middle of a
    // compaction: at the share TIDY of the time the one before took.
    const script = `
      ${SAVES}
      (async () => {
        const { FileStateStore } = await import(process.env.MODULE_URL);
        const store = new FileStateStore(process.env.DIR, {
          journalAbove: Number(process.env.ABOVE),
          compactAbove: Number(process.env.COMPACT),
          onWarning: (m) => process.stderr.write(m + '\\n'),
        });
        const killAt = process.env.TIDY === undefined ? undefined : Number(process.env.TIDY);
        let took;
        let state = await store.load();
        let n = state === undefined ? 0 : state.n;
        for (;;) {
          state = next(state, ++n);
          await store.save(state);
          process.stdout.write('saved ' + n + '\\n');
          if (killAt === undefined) continue;
          const t0 = performance.now();
          let timer;
          const check = () => {
            if (performance.now() < t0 + killAt * took) return void (timer = setImmediate(check));
            process.stdout.write('killed compacting\\n'); // synchronous: stdout is a pipe
            process.kill(process.pid, 'SIGKILL');
          };
          // One that is not due returns before any immediate runs.
          if (took !== undefined) timer = setImmediate(check);
          const compacted = await store.compactIfDue();
          clearImmediate(timer);
          if (compacted) took = performance.now() - t0;
        }
      })();
    `;
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    // The children load lib/'s module in plain node: the sources through tsx cost each about 0.6 s of CPU more.
    const moduleUrl = await builtModule('exec/store/file-store.ts');
    const dirs = [join(root, 'k1'), join(root, 'k2')];
    const reached = [0, 0];
    for (let round = 0; round < 12; round++) {
      const dir = dirs[round % 2]!;
      // Rounds 2, 3, 6, 7, 10, 11 end in a compaction between saves.
      const tidy = round % 4 >= 2;
      const env = {
        ...process.env,
        MODULE_URL: moduleUrl,
        DIR: dir,
        ABOVE: '1',
        COMPACT: round % 2 === 0 ? '0.4' : '3',
        ...(tidy ? { TIDY: String(0.05 + 0.9 * random()) } : {}),
      };
      const child = spawn(process.execPath, ['-e', script], { env });
      let out = '';
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const exited = once(child, 'close'); // after its output, all of it
      // The kill's random moment counts from the first save that returned, so a loaded machine's slow start
      // cannot leave a round with nothing saved.
      await new Promise<void>((res, rej) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (/^saved \d+$/m.test(out)) res();
        });
        void exited.then(() => rej(new Error(`child exited early: ${err}`)));
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), tidy ? 5000 : 50 + random() * 150);
      await exited;
      clearTimeout(timer);
      const acked = Math.max(0, ...[...out.matchAll(/^saved (\d+)$/gm)].map((m) => Number(m[1])));
      expect(acked, `round ${round}: ${err}`).toBeGreaterThan(0);
      const state = (await new FileStateStore(dir).load()) as { n: number };
      if (tidy) {
        expect(out, `round ${round}`).toMatch(/killed compacting\n$/);
        expect(state.n, `round ${round}`).toBe(acked);
      } else expect(state.n, `round ${round}`).toBeGreaterThanOrEqual(acked);
      expect(state, `round ${round}`).toEqual(stateAfter(state.n));
      expect(state.n, `round ${round}`).toBeGreaterThan(reached[round % 2]!);
      reached[round % 2] = state.n;
    }
  }, 120_000);
});
