/**
 * Through a bastion: a second real sshd on loopback is the jump host to the main one (the test
 * cluster's login node). Both host keys are verified, given in the transport's options or read
 * from an SSH config's ProxyJump and known_hosts; and the CLI runs a campaign on the real
 * cluster with `login:` an alias whose ProxyJump is that bastion.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors.js';
import { readSshConfig, resolveAccess } from '../../../src/exec/transport/ssh-config.js';
import { SshTransport, type SshTransportOptions } from '../../../src/exec/transport/ssh.js';
import type { SshHop } from '../../../src/exec/transport/ssh/connect.js';
import { LinkError } from '../../../src/exec/transport/transport.js';
import { readState, runCli, useBuiltCliAndTemp, waitUntil, writeManifest } from '../../helpers/cli.js';
import { errorOf } from '../../helpers/errors.js';
import { clusterIsUp } from '../../helpers/slurm-cluster.js';
import { type Sshd, alive, connectionProcesses, sshdUp } from './sshd.js';

const JUMP_DIR = '/tmp/campaign-sshd-jump';
const JUMP_PORT = 16025;
/** Another sshd's fingerprint: a key neither server has. */
const WRONG = 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

const clusterUp = clusterIsUp('ProxyJump campaign on the cluster');
const tempRoot = useBuiltCliAndTemp('jump');
let login: Sshd | undefined;
let jump: Sshd | undefined;
const made: SshTransport[] = [];

const port = (s: Sshd): number => Number(s.target.split(':').pop());
const hostKeyLine = async (s: Sshd): Promise<string> =>
  `[127.0.0.1]:${port(s)} ${(await readFile(join(s.dir, 'host_ed25519.pub'), 'utf8')).split(' ').slice(0, 2).join(' ')}`;

/** Logins the bastion's sshd has logged so far. */
const loginsOnBastion = async (): Promise<number> =>
  (await readFile(join(JUMP_DIR, 'sshd.log'), 'utf8')).split('\n').filter((l) => l.includes('Accepted publickey'))
    .length;

/** To the login sshd through the jump sshd, both pinned, with the login's client key for both. */
function through(over: Partial<SshTransportOptions> = {}, hop: Partial<SshHop> = {}): SshTransport {
  const t = new SshTransport({
    target: login!.target,
    hostKeyFingerprint: login!.fingerprint,
    keyFile: login!.keyFile,
    jumps: [{ target: jump!.target, hostKeyFingerprint: jump!.fingerprint, ...hop }],
    retryDelaysMs: [200],
    ...over,
  });
  made.push(t);
  return t;
}

beforeAll(async () => {
  [login, jump] = await Promise.all([sshdUp(), sshdUp(JUMP_DIR, JUMP_PORT)]);
  if (!login || !jump) return;
  // The bastion accepts the login's client key too: every hop logs in with the same keys, as with ProxyJump.
  const keys = await Promise.all([jump, login].map((s) => readFile(`${s.keyFile}.pub`, 'utf8')));
  await writeFile(join(JUMP_DIR, 'authorized_keys'), keys.join(''));
}, 300_000);

afterAll(async () => {
  await Promise.all(made.map((t) => t.close()));
});

