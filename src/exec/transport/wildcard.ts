/**
 * OpenSSH's wildcard patterns (`Host` lines, known_hosts, Include globs): `*` any run of
 * characters, `?` exactly one, every other character itself.
 */

/**
 * Whether `pattern` matches the whole of `name`. Greedy with one point to return to (the last
 * `*`): a later `*` makes every earlier choice final, so no choice is ever revisited and the
 * time is at most the pattern's length times the name's. A regular expression built from the
 * pattern backtracks instead: `*a*a*a*a*a*a*a*a*a*a*!` held one for a minute on a 40-character
 * name, which the config or a known_hosts file may bring.
 */
export function wildcardMatches(pattern: string, name: string): boolean {
  let at = 0; // in the pattern
  let taken = 0; // in the name
  let star = -1; // the last `*` seen, in the pattern
  let starTaken = 0; // where in the name that `*`'s run ends, so far
  while (taken < name.length) {
    const char = pattern[at];
    if (char === '*') {
      star = at++;
      starTaken = taken;
    } else if (char !== undefined && (char === '?' || char === name[taken])) {
      at++;
      taken++;
    } else if (star >= 0) {
      // The last `*` takes one more character, and the rest of the pattern starts after it.
      at = star + 1;
      taken = ++starTaken;
    } else {
      return false;
    }
  }
  while (pattern[at] === '*') at++;
  return at === pattern.length;
}
