/**
 * ssh2 reads `__dirname` at import, which an ES module bundle does not define. Imported first by
 * the main entry, this defines it (and `__filename`) from the bundle's own URL.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const g = globalThis as { __dirname?: string; __filename?: string };
g.__filename ??= fileURLToPath(import.meta.url);
g.__dirname ??= dirname(g.__filename);
