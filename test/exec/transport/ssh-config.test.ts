/** The SSH config parser and the resolution of logins through it (pure, plus the Include reader on real files). */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors.js';
import {
  type Access,
  type ConfigFile,
  type LocalContext,
  lookupHost,
  parseConfig,
  readSshConfig,
  resolveAccess,
} from '../../../src/exec/transport/ssh-config.js';
import { wildcardMatches } from '../../../src/exec/transport/wildcard.js';

const local: LocalContext = { home: '/home/me', localUser: 'me', uid: 1000 };
const config = (text: string, path = '/cfg'): ConfigFile => ({ path, lines: parseConfig(text, path) });
const resolve = (access: Access | string, text: string) =>
  resolveAccess(typeof access === 'string' ? { login: access } : access, config(text), local);
const errorOf = (f: () => unknown): UserError => {
  try {
    f();
  } catch (e) {
    if (e instanceof UserError) return e;
    throw e;
  }
  throw new Error('expected a UserError');
};

describe('parseConfig', () => {
  it('reads Key Value, Key=Value and Key = Value alike, keywords in any case, comments skipped', () => {
    const lines = parseConfig(
      ['# a comment', '', 'HostName a.example', 'user=alice', '  PORT = 2222', '\tIdentityFile ~/k # trailing'].join(
        '\n',
      ),
      '/c',
    );
    expect(lines.map((l) => [l.keyword, l.args, l.at])).toEqual([
      ['hostname', ['a.example'], '/c:3'],
      ['user', ['alice'], '/c:4'],
      ['port', ['2222'], '/c:5'],
      ['identityfile', ['~/k'], '/c:6'],
    ]);
  });

  it('takes quoted arguments whole, with backslash escapes, and a # inside a word literally', () => {
    const [line] = parseConfig(`IdentityFile "/a b/key" 'c d' e\\ f g\\"h x#y`, '/c');
    expect(line!.args).toEqual(['/a b/key', 'c d', 'e f', 'g"h', 'x#y']);
  });

  it('refuses an unclosed quote, naming the file and line', () => {
    const e = errorOf(() => parseConfig('Host a\n  HostName "oops\n', '/etc/cfg'));
    expect(e.message).toContain('/etc/cfg:2');
  });

  it('reads back what it is given, however the arguments are quoted (property)', () => {
    const word = fc.string({
      unit: fc.constantFrom('a', 'Z', '0', '-', ' ', '"', "'", '\\', '#', '%', '/'),
      minLength: 1,
    });
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 4 }), fc.boolean(), (args, equals) => {
        // Quoted with "…", escaping what is special inside double quotes.
        const text = args.map((a) => `"${a.replace(/[\\"']/g, '\\$&')}"`).join(' ');
        const [line] = parseConfig(`SomeKey${equals ? '=' : ' '}${text}`, '/c');
        expect(line!.args).toEqual(args);
      }),
    );
  });
});

describe('lookupHost', () => {
  it('takes the first value obtained for each option, from every block that matches, in file order', () => {
    const c = config(`
User global-first
Host other
  HostName other.example
Host alias
  HostName alias.example
  Port 2200
Host al*
  HostName never.example
  Port 1
  IdentityFile ~/.ssh/second
Host *
  User ignored
  Port 22
  IdentityFile ~/.ssh/third
`);
    const o = lookupHost(c, 'alias');
    expect(o).toMatchObject({ named: true, hostname: 'alias.example', user: 'global-first', port: 2200 });
    expect(o.identityFiles).toEqual(['~/.ssh/second', '~/.ssh/third']);
  });

  it('matches several patterns on a line, * and ?, and a negated pattern vetoes the line', () => {
    const c = config(`
Host nope !login? login*
  User a
Host x y login1
  User b
`);
    expect(lookupHost(c, 'login1').user).toBe('b');
    expect(lookupHost(c, 'login12').user).toBe('a');
    expect(lookupHost(c, 'y').user).toBe('b');
    expect(lookupHost(c, 'LOGIN12').named).toBe(false);
    expect(wildcardMatches('a?c*', 'abcdef')).toBe(true);
    expect(wildcardMatches('a.c', 'abc')).toBe(false);
  });

  it('never applies a Match block, up to the next Host', () => {
    const c = config(`
Match exec "touch /tmp/should-never-exist" host *
  User from-match
  HostName from-match.example
Host a
  User from-host
`);
    expect(lookupHost(c, 'a')).toMatchObject({ user: 'from-host' });
    expect(lookupHost(c, 'a').hostname).toBeUndefined();
  });

  it('agrees with a model of first-obtained-wins over random blocks (property)', () => {
    const names = ['a', 'b', 'ab', 'ba'];
    const pattern = fc.constantFrom('a', 'b', 'a*', '*b', '?', '??', '*', '!a', '!b*');
    const block = fc.record({ patterns: fc.array(pattern, { minLength: 1, maxLength: 3 }), user: fc.boolean() });
    fc.assert(
      fc.property(fc.array(block, { maxLength: 6 }), fc.constantFrom(...names), (blocks, name) => {
        const text = blocks.map((b, i) => `Host ${b.patterns.join(' ')}\n${b.user ? `  User u${i}\n` : ''}`).join('');
        const matches = (p: string): boolean =>
          new RegExp(`^${p.replace(/\*/g, '.*').replace(/\?/g, '.')}$`).test(name);
        const applies = (b: (typeof blocks)[number]) =>
          b.patterns.some((p) => !p.startsWith('!') && matches(p)) &&
          !b.patterns.some((p) => p.startsWith('!') && matches(p.slice(1)));
        const first = blocks.findIndex((b) => b.user && applies(b));
        expect(lookupHost(config(text), name).user).toBe(first === -1 ? undefined : `u${first}`);
      }),
    );
  });
});

