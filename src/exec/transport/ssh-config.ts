/**
 * The OpenSSH client config (ssh_config(5)) as far as campaign reaches a host through it:
 * `Host` blocks and `Include`, and of the options only HostName, User, Port, IdentityFile,
 * IdentitiesOnly, UserKnownHostsFile, ProxyJump and ProxyCommand (refused); anything else is
 * ignored. Parsing and lookup are pure; `readSshConfig` is the thin reader that follows Includes.
 *
 * The semantics are OpenSSH's (readconf.c): for each option the first value obtained wins, from
 * the lines outside any block and in every `Host` block whose patterns match the name as
 * written; IdentityFile accumulates. `Match` blocks are skipped whole, never evaluated: their
 * criteria can run commands (`Match exec`) and depend on canonicalisation passes, and an
 * option set only under a `Match` is therefore not seen here.
 *
 * (The `ssh-config` npm package was considered: it does not follow Include, and its lookup runs
 * `Match exec` commands through a shell by default, so it would have needed both replaced.)
 */
import { readFileSync, readdirSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { UserError } from '../../errors.js';
import type { SshHop } from './ssh/connect.js';
import { formatTarget, parseTarget } from './target.js';
import { wildcardMatches } from './wildcard.js';

/** One line of a config: its keyword in lower case, its arguments, where it is; an Include's files. */
export interface ConfigLine {
  keyword: string;
  args: string[];
  at: string;
  included?: ConfigFile[];
}

export interface ConfigFile {
  path: string;
  lines: ConfigLine[];
}

/** The options of one name, as the config gives them. */
export interface HostOptions {
  /** Whether a Host block names it: a pattern other than a lone `*` matched. */
  named: boolean;
  hostname?: string;
  user?: string;
  port?: number;
  identityFiles: string[];
  identitiesOnly?: boolean;
  knownHostsFiles?: string[];
  /** ProxyJump or ProxyCommand, whichever came first (as ssh takes them), with where it is. */
  proxy?: { kind: 'jump' | 'command'; value: string; at: string };
}

/** What expansions of `~` and `%` tokens need of this machine. */
export interface LocalContext {
  home: string;
  localUser: string;
  uid: number;
}

/** OpenSSH's limit on nested Includes (READCONF_MAX_DEPTH). */
const MAX_INCLUDE_DEPTH = 16;
/** Hops a chain of ProxyJumps may have before it counts as a loop. */
const MAX_HOPS = 16;

/** The lines of one file, tokenised as ssh does (argv_split): quotes, backslash escapes, `#` comments. */
export function parseConfig(text: string, path: string): ConfigLine[] {
  const lines: ConfigLine[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const at = `${path}:${i + 1}`;
    // `Keyword value`, `Keyword=value` and `Keyword = value` are the same line.
    const m = /^[ \t]*([^ \t=#"']+)[ \t]*(?:=[ \t]*)?(.*)$/.exec(raw);
    if (!m) {
      if (raw.trim() !== '' && !raw.trim().startsWith('#') && !raw.trim().startsWith('=')) {
        throw new UserError({
          message: `${at}: cannot read this line of the SSH config`,
          fix: 'write it as Keyword value',
        });
      }
      return;
    }
    lines.push({ keyword: m[1]!.toLowerCase(), args: splitArgs(m[2]!, at), at });
  });
  return lines;
}

function splitArgs(s: string, at: string): string[] {
  const args: string[] = [];
  let i = 0;
  while (i < s.length) {
    if (s[i] === ' ' || s[i] === '\t') {
      i++;
      continue;
    }
    if (s[i] === '#') break;
    let arg = '';
    let quote: string | undefined;
    for (; i < s.length; i++) {
      const char = s[i]!;
      if (
        char === '\\' &&
        (s[i + 1] === "'" || s[i + 1] === '"' || s[i + 1] === '\\' || (!quote && s[i + 1] === ' '))
      ) {
        arg += s[++i];
      } else if (!quote && (char === ' ' || char === '\t')) break;
      else if (!quote && (char === '"' || char === "'")) quote = char;
      else if (quote === char) quote = undefined;
      else arg += char;
    }
    if (quote) throw new UserError({ message: `${at}: a quote is not closed`, fix: `close the ${quote} on that line` });
    args.push(arg);
  }
  return args;
}

/** A Host line's verdict: any pattern matching and no negated one (a negated match vetoes). */
function hostLineMatches(patterns: readonly string[], name: string): { match: boolean; named: boolean } {
  let match = false;
  let named = false;
  for (const p of patterns) {
    const negated = p.startsWith('!');
    if (!wildcardMatches(negated ? p.slice(1) : p, name)) continue;
    if (negated) return { match: false, named: false };
    match = true;
    named ||= p !== '*';
  }
  return { match, named };
}

/** The options the config gives `name` (a Host alias or a host name as written). */
export function lookupHost(config: ConfigFile, name: string): HostOptions {
  const found: HostOptions = { named: false, identityFiles: [] };
  const walk = (file: ConfigFile, state: { active: boolean }, neverMatch: boolean): void => {
    for (const line of file.lines) {
      const { keyword, args, at } = line;
      if (keyword === 'host') {
        const verdict = neverMatch ? { match: false, named: false } : hostLineMatches(args, name);
        state.active = verdict.match;
        found.named ||= verdict.named;
      } else if (keyword === 'match') {
        // Skipped, never evaluated (see the top of this file).
        state.active = false;
      } else if (keyword === 'include') {
        // An Include in a block that does not apply reads its files without applying them;
        // a Host in an included file does not change the state of the file that includes it.
        const outer = state.active;
        for (const inc of line.included ?? []) {
          walk(inc, state, neverMatch || !outer);
          state.active = outer;
        }
      } else if (state.active) {
        apply(found, keyword, args, at);
      }
    }
  };
  walk(config, { active: true }, false);
  return found;
}

function apply(o: HostOptions, keyword: string, args: string[], at: string): void {
  const first = args[0];
  if (first === undefined) {
    if (KNOWN.has(keyword))
      throw new UserError({ message: `${at}: ${keyword} has no value`, fix: 'give it one or remove the line' });
    return;
  }
  switch (keyword) {
    case 'hostname':
      o.hostname ??= first;
      break;
    case 'user':
      o.user ??= first;
      break;
    case 'port':
      if (o.port === undefined) {
        const port = Number(first);
        if (!/^\d+$/.test(first) || port < 1 || port > 65535) {
          throw new UserError({
            message: `${at}: Port ${first} is not a port number`,
            fix: 'give a number from 1 to 65535',
          });
        }
        o.port = port;
      }
      break;
    case 'identityfile':
      o.identityFiles.push(first);
      break;
    case 'identitiesonly':
      o.identitiesOnly ??= yesNo(first, keyword, at);
      break;
    case 'userknownhostsfile':
      o.knownHostsFiles ??= args;
      break;
    case 'proxyjump':
      o.proxy ??= { kind: 'jump', value: args.join(' '), at };
      break;
    case 'proxycommand':
      o.proxy ??= { kind: 'command', value: args.join(' '), at };
      break;
  }
}

const KNOWN = new Set([
  'hostname',
  'user',
  'port',
  'identityfile',
  'identitiesonly',
  'userknownhostsfile',
  'proxyjump',
  'proxycommand',
]);

function yesNo(value: string, keyword: string, at: string): boolean {
  const v = value.toLowerCase();
  if (v === 'yes' || v === 'true') return true;
  if (v === 'no' || v === 'false') return false;
  throw new UserError({ message: `${at}: ${keyword} ${value} is neither yes nor no`, fix: 'write yes or no' });
}

/** A hop as ProxyJump names it: `[user@]host[:port]`, an IPv6 address in brackets. */
const JUMP_SPEC = /^(?:([^@\s]+)@)?(\[[0-9A-Fa-f:.]+\]|[^@\s:[\]]+)(?::(\d+))?$/;

/** The manifest's way to a host: its login, the host key sources, the bastions. */
export interface Access {
  login: string;
  host_key?: string;
  known_hosts?: string;
  jump?: readonly { login: string; host_key?: string; known_hosts?: string }[];
}

/** Whether `login` is `user@host[:port]`, which is used as it is, without the config. */
export function isExplicitTarget(login: string): boolean {
  try {
    parseTarget(login);
    return true;
  } catch {
    return false;
  }
}

/**
 * The hops to the login, in order, the login last. `user@host:port` is used as it is; anything
 * else is a Host of the config. The manifest's jumps replace the config's ProxyJump. Host key
 * sources: the manifest's for the login and for each of its jumps; a hop that comes from the
 * config (a ProxyJump, or an alias given no source) is verified against the cluster's
 * known_hosts and the config's UserKnownHostsFile, any of which may vouch. Paths in `access`
 * are already absolute.
 */
export function resolveAccess(access: Access, config: ConfigFile, local: LocalContext): SshHop[] {
  const clusterKnownHosts = access.known_hosts === undefined ? [] : [access.known_hosts];
  const fromManifest = (login: string, host_key: string | undefined, known_hosts: string | undefined): SshHop => {
    const hop = explicitOrAlias(login, config, local);
    if (host_key === undefined && known_hosts === undefined) return hop;
    // The manifest's sources replace the config's known_hosts files.
    delete hop.knownHostsFiles;
    return {
      ...hop,
      ...(host_key !== undefined ? { hostKeyFingerprint: host_key } : {}),
      ...(known_hosts !== undefined ? { knownHostsFile: known_hosts } : {}),
    };
  };
  const target = fromManifest(access.login, access.host_key, access.known_hosts);
  if (access.jump !== undefined) {
    return [...access.jump.map((j) => fromManifest(j.login, j.host_key, j.known_hosts)), target];
  }
  if (isExplicitTarget(access.login)) return [target];
  const options = lookupHost(config, access.login);
  const chain = proxyChain(options, access.login, config, local, clusterKnownHosts, 0);
  return [...chain, target];
}

/** A login of the manifest: user@host:port as it is, else an alias that must be in the config. */
function explicitOrAlias(login: string, config: ConfigFile, local: LocalContext): SshHop {
  if (isExplicitTarget(login)) {
    // Without the config: no identity files of its own (the defaults apply) and no known_hosts.
    return { target: formatTarget(parseTarget(login)) };
  }
  const options = lookupHost(config, login);
  if (!options.named && options.hostname === undefined) {
    throw new UserError({
      message: `SSH login '${login}' is neither user@host:port nor a Host of ${config.path}`,
      fix: `write it as user@host:port, or add a \`Host ${login}\` block with its HostName to ${config.path} (or point ssh_config at the file that has it)`,
    });
  }
  return hopFrom(login, undefined, undefined, options, local, []);
}

/** The hops a host's ProxyJump (or none) puts before it, each hop looked up in the config. */
function proxyChain(
  options: HostOptions,
  name: string,
  config: ConfigFile,
  local: LocalContext,
  knownHosts: readonly string[],
  depth: number,
): SshHop[] {
  const proxy = options.proxy;
  if (proxy === undefined || proxy.value.toLowerCase() === 'none') return [];
  if (proxy.kind === 'command') {
    throw new UserError({
      message: `${proxy.at}: ${name} is reached by a ProxyCommand, which campaign does not run`,
      fix: 'give the bastions as ProxyJump in the SSH config, or as `jump` in the manifest, each with its host key',
    });
  }
  const specs = proxy.value.split(',').map((s) => s.trim());
  const hops: SshHop[] = [];
  specs.forEach((spec, i) => {
    const m = JUMP_SPEC.exec(spec);
    if (!m) {
      throw new UserError({
        message: `${proxy.at}: ProxyJump entry '${spec}' is not [user@]host[:port]`,
        fix: 'write each bastion as [user@]host[:port], separated by commas',
      });
    }
    const host = m[2]!.startsWith('[') ? m[2]!.slice(1, -1) : m[2]!;
    const hopOptions = lookupHost(config, host);
    // As with `ssh -J`, only the first bastion is reached through its own ProxyJump.
    if (i === 0) {
      if (depth + specs.length >= MAX_HOPS) {
        throw new UserError({
          message: `${proxy.at}: the ProxyJump chain to ${name} is longer than ${MAX_HOPS} hops, or loops`,
          fix: 'check the ProxyJump lines of the bastions in the SSH config',
        });
      }
      hops.push(...proxyChain(hopOptions, host, config, local, knownHosts, depth + specs.length));
    }
    const port = m[3] === undefined ? undefined : Number(m[3]);
    hops.push(hopFrom(host, m[1], port, hopOptions, local, knownHosts));
  });
  return hops;
}

/** One hop from what the config says of it; `user` and `port` as written override the config's. */
function hopFrom(
  name: string,
  user: string | undefined,
  port: number | undefined,
  o: HostOptions,
  local: LocalContext,
  knownHosts: readonly string[],
): SshHop {
  const at = o.proxy?.at ?? name;
  const hostname = o.hostname === undefined ? name : expand(o.hostname, { h: name }, 'HostName', at);
  const remote = {
    user: user ?? o.user ?? local.localUser,
    host: hostname,
    port: port ?? o.port ?? 22,
  };
  if (remote.port < 1 || remote.port > 65535) {
    throw new UserError({
      message: `the port of ${name} (${remote.port}) is not a port number`,
      fix: 'give 1 to 65535',
    });
  }
  const tokens = {
    d: local.home,
    u: local.localUser,
    i: String(local.uid),
    h: remote.host,
    n: name,
    p: String(remote.port),
    r: remote.user,
  };
  const path = (p: string, what: string): string => {
    const e = expand(p.startsWith('~/') || p === '~' ? local.home + p.slice(1) : p, tokens, what, name);
    return isAbsolute(e) ? e : join(local.home, e);
  };
  const configured = o.knownHostsFiles ?? ['~/.ssh/known_hosts', '~/.ssh/known_hosts2'];
  const files = configured.some((f) => f.toLowerCase() === 'none')
    ? []
    : configured.map((f) => path(f, 'UserKnownHostsFile'));
  return {
    alias: name,
    target: formatTarget(remote),
    ...(o.identityFiles.length > 0 ? { identityFiles: o.identityFiles.map((f) => path(f, 'IdentityFile')) } : {}),
    ...(o.identitiesOnly ? { identitiesOnly: true } : {}),
    knownHostsFiles: [...knownHosts, ...files],
  };
}

/** `%x` tokens as ssh expands them; `%%` is a percent sign, and an unknown token an error. */
function expand(text: string, tokens: Readonly<Record<string, string>>, what: string, where: string): string {
  return text.replace(/%(.?)/g, (whole, t: string) => {
    if (t === '%') return '%';
    const value = tokens[t];
    if (value === undefined) {
      throw new UserError({
        message: `${what} '${text}' for ${where} has the token ${whole}, which campaign does not expand`,
        fix: `write that part out in the SSH config (${Object.keys(tokens)
          .map((k) => `%${k}`)
          .join(' ')} and %% are expanded)`,
      });
    }
    return value;
  });
}

/**
 * Reads a config and the files its Includes name (relative ones under ~/.ssh, globs expanded
 * in sorted order as glob(3) gives them). A missing file reads as empty, as ssh takes it; the
 * caller decides whether a missing top file is an error.
 */
export function readSshConfig(path: string, home: string, depth = 0): ConfigFile {
  if (depth > MAX_INCLUDE_DEPTH) {
    throw new UserError({
      message: `SSH config ${path} is included more than ${MAX_INCLUDE_DEPTH} levels deep (an Include loop?)`,
      fix: 'check the Include lines of the SSH config',
    });
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { path, lines: [] };
    throw new UserError({
      message: `cannot read the SSH config ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
      fix: 'make it readable, or point ssh_config at another file',
    });
  }
  const lines = parseConfig(text, path);
  for (const line of lines) {
    if (line.keyword !== 'include') continue;
    line.included = line.args.flatMap((arg) => {
      const full = arg.startsWith('~/') ? join(home, arg.slice(2)) : isAbsolute(arg) ? arg : join(home, '.ssh', arg);
      return glob(full).map((p) => readSshConfig(p, home, depth + 1));
    });
  }
  return { path, lines };
}

/** The files a pattern with `*`, `?` in any of its components names, sorted. */
function glob(pattern: string): string[] {
  const parts = pattern.split('/').filter((p) => p !== '');
  let found = ['/'];
  for (const part of parts) {
    if (!/[*?]/.test(part)) {
      found = found.map((dir) => join(dir, part));
      continue;
    }
    found = found.flatMap((dir) => {
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        return [];
      }
      // As glob(3): a leading dot is matched only by a pattern that starts with one.
      return names
        .filter((n) => (part.startsWith('.') || !n.startsWith('.')) && wildcardMatches(part, n))
        .sort()
        .map((n) => join(dir, n));
    });
  }
  return found;
}
