/**
 * A file on this machine written whole: to a temporary name beside it, created exclusively (a
 * symlink planted at that name is never written through), then put in place in one step, so
 * that a reader never sees it half-written.
 */
import { chmod, link, rename, rm, writeFile } from 'node:fs/promises';
import { tempPathFor } from './transport.js';

export interface WholeFileOptions {
  /** The mode asked for, not what the umask leaves of it. */
  mode?: number;
  /**
   * Where a file is there already, keep it and write nothing (a hard link, which fails where
   * the name exists): the first of two writers racing for one name wins. Otherwise replace it.
   */
  keepExisting?: boolean;
}

/** Writes `data` at `path` whole; false where `keepExisting` found a file there, which stays. */
export async function writeWholeFile(
  path: string,
  data: string | Buffer,
  options: WholeFileOptions = {},
): Promise<boolean> {
  const temp = tempPathFor(path);
  try {
    await writeFile(temp, data, { flag: 'wx', ...(options.mode === undefined ? {} : { mode: options.mode }) });
    if (options.mode !== undefined) await chmod(temp, options.mode);
    if (!options.keepExisting) {
      await rename(temp, path);
      return true;
    }
    return await link(temp, path).then(
      () => true,
      (e: NodeJS.ErrnoException) => {
        if (e.code === 'EEXIST') return false;
        throw e;
      },
    );
  } finally {
    await rm(temp, { force: true });
  }
}
