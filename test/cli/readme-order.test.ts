/**
 * The README's two commands in the order it gives them: `npm start` (the quickstart, which
 * leaves its state in examples/.campaign/ and its outputs in .campaign-demo/), then the tests.
 * The tests that read the examples must not find that state. Both run in a copy of the
 * repository's files, so the tree's own examples/ is left as it is.
 */
import { spawn } from 'node:child_process';
import { cp, rm, stat, symlink, utimes } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ensureBuilt, makeTemp, REPO } from '../helpers/cli.js';

/** What `npm start` and the tests below need of the repository (lib/ as built, with its dates). */
const COPIED = [
  'bin',
  'lib',
  'src',
  'test',
  'examples',
  'schema',
  'package.json',
  'tsconfig.json',
  'tsconfig.test.json',
  'vitest.config.ts',
];

let root: string | undefined;
afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

/** Runs a command in `cwd` to its end, with vitest's own variables out of its environment. */
function exec(command: string, args: string[], cwd: string): Promise<{ code: number | null; out: string }> {
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'CAMPAIGN_TEST_GROUP'),
  );
  env.NO_COLOR = '1';
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, out }));
  });
}

it('after `npm start`, the lazy-loading and quickstart tests pass', async () => {
  await ensureBuilt();
  root = await makeTemp('readme-order');
  const copy = root;
  // The tree's own state (an earlier `npm start` there) stays behind: its outputs are not copied.
  for (const path of COPIED)
    await cp(join(REPO, path), join(copy, path), {
      recursive: true,
      preserveTimestamps: true,
      filter: (source) => basename(source) !== '.campaign',
    });
  await symlink(join(REPO, 'node_modules'), join(copy, 'node_modules'));
  // lib/ is the one this run built: dated after the copied sources, the tests there use it as it is.
  const now = new Date();
  await utimes(join(copy, 'lib', 'cli', 'main.js'), now, now);

  const start = await exec('npm', ['start'], copy);
  expect(start.code, start.out).toBe(0);
  // What the tests must not depend on is there.
  expect((await stat(join(copy, 'examples', '.campaign', 'quickstart', 'state.json'))).isFile()).toBe(true);

  const tests = await exec(
    process.execPath,
    [
      join(copy, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      'test/app/lazy-loading.test.ts',
      'test/cli/quickstart.test.ts',
      // One file at a time, with time to spare: this runs inside the suite, beside its other files.
      '--no-file-parallelism',
      '--testTimeout=180000',
      '--hookTimeout=180000',
    ],
    copy,
  );
  expect(tests.code, tests.out).toBe(0);
  expect(tests.out).toMatch(/Test Files\s+2 passed/);
}, 600_000);
