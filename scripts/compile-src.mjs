// src/ compiled to OUT (default lib/), file by file: esbuild takes the types out (with
// tsconfig.json's target and class fields), about a second where tsc took 13 on a clean
// checkout. The types are checked by `npm run typecheck` (tsc over src/ and test/, with
// isolatedModules, so that a file this cannot compile alone is refused), which the suite runs.
// `npm run build` (scripts/build.mjs) and the Action's bundles (scripts/bundle) both start here.
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const typeScriptIn = (folder) =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return typeScriptIn(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });

/** Compiles src/ into `outdir`, with source maps where asked (lib/ has them; the bundles need none). */
export async function compileSources(outdir, { sourcemap }) {
  await build({
    entryPoints: typeScriptIn(join(root, 'src')),
    outdir,
    outbase: join(root, 'src'),
    format: 'esm',
    platform: 'node',
    target: 'es2022',
    sourcemap,
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await compileSources(resolve(process.argv[2] ?? join(root, 'lib')), { sourcemap: false });
}
