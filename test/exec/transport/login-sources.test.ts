/**
 * Where a login comes from, against the real test sshd: a Host alias of the manifest's
 * ssh_config (through transportFor, as the CLI opens it), keys from a real ssh-agent, the
 * message when there is no key at all, and a second factor (keyboard-interactive through PAM,
 * scripts/sshd/up-2fa) answered by the injected prompt or refused without one.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadCampaign } from '../../../src/app/load.js';
import { transportFor } from '../../../src/app/transport-for.js';
import { UserError } from '../../../src/errors.js';
import type { KeyboardInteractiveRequest } from '../../../src/exec/transport/ssh/auth.js';
import { SshTransport } from '../../../src/exec/transport/ssh.js';
import type { Transport } from '../../../src/exec/transport/transport.js';
import { errorOf } from '../../helpers/errors.js';
import { type Sshd, sshdUp } from './sshd.js';

const run = promisify(execFile);
const TWO_FACTOR_DIR = '/tmp/campaign-sshd-2fa';
const TWO_FACTOR_PORT = 16027;

let sshd: Sshd | undefined;
let scratch: string;
const opened: Transport[] = [];
const port = (): number => Number(sshd!.target.split(':').pop());
const me = userInfo().username;

/** A key the server does not know. */
async function strangerKey(): Promise<string> {
  const path = join(scratch, `stranger-${opened.length}`);
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path]);
  return path;
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'login-sources-'));
  sshd = await sshdUp();
}, 300_000);

afterAll(async () => {
  await Promise.all(opened.map((t) => t.close()));
  await rm(scratch, { recursive: true, force: true });
});

describe('login: a Host alias of the manifest’s ssh_config', () => {
  beforeEach((ctx) => {
    if (!sshd) ctx.skip();
  });

  /** A manifest in its own directory with `cluster` lines under an ssh-gpu cluster, loaded as the CLI does. */
  async function campaignWith(cluster: string, config?: string) {
    const dir = await mkdtemp(join(scratch, 'c-'));
    if (config !== undefined) await writeFile(join(dir, 'my_ssh_config'), config);
    const file = join(dir, 'campaign.yml');
    await writeFile(
      file,
      `campaign: alias
cluster:
  executor: ssh-gpu
${cluster}workdir: ${join(dir, 'work')}
phases:
  - name: p
    command: echo hi > \${output}
    output: o.txt
    walltime: 5m
`,
    );
    return loadCampaign(file);
  }

  it('takes HostName, User, Port and the IdentityFiles in order (a refused one first) from the file', async () => {
    const config = `Host gpu-box
  HostName 127.0.0.1
  User ${me}
  Port ${port()}
  IdentityFile ${await strangerKey()}
  IdentityFile ${sshd!.keyFile}
Host *
  Port 1
`;
    const c = await campaignWith(
      `  login: gpu-box\n  ssh_config: my_ssh_config\n  host_key: ${sshd!.fingerprint}\n`,
      config,
    );
    const t = transportFor(c, {});
    opened.push(t);
    expect((await t.exec('echo "$USER $SSH_CONNECTION"')).stdout.trim()).toMatch(
      new RegExp(`^${me} 127\\.0\\.0\\.1 \\d+ 127\\.0\\.0\\.1 ${port()}$`),
    );
  });

  it('verifies an alias given no host key against the config’s UserKnownHostsFile', async () => {
    const config = `Host gpu-box
  HostName 127.0.0.1
  Port ${port()}
  IdentityFile ${sshd!.keyFile}
  UserKnownHostsFile ${resolve(scratch, 'absent')} ${sshd!.knownHosts}
`;
    const c = await campaignWith('  login: gpu-box\n  ssh_config: my_ssh_config\n', config);
    const t = transportFor(c, {});
    opened.push(t);
    expect((await t.exec('echo ok')).stdout).toBe('ok\n');
  });

  it('refuses an alias the file does not name, and a missing file, naming the file', async () => {
    const c = await campaignWith(
      `  login: typo-box\n  ssh_config: my_ssh_config\n  host_key: ${sshd!.fingerprint}\n`,
      'Host gpu-box\n  HostName 127.0.0.1\n',
    );
    const e = await errorOf(() => transportFor(c, {}));
    expect(e).toBeInstanceOf(UserError);
    expect(e.message).toContain(
      `'typo-box' is neither user@host:port nor a Host of ${join(c.file, '..', 'my_ssh_config')}`,
    );
    const missing = await campaignWith(`  login: gpu-box\n  ssh_config: nowhere\n  host_key: ${sshd!.fingerprint}\n`);
    expect((await errorOf(() => transportFor(missing, {}))).message).toContain(
      'nowhere (ssh_config in the manifest) does not exist',
    );
  });
});

