/** Watching a process by its pid, with its identity checked (a pid can be reused). */
import { readFile } from 'node:fs/promises';

/**
 * True when `pid` is alive and is the process we started: its command line names our
 * script. A zombie counts as gone (this machine's init may reap slowly).
 */
export async function processAlive(pid: number, script: string): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return false;
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  if (state === 'Z' || state === 'X') return false;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return cmdline.split('\0').includes(script);
}

/** Polls `probe` until it yields a value or `timeoutMs` passes. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 20,
): Promise<T | undefined> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined || Date.now() >= end) return v;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
