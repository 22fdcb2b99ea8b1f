/**
 * The committed dist/ is what the sources build: scripts/bundle builds into a temp directory,
 * and every file must be there, byte for byte, with nothing extra on either side.
 */
import { spawnSync } from 'node:child_process';
import { readFile, readdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { REPO, makeTemp } from '../helpers/cli.js';

async function files(root: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) await walk(path);
      else out.set(relative(root, path), await readFile(path));
    }
  };
  await walk(root);
  return out;
}

test('dist/ equals a fresh build (npm run bundle and commit dist/ when this fails)', { timeout: 600_000 }, async () => {
  const temp = await makeTemp('dist');
  onTestFinished(() => rm(temp, { recursive: true, force: true }));
  const fresh = join(temp, 'dist');
  const r = spawnSync('bash', [join(REPO, 'scripts/bundle'), fresh], { cwd: REPO, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  const built = await files(fresh);
  const committed = await files(join(REPO, 'dist'));
  expect([...committed.keys()].sort()).toEqual([...built.keys()].sort());
  expect(built.get('package.json')?.toString()).toBe('{"type":"module"}\n');
  const differing = [...built].filter(([name, bytes]) => !committed.get(name)?.equals(bytes)).map(([name]) => name);
  expect(differing).toEqual([]);
});
