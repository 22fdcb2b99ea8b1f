/**
 * The test automation node (scripts/automation-node/up): an sshd whose keys are bound to the
 * gate's policies, how to start it and read its env file, OpenSSH clients on it, and the
 * gate's log (scripts/automation-node/gate says what each line holds).
 */
import { execFile, spawn } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { constants } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const SCRIPTS = resolve(import.meta.dirname, '../../scripts/automation-node');

export type Policy = 'all' | 'slurm' | 'transfer';

export interface AutomationNode {
  dir: string;
  /** `user@127.0.0.1:port`, as a manifest's `login` names it. */
  target: string;
  user: string;
  port: number;
  /** The private key bound to each policy. */
  keys: Record<Policy, string>;
  fingerprint: string;
  knownHosts: string;
  /** The gate's log. */
  log: string;
}

/**
 * Starts (or finds) the node in `dir` on `port` and reads its env file; undefined, with a loud
 * warning, when it cannot start here (the tests then skip).
 */
export async function automationNodeUp(
  dir = process.env.CAMPAIGN_AUTOMATION_DIR ?? '/tmp/campaign-automation',
  port = Number(process.env.CAMPAIGN_AUTOMATION_PORT ?? 16030),
): Promise<AutomationNode | undefined> {
  try {
    await run('bash', [join(SCRIPTS, 'up')], { env: nodeEnv(dir, port), timeout: 60_000 });
    // Source the env file exactly as a shell user would.
    const { stdout } = await run('bash', [
      '-c',
      '. "$1/env" && printf "%s\\0" "$CAMPAIGN_AUTOMATION_TARGET" "$CAMPAIGN_AUTOMATION_KEY_ALL" "$CAMPAIGN_AUTOMATION_KEY_SLURM" "$CAMPAIGN_AUTOMATION_KEY_TRANSFER" "$CAMPAIGN_AUTOMATION_FINGERPRINT" "$CAMPAIGN_AUTOMATION_KNOWN_HOSTS" "$CAMPAIGN_AUTOMATION_LOG"',
      '_',
      dir,
    ]);
    const [target, all, slurm, transfer, fingerprint, knownHosts, log] = stdout.split('\0') as string[];
    const at = target!.lastIndexOf(':');
    return {
      dir,
      target: target!,
      user: target!.slice(0, target!.indexOf('@')),
      port: Number(target!.slice(at + 1)),
      keys: { all: all!, slurm: slurm!, transfer: transfer! },
      fingerprint: fingerprint!,
      knownHosts: knownHosts!,
      log: log!,
    };
  } catch (e) {
    const err = e as Error & { stderr?: string };
    console.warn(
      `\n*** automation node tests SKIPPED: scripts/automation-node/up could not start an sshd in ${dir} on port ${port}:\n${err.stderr || err.message}\n`,
    );
    return undefined;
  }
}

export async function automationNodeDown(dir: string): Promise<void> {
  await run('bash', [join(SCRIPTS, 'down')], { env: nodeEnv(dir, 0) });
}

/** `scripts/automation-node/up --check` in `dir`: true when the node is up there. */
export async function automationNodeIsUp(dir: string, port: number): Promise<boolean> {
  return run('bash', [join(SCRIPTS, 'up'), '--check'], { env: nodeEnv(dir, port) }).then(
    () => true,
    () => false,
  );
}

function nodeEnv(dir: string, port: number): NodeJS.ProcessEnv {
  return { ...process.env, CAMPAIGN_AUTOMATION_DIR: dir, CAMPAIGN_AUTOMATION_PORT: String(port) };
}

/**
 * The options of an OpenSSH client (ssh, sftp, scp) logging in with the key of `policy`: no
 * config, no agent's keys, the host key verified against the node's known_hosts. Unless
 * `shared` is false, the clients of one policy share one connection (ControlMaster), as
 * campaign's transport does and as a login costs less than a session; `closeShared` ends
 * those connections. The port is the caller's: ssh takes it as -p, sftp and scp as -P.
 */
export function opensshOptions(node: AutomationNode, policy: Policy, shared = true): string[] {
  const options = [
    '-F',
    '/dev/null',
    '-i',
    node.keys[policy],
    '-o',
    'BatchMode=yes',
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    'StrictHostKeyChecking=yes',
    '-o',
    `UserKnownHostsFile=${node.knownHosts}`,
    '-o',
    'GlobalKnownHostsFile=/dev/null',
  ];
  if (!shared) return options;
  return [
    ...options,
    '-o',
    'ControlMaster=auto',
    '-o',
    `ControlPath=${controlPath(node, policy)}`,
    '-o',
    'ControlPersist=60',
  ];
}

