/**
 * The behaviour every Transport must have, run against each one (SSH to a real sshd, and this
 * machine). Both run their commands on this machine, so the tests may look at /proc.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LinkError, type Transport } from '../../../src/exec/transport/transport.js';
import { alive } from './sshd.js';

export interface Subject {
  /** The transport under test; undefined when it cannot be made here (the tests then skip). */
  transport(): Transport | undefined;
  /** The absolute path `~` means on it. */
  home(): string;
}

/** UTF-8 text that a shell, a quoting bug or a byte-wise split would mangle. */
export const TRICKY =
  'héllo wörld ✓ 日本語 🚀\n"double" \'single\' `tick` $(echo no) $HOME \\back\\slash\n\ttab\r\nCRLF\0nul\n\nend';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(probe: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await probe()) return true;
    await sleep(50);
  }
  return probe();
}

export function transportBattery(subject: Subject): void {
  const t = (): Transport => subject.transport()!;
  // A fresh directory under the home directory for this file's run, named relative to ~.
  const rel = `campaign-transport-test-${process.pid}-${Date.now()}`;
  const dir = `~/${rel}`;
  const abs = (): string => `${subject.home()}/${rel}`;

  beforeEach((ctx) => {
    if (!subject.transport()) ctx.skip();
  });
  beforeAll(async () => {
    await subject.transport()?.mkdirp(dir);
  });
  afterAll(async () => {
    await subject.transport()?.exec(`rm -rf ${abs()}`);
  });

  describe('exec', () => {
    it('returns stdout, stderr and the exit code', async () => {
      const r = await t().exec('echo out; echo err >&2; exit 3');
      expect(r).toEqual({ code: 3, stdout: 'out\n', stderr: 'err\n' });
      expect((await t().exec('true')).code).toBe(0);
    });

    it('runs the command line in bash, from the home directory', async () => {
      const r = await t().exec('[[ -n "$BASH_VERSION" ]] && pwd');
      expect(r).toMatchObject({ code: 0, stdout: `${subject.home()}\n` });
    });

    it('passes stdin and keeps UTF-8 text exact both ways', async () => {
      const r = await t().exec('cat', { stdin: TRICKY });
      expect(r.stdout).toBe(TRICKY);
      const multiline = await t().exec(`x='it'"'"'s'\nif [[ $x == "it's" ]]; then\n  echo "two\nlines"\nfi`);
      expect(multiline.stdout).toBe('two\nlines\n');
    });

    it('reports a command killed by a signal as 128 + its number, as a shell does', async () => {
      expect((await t().exec('kill -TERM $$')).code).toBe(143);
    });

    it('runs 20 commands at once, all to completion', async () => {
      const before = t().commandsSent;
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => t().exec(`sleep 0.2; echo ${i}; cat`, { stdin: `in${i}` })),
      );
      expect(results.map((r) => r.stdout)).toEqual(Array.from({ length: 20 }, (_, i) => `${i}\nin${i}`));
      expect(results.every((r) => r.code === 0)).toBe(true);
      expect(t().commandsSent - before).toBe(20);
    });

    it('rejects a command over its timeout, kills what it started, and stays usable', async () => {
      const started = Date.now();
      // Long enough for a busy machine to start the shell and write the pid before the timeout.
      const error = await t()
        .exec(`sleep 30 & echo $! > ${dir}/sleeper.pid; wait`, { timeoutMs: 2000 })
        .then(
          () => undefined,
          (e: Error) => e,
        );
      // A failed link, which a controller pass rides out, not a user error or a bug.
      expect(error).toBeInstanceOf(LinkError);
      expect(error!.message).toMatch(/`sleep` did not finish within 2000 ms/);
      expect(Date.now() - started).toBeLessThan(6000);
      const pid = Number(await t().readFile(`${dir}/sleeper.pid`));
      expect(pid).toBeGreaterThan(1);
      // Killed at once locally; over SSH by sshd or, at the latest, by the server-side timeout.
      expect(await until(async () => !(await alive(pid)), 5000)).toBe(true);
      expect((await t().exec('echo still here')).stdout).toBe('still here\n');
    });

    it('counts the commands it sent, and only those', async () => {
      const before = t().commandsSent;
      await t().exec('true');
      await t().exec('false');
      await t().stat(dir);
      await t().readFile(`${dir}/nothing`);
      expect(t().commandsSent - before).toBe(2);
    });
  });

  describe('files', () => {
    it('writes and reads back UTF-8 text exactly, through ~/ paths', async () => {
      await t().writeFile(`${dir}/tricky.txt`, TRICKY);
      expect(await t().readFile(`${dir}/tricky.txt`)).toBe(TRICKY);
      // The same bytes as the shell sees them.
      const r = await t().exec(`cat ${abs()}/tricky.txt | od -An -tx1 | tr -d ' \\n'`);
      expect(r.stdout).toBe(Buffer.from(TRICKY, 'utf8').toString('hex'));
      await t().writeFile(`${dir}/empty.txt`, '');
      expect(await t().readFile(`${dir}/empty.txt`)).toBe('');
    });

    it('takes a relative path from the home directory', async () => {
      await t().writeFile(`${rel}/relative.txt`, 'rel\n');
      expect(await t().readFile(`${abs()}/relative.txt`)).toBe('rel\n');
      expect(await t().readFile(`${dir}/relative.txt`)).toBe('rel\n');
    });

    it('reads and stats undefined where nothing is', async () => {
      expect(await t().readFile(`${dir}/missing.txt`)).toBeUndefined();
      expect(await t().stat(`${dir}/missing.txt`)).toBeUndefined();
      expect(await t().stat(`${dir}/missing/deeper.txt`)).toBeUndefined();
    });

    it('stats size in bytes, modification time and kind', async () => {
      const before = Date.now();
      await t().writeFile(`${dir}/sized.txt`, TRICKY);
      const s = await t().stat(`${dir}/sized.txt`);
      expect(s).toMatchObject({ size: Buffer.byteLength(TRICKY), isFile: true });
      // Whole seconds over SFTP.
      expect(s!.mtimeMs).toBeGreaterThan(before - 2000);
      expect(s!.mtimeMs).toBeLessThan(Date.now() + 2000);
      expect(await t().stat(dir)).toMatchObject({ isFile: false });
      expect(await t().stat('~')).toMatchObject({ isFile: false });
    });

    it('makes nested directories, again without complaint, but not over a file', async () => {
      await t().mkdirp(`${dir}/a/b/c`);
      await t().mkdirp(`${dir}/a/b/c/`);
      await t().writeFile(`${dir}/a/b/c/f.txt`, 'x');
      expect(await t().readFile(`${dir}/a/b/c/f.txt`)).toBe('x');
      await Promise.all([t().mkdirp(`${dir}/p/q/r`), t().mkdirp(`${dir}/p/q/s`), t().mkdirp(`${dir}/p/q`)]);
      expect((await t().exec(`ls ${abs()}/p/q`)).stdout).toBe('r\ns\n');
      await expect(t().mkdirp(`${dir}/a/b/c/f.txt/d`)).rejects.toThrow();
      await expect(t().mkdirp(`${dir}/a/b/c/f.txt`)).rejects.toThrow();
    });

    it('sets exactly the mode asked for, whatever the umask', async () => {
      await t().writeFile(`${dir}/secret`, 's', { mode: 0o600 });
      await t().writeFile(`${dir}/script`, '#!/bin/sh\necho ran\n', { mode: 0o775 });
      const r = await t().exec(`stat -c %a ${abs()}/secret ${abs()}/script && ${abs()}/script`);
      expect(r.stdout).toBe('600\n775\nran\n');
    });

    it('replaces a file atomically: readers see the old or the new text, never a part', async () => {
      const path = `${dir}/big.txt`;
      const a = 'a'.repeat(3 * 1024 * 1024) + '\n';
      const b = 'ß'.repeat(2 * 1024 * 1024) + '\n';
      await t().writeFile(path, a);
      let done = false;
      const write = t()
        .writeFile(path, b)
        .finally(() => (done = true));
      const seen = new Set<string>();
      while (!done) {
        const [text, s] = await Promise.all([t().readFile(path), t().stat(path)]);
        expect(text === a || text === b).toBe(true);
        expect([Buffer.byteLength(a), Buffer.byteLength(b)]).toContain(s!.size);
        seen.add(text === a ? 'a' : 'b');
      }
      await write;
      expect(await t().readFile(path)).toBe(b);
      expect(seen.size).toBeGreaterThan(0);
      // Nothing but the files the tests made: no temporary file left behind.
      const ls = await t().exec(`ls -A ${abs()}`);
      expect(ls.stdout.split('\n').filter((n) => n.includes('tmp'))).toEqual([]);
    });

    it('fails a write into a missing directory and leaves nothing behind', async () => {
      await expect(t().writeFile(`${dir}/no/such/dir/f.txt`, 'x')).rejects.toThrow();
      expect(await t().stat(`${dir}/no`)).toBeUndefined();
    });

    it('refuses to read a file over maxBytes', async () => {
      await t().writeFile(`${dir}/ten.txt`, '0123456789');
      expect(await t().readFile(`${dir}/ten.txt`, { maxBytes: 10 })).toBe('0123456789');
      await expect(t().readFile(`${dir}/ten.txt`, { maxBytes: 9 })).rejects.toThrow(/10 bytes, more than the 9/);
    });
  });
}
