/** Host key checks and known_hosts parsing, against keys and files made by OpenSSH's own tools. */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors.js';
import {
  type HostKeySource,
  checkHostKey,
  fingerprint,
  hostKeyAlgorithms,
  normalizeFingerprint,
} from '../../../src/exec/transport/host-key.js';
import { blobType, knownHostsName, lookupKnownHosts } from '../../../src/exec/transport/known-hosts.js';
import { parseTarget } from '../../../src/exec/transport/target.js';

const run = promisify(execFile);

interface Key {
  type: string;
  b64: string;
  blob: Buffer;
  /** What `ssh-keygen -lf` prints for it. */
  sshKeygenFingerprint: string;
}

let dir: string;
const keys: Record<'ed25519' | 'ecdsa' | 'rsa' | 'other', Key> = {} as never;

async function makeKey(name: string, type: string, bits: string[] = []): Promise<Key> {
  const path = join(dir, name);
  await run('ssh-keygen', ['-q', '-t', type, ...bits, '-N', '', '-f', path]);
  const [t, b64] = (await readFile(`${path}.pub`, 'utf8')).split(' ');
  const { stdout } = await run('ssh-keygen', ['-lf', `${path}.pub`]);
  return { type: t!, b64: b64!, blob: Buffer.from(b64!, 'base64'), sshKeygenFingerprint: stdout.split(' ')[1]! };
}

/** known_hosts text from lines. */
const kh = (...lines: string[]): string => lines.join('\n') + '\n';
const line = (hosts: string, k: Key): string => `${hosts} ${k.type} ${k.b64}`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'host-key-'));
  keys.ed25519 = await makeKey('ed', 'ed25519');
  keys.ecdsa = await makeKey('ec', 'ecdsa', ['-b', '384']);
  keys.rsa = await makeKey('rsa', 'rsa', ['-b', '2048']);
  keys.other = await makeKey('other', 'ed25519');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('fingerprint', () => {
  it('is exactly what ssh-keygen -lf prints, for every key type', () => {
    for (const k of [keys.ed25519, keys.ecdsa, keys.rsa]) expect(fingerprint(k.blob)).toBe(k.sshKeygenFingerprint);
  });

  it('reads the key type inside a blob', () => {
    expect(blobType(keys.ed25519.blob)).toBe('ssh-ed25519');
    expect(blobType(keys.ecdsa.blob)).toBe('ecdsa-sha2-nistp384');
    expect(blobType(keys.rsa.blob)).toBe('ssh-rsa');
    expect(blobType(Buffer.from([0, 0]))).toBeUndefined();
  });

  it('accepts pins as ssh-keygen prints them, padded or not, and nothing else', () => {
    const fp = keys.ed25519.sshKeygenFingerprint;
    expect(normalizeFingerprint(fp)).toBe(fp);
    expect(normalizeFingerprint(` ${fp}= `)).toBe(fp);
    expect(() => normalizeFingerprint(fp.slice('SHA256:'.length))).toThrow(UserError);
    expect(() => normalizeFingerprint('MD5:12:34')).toThrow(UserError);
  });
});

describe('known_hosts lookup', () => {
  it('names hosts as ssh does: plain on port 22, [host]:port otherwise, lowercased', () => {
    expect(knownHostsName('Login.Example.org', 22)).toBe('login.example.org');
    expect(knownHostsName('10.0.0.1', 2222)).toBe('[10.0.0.1]:2222');
  });

  it('finds plain, bracketed and comma-listed entries, and only for their port', () => {
    const text = kh(
      '# comment',
      '',
      line('login.example.org', keys.ed25519),
      line('[login.example.org]:2222,other.example.org', keys.ecdsa),
    );
    expect(lookupKnownHosts(text, 'login.example.org', 22).keys.map((k) => k.type)).toEqual(['ssh-ed25519']);
    expect(lookupKnownHosts(text, 'LOGIN.example.org', 2222).keys.map((k) => k.type)).toEqual(['ecdsa-sha2-nistp384']);
    expect(lookupKnownHosts(text, 'other.example.org', 22).keys).toHaveLength(1);
    expect(lookupKnownHosts(text, 'other.example.org', 2222).keys).toHaveLength(0);
    expect(lookupKnownHosts(text, 'example.org', 22).keys).toHaveLength(0);
  });

  it('matches wildcards and honours negated patterns', () => {
    const text = kh(line('*.example.org,!bad.example.org', keys.ed25519), line('node?', keys.rsa));
    expect(lookupKnownHosts(text, 'login.example.org', 22).keys).toHaveLength(1);
    expect(lookupKnownHosts(text, 'bad.example.org', 22).keys).toHaveLength(0);
    expect(lookupKnownHosts(text, 'node1', 22).keys).toHaveLength(1);
    expect(lookupKnownHosts(text, 'node10', 22).keys).toHaveLength(0);
    // A dot in a pattern is a dot, not "any character".
    expect(lookupKnownHosts(kh(line('a.b', keys.rsa)), 'axb', 22).keys).toHaveLength(0);
  });

  it('finds hashed entries written by ssh-keygen -H, for both name forms', async () => {
    const path = join(dir, 'hashed');
    await writeFile(path, kh(line('login.example.org', keys.ed25519), line('[10.1.2.3]:2222', keys.rsa)));
    await run('ssh-keygen', ['-H', '-f', path]);
    const text = await readFile(path, 'utf8');
    expect(text).not.toContain('example');
    expect(lookupKnownHosts(text, 'login.example.org', 22).keys[0]!.blob).toEqual(keys.ed25519.blob);
    expect(lookupKnownHosts(text, '10.1.2.3', 2222).keys[0]!.blob).toEqual(keys.rsa.blob);
    expect(lookupKnownHosts(text, '10.1.2.3', 22).keys).toHaveLength(0);
  });

  it('skips @cert-authority lines and corrupt lines, and collects @revoked keys', () => {
    const text = kh(
      `@cert-authority ${line('*', keys.ed25519)}`,
      `@revoked ${line('*.example.org', keys.other)}`,
      `login.example.org ssh-rsa ${keys.ed25519.b64}`,
      'login.example.org ssh-ed25519',
      'garbage',
    );
    const found = lookupKnownHosts(text, 'login.example.org', 22);
    expect(found.keys).toEqual([]);
    expect(found.revoked).toEqual([keys.other.blob]);
  });
});

