/**
 * OpenSSH's wildcard patterns match without backtracking (src/exec/transport/wildcard.ts):
 * `*a*a*a*a*a*a*a*a*a*a*!` against a 40-character name held a regular expression built from the
 * pattern for about a minute, in a `Host` line and in a known_hosts file alike. A backtracking
 * matcher would hold each of the tests below past vitest's time limit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lookupKnownHosts } from '../../../src/exec/transport/known-hosts.js';
import { lookupHost, parseConfig } from '../../../src/exec/transport/ssh-config.js';
import { wildcardMatches } from '../../../src/exec/transport/wildcard.js';

/** The pattern of the report, and names that almost match it: every split of the a's fails. */
const EVIL = `${'*a'.repeat(10)}*!`;
const NAMES = [40, 200, 2000].map((length) => 'a'.repeat(length));

/** The reference: the pattern as a regular expression, as both matchers were before. */
function reference(pattern: string, name: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '[^]*')
    .replace(/\?/g, '[^]');
  return new RegExp(`^${source}$`).test(name);
}

/** A fake ed25519 key: known_hosts lines are kept only when the key names its own type. */
const KEY = (() => {
  const type = Buffer.from('ssh-ed25519');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(type.length);
  return Buffer.concat([length, type, Buffer.alloc(36, 7)]).toString('base64');
})();

describe('wildcard patterns', () => {
  it('agree with a regular expression on small patterns and names (property)', () => {
    // A small alphabet, so that `*`, `?` and letters meet often.
    const text = (max: number, chars: string[]) =>
      fc.array(fc.constantFrom(...chars), { maxLength: max }).map((c) => c.join(''));
    fc.assert(
      fc.property(text(8, ['a', 'b', '*', '?', '.']), text(10, ['a', 'b', '.', '\n']), (pattern, name) => {
        expect(wildcardMatches(pattern, name)).toBe(reference(pattern, name));
      }),
      { numRuns: 5000 },
    );
  });

  it('match a backtracking pattern at once, and right', () => {
    for (const name of NAMES) {
      expect(wildcardMatches(EVIL, name)).toBe(false);
      expect(wildcardMatches(EVIL, `${name}!`)).toBe(true);
    }
  });

  it('in a Host line of the SSH config', () => {
    const config = { path: '/cfg', lines: parseConfig(`Host ${EVIL}\n  User evil\nHost *\n  User me\n`, '/cfg') };
    for (const name of NAMES) {
      expect(lookupHost(config, name).user).toBe('me');
      expect(lookupHost(config, `${name}!`).user).toBe('evil');
    }
  });

  it('in a known_hosts file', () => {
    const text = `${EVIL},!${EVIL} ssh-ed25519 ${KEY}\n${EVIL} ssh-ed25519 ${KEY}\n`;
    for (const name of NAMES) {
      expect(lookupKnownHosts(text, name, 22).keys).toHaveLength(0);
      expect(lookupKnownHosts(text, `${name}!`, 22).keys).toHaveLength(1);
    }
  });
});
