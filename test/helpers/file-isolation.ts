/**
 * Test files share their worker's loaded modules (`isolate: false`, vitest.config.ts): loading
 * them again for every file cost about a CPU-second a file. What a file changes of the process
 * (its environment, working directory, spies and stubs, fake timers) is put back when it ends,
 * so the next file in the worker starts as it would alone.
 */
import { afterAll, vi } from 'vitest';

const environment = { ...process.env };
const directory = process.cwd();

afterAll(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  for (const name of Object.keys(process.env)) if (!(name in environment)) Reflect.deleteProperty(process.env, name);
  Object.assign(process.env, environment);
  process.chdir(directory);
});
