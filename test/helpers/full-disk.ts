/** A full disk, for the fault tests of one: a file written until the disk says no more. */
import { open } from 'node:fs/promises';

/** Writes zeros into `file` until its disk is full. */
export async function fillDisk(file: string): Promise<void> {
  const fh = await open(file, 'w');
  const block = Buffer.alloc(4096);
  try {
    for (;;) await fh.write(block);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    await fh.close();
  }
}
