/**
 * Deciding whether to trust the host key a server presents. Verification is mandatory: the
 * key must match a pinned SHA256 fingerprint or a known_hosts source (each source given must
 * accept it), and there is deliberately no way to turn this off.
 */
import { createHash } from 'node:crypto';
import { UserError } from '../../errors.js';
import { blobType, knownHostsName, lookupKnownHosts } from './known-hosts.js';

export interface KnownHostsFile {
  path: string;
  text: string;
}

/**
 * A pinned fingerprint, or known_hosts files read as one, as `ssh` reads its
 * UserKnownHostsFile list: a key listed in any of them is known, one revoked in any is refused.
 */
export type HostKeySource =
  { kind: 'fingerprint'; fingerprint: string } | { kind: 'known_hosts'; files: readonly KnownHostsFile[] };

/** `SHA256:<base64 without padding>` of the raw key blob, exactly as `ssh-keygen -lf` prints it. */
export function fingerprint(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}=?$/;

/** A pinned fingerprint as the user wrote it, in the form `fingerprint` returns, or a UserError. */
export function normalizeFingerprint(text: string): string {
  const t = text.trim();
  if (!FINGERPRINT.test(t)) {
    throw new UserError({
      message: `host key fingerprint '${text}' is not a SHA256 fingerprint`,
      fix: 'give it as ssh-keygen prints it, e.g. SHA256:Ti4c2g0cvd7Q/RA9fkbG0MBfVlo+ts4yGz1JW7DibIQ',
    });
  }
  return t.replace(/=$/, '');
}

/** Undefined when every source accepts the key, else the UserError that says why not. */
export function checkHostKey(
  blob: Buffer,
  host: string,
  port: number,
  sources: readonly HostKeySource[],
): UserError | undefined {
  const presented = `${blobType(blob) ?? 'unknown-type'} key ${fingerprint(blob)}`;
  const where = `${host}:${port}`;
  const pin = `ssh-keyscan -p ${port} ${host} | ssh-keygen -lf -`;
  for (const source of sources) {
    if (source.kind === 'fingerprint') {
      if (fingerprint(blob) === source.fingerprint) continue;
      return new UserError({
        message: `host key of ${where} does not match the pinned fingerprint ${source.fingerprint}: the server presented ${presented}`,
        fix: `if the host was reinstalled, check its new key out of band, then pin the line of \`${pin}\` for that key type`,
      });
    }
    const { keys, revoked } = lookupKnownHosts(joined(source.files), host, port);
    const name = knownHostsName(host, port);
    const path = source.files.map((f) => f.path).join(' or ');
    if (revoked.some((k) => k.equals(blob))) {
      return new UserError({
        message: `host key of ${where} is marked @revoked for ${name} in ${path}: the server presented ${presented}`,
        fix: 'do not connect; ask the cluster admins which key the host should have',
      });
    }
    if (keys.some((k) => k.blob.equals(blob))) continue;
    const problem =
      keys.length === 0
        ? `${path} has no entry for ${name}`
        : `${path} lists other keys for ${name} (${keys.map((k) => fingerprint(k.blob)).join(', ')}), which can mean the host was reinstalled or someone is intercepting the connection`;
    return new UserError({
      message: `host key of ${where} is not trusted: the server presented ${presented}; ${problem}`,
      fix: `check the key out of band, then add the output of \`ssh-keyscan -p ${port} ${host}\` to ${source.files[0]!.path} (or pin one fingerprint from \`${pin}\`)`,
    });
  }
  return undefined;
}

/** ssh2's host key algorithms for each known_hosts key type (an RSA key signs in three ways). */
const ALGORITHMS: Record<string, string[]> = {
  'ssh-ed25519': ['ssh-ed25519'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
};

/**
 * The host key algorithms to offer, in order, or undefined for ssh2's default order: those of
 * the keys known_hosts lists for the host come first, as `ssh` does, so that a server with
 * several host keys presents one the file can vouch for. (ssh2's `prepend` cannot move an
 * algorithm already in its default list, hence the whole list.)
 */
export function hostKeyAlgorithms(host: string, port: number, sources: readonly HostKeySource[]): string[] | undefined {
  const known = sources.flatMap((s) =>
    s.kind === 'known_hosts' ? lookupKnownHosts(joined(s.files), host, port).keys : [],
  );
  const first = [...new Set(known.flatMap((k) => ALGORITHMS[k.type] ?? []))];
  if (first.length === 0) return undefined;
  const all = Object.values(ALGORITHMS).flat();
  return [...first, ...all.filter((a) => !first.includes(a))];
}

/** Files read as one: a line never spans two, so their lines together are the set ssh reads. */
function joined(files: readonly KnownHostsFile[]): string {
  return files.map((f) => f.text).join('\n');
}
