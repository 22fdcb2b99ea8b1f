/**
 * The ssh-gpu executor's pure decisions: reading the probe's table, which GPUs are free, which
 * GPUs each task gets, when the next wave may start, and how an ended attempt is classed.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { classifyEnd, oomPatterns } from '../../src/judge/attempt-end.js';
import { gpuStatus, parseProbe, placeTasks, waveMayStart, type GpuStatus } from '../../src/decide/gpu.js';
import { parseExitMarker, type ExitMarker } from '../../src/render/wrapper.js';

/** A line as nvidia-smi prints it for the default query. */
const line = (i: number, uuid: string, used: string, total = '81559') => `${i}, ${uuid}, ${used}, ${total}`;
const uuid = fc.stringMatching(/^GPU-[0-9a-f]{8}$/);
const oddValue = fc.constantFrom('[N/A]', '[Unknown Error]', '[Not Supported]', '', 'ERR!', '-1');

describe('parseProbe', () => {
  it('reads nvidia-smi output byte for byte as it prints it', () => {
    const t = parseProbe(
      '0, GPU-2f6a8c3e-1b2c-4d5e-8f90-123456789abc, 3, 81559\n1, GPU-7e1d0a55-0000-4000-8000-000000000001, 40211, 81559\n',
    );
    expect(t.unusable).toEqual([]);
    expect(t.gpus).toEqual([
      { index: 0, uuid: 'GPU-2f6a8c3e-1b2c-4d5e-8f90-123456789abc', usedMiB: 3, totalMiB: 81559 },
      { index: 1, uuid: 'GPU-7e1d0a55-0000-4000-8000-000000000001', usedMiB: 40211, totalMiB: 81559 },
    ]);
  });

  it('[N/A] (or any value nvidia-smi could not read) marks that GPU unusable, with the reason, and keeps the rest', () => {
    const t = parseProbe(`${line(0, 'GPU-a', '3')}\n${line(1, 'GPU-b', '[N/A]')}\n${line(2, 'GPU-c', '5', '[N/A]')}\n`);
    expect(t.gpus.map((g) => g.index)).toEqual([0]);
    expect(t.unusable).toEqual([
      { index: 1, line: line(1, 'GPU-b', '[N/A]'), why: 'memory.used is "[N/A]"' },
      { index: 2, line: line(2, 'GPU-c', '5', '[N/A]'), why: 'memory.total is "[N/A]"' },
    ]);
  });

  it('never throws, and every line is either one GPU or one unusable entry', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.tuple(fc.nat(15), uuid, fc.nat(90000)).map(([i, u, m]) => line(i, u, String(m))),
            fc.tuple(fc.nat(15), uuid, oddValue).map(([i, u, v]) => line(i, u, v)),
            fc.string(),
          ),
        ),
        (lines) => {
          const text = lines.join('\n');
          const t = parseProbe(text);
          const nonEmpty = text.split('\n').filter((l) => l.trim() !== '').length;
          expect(t.gpus.length + t.unusable.length).toBe(nonEmpty);
          for (const g of t.gpus) expect(Number.isFinite(g.usedMiB) && g.usedMiB >= 0).toBe(true);
          expect(new Set(t.gpus.map((g) => g.uuid)).size).toBe(t.gpus.length);
        },
      ),
    );
  });
});