describe('readSshConfig: Include', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'ssh-config-'));
    await mkdir(join(home, '.ssh', 'config.d'), { recursive: true });
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  it('reads included files relative to ~/.ssh, globs in sorted order, in place of the Include line', async () => {
    const ssh = join(home, '.ssh');
    await writeFile(join(ssh, 'config.d', 'b.conf'), 'Host b\n  HostName b.example\nHost *\n  User from-b\n');
    await writeFile(join(ssh, 'config.d', 'a.conf'), 'Host a b\n  Port 2201\n');
    await writeFile(join(ssh, 'config.d', '.hidden'), 'Host *\n  User hidden\n');
    await writeFile(join(ssh, 'config'), 'Include config.d/*\nHost b\n  Port 9\n  User late\n');
    const c = readSshConfig(join(ssh, 'config'), home);
    expect(lookupHost(c, 'b')).toMatchObject({ hostname: 'b.example', port: 2201, user: 'from-b' });
  });

  it('applies an Include inside a Host block only to that host, and its Host lines end nothing outside it', async () => {
    const ssh = join(home, '.ssh');
    await writeFile(join(ssh, 'inner'), 'User inner\nHost zzz\n  Port 7\n');
    await writeFile(join(ssh, 'cond'), 'Host x\n  Include ~/.ssh/inner\n  HostName x.example\nHost y\n  Port 8\n');
    const c = readSshConfig(join(ssh, 'cond'), home);
    expect(lookupHost(c, 'x')).toMatchObject({ user: 'inner', hostname: 'x.example' });
    expect(lookupHost(c, 'y')).toMatchObject({ port: 8 });
    expect(lookupHost(c, 'y').user).toBeUndefined();
    // The included file's own Host zzz never applies: the Include is in a block that does not.
    expect(lookupHost(c, 'zzz').port).toBeUndefined();
  });

  it('reads a missing file as empty, and refuses an Include loop', async () => {
    expect(readSshConfig(join(home, 'absent'), home).lines).toEqual([]);
    await writeFile(join(home, '.ssh', 'loop'), 'Include loop\n');
    expect(() => readSshConfig(join(home, '.ssh', 'loop'), home)).toThrow(/more than 16 levels deep/);
  });
});