const controlPath = (node: AutomationNode, policy: Policy): string => join(node.dir, `shared-${policy}`);

/**
 * Opens the connections that OpenSSH clients of the node share, one policy after another:
 * clients that start at once with none open race to open one, and the losers say so on stderr.
 */
export async function openShared(node: AutomationNode): Promise<void> {
  for (const policy of ['all', 'slurm', 'transfer'] as const) {
    const r = await ssh(node, policy, 'echo shared');
    if (r.code !== 0) throw new Error(`no shared connection for ${policy}: ${r.stderr}`);
  }
}

/** Ends the connections that OpenSSH clients of the node share. */
export async function closeShared(node: AutomationNode): Promise<void> {
  const policies: Policy[] = ['all', 'slurm', 'transfer'];
  await Promise.all(
    policies.map((p) =>
      runProgram('ssh', ['-F', '/dev/null', '-o', `ControlPath=${controlPath(node, p)}`, '-O', 'exit', 'node']),
    ),
  );
}

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end, however it exits; `stdin` is its whole input. */
export function runProgram(file: string, args: readonly string[], stdin = ''): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'], timeout: 30_000 });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({
        // As a shell reports it: 128 + the signal's number for a killed program.
        code: code ?? 128 + (constants.signals[signal!] ?? 0),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
    // A program may end without reading its input.
    child.stdin.on('error', () => {});
    child.stdin.end(stdin);
  });
}

/**
 * `ssh` to the node with the key of `policy`, asking for `command` (one string: it reaches the
 * gate as SSH_ORIGINAL_COMMAND unchanged), or for no command when it is undefined; `shared`
 * as for `opensshOptions`.
 */
export function ssh(
  node: AutomationNode,
  policy: Policy,
  command: string | undefined,
  opts: { stdin?: string; args?: readonly string[]; shared?: boolean } = {},
): Promise<Ran> {
  const args = [...opensshOptions(node, policy, opts.shared), '-p', String(node.port), ...(opts.args ?? [])];
  args.push(`${node.user}@127.0.0.1`);
  if (command !== undefined) args.push(command);
  return runProgram('ssh', args, opts.stdin);
}

/** `sftp -b -` on the node with the key of `policy`: `batch` is its list of commands. */
export function sftp(node: AutomationNode, policy: Policy, batch: string): Promise<Ran> {
  const args = [...opensshOptions(node, policy), '-P', String(node.port), '-b', '-', `${node.user}@127.0.0.1`];
  return runProgram('sftp', args, batch);
}

/** One line of the gate's log. */
export interface GateLine {
  time: string;
  verdict: 'run' | 'refused';
  policy: Policy;
  /** Why it was refused; '-' for a command that ran. */
  reason: string;
  /** The command as the client asked for it, its newlines written `\n`. */
  command: string;
}

/** Where the gate's log ends now: `gateLog(node, mark)` then reads only what comes after. */
export async function gateLogMark(node: AutomationNode): Promise<number> {
  return (await stat(node.log)).size;
}

/** The gate's log from byte `since`, parsed. */
export async function gateLog(node: AutomationNode, since = 0): Promise<GateLine[]> {
  const text = (await readFile(node.log)).subarray(since).toString('utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [time, verdict, policy, reason, ...command] = line.split('\t');
      return {
        time: time!,
        verdict: verdict as GateLine['verdict'],
        policy: policy as Policy,
        reason: reason!,
        command: command.join('\t'),
      };
    });
}

/**
 * The head of a manifest (campaign, cluster, workdir, defaults) that drives the test cluster
 * through the node: `restricted` as `cluster.restricted` takes it, one partition of the test
 * cluster, small tasks by default.
 */
export function restrictedManifestHead(
  node: AutomationNode,
  name: string,
  workdir: string,
  opts: { restricted?: 'true' | 'slurm'; mem?: string } = {},
): string {
  return `campaign: ${name}
cluster:
  executor: slurm
  name: campaign-test
  login: ${node.target}
  host_key: ${node.fingerprint}
  restricted: ${opts.restricted ?? 'true'}
  partitions:
    - { name: debug, max_time: 30m }
  max_parallel: 6
workdir: ${workdir}
defaults:
  resources: { cpus: 1, mem: ${opts.mem ?? '200M'} }
`;
}
