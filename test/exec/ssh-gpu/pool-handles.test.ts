/** How a pool's attempt handles name their server, and what is said of one outside the pool: no server needed. */
import { describe, expect, it } from 'vitest';
import { gpusOfHandle, notAnswering, outOfPoolReason, serverOfHandle } from '../../../src/exec/ssh-gpu/server.js';

describe('pool handles', () => {
  const pool = new Set(['lab@gpu1:22', 'gpu2']);

  it('name the server before the pid, and the GPUs are read as from a single server’s handle', () => {
    const h = 'server:lab@gpu1:22 pid:4242 gpu:GPU-a,GPU-b';
    expect(serverOfHandle(h)).toBe('lab@gpu1:22');
    expect(gpusOfHandle(h)).toEqual(['GPU-a', 'GPU-b']);
    expect(outOfPoolReason(h, pool)).toBeUndefined();
    expect(serverOfHandle('pid:4242 gpu:GPU-a')).toBeUndefined();
  });

  it('an attempt on a server the pool no longer lists, or started without a pool, is said to be out of it', () => {
    expect(outOfPoolReason('server:gpu3 pid:1 gpu:-', pool)).toBe('its server gpu3 is no longer in cluster.servers');
    expect(outOfPoolReason('pid:1 gpu:-', pool)).toMatch(/names no server of cluster\.servers/);
  });

  it('a server that does not answer is said with the first line of why, and what waits for it', () => {
    expect(notAnswering('gpu2', 'connect ECONNREFUSED\nmore', 3)).toBe(
      'gpu2 does not answer (connect ECONNREFUSED); its 3 task(s) are looked at again when it does, and no task starts there until then',
    );
    expect(notAnswering('gpu2', 'down', 0)).toBe('gpu2 does not answer (down); no task starts there until then');
  });
});
