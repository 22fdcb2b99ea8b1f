/**
 * The Slurm submission sent by one controller at a time (render/submit-once.ts), run in real
 * bash with a stand-in `sbatch` that counts the jobs it is given: an attempt already in the
 * ledger is never sent again, whichever group it comes in, and of many controllers sending one
 * attempt at once exactly one sends it.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerRow, parseSubmitOnce, renderSubmitOnce } from '../../src/render/submit-once.js';

let root: string;
let bin: string;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'campaign-submit-once-'));
  root = join(dir, 'root');
  bin = join(dir, 'bin');
  await mkdir(root);
  await mkdir(bin);
  // Job ids from a counter, taken under a lock of the stand-in's own: sbatch's word is the truth.
  await writeFile(
    join(bin, 'sbatch'),
    `#!/usr/bin/env bash\nexec 8>> "${dir}/ids.lock"; flock 8\nn=$(( $(cat "${dir}/ids" 2>/dev/null || echo 100) + 1 ))\necho $n > "${dir}/ids"\necho "$2" >> "${dir}/sent"\necho "$n;cluster"\n`,
  );
  await chmod(join(bin, 'sbatch'), 0o755);
});
afterAll(() => rm(join(root, '..'), { recursive: true, force: true }));

/** The command for submission `key` of these `[index, attempt, task]` rows, from byte `from`. */
function send(key: string, rows: [number, number, string][], from = 0) {
  return new Promise<ReturnType<typeof parseSubmitOnce>>((resolve, reject) => {
    const child = execFile(
      'bash',
      ['-c', renderSubmitOnce(root, key, from)],
      { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } },
      (e, stdout) => (e ? reject(e) : resolve(parseSubmitOnce(stdout))),
    );
    child.stdin!.end(rows.map(([i, a, t]) => `${i}\tdef\t${a}\t${t}\n`).join(''));
  });
}

describe('a Slurm submission sent once', () => {
  it('sends a group none of whose attempts is in the ledger; finds one that overlaps taken, with the rows to adopt', async () => {
    const first = await send('aaa111', [
      [0, 1, 'p/k1'],
      [1, 1, 'p/k2'],
    ]);
    expect(first.outcome).toEqual({ sent: '101' });
    expect(first.rows).toEqual([]);
    // Grouped otherwise by a controller that has read nothing yet: k2 is taken, and said by whom.
    const other = await send('bbb222', [
      [0, 1, 'p/k2'],
      [1, 1, 'p/k3'],
    ]);
    expect(other.outcome).toEqual({ taken: true });
    expect(other.rows.map((r) => `${r.task} ${r.jobId}_${r.index} ${r.key}`)).toEqual([
      'p/k1 101_0 aaa111',
      'p/k2 101_1 aaa111',
    ]);
    // Read past what it has read: only what was sent since, and a new attempt of k2 is its own.
    const retry = await send('ccc333', [[0, 2, 'p/k2']], other.upto);
    expect(retry.outcome).toEqual({ sent: '102' });
    expect(retry.rows).toEqual([]);
    expect((await readFile(join(root, '..', 'sent'), 'utf8')).trim().split('\n')).toEqual([
      'aaa111/job.sh',
      'ccc333/job.sh',
    ]);
  });

  it('sends an attempt once of many controllers sending it at once', async () => {
    const runs = await Promise.all(Array.from({ length: 4 }, (_, i) => send(`d${i}`, [[0, 1, 'q/k9']])));
    expect(runs.filter((r) => r.outcome && 'sent' in r.outcome)).toHaveLength(1);
    expect(runs.filter((r) => r.outcome && 'taken' in r.outcome)).toHaveLength(3);
  });

  it('reads only ledger lines', () => {
    expect(ledgerRow('abc\t12\t3\tdef\t2\tp/k 1')).toEqual({
      key: 'abc',
      jobId: '12',
      index: 3,
      definition: 'def',
      attempt: 2,
      task: 'p/k 1',
    });
    for (const line of ['', '== upto 3', 'abc\t12\t3\tdef\t0\tp', 'xyz\t12\t3\tdef\t1\tp'])
      expect(ledgerRow(line)).toBeUndefined();
  });
});
