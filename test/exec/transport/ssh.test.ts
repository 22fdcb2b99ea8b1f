/**
 * SshTransport against a real OpenSSH server on loopback (scripts/sshd/up): the shared
 * battery, host key verification, keys from the environment, and dropped connections.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors.js';
import { SshTransport, type SshTransportOptions } from '../../../src/exec/transport/ssh.js';
import { LinkError } from '../../../src/exec/transport/transport.js';
import { errorOf } from '../../helpers/errors.js';
import { TcpRelay } from '../../helpers/tcp-relay.js';
import { transportBattery } from './battery.js';
import { type Sshd, connectionProcess, sshdCrash, sshdDown, sshdUp } from './sshd.js';

const run = promisify(execFile);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

let sshd: Sshd | undefined;
let transport: SshTransport | undefined;
let scratch: string;
const made: SshTransport[] = [];

/** A transport to the test sshd, pinned and keyed as its env file says, with `over` on top. */
function make(over: Partial<SshTransportOptions> = {}, server: Sshd = sshd!): SshTransport {
  const t = new SshTransport({
    target: server.target,
    hostKeyFingerprint: server.fingerprint,
    keyFile: server.keyFile,
    ...over,
  });
  made.push(t);
  return t;
}

async function newKey(name: string, passphrase = ''): Promise<{ path: string; text: string; pub: string }> {
  const path = join(scratch, name);
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', name, '-f', path]);
  return { path, text: await readFile(path, 'utf8'), pub: await readFile(`${path}.pub`, 'utf8') };
}

/** `host keytype base64` of the test sshd's host key, for known_hosts lines. */
async function hostKeyLine(): Promise<string> {
  return (await readFile(join(sshd!.dir, 'host_ed25519.pub'), 'utf8')).split(' ').slice(0, 2).join(' ');
}

async function knownHosts(name: string, lines: string[]): Promise<string> {
  const path = join(scratch, name);
  await writeFile(path, lines.join('\n') + '\n');
  return path;
}

const port = (): number => Number(sshd!.target.split(':').pop());

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'ssh-transport-'));
  sshd = await sshdUp();
  if (sshd) transport = make();
}, 200_000);

afterAll(async () => {
  await Promise.all(made.map((t) => t.close()));
  await rm(scratch, { recursive: true, force: true });
});

describe('SshTransport', () => {
  transportBattery({ transport: () => transport, home: () => userInfo().homedir });
});