describe('resolveAccess', () => {
  it('uses user@host:port as it is, with the manifest’s host key', () => {
    expect(resolve({ login: 'bob@h.example:2222', host_key: 'SHA256:x' }, 'Host *\n  ProxyJump j\n')).toEqual([
      { target: 'bob@h.example:2222', hostKeyFingerprint: 'SHA256:x' },
    ]);
  });

  it('reads an alias’s HostName (with %h), User, Port and IdentityFiles (with ~ and tokens), in order', () => {
    const [hop] = resolve(
      'gpu',
      `
Host gpu
  HostName %h.cluster.example
  User alice
  Port 2222
  IdentityFile ~/.ssh/id_%r_%h
  IdentityFile "%d/keys/%u %n %p %%"
  IdentityFile relative/key
`,
    );
    expect(hop).toEqual({
      alias: 'gpu',
      target: 'alice@gpu.cluster.example:2222',
      identityFiles: [
        '/home/me/.ssh/id_alice_gpu.cluster.example',
        '/home/me/keys/me gpu 2222 %',
        '/home/me/relative/key',
      ],
      knownHostsFiles: ['/home/me/.ssh/known_hosts', '/home/me/.ssh/known_hosts2'],
    });
  });

  it('logs in as the local user when the config names none, and IdentitiesOnly is kept', () => {
    const [hop] = resolve(
      'c',
      'Host c\n  HostName 10.0.0.1\n  IdentitiesOnly yes\n  UserKnownHostsFile ~/kh /abs/kh\n',
    );
    expect(hop).toMatchObject({
      target: 'me@10.0.0.1:22',
      identitiesOnly: true,
      knownHostsFiles: ['/home/me/kh', '/abs/kh'],
    });
  });

  it('refuses an alias no Host names (a lone * does not count), naming the config and the fix', () => {
    const e = errorOf(() => resolve('typo', 'Host *\n  User x\nHost other\n  HostName o\n'));
    expect(e.message).toContain("'typo' is neither user@host:port nor a Host of /cfg");
    expect(e.problems[0]!.fix).toContain('Host typo');
    expect(errorOf(() => resolve('x', '%h')).message).toContain('/cfg');
    expect(errorOf(() => resolve('a', 'Host a\n  HostName %z\n')).message).toContain('%z');
  });

  it('follows ProxyJump: each hop looked up in the config, the first through its own, user and port as written', () => {
    const text = `
Host login
  HostName login.example
  ProxyJump carol@inner:2022,outer
Host inner
  HostName inner.example
  User ignored
  ProxyJump edge
Host outer
  HostName outer.example
  ProxyJump never-used
Host edge
  HostName edge.example
  User dave
`;
    const hops = resolve({ login: 'login', known_hosts: '/m/kh' }, text);
    expect(hops.map((h) => h.target)).toEqual([
      'dave@edge.example:22',
      'carol@inner.example:2022',
      'me@outer.example:22',
      'me@login.example:22',
    ]);
    // The config's hops: the cluster's known_hosts or the config's; the login: the manifest's only.
    expect(hops[0]!.knownHostsFiles).toEqual(['/m/kh', '/home/me/.ssh/known_hosts', '/home/me/.ssh/known_hosts2']);
    expect(hops[3]).toMatchObject({ knownHostsFile: '/m/kh' });
    expect(hops[3]!.knownHostsFiles).toBeUndefined();
  });

  it('takes ProxyJump none, or whichever of ProxyJump and ProxyCommand comes first', () => {
    expect(resolve('a', 'Host a\n  ProxyJump none\nHost *\n  ProxyJump j\n')).toHaveLength(1);
    expect(resolve('a', 'Host a\n  ProxyJump j\n  ProxyCommand nc %h %p\n')).toHaveLength(2);
    expect(resolve('a', 'Host a\n  ProxyCommand none\n  ProxyJump j\n')).toHaveLength(1);
  });

  it('refuses a ProxyCommand, pointing at ProxyJump and jump', () => {
    const e = errorOf(() => resolve('a', 'Host a\n  HostName a.example\n  ProxyCommand ssh -W %h:%p b\n'));
    expect(e.message).toContain('/cfg:3');
    expect(e.message).toContain('ProxyCommand');
    expect(e.problems[0]!.fix).toMatch(/ProxyJump.*jump/);
    const viaHop = errorOf(() => resolve('a', 'Host a\n  ProxyJump b\nHost b\n  ProxyCommand nc %h %p\n'));
    expect(viaHop.message).toContain('b is reached by a ProxyCommand');
  });

  it('refuses a ProxyJump loop and a malformed entry', () => {
    expect(errorOf(() => resolve('a', 'Host a\n  ProxyJump b\nHost b\n  ProxyJump a\n')).message).toMatch(/loops/);
    expect(errorOf(() => resolve('a', 'Host a\n  ProxyJump x@@y\n')).message).toContain("'x@@y'");
  });

  it('puts the manifest’s jumps in place of the config’s ProxyJump (or ProxyCommand), each with its own key', () => {
    const text =
      'Host login\n  HostName login.example\n  ProxyCommand nc %h %p\nHost b\n  HostName b.example\n  ProxyJump z\n';
    const hops = resolve(
      {
        login: 'login',
        host_key: 'SHA256:login',
        jump: [
          { login: 'x@a.example:2200', known_hosts: '/m/a' },
          { login: 'b', host_key: 'SHA256:b' },
        ],
      },
      text,
    );
    expect(hops).toEqual([
      { target: 'x@a.example:2200', knownHostsFile: '/m/a' },
      expect.objectContaining({ alias: 'b', target: 'me@b.example:22', hostKeyFingerprint: 'SHA256:b' }),
      expect.objectContaining({ alias: 'login', target: 'me@login.example:22', hostKeyFingerprint: 'SHA256:login' }),
    ]);
    expect(hops[1]!.knownHostsFiles).toBeUndefined();
  });
});
