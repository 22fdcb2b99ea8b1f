/** untar against archives the real GNU tar writes, in its default format and in pax (POSIX). */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { untar } from '../../../src/exec/transport/tar.js';

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'untar-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** GNU tar's archive of `names` (relative to `dir`), as gatherByArchive asks for one. */
function tarOf(dir: string, names: readonly string[], format: string[]): Buffer {
  const r = spawnSync('tar', ['-czf', '-', ...format, '--null', '--no-recursion', '-T', '-'], {
    cwd: dir,
    input: names.map((n) => `./${n}\0`).join(''),
    maxBuffer: 256 * 1024 * 1024,
  });
  expect(r.status, r.stderr.toString()).toBe(0);
  return gunzipSync(r.stdout);
}

// Path segments with spaces, a leading dash, non-ASCII letters and lengths past ustar's 100 bytes.
const segment = fc
  .array(fc.constantFrom('a', 'b', 'Z', '0', '-', '_', '.', ' ', 'é', '日', 'x'), { minLength: 1, maxLength: 70 })
  .map((cs) => cs.join(''))
  .filter((s) => s !== '.' && s !== '..');
const files = fc.uniqueArray(
  fc.record({
    path: fc.array(segment, { minLength: 1, maxLength: 4 }).map((ss) => ss.join('/')),
    data: fc.uint8Array({ maxLength: 3000 }),
  }),
  // No file may be another's directory.
  { selector: (f) => f.path.split('/')[0]!, minLength: 1, maxLength: 8 },
);

describe('untar', () => {
  for (const [label, format] of [
    ['GNU tar default format (long names in L entries)', []],
    ['pax (long names in x records)', ['--format=posix']],
  ] as const) {
    it(`gives back every file, byte for byte: ${label}`, async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(files, async (fs) => {
          const dir = join(scratch, `${label.length}-${run++}`);
          for (const f of fs) {
            await mkdir(dirname(join(dir, f.path)), { recursive: true });
            await writeFile(join(dir, f.path), f.data);
          }
          const got = untar(
            tarOf(
              dir,
              fs.map((f) => f.path),
              [...format],
            ),
          );
          expect(got.map((g) => [g.path, g.data.toString('hex')])).toEqual(
            fs.map((f) => [`./${f.path}`, Buffer.from(f.data).toString('hex')]),
          );
        }),
        { numRuns: 25 },
      );
    });
  }

  it('refuses an archive cut short, naming where', async () => {
    const dir = join(scratch, 'cut');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'big.txt'), 'x'.repeat(5000));
    const whole = tarOf(dir, ['big.txt'], []);
    expect(() => untar(whole.subarray(0, 2048))).toThrow(/ends inside \.\/big\.txt/);
    expect(() => untar(Buffer.from('not a tar archive'.repeat(40)))).toThrow(/not a tar header at byte 0/);
  });
});
