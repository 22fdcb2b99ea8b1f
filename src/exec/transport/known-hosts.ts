/**
 * Reading an OpenSSH known_hosts file the way `ssh` does: plain, wildcard and negated host
 * patterns in comma lists, `[host]:port` for other ports than 22, hashed `|1|salt|hash`
 * entries, and `@revoked` keys. `@cert-authority` lines are skipped: this transport does not
 * accept host certificates, so they can never vouch for a key.
 */
import { createHmac } from 'node:crypto';
import { wildcardMatches } from './wildcard.js';

export interface KnownKey {
  type: string;
  blob: Buffer;
}

export interface KnownHostsEntries {
  /** Keys listed for the host. */
  keys: KnownKey[];
  /** Keys marked `@revoked` for the host: never accepted, even when also listed. */
  revoked: Buffer[];
}

/** The name `ssh` looks a host up by: `host` on port 22, `[host]:port` otherwise. */
export function knownHostsName(host: string, port: number): string {
  const h = host.toLowerCase();
  return port === 22 ? h : `[${h}]:${port}`;
}

export function lookupKnownHosts(text: string, host: string, port: number): KnownHostsEntries {
  const name = knownHostsName(host, port);
  const found: KnownHostsEntries = { keys: [], revoked: [] };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split(/\s+/);
    const marker = fields[0]!.startsWith('@') ? fields.shift() : undefined;
    if (marker !== undefined && marker !== '@revoked') continue;
    const [hosts, type, b64] = fields;
    if (hosts === undefined || type === undefined || b64 === undefined) continue;
    const blob = Buffer.from(b64, 'base64');
    // A line whose key does not say its own type is corrupt; ssh skips those too.
    if (blobType(blob) !== type || !hostsMatch(hosts, name)) continue;
    if (marker === '@revoked') found.revoked.push(blob);
    else found.keys.push({ type, blob });
  }
  return found;
}

/** The key type named inside an SSH public key blob (its first length-prefixed string). */
export function blobType(blob: Buffer): string | undefined {
  if (blob.length < 4) return undefined;
  const len = blob.readUInt32BE(0);
  return len > 0 && len <= 64 && blob.length >= 4 + len ? blob.toString('latin1', 4, 4 + len) : undefined;
}

function hostsMatch(field: string, name: string): boolean {
  if (field.startsWith('|1|')) return hashedMatch(field, name);
  let matched = false;
  for (const pattern of field.split(',')) {
    const negated = pattern.startsWith('!');
    if (!globMatch(negated ? pattern.slice(1) : pattern, name)) continue;
    if (negated) return false;
    matched = true;
  }
  return matched;
}

/** `|1|base64(salt)|base64(HMAC-SHA1(salt, name))`, as written by `ssh-keygen -H`. */
function hashedMatch(field: string, name: string): boolean {
  const [, , salt, hash] = field.split('|');
  if (salt === undefined || hash === undefined) return false;
  const mac = createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest('base64');
  return mac === hash;
}

/** OpenSSH patterns: `*` any run, `?` one character, case-insensitive. */
function globMatch(pattern: string, name: string): boolean {
  return wildcardMatches(pattern.toLowerCase(), name);
}