describe("SshTransport: what the server refuses is the user's to fix", () => {
  beforeEach((ctx) => {
    if (!transport) ctx.skip();
  });

  it('a directory to make where a file is: a UserError naming the path and the way out', async () => {
    const file = join(scratch, 'a-file');
    await writeFile(file, 'x');
    const e = await errorOf(transport!.mkdirp(`${file}/sub`));
    expect(e).toBeInstanceOf(UserError);
    expect(e.message).toMatch(/a-file on .* exists and is not a directory \(fix: move that file away/);
  });

  it('a write the server refuses (SFTP status): a UserError, not a bug nor a dropped link', async () => {
    const e = await errorOf(transport!.writeFile('/proc/campaign-test/x', 'y'));
    expect(e).toBeInstanceOf(UserError);
    expect(e).not.toBeInstanceOf(LinkError);
    expect(e.message).toMatch(
      /writeFile \/proc\/campaign-test\/x on .* failed: .*\(fix: check that the login user may write there/,
    );
  });
});

describe('SshTransport host key verification', () => {
  beforeEach((ctx) => {
    if (!sshd) ctx.skip();
  });

  it('accepts the pinned fingerprint, padded or not', async () => {
    expect((await make().exec('echo pinned')).stdout).toBe('pinned\n');
    expect((await make({ hostKeyFingerprint: `${sshd!.fingerprint}=` }).exec('true')).code).toBe(0);
  });

  it('refuses a wrong pinned fingerprint, showing the presented one and how to pin', async () => {
    const wrong = `SHA256:${'A'.repeat(43)}`;
    const relay = await TcpRelay.start(port());
    try {
      const e = await errorOf(
        make({ hostKeyFingerprint: wrong, target: sshd!.target.replace(/:\d+$/, `:${relay.port}`) }).exec('true'),
      );
      expect(e).toBeInstanceOf(UserError);
      expect(e.message).toContain(`pinned fingerprint ${wrong}`);
      expect(e.message).toContain(`presented ssh-ed25519 key ${sshd!.fingerprint}`);
      expect(e.message).toContain(`ssh-keyscan -p ${relay.port} 127.0.0.1 | ssh-keygen -lf -`);
      // A refusal is final: it comes from the first connection, with no reconnect before it.
      expect(relay.accepted).toBe(1);
    } finally {
      await relay.close();
    }
  });

  it('accepts the known_hosts file written by scripts/sshd/up', async () => {
    const t = make({ hostKeyFingerprint: undefined, knownHostsFile: sshd!.knownHosts });
    expect((await t.exec('echo known')).stdout).toBe('known\n');
  });

  it('accepts a hashed known_hosts entry (ssh-keygen -H)', async () => {
    const path = await knownHosts('hashed', [`[127.0.0.1]:${port()} ${await hostKeyLine()}`]);
    await run('ssh-keygen', ['-H', '-f', path]);
    const text = await readFile(path, 'utf8');
    expect(text).toMatch(/^\|1\|/);
    expect(text).not.toContain('127.0.0.1');
    expect((await make({ hostKeyFingerprint: undefined, knownHostsFile: path }).exec('true')).code).toBe(0);
  });

  it('accepts an entry in a comma list among other hosts and comments', async () => {
    const other = await newKey('other-host');
    const path = await knownHosts('list', [
      '# a comment',
      `login.example.org ${other.pub.split(' ').slice(0, 2).join(' ')}`,
      `login.example.org,[127.0.0.1]:${port()},10.0.0.1 ${await hostKeyLine()}`,
    ]);
    expect((await make({ hostKeyFingerprint: undefined, knownHostsFile: path }).exec('true')).code).toBe(0);
  });

  it('refuses a known_hosts file without the host, naming the file and the presented key', async () => {
    // The right key, but for port 22 and another port: neither is this host.
    const path = await knownHosts('elsewhere', [
      `127.0.0.1 ${await hostKeyLine()}`,
      `[127.0.0.1]:1 ${await hostKeyLine()}`,
    ]);
    const e = await errorOf(make({ hostKeyFingerprint: undefined, knownHostsFile: path }).exec('true'));
    expect(e).toBeInstanceOf(UserError);
    expect(e.message).toContain(`${path} has no entry for [127.0.0.1]:${port()}`);
    expect(e.message).toContain(sshd!.fingerprint);
    expect(e.message).toContain(`ssh-keyscan -p ${port()} 127.0.0.1`);
  });

  it('refuses a known_hosts entry with another key for the host', async () => {
    const other = await newKey('impostor');
    const path = await knownHosts('changed', [`[127.0.0.1]:${port()} ${other.pub.split(' ').slice(0, 2).join(' ')}`]);
    const e = await errorOf(make({ hostKeyFingerprint: undefined, knownHostsFile: path }).exec('true'));
    expect(e).toBeInstanceOf(UserError);
    expect(e.message).toMatch(/lists other keys for \[127\.0\.0\.1\]:\d+/);
    expect(e.message).toContain(sshd!.fingerprint);
  });

  it('never accepts through @cert-authority lines, and refuses @revoked keys', async () => {
    const line = `[127.0.0.1]:${port()} ${await hostKeyLine()}`;
    const ca = await knownHosts('ca', [`@cert-authority ${line}`]);
    const e1 = await errorOf(make({ hostKeyFingerprint: undefined, knownHostsFile: ca }).exec('true'));
    expect(e1.message).toContain('has no entry');
    const revoked = await knownHosts('revoked', [line, `@revoked * ${await hostKeyLine()}`]);
    const e2 = await errorOf(make({ hostKeyFingerprint: undefined, knownHostsFile: revoked }).exec('true'));
    expect(e2).toBeInstanceOf(UserError);
    expect(e2.message).toContain('@revoked');
  });

  it('needs every source given to accept the key', async () => {
    const path = await knownHosts('empty', ['# nothing']);
    const e = await errorOf(make({ knownHostsFile: path }).exec('true'));
    expect(e.message).toContain('has no entry');
    const missing = join(scratch, 'no-such-known-hosts');
    const e2 = await errorOf(make({ knownHostsFile: missing }).exec('true'));
    expect(e2).toBeInstanceOf(UserError);
    expect(e2.message).toContain(`cannot read the known_hosts file ${missing}`);
  });

  it('refuses to connect with no fingerprint and no known_hosts: there is no way to skip the check', () => {
    const e = (() => {
      try {
        new SshTransport({ target: sshd!.target, keyFile: sshd!.keyFile });
      } catch (err) {
        return err as Error;
      }
    })();
    expect(e).toBeInstanceOf(UserError);
    expect(e!.message).toContain('no host key to verify');
    expect(e!.message).toContain('ssh-keygen -lf -');
  });

  it('refuses malformed fingerprints and targets with UserErrors', () => {
    for (const fp of ['MD5:aa:bb', 'SHA256:short', 'Ti4c2g0cvd7Q/RA9fkbG0MBfVlo+ts4yGz1JW7DibIQ']) {
      expect(() => make({ hostKeyFingerprint: fp })).toThrow(UserError);
    }
    for (const target of ['127.0.0.1:22', 'root@', 'root@host:0', 'root@host:65536', 'root@host:ssh', 'a b@host']) {
      expect(() => make({ target })).toThrow(/is not of the form user@host:port/);
    }
  });
});

describe('SshTransport private keys', () => {
  beforeEach((ctx) => {
    if (!sshd) ctx.skip();
  });

  /** Every line of `secret` long enough to matter, checked against everything the error carries. */
  function expectNoSecret(e: Error, secret: string): void {
    const shown = [e.message, e.stack ?? '', JSON.stringify(e), JSON.stringify((e as UserError).problems ?? [])].join(
      '\n',
    );
    for (const line of secret.split('\n').filter((l) => l.length >= 8 && !l.startsWith('-----'))) {
      expect(shown).not.toContain(line);
    }
  }

  it('logs in with the key from an environment variable', async () => {
    const env = { CAMPAIGN_TEST_KEY: await readFile(sshd!.keyFile, 'utf8') };
    const t = make({ keyFile: undefined, keyEnv: 'CAMPAIGN_TEST_KEY', env });
    expect((await t.exec('echo from env')).stdout).toBe('from env\n');
  });

  it('names the variable, never the key, when the server refuses that key', async () => {
    const wrong = await newKey('wrong-client');
    const t = make({ keyFile: undefined, keyEnv: 'CAMPAIGN_TEST_KEY', env: { CAMPAIGN_TEST_KEY: wrong.text } });
    const e = await errorOf(t.exec('true'));
    expect(e).toBeInstanceOf(UserError);
    expect(e.message).toContain('did not accept the private key from environment variable CAMPAIGN_TEST_KEY');
    expectNoSecret(e, wrong.text);
  });

  it('never shows the text of an unusable key or its passphrase', async () => {
    const garbage = 'not a key at all: hunter2-correct-horse-battery-staple';
    const e1 = await errorOf(() => make({ keyFile: undefined, keyEnv: 'K', env: { K: garbage } }));
    expect(e1).toBeInstanceOf(UserError);
    expect(e1.message).toContain('environment variable K');
    expectNoSecret(e1, garbage);

    const locked = await newKey('locked', 'open sesame please');
    // The passphrase variable named but unset: the key needs one.
    const e2 = await errorOf(() =>
      make({ keyFile: undefined, keyEnv: 'K', passphraseEnv: 'P', env: { K: locked.text } }),
    );
    expect(e2).toBeInstanceOf(UserError);
    expect(e2.message).toMatch(/no passphrase given.*its passphrase in P/);
    expectNoSecret(e2, locked.text);

    const env = { K: locked.text, P: 'the wrong passphrase' };
    const e3 = await errorOf(() => make({ keyFile: undefined, keyEnv: 'K', passphraseEnv: 'P', env }));
    expect(e3).toBeInstanceOf(UserError);
    expectNoSecret(e3, `${locked.text}\n${env.P}`);
    // With the right passphrase the key is usable (the server does not know it: refused, and still secret).
    const ok = make({ keyFile: undefined, keyEnv: 'K', passphraseEnv: 'P', env: { ...env, P: 'open sesame please' } });
    const e4 = await errorOf(ok.exec('true'));
    expect(e4.message).toContain('did not accept');
    expectNoSecret(e4, `${locked.text}\nopen sesame please`);
  });

  it('asks for exactly one key source, and for the variables it names', async () => {
    expect(() => make({ keyEnv: 'K', env: { K: 'x' } })).toThrow(/exactly one/);
    // Neither, with no agent and no identity files: nothing to log in with, each source said.
    expect(() => make({ keyFile: undefined })).toThrow(/no SSH key to log in to .*no key variable or key file given/);
    expect(() => make({ keyFile: undefined, keyEnv: 'UNSET_KEY', env: {} })).toThrow(/UNSET_KEY .* not set/);
    expect(() => make({ keyFile: join(scratch, 'absent') })).toThrow(/cannot read the SSH private key file/);
    expect(() => make({ keyFile: `${sshd!.keyFile}.pub` })).toThrow(/public key/);
    // A path where the key's text belongs.
    const path = { keyFile: undefined, keyEnv: 'K', env: { K: sshd!.keyFile } };
    expect(() => make(path)).toThrow(/K must hold the key's text, not a path/);
    // An unencrypted key needs no passphrase, even when a passphrase variable is named.
    expect(() => make({ passphraseEnv: 'UNSET_PASSPHRASE', env: {} })).not.toThrow();
  });
});

describe('SshTransport connection', () => {
  beforeEach((ctx) => {
    if (!sshd) ctx.skip();
  });

  it('carries concurrent commands on one connection, beyond the server’s MaxSessions', async () => {
    const t = make();
    const results = await Promise.all(Array.from({ length: 20 }, () => t.exec('echo $SSH_CONNECTION')));
    expect(results.every((r) => r.code === 0)).toBe(true);
    expect(new Set(results.map((r) => r.stdout)).size).toBe(1);
  });

  it('asks again for a session the server refused past its MaxSessions (10) while its own were open: all complete', async () => {
    const t = make({ maxChannels: 20 });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => t.exec(`sleep 0.5; echo ${i}`)));
    expect(results.map((r) => [r.code, r.stdout])).toEqual(Array.from({ length: 20 }, (_, i) => [0, `${i}\n`]));
  });

  it('rejects the command in flight when the connection drops, and reconnects for the next', async () => {
    const t = make();
    const before = (await t.exec('echo $SSH_CONNECTION')).stdout.trim();
    expect(await t.stat('~')).toMatchObject({ isFile: false });
    // The server is this machine: scratch (removed after the tests) is its directory too.
    const marker = `${scratch}/inflight.pid`;
    const inFlight = errorOf(t.exec(`echo $$ > ${marker}; sleep 5; echo finished`));
    let pid: string | undefined;
    while (!pid) pid = await t.readFile(marker);
    // Fault injection: kill the sshd process serving this connection (an ancestor of the
    // command still running on it), and only it.
    process.kill(await connectionProcess(sshd!.dir, Number(pid)), 'SIGKILL');
    const e = await inFlight;
    expect(e).not.toBeInstanceOf(UserError);
    expect(e.message).toMatch(/dropped while `echo` was running.*may or may not have completed/);
    const after = (await t.exec('echo $SSH_CONNECTION')).stdout.trim();
    expect(after).not.toBe(before);
    // A new SFTP session on the new connection.
    expect(await t.stat('~')).toMatchObject({ isFile: false });
    await t.writeFile(`${scratch}/after-reconnect`, 'ok');
    expect(await t.readFile(`${scratch}/after-reconnect`)).toBe('ok');
    expect(t.commandsSent).toBe(3);
  });

  it('refuses commands once closed', async () => {
    const t = make();
    await t.exec('true');
    await t.close();
    await expect(t.exec('true')).rejects.toThrow(/is closed/);
  });
});

describe('SshTransport across a server restart', () => {
  // An sshd of this test's own, so stopping it disturbs no other test.
  const dir = '/tmp/campaign-sshd-restart-test';
  let own: Sshd | undefined;
  beforeAll(async () => {
    if (sshd) own = await sshdUp(dir, 16023);
  }, 200_000);
  afterAll(async () => {
    if (own) await sshdDown(dir);
  });
  beforeEach((ctx) => {
    if (!own) ctx.skip();
  });

  it('reconnects with backoff while the server is down, then gives up after bounded attempts', async () => {
    const t = make({ retryDelaysMs: [200, 400, 800, 1600] }, own);
    expect((await t.exec('echo first')).stdout).toBe('first\n');
    await t.stat('~');
    await sshdCrash(dir);
    // Let the client notice, so the next call is a reconnect rather than a command in flight.
    await sleep(200);
    const started = Date.now();
    const pending = t.exec('echo back');
    await sleep(700);
    await sshdUp(dir, 16023);
    expect((await pending).stdout).toBe('back\n');
    expect(Date.now() - started).toBeGreaterThan(600);
    expect(await t.readFile('~/.campaign-no-such-file')).toBeUndefined();

    await sshdCrash(dir);
    const quick = make({ retryDelaysMs: [50, 100] }, own);
    const e = await errorOf(quick.exec('true'));
    expect(e).toBeInstanceOf(UserError);
    expect(e.message).toContain(`cannot connect to ${own!.target} after 3 attempts`);
    expect(e.message).toContain('ECONNREFUSED');
    await sshdUp(dir, 16023);
    expect((await quick.exec('echo up again')).stdout).toBe('up again\n');
  });
});
