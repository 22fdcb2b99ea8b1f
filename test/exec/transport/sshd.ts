/** The real sshd the SSH transport tests run against (scripts/sshd/up), and fault injection on it. */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCRIPTS = resolve(import.meta.dirname, '../../../scripts/sshd');

export interface Sshd {
  dir: string;
  target: string;
  keyFile: string;
  fingerprint: string;
  knownHosts: string;
}

/**
 * Starts (or finds) the sshd in `dir` on `port` and reads its env file; undefined, with a loud
 * warning, when it cannot start here (the tests then skip).
 */
export async function sshdUp(
  dir = process.env.CAMPAIGN_SSHD_DIR ?? '/tmp/campaign-sshd',
  port = Number(process.env.CAMPAIGN_SSHD_PORT ?? 16022),
): Promise<Sshd | undefined> {
  try {
    await run('bash', [join(SCRIPTS, 'up')], { env: sshdEnv(dir, port), timeout: 180_000 });
    // Source the env file exactly as a shell user would.
    const { stdout } = await run('bash', [
      '-c',
      '. "$1/env" && printf "%s\\0" "$CAMPAIGN_SSH_TARGET" "$CAMPAIGN_SSH_KEY_FILE" "$CAMPAIGN_SSH_FINGERPRINT" "$CAMPAIGN_SSH_KNOWN_HOSTS"',
      '_',
      dir,
    ]);
    const [target, keyFile, fingerprint, knownHosts] = stdout.split('\0');
    return { dir, target: target!, keyFile: keyFile!, fingerprint: fingerprint!, knownHosts: knownHosts! };
  } catch (e) {
    const err = e as Error & { stderr?: string };
    console.warn(
      `\n*** SSH transport tests SKIPPED: scripts/sshd/up could not start an sshd in ${dir} on port ${port}:\n${err.stderr || err.message}\n`,
    );
    return undefined;
  }
}

export async function sshdDown(dir: string): Promise<void> {
  await run('bash', [join(SCRIPTS, 'down')], { env: sshdEnv(dir, 0) });
}

/**
 * The server goes away as a machine does: its listener and every connection it serves. The
 * listener is stopped first, so that no connection it accepts while the others are listed and
 * killed survives the crash (use only on an sshd of one test's own).
 */
export async function sshdCrash(dir: string): Promise<void> {
  const listener = await listenerPid(dir);
  process.kill(listener, 'SIGSTOP');
  for (const pid of await connectionProcesses(dir)) process.kill(pid, 'SIGKILL');
  process.kill(listener, 'SIGKILL');
  await sshdDown(dir);
}

function sshdEnv(dir: string, port: number): NodeJS.ProcessEnv {
  return { ...process.env, CAMPAIGN_SSHD_DIR: dir, CAMPAIGN_SSHD_PORT: String(port) };
}

async function listenerPid(dir: string): Promise<number> {
  return Number((await readFile(join(dir, 'sshd.pid'), 'utf8')).trim());
}

async function parentOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/**
 * The process our sshd forked for one connection: the ancestor of `pid` (a process of that
 * connection's session) whose parent is the listener. Killing it drops that connection only.
 */
export async function connectionProcess(dir: string, pid: number): Promise<number> {
  const listener = await listenerPid(dir);
  for (let p = pid; p > 1;) {
    const parent = await parentOf(p);
    if (parent === listener) return p;
    p = parent;
  }
  throw new Error(`process ${pid} is not served by the sshd in ${dir}`);
}

/** The listener's children: every connection it serves (use only on an sshd of one test's own). */
export async function connectionProcesses(dir: string): Promise<number[]> {
  const listener = await listenerPid(dir);
  const { stdout } = await run('pgrep', ['-P', String(listener)]).catch(() => ({ stdout: '' }));
  return stdout.split('\n').filter(Boolean).map(Number);
}

/** True while `pid` runs (a zombie counts as gone: this machine's init may reap slowly). */
export async function alive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return false;
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}