describe('gpuStatus', () => {
  const table = parseProbe(
    [line(0, 'GPU-a', '3'), line(1, 'GPU-b', '30000'), line(2, 'GPU-c', '[N/A]'), line(3, 'GPU-d', '499')].join('\n'),
  );

  it('a GPU is free when its used memory is under the threshold and no task of ours holds it; otherwise says why', () => {
    const s = gpuStatus({ table, freeBelowMiB: 500, held: new Set(['GPU-d']), allowed: [0, 1, 2, 3, 7] });
    expect(s).toEqual([
      { index: 0, uuid: 'GPU-a', free: true },
      { index: 1, uuid: 'GPU-b', free: false, why: '30000 MiB in use (free below 500 MiB)' },
      { index: 2, free: false, why: 'unusable: memory.used is "[N/A]"' },
      { index: 3, uuid: 'GPU-d', free: false, why: 'held by a task of this campaign' },
      { index: 7, free: false, why: 'not listed by the probe' },
    ]);
  });

  it('only the allowed GPUs are considered', () => {
    expect(gpuStatus({ table, freeBelowMiB: 500, held: new Set(), allowed: [1, 3] }).map((g) => g.index)).toEqual([
      1, 3,
    ]);
  });

  it('free means: read, allowed, below the threshold, not held (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(uuid, fc.oneof(fc.nat(2000).map(String), oddValue)), { maxLength: 8 }),
        fc.nat(2000),
        fc.array(fc.nat(7)),
        fc.array(fc.nat(7)),
        (rows, below, heldIdx, allowedIdx) => {
          const t = parseProbe(rows.map(([u, m], i) => line(i, u, m)).join('\n'));
          const held = new Set(heldIdx.map((i) => rows[i]?.[0] ?? 'none'));
          const allowed = allowedIdx.length > 0 ? allowedIdx : undefined;
          for (const s of gpuStatus({ table: t, freeBelowMiB: below, held, ...(allowed ? { allowed } : {}) })) {
            const g = t.gpus.find((x) => x.index === s.index);
            const expected = g !== undefined && g.usedMiB < below && !held.has(g.uuid);
            expect(s.free).toBe(expected);
            if (allowed) expect(allowed).toContain(s.index);
            if (!s.free) expect(s.why).toBeTruthy();
          }
        },
      ),
    );
  });
});

describe('placeTasks', () => {
  const free = (uuids: string[]): GpuStatus[] => uuids.map((u, index) => ({ index, uuid: u, free: true }));

  it('gives each task all the GPUs it asks for or none, never one GPU twice, in request order', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(uuid, { maxLength: 8 }),
        fc.array(fc.tuple(fc.nat(4), fc.array(uuid, { maxLength: 3 })), { maxLength: 10 }),
        (uuids, reqs) => {
          const requests = reqs.map(([gpus, avoid], i) => ({ key: String(i), gpus, avoid }));
          const placed = placeTasks(requests, free(uuids));
          const all = [...placed.values()].flat();
          expect(new Set(all).size).toBe(all.length);
          for (const u of all) expect(uuids).toContain(u);
          let left = uuids.length;
          for (const r of requests) {
            const got = placed.get(r.key);
            // Greedy in order: a request waits only when fewer GPUs than it asks for are left.
            if (r.gpus <= left) {
              expect(got).toHaveLength(r.gpus);
              left -= r.gpus;
            } else expect(got).toBeUndefined();
          }
        },
      ),
    );
  });

  it('a retry prefers GPUs other than the ones its last attempt ran on, and takes those when nothing else is free', () => {
    fc.assert(
      fc.property(fc.uniqueArray(uuid, { minLength: 1, maxLength: 8 }), fc.nat(8), (uuids, k) => {
        const avoid = uuids.slice(0, k);
        const [got] = [...placeTasks([{ key: 'r', gpus: 1, avoid }], free(uuids)).values()];
        if (avoid.length < uuids.length) expect(avoid).not.toContain(got![0]);
        else expect(got).toEqual([uuids[0]]);
      }),
    );
  });

  it('never places on a GPU that is not free', () => {
    const s: GpuStatus[] = [
      { index: 0, uuid: 'GPU-a', free: false, why: 'x' },
      { index: 1, uuid: 'GPU-b', free: true },
    ];
    expect(
      placeTasks(
        [
          { key: 'a', gpus: 1, avoid: [] },
          { key: 'b', gpus: 1, avoid: [] },
        ],
        s,
      ),
    ).toEqual(new Map([['a', ['GPU-b']]]));
  });
});

describe('waveMayStart', () => {
  const t = parseProbe([line(0, 'GPU-a', '3'), line(1, 'GPU-b', '900')].join('\n'));
  it('waits while a task of the wave runs', () => {
    expect(waveMayStart({ active: 1, lastWave: [], table: t, freeBelowMiB: 500 }).ok).toBe(false);
  });
  it('waits until every GPU of the last wave has settled under the threshold', () => {
    expect(waveMayStart({ active: 0, lastWave: ['GPU-a', 'GPU-b'], table: t, freeBelowMiB: 500 })).toEqual({
      ok: false,
      why: 'GPU 1 of the last wave still has 900 MiB in use',
    });
    expect(waveMayStart({ active: 0, lastWave: ['GPU-a'], table: t, freeBelowMiB: 500 }).ok).toBe(true);
  });
  it('waits when the probe gave no reading for a GPU of the last wave', () => {
    expect(waveMayStart({ active: 0, lastWave: ['GPU-a'], table: undefined, freeBelowMiB: 500 }).ok).toBe(false);
  });
});