describe('keys from a real ssh-agent', () => {
  let agentPid: number | undefined;
  let socket: string;

  beforeAll(async () => {
    if (!sshd) return;
    socket = join(scratch, 'agent.sock');
    const { stdout } = await run('ssh-agent', ['-s', '-a', socket]);
    agentPid = Number(/SSH_AGENT_PID=(\d+)/.exec(stdout)![1]);
    await run('ssh-add', [sshd.keyFile], { env: { ...process.env, SSH_AUTH_SOCK: socket } });
  });

  afterAll(() => {
    if (agentPid !== undefined) process.kill(agentPid);
  });

  beforeEach((ctx) => {
    if (!sshd) ctx.skip();
  });

  const viaAgent = (agent: string | undefined, identityFiles: string[] = []) => {
    const t = new SshTransport({
      target: sshd!.target,
      hostKeyFingerprint: sshd!.fingerprint,
      identityFiles,
      ...(agent ? { agent } : {}),
      retryDelaysMs: [],
    });
    opened.push(t);
    return t;
  };

  it('logs in with the agent’s key, no key variable or file given', async () => {
    expect((await viaAgent(socket).exec('echo agent')).stdout).toBe('agent\n');
  });

  it('says the agent was tried when the server refuses its keys, then tries the identity files', async () => {
    const other = join(scratch, 'other-agent.sock');
    const { stdout } = await run('ssh-agent', ['-s', '-a', other]);
    const pid = Number(/SSH_AGENT_PID=(\d+)/.exec(stdout)![1]);
    try {
      const stranger = await strangerKey();
      await run('ssh-add', [stranger], { env: { ...process.env, SSH_AUTH_SOCK: other } });
      const e = await errorOf(viaAgent(other).exec('true'));
      expect(e).toBeInstanceOf(UserError);
      expect(e.message).toContain(`did not accept the private key from the ssh-agent at ${other}`);
      // After the agent, the identity files: the right one there logs in.
      expect((await viaAgent(other, [stranger, sshd!.keyFile]).exec('echo files')).stdout).toBe('files\n');
    } finally {
      process.kill(pid);
    }
  });

  it('with no agent and no key, says what it tried', () => {
    const absent = join(scratch, 'no-agent.sock');
    const e = (() => {
      try {
        viaAgent(absent, [join(scratch, 'id_none')]);
      } catch (err) {
        return err as Error;
      }
    })();
    expect(e).toBeInstanceOf(UserError);
    expect(e!.message).toContain(
      `no SSH key to log in to ${sshd!.target} with: no key variable or key file given; no ssh-agent at ${absent}; no key file ${join(scratch, 'id_none')}`,
    );
    expect((e as UserError).problems[0]!.fix).toMatch(/CAMPAIGN_SSH_KEY.*ssh-agent.*IdentityFile/);
  });
});

describe('a second factor (keyboard-interactive after the key, through PAM)', () => {
  let code: string | undefined;

  beforeAll(async () => {
    if (!sshd) return;
    try {
      await run('bash', [resolve(import.meta.dirname, '../../../scripts/sshd/up-2fa')], {
        env: {
          ...process.env,
          CAMPAIGN_SSHD_DIR: TWO_FACTOR_DIR,
          CAMPAIGN_SSHD_PORT: String(TWO_FACTOR_PORT),
          CAMPAIGN_SSHD_MAIN_DIR: sshd.dir,
        },
        timeout: 60_000,
      });
      code = (await readFile(join(TWO_FACTOR_DIR, 'code'), 'utf8')).trim();
    } catch (e) {
      console.warn(
        `\n*** second-factor tests SKIPPED: scripts/sshd/up-2fa failed: ${(e as { stderr?: string }).stderr ?? e}\n`,
      );
    }
  }, 120_000);

  beforeEach((ctx) => {
    if (!sshd || code === undefined) ctx.skip();
  });

  const twoFactor = (prompt?: (r: KeyboardInteractiveRequest) => Promise<string[]>) => {
    const t = new SshTransport({
      target: `${me}@127.0.0.1:${TWO_FACTOR_PORT}`,
      hostKeyFingerprint: sshd!.fingerprint,
      keyFile: sshd!.keyFile,
      retryDelaysMs: [],
      ...(prompt ? { keyboardInteractive: prompt } : {}),
    });
    opened.push(t);
    return t;
  };

  it('asks the injected prompt once per connection, echo off, and logs in with the answer', async () => {
    const asked: KeyboardInteractiveRequest[] = [];
    const t = twoFactor(async (r) => {
      asked.push(r);
      return [code!];
    });
    expect((await t.exec('echo in')).stdout).toBe('in\n');
    expect((await t.exec('echo again')).stdout).toBe('again\n');
    expect(asked).toHaveLength(1);
    expect(asked[0]!.host).toBe(`${me}@127.0.0.1:${TWO_FACTOR_PORT}`);
    expect(asked[0]!.prompts).toEqual([{ prompt: 'Password: ', echo: false }]);
  });

  it('refuses a wrong answer, saying the key was accepted and the second factor was not', async () => {
    const e = await errorOf(twoFactor(async () => ['000']).exec('true'));
    expect(e).toBeInstanceOf(UserError);
    expect(e.message).toContain('accepted the key but not the answer to its second factor');
  });

  it('without a terminal (no prompt), says a second factor was asked and where campaign can run instead', async () => {
    const e = await errorOf(twoFactor().exec('true'));
    expect(e).toBeInstanceOf(UserError);
    expect(e.message).toContain(
      'asks for a second factor (keyboard-interactive) after the key, and there is no terminal',
    );
    expect((e as UserError).problems[0]!.fix).toMatch(/automation node.*self-hosted runner on the login node/);
  });
});
