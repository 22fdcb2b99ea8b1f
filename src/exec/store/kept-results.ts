/**
 * The results a gathering keeps under the state directory, one file per phase
 * (`results/<phase>.kept.json`), replaced atomically. A file that cannot be read or is not what
 * it should be is said and ignored: the next gathering reads every output again and rewrites it.
 */
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KeptResults } from '../../report/results/gathering.js';

export function keptResultsPath(stateDir: string, phase: string): string {
  return join(stateDir, 'results', `${phase}.kept.json`);
}

export async function loadKeptResults(
  stateDir: string,
  phase: string,
  warn: (message: string) => void,
): Promise<KeptResults | undefined> {
  const path = keptResultsPath(stateDir, phase);
  const text = await readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'ENOENT') warn(`${path} cannot be read (${e.code ?? e.message}): every output is read again`);
    return undefined;
  });
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    warn(`${path} is not JSON (cut short?): every output is read again`);
    return undefined;
  }
  const kept = KeptResults.safeParse(parsed);
  if (kept.success) return kept.data;
  warn(`${path} is not a kept gathering of this version: every output is read again`);
  return undefined;
}

/** Replaces the kept results; a state directory that cannot be written is said, and nothing else fails. */
export async function saveKeptResults(
  stateDir: string,
  phase: string,
  kept: KeptResults,
  warn: (message: string) => void,
): Promise<void> {
  const path = keptResultsPath(stateDir, phase);
  const temp = `${path}.tmp-${process.pid}`;
  try {
    await mkdir(join(stateDir, 'results'), { recursive: true });
    await writeFile(temp, JSON.stringify(kept));
    await rename(temp, path);
  } catch (e) {
    await rm(temp, { force: true }).catch(() => {});
    warn(
      `cannot keep the gathered results in ${path} (${(e as Error).message}): the next gathering reads every output again`,
    );
  }
}