describe('checkHostKey', () => {
  const pin = (k: Key): HostKeySource => ({ kind: 'fingerprint', fingerprint: k.sshKeygenFingerprint });
  const file = (text: string): HostKeySource => ({ kind: 'known_hosts', files: [{ path: '/kh', text }] });

  it('accepts a key every source vouches for', () => {
    const known = file(kh(line('h', keys.ed25519)));
    expect(checkHostKey(keys.ed25519.blob, 'h', 22, [pin(keys.ed25519)])).toBeUndefined();
    expect(checkHostKey(keys.ed25519.blob, 'h', 22, [known])).toBeUndefined();
    expect(checkHostKey(keys.ed25519.blob, 'h', 22, [pin(keys.ed25519), known])).toBeUndefined();
  });

  it('refuses with the presented key, the source checked and how to pin', () => {
    const e = checkHostKey(keys.other.blob, 'h', 2200, [pin(keys.ed25519)])!;
    expect(e).toBeInstanceOf(UserError);
    expect(e.message).toContain(`the server presented ssh-ed25519 key ${keys.other.sshKeygenFingerprint}`);
    expect(e.message).toContain(`pinned fingerprint ${keys.ed25519.sshKeygenFingerprint}`);
    expect(e.message).toContain('ssh-keyscan -p 2200 h | ssh-keygen -lf -');
    const unknown = checkHostKey(keys.other.blob, 'h', 22, [file(kh(line('g', keys.other)))])!;
    expect(unknown.message).toContain('/kh has no entry for h');
    const changed = checkHostKey(keys.other.blob, 'h', 22, [file(kh(line('h', keys.ed25519)))])!;
    expect(changed.message).toContain(`lists other keys for h (${keys.ed25519.sshKeygenFingerprint})`);
  });

  it('refuses when any one source refuses, and always refuses a revoked key', () => {
    expect(checkHostKey(keys.ed25519.blob, 'h', 22, [pin(keys.ed25519), file(kh())])).toBeInstanceOf(UserError);
    const revoked = file(kh(line('h', keys.ed25519), `@revoked ${line('*', keys.ed25519)}`));
    expect(checkHostKey(keys.ed25519.blob, 'h', 22, [revoked])!.message).toContain('@revoked');
  });

  it('asks first for the host key types known_hosts has for the host', () => {
    expect(hostKeyAlgorithms('h', 22, [pin(keys.ed25519)])).toBeUndefined();
    const algos = hostKeyAlgorithms('h', 22, [file(kh(line('h', keys.rsa), line('g', keys.ecdsa)))])!;
    expect(algos.slice(0, 3)).toEqual(['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa']);
    expect(algos).toContain('ssh-ed25519');
    expect(new Set(algos).size).toBe(algos.length);
  });
});

describe('parseTarget', () => {
  it('reads user, host and port, with 22 by default and IPv6 in brackets', () => {
    expect(parseTarget('alice@login.example.org:2222')).toEqual({
      user: 'alice',
      host: 'login.example.org',
      port: 2222,
    });
    expect(parseTarget('bob@10.0.0.1')).toEqual({ user: 'bob', host: '10.0.0.1', port: 22 });
    expect(parseTarget('c@[::1]:22')).toEqual({ user: 'c', host: '::1', port: 22 });
  });

  it('refuses anything else with a UserError that shows the form', () => {
    for (const bad of ['', 'host', '@host', 'a@', 'a@b:', 'a@b:0', 'a@b:70000', 'a@b:2x', 'a@::1', 'a@b@c', 'a@[::1']) {
      expect(() => parseTarget(bad)).toThrow(/not of the form user@host:port/);
    }
  });
});
