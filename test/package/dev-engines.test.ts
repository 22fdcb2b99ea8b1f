/**
 * The development install is clean on the Node the README names (20 or newer): no package of the
 * lock file, dev dependencies included, asks for a newer Node, so `npm ci` warns of none
 * (EBADENGINE). A dependency that moves to Node 22 is pinned back through `overrides`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { REPO } from '../helpers/cli.js';

// npm's own range matching (semver is in the tree through npm's tools and eslint's).
const semver = createRequire(import.meta.url)('semver') as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
};

it('every package of the lock file, dev dependencies included, runs on Node 20', () => {
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { engines: { node: string } };
  const oldest = semver.minVersion(pkg.engines.node)!.version;
  // Node 20's current release: ">=20.0.0" in a dependency would be met by it, not by 20.0.0 alone.
  const node20 = '20.19.0';
  expect(oldest.startsWith('20.')).toBe(true);
  const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
  };
  const refused = Object.entries(lock.packages).flatMap(([path, p]) => {
    const wanted = Array.isArray(p.engines) ? undefined : p.engines?.node;
    return wanted === undefined || semver.satisfies(node20, wanted) ? [] : [`${path}@${p.version}: node ${wanted}`];
  });
  expect(refused).toEqual([]);
});
