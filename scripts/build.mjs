// npm run build: src/ compiled to lib/, then the CLI bundled from it into lib/bundle/.
//
// Compiling only takes the types out, file by file (esbuild, with tsconfig.json's target and
// class fields): about a second where tsc took 13 on a clean checkout. The types are checked by
// `npm run typecheck` (tsc over src/ and test/), which the test suite runs.
//
// The CLI as one bundle, lib/bundle/main.js: `node bin/campaign.js` then starts without resolving
// and reading some 300 modules (ours, zod's and yaml's), about 0.2 s of CPU less on every
// command. Imports made at run time stay chunks of their own (--splitting), read only by the
// commands that need them; ssh2 stays a package (its optional native parts are found at run
// time). The bundle sits two folders below the package's root, as every module of lib/ does, so
// the paths they find from import.meta.url (package.json, schema/, lib/release.json) hold in it.
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lib = join(root, 'lib');
const typeScriptIn = (folder) =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return typeScriptIn(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
const sources = typeScriptIn(join(root, 'src'));
await build({
  entryPoints: sources,
  outdir: lib,
  outbase: join(root, 'src'),
  format: 'esm',
  platform: 'node',
  target: 'es2022',
  sourcemap: true,
  logLevel: 'warning',
});

const out = join(lib, 'bundle');
// Chunks are named by their content: those of an earlier build would stay beside the new ones.
rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: [join(lib, 'cli', 'main.js')],
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['ssh2'],
  chunkNames: 'chunk-[hash]',
  // yaml is CommonJS and requires Node's modules; an ES module bundle has no require of its own.
  banner: {
    js: "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