describe('classifyEnd', () => {
  const marker = (code: number, more: Partial<ExitMarker> = {}): ExitMarker => ({
    code,
    at: '2026-01-01T00:00:10.000Z',
    startedAt: '2026-01-01T00:00:00.000Z',
    cause: 'exit',
    ...more,
  });
  const patterns = oomPatterns(['CUDA out of memory', 'torch\\.OutOfMemoryError']);
  const ok = { path: 'out.json', exists: true, fresh: true };
  const end = (m: ExitMarker, log: string, output = ok) =>
    classifyEnd({ marker: m, log, walltimeSeconds: 60, oomPatterns: patterns, output });

  it('an OOM message anywhere in the log, not only its tail, with a non-zero exit is out_of_memory', () => {
    const log = `step 1\nRuntimeError: CUDA out of memory. Tried to allocate 2 GiB\n${'x\n'.repeat(100_000)}exit\n`;
    expect(end(marker(1), log).cls).toBe('out_of_memory');
  });

  it('exit 137 is out_of_memory even with nothing in the log', () => {
    expect(end(marker(137), '').cls).toBe('out_of_memory');
  });

  it('an OOM message in the log of a run that exited 0 with a fresh output is completed', () => {
    expect(end(marker(0), 'CUDA out of memory; retrying with a smaller batch\ndone\n')).toEqual({ cls: 'completed' });
  });

  it('exit 0 with a missing or stale output is unverified', () => {
    expect(end(marker(0), '', { ...ok, exists: false, fresh: false }).cls).toBe('unverified');
    expect(end(marker(0), '', { ...ok, fresh: false }).cls).toBe('unverified');
  });

  it('the walltime and a cancel are named by the marker, whatever the exit status', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 255 }), fc.string(), (code, log) => {
        expect(end(marker(code, { cause: 'walltime' }), log).cls).toBe('timeout');
        expect(end(marker(code, { cause: 'cancel' }), log).cls).toBe('cancelled');
      }),
    );
  });

  it('a failure or a missing output whose log says the disk is full is disk_full, with the line', () => {
    const log = 'epoch 3\nOSError: [Errno 28] No space left on device: out/x.pt\n';
    expect(end(marker(1), log)).toEqual({
      cls: 'disk_full',
      reason: 'the disk is full: OSError: [Errno 28] No space left on device: out/x.pt',
    });
    expect(end(marker(0), 'tee: out.json: Disk quota exceeded\n', { ...ok, exists: false, fresh: false }).cls).toBe(
      'disk_full',
    );
    // Only a failure: a run that completed with its output despite the message is complete.
    expect(end(marker(0), log).cls).toBe('completed');
  });

  it('a failed setup is a gate failure naming the step', () => {
    const r = end(marker(97, { step: 'setup' }), '[campaign] gate setup: FAIL the setup stopped with exit status 1\n');
    expect(r).toEqual({ cls: 'gate', reason: 'gate setup: the setup stopped with exit status 1' });
  });
});

describe('parseExitMarker', () => {
  it('reads the five fields the wrapper writes', () => {
    expect(parseExitMarker('97 1767225610000 1767225600000 exit setup\n', 'now')).toEqual({
      code: 97,
      at: '2026-01-01T00:00:10.000Z',
      startedAt: '2026-01-01T00:00:00.000Z',
      cause: 'exit',
      step: 'setup',
    });
  });
  it('reads the older three-field marker, with times in seconds', () => {
    expect(parseExitMarker('0 1767225610 1767225600', 'now')).toEqual({
      code: 0,
      at: '2026-01-01T00:00:10.000Z',
      startedAt: '2026-01-01T00:00:00.000Z',
      cause: 'exit',
    });
  });
});
