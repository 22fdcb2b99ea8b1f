// npm run build: src/ compiled to lib/ (scripts/compile-src.mjs), then the CLI bundled from it
// into lib/bundle/.
//
// The CLI as one bundle, lib/bundle/main.js: `node bin/campaign.js` then starts without resolving
// and reading some 300 modules (ours, zod's and yaml's), about 0.2 s of CPU less on every
// command. Imports made at run time stay chunks of their own (--splitting), read only by the
// commands that need them; ssh2 stays a package (its optional native parts are found at run
// time). The bundle sits two folders below the package's root, as every module of lib/ does, so
// the paths they find from import.meta.url (package.json, schema/, lib/release.json) hold in it.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { compileSources } from './compile-src.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lib = join(root, 'lib');
await compileSources(lib, { sourcemap: true });

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
