/**
 * Starting a campaign over (`run --fresh`): the bash that moves one campaign's attempts and
 * outputs aside in its workdir, never deleting anything and never touching another campaign's.
 * The outputs moved are those the campaign's claims name (with their provenance records); the
 * claims go, so that the new generation's tasks claim their paths afresh.
 */
import { shellQuote } from './shell.js';

export interface SetAsideInput {
  /** Absolute workdir. */
  workdir: string;
  campaign: string;
  /** The executor's directory of this campaign (its attempts, job tables), relative to the workdir: moved to `<dest>/executor`. */
  attempts: string;
  /** Where everything goes, relative to the workdir. */
  dest: string;
}

/**
 * One command; it prints `outputs N` and `attempts yes|no`, and exits 3 when it cannot enter
 * the workdir, 4 when something could not be moved (named on stderr; what was moved stays moved,
 * and running it again moves the rest).
 */
export function renderSetAside(input: SetAsideInput): string {
  const script = [
    'set -u',
    'cd -- "$1" || exit 3',
    'campaign=$2 attempts=$3 dest=$4 moved=0 bad=0',
    // A task, or another user of a shared workdir, can plant a symlink where a directory of the
    // campaign's is expected: a move through it would write or take files outside the workdir.
    '# The first directory on the way to $1 (relative to the workdir) that is a symlink, if any.',
    'linked_dir() {',
    '  local rest=$1 at=.',
    '  while [ "${rest#*/}" != "$rest" ]; do',
    '    at="$at/${rest%%/*}" rest=${rest#*/}',
    '    if [ -L "$at" ]; then printf "%s" "${at#./}"; return 0; fi',
    '  done',
    '  return 1',
    '}',
    'if link=$(linked_dir "$dest/"); then printf "cannot move aside into %s: %s is a symlink\\n" "$dest" "$link" >&2; exit 4; fi',
    '# A fresh directory: nothing in it was planted.',
    'mkdir -p -- "$(dirname -- "$dest")" && mkdir -- "$dest" || exit 4',
    'if [ -d .campaign/claims ]; then',
    '  while IFS= read -r -d "" c; do',
    '    owner=$(head -n 1 -- "$c" 2>/dev/null)',
    '    [ "${owner%% *}" = "$campaign" ] || continue',
    '    out=${c#.campaign/claims/}',
    '    side="$(dirname -- "$out")/.$(basename -- "$out").provenance.json"',
    '    for p in "$out" "$side"; do',
    '      if [ -e "$p" ] || [ -L "$p" ]; then',
    '        # An output moved earlier may be a symlink that a later one would be moved through.',
    '        if link=$(linked_dir "$dest/outputs/$p"); then',
    '          printf "cannot move %s: %s is a symlink\\n" "$p" "$link" >&2; bad=1; continue 2',
    '        elif mkdir -p -- "$dest/outputs/$(dirname -- "$p")" && mv -T -- "$p" "$dest/outputs/$p"; then',
    '          [ "$p" = "$out" ] && moved=$((moved + 1))',
    '        else',
    '          printf "cannot move %s\\n" "$p" >&2; bad=1; continue 2',
    '        fi',
    '      fi',
    '    done',
    '    rm -f -- "$c"',
    '  done < <(find .campaign/claims -type f -print0)',
    'fi',
    'printf "outputs %s\\n" "$moved"',
    'if link=$(linked_dir "$attempts/"); then',
    '  printf "cannot move %s: %s is a symlink\\n" "$attempts" "$link" >&2; exit 4',
    'elif [ -d "$attempts" ]; then',
    '  mv -T -- "$attempts" "$dest/executor" || { printf "cannot move %s\\n" "$attempts" >&2; exit 4; }',
    '  echo "attempts yes"',
    'else',
    '  echo "attempts no"',
    'fi',
    '[ "$bad" = 0 ] || exit 4',
  ].join('\n');
  return `bash -c ${shellQuote(script)} campaign-set-aside ${[input.workdir, input.campaign, input.attempts, input.dest].map(shellQuote).join(' ')}`;
}

export interface SetAsideResult {
  /** The outputs moved aside. */
  outputs: number;
  /** Whether there were attempts to move aside. */
  attempts: boolean;
  /** Where they went, relative to the workdir. */
  dest: string;
}

/** The result of renderSetAside's command, or why it failed. */
export function parseSetAside(
  dest: string,
  r: { code: number; stdout: string; stderr: string },
): SetAsideResult | { error: string } {
  if (r.code === 3) return { error: 'cannot enter the workdir' };
  if (r.code !== 0) return { error: r.stderr.trim() || `exit status ${r.code}` };
  const outputs = Number(/^outputs (\d+)$/m.exec(r.stdout)?.[1] ?? 0);
  return { outputs, attempts: /^attempts yes$/m.test(r.stdout), dest };
}

/** Where a campaign's earlier generation goes in its workdir. */
export function asideDir(campaign: string, stamp: string): string {
  return `.campaign/aside/${campaign}/${stamp}`;
}
