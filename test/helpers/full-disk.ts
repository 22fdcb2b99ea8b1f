/**
 * Full disks for the fault tests: small tmpfs disks a test file mounts (which needs root;
 * elsewhere the test says loudly that it skips), unmounted when the file ends, and a file
 * written until the disk says no more.
 */
import { execFileSync } from 'node:child_process';
import { open } from 'node:fs/promises';
import { afterAll } from 'vitest';

/** A mounter of tmpfs disks for this test file: false (with the warning) where none can be mounted. */
export function smallDisks(test: string): (dir: string, size: string) => boolean {
  const mounted: string[] = [];
  afterAll(() => {
    for (const dir of mounted) execFileSync('umount', ['-l', dir]);
  });
  return (dir, size) => {
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
      mounted.push(dir);
      return true;
    } catch (e) {
      console.warn(`\n*** ${test} SKIPPED: cannot mount a tmpfs here (needs root): ${(e as Error).message} ***\n`);
      return false;
    }
  };
}

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
