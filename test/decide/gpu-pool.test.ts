/** Placement across a pool of GPU servers (decide/gpu.ts `placeInPool`): pure, no server. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { placeInPool, type GpuStatus, type ServerGpus } from '../../src/decide/gpu.js';

const free = (uuids: readonly string[]): GpuStatus[] => uuids.map((uuid, index) => ({ index, uuid, free: true }));
const server = (name: string, uuids: readonly string[], slots = Infinity): ServerGpus => ({
  server: name,
  status: free(uuids),
  slots,
});

describe('placeInPool', () => {
  it('gives each request all its GPUs on one server or none, only free GPUs, none twice, within each server’s slots', () => {
    const pool = fc.array(
      fc.record({
        gpus: fc.array(fc.boolean(), { maxLength: 5 }),
        slots: fc.oneof(fc.constant(Infinity), fc.nat(4)),
      }),
      { minLength: 1, maxLength: 4 },
    );
    const requests = fc.array(fc.record({ gpus: fc.integer({ min: 1, max: 3 }), avoid: fc.nat(3) }), { maxLength: 12 });
    fc.assert(
      fc.property(pool, requests, (servers, reqs) => {
        const given: ServerGpus[] = servers.map((s, i) => ({
          server: `s${i}`,
          slots: s.slots,
          status: s.gpus.map((isFree, index) => ({ index, uuid: `s${i}-g${index}`, free: isFree })),
        }));
        const placed = placeInPool(
          reqs.map((r, i) => ({ key: String(i), gpus: r.gpus, avoid: [{ server: 's0', uuid: `s0-g${r.avoid}` }] })),
          given,
        );
        const taken = [...placed.values()].flatMap((p) => p.gpus);
        expect(new Set(taken).size).toBe(taken.length);
        for (const [key, p] of placed) {
          expect(p.gpus).toHaveLength(reqs[Number(key)]!.gpus);
          const s = given.find((g) => g.server === p.server)!;
          for (const u of p.gpus) expect(s.status.find((g) => g.uuid === u)?.free).toBe(true);
        }
        for (const s of given) {
          expect([...placed.values()].filter((p) => p.server === s.server).length).toBeLessThanOrEqual(s.slots);
        }
      }),
    );
  });

  it('spreads tasks over the servers: eight one-GPU tasks on two four-GPU servers, four each', () => {
    const placed = placeInPool(
      Array.from({ length: 8 }, (_, i) => ({ key: String(i), gpus: 1, avoid: [] })),
      [server('a', ['a0', 'a1', 'a2', 'a3']), server('b', ['b0', 'b1', 'b2', 'b3'])],
    );
    const on = [...placed.values()].map((p) => p.server);
    expect(on.filter((s) => s === 'a')).toHaveLength(4);
    expect(on.filter((s) => s === 'b')).toHaveLength(4);
  });

  it('sends a retried task to another server’s free GPU when its own server has no other', () => {
    const placed = placeInPool(
      [{ key: 'oom', gpus: 1, avoid: [{ server: 'a', uuid: 'a0' }] }],
      [server('a', ['a0']), server('b', ['b0'])],
    );
    expect(placed.get('oom')).toEqual({ server: 'b', gpus: ['b0'] });
  });

  it('takes the avoided GPU when it is the only free one in the pool', () => {
    const placed = placeInPool(
      [{ key: 'oom', gpus: 1, avoid: [{ server: 'a', uuid: 'a0' }] }],
      [server('a', ['a0']), server('b', [])],
    );
    expect(placed.get('oom')).toEqual({ server: 'a', gpus: ['a0'] });
  });

  it('keeps a task waiting that no single server can hold, though the pool has the GPUs in all', () => {
    const placed = placeInPool(
      [{ key: 'wide', gpus: 3, avoid: [] }],
      [server('a', ['a0', 'a1']), server('b', ['b0', 'b1'])],
    );
    expect(placed.size).toBe(0);
  });

  it('places nothing on a server whose slots are used up', () => {
    const placed = placeInPool(
      [
        { key: '1', gpus: 1, avoid: [] },
        { key: '2', gpus: 1, avoid: [] },
      ],
      [server('a', ['a0', 'a1', 'a2'], 0), server('b', ['b0'], 1)],
    );
    expect([...placed.values()]).toEqual([{ server: 'b', gpus: ['b0'] }]);
  });
});
