/** The SSH target as the user writes it: `user@host:port` (port 22 when left out). */
import { UserError } from '../../errors.js';

export interface SshTarget {
  user: string;
  host: string;
  port: number;
}

// An IPv6 address goes in brackets, as in `user@[::1]:22`.
const TARGET = /^([^@\s:]+)@(\[[0-9A-Fa-f:.]+\]|[^@\s:[\]]+)(?::(\d+))?$/;

export function parseTarget(text: string): SshTarget {
  const m = TARGET.exec(text.trim());
  const port = m?.[3] === undefined ? 22 : Number(m[3]);
  if (!m || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new UserError({
      message: `SSH target '${text}' is not of the form user@host:port`,
      fix: 'write it like alice@login.cluster.example:22 (the port may be left out for 22; an IPv6 address goes in brackets)',
    });
  }
  const host = m[2]!.startsWith('[') ? m[2]!.slice(1, -1) : m[2]!;
  return { user: m[1]!, host, port };
}

/** How the target is named in messages. */
export function formatTarget(t: SshTarget): string {
  const host = t.host.includes(':') ? `[${t.host}]` : t.host;
  return `${t.user}@${host}:${t.port}`;
}