describe('SshTransport through a jump host', () => {
  beforeEach((ctx) => {
    if (!login || !jump) ctx.skip();
  });

  it('reaches the login through the bastion, both host keys pinned, and close() ends every hop', async () => {
    const t = through();
    const r = await t.exec('echo "$SSH_CONNECTION"');
    expect(r.code).toBe(0);
    // The login sees the connection come from the bastion's forward, to its own port.
    expect(r.stdout.trim().split(' ').pop()).toBe(String(port(login!)));
    const onJump = await connectionProcesses(JUMP_DIR);
    expect(onJump).toHaveLength(1);
    await t.close();
    await waitUntil(
      'the bastion’s connection to end',
      async () => ((await alive(onJump[0]!)) ? undefined : true),
      10_000,
    );
  });

  it('refuses a wrong key at the bastion, naming that hop; and at the login, naming the login', async () => {
    const atJump = await errorOf(through({}, { hostKeyFingerprint: WRONG }).exec('true'));
    expect(atJump).toBeInstanceOf(UserError);
    expect(atJump.message).toMatch(
      new RegExp(`^jump host 1 of 1 \\(${userInfo().username}@127\\.0\\.0\\.1:${JUMP_PORT}\\)`),
    );
    expect(atJump.message).toContain(
      `host key of 127.0.0.1:${JUMP_PORT} does not match the pinned fingerprint ${WRONG}`,
    );
    const atLogin = await errorOf(through({ hostKeyFingerprint: WRONG }).exec('true'));
    expect(atLogin).toBeInstanceOf(UserError);
    expect(atLogin.message).toContain(`host key of 127.0.0.1:${port(login!)} does not match`);
    expect(atLogin.message).not.toContain('jump host');
  });

  it('refuses a bastion with no host key source before connecting', () => {
    expect(() => through({}, { hostKeyFingerprint: undefined })).toThrow(/no host key to verify jump host 1 of 1/);
  });

  it('drops the connection when the bastion drops it, and reconnects for the next command', async () => {
    const t = through();
    expect((await t.exec('echo one')).stdout).toBe('one\n');
    const running = t.exec('sleep 30');
    await waitUntil(
      'a connection on the bastion',
      async () => ((await connectionProcesses(JUMP_DIR)).length ? true : undefined),
      10_000,
    );
    for (const pid of await connectionProcesses(JUMP_DIR)) process.kill(pid, 'SIGKILL');
    const e = await errorOf(running);
    expect(e).toBeInstanceOf(LinkError);
    expect(e.message).toContain('dropped');
    expect((await t.exec('echo two')).stdout).toBe('two\n');
  });

  it('follows a ProxyJump from an SSH config, both hosts verified against its known_hosts', async () => {
    const dir = join(tempRoot(), 'config');
    await mkdir(dir, { recursive: true });
    const knownHosts = join(dir, 'known_hosts');
    await writeFile(knownHosts, `${await hostKeyLine(login!)}\n${await hostKeyLine(jump!)}\n`);
    const config = join(dir, 'ssh_config');
    await writeFile(
      config,
      `Host cluster
  HostName 127.0.0.1
  Port ${port(login!)}
  ProxyJump bastion
Host bastion
  HostName 127.0.0.1
  Port ${port(jump!)}
Host *
  IdentityFile ${login!.keyFile}
  UserKnownHostsFile ${knownHosts}
`,
    );
    const local = { home: dir, localUser: userInfo().username, uid: userInfo().uid };
    const hops = resolveAccess({ login: 'cluster' }, readSshConfig(config, dir), local);
    const target = hops.pop()!;
    const t = new SshTransport({ ...target, jumps: hops });
    made.push(t);
    expect((await t.exec('echo via config')).stdout).toBe('via config\n');
    await t.close();

    // Without the bastion's line, that hop is refused, by its name in the config.
    await writeFile(knownHosts, `${await hostKeyLine(login!)}\n`);
    const refused = new SshTransport({ ...target, jumps: hops });
    made.push(refused);
    const e = await errorOf(refused.exec('true'));
    expect(e).toBeInstanceOf(UserError);
    expect(e.message).toContain(`jump host 1 of 1 (bastion, ${userInfo().username}@127.0.0.1:${JUMP_PORT})`);
    expect(e.message).toContain(`${knownHosts} has no entry for [127.0.0.1]:${JUMP_PORT}`);
  });
});

describe.runIf(clusterUp)('campaign run with login: an alias behind a ProxyJump', () => {
  it('runs a one-task campaign on the cluster through the bastion, keys and known_hosts from the config', async (ctx) => {
    if (!login || !jump) return ctx.skip();
    const dir = join(tempRoot(), 'cli');
    const workdir = join(dir, 'work');
    await mkdir(workdir, { recursive: true });
    await writeFile(join(dir, 'known_hosts'), `${await hostKeyLine(login)}\n${await hostKeyLine(jump)}\n`);
    await writeFile(
      join(dir, 'ssh_config'),
      `Host test-login
  HostName 127.0.0.1
  Port ${port(login)}
  ProxyJump test-bastion
Host test-bastion
  HostName 127.0.0.1
  Port ${port(jump)}
Host test-*
  IdentityFile ${login.keyFile}
  UserKnownHostsFile ${join(dir, 'known_hosts')}
`,
    );
    const name = `jump-${Date.now().toString(36)}`;
    const manifest = await writeManifest(
      dir,
      `campaign: ${name}
cluster:
  executor: slurm
  name: campaign-test
  login: test-login
  ssh_config: ssh_config
  partitions:
    - { name: debug, max_time: 30m }
workdir: ${workdir}
defaults:
  resources: { cpus: 1, mem: 200M }
phases:
  - name: p
    command: hostname > \${output}
    output: out.txt
    walltime: 5m
`,
    );
    // No key variable and no agent: the keys are the config's IdentityFile.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('CAMPAIGN_SSH_') && k !== 'SSH_AUTH_SOCK'),
    );
    const stateDir = join(dir, 'state');
    const before = await loginsOnBastion();
    const r = await runCli(['run', manifest, '--state-dir', stateDir, '--poll', '1'], { env, timeoutMs: 300_000 });
    expect(r.code, r.stderr).toBe(0);
    const state = await readState(stateDir);
    expect(Object.values(state.tasks).map((t) => t.status)).toEqual(['completed']);
    expect(await loginsOnBastion()).toBeGreaterThan(before);
  }, 360_000);
});
