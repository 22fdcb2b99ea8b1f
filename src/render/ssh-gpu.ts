/**
 * The commands the ssh-gpu executor sends to the GPU server, as bash text. Attempts are named
 * by their directories (given on stdin, one per line), and watched by the pid their wrapper
 * wrote, with that process's own command line checked to be the wrapper: never by matching a
 * process list.
 */
import { shellQuote } from './shell.js';

/**
 * True when pid $1 is alive (not a zombie) and is the wrapper $2 (`bash <dir>/wrapper.sh`): one of
 * its arguments is $2. Read by bash itself, with no process of its own: a pass asks it of every
 * running attempt.
 */
export const ALIVE_LINES = [
  'campaign_alive() {',
  '  local s a',
  '  [[ $1 =~ ^[0-9]+$ ]] && { read -r s < "/proc/$1/stat"; } 2>/dev/null || return 1',
  '  s=${s##*) }',
  '  [ "${s%% *}" != Z ] || return 1',
  '  while IFS= read -r -d \'\' a; do [ "$a" != "$2" ] || return 0; done 2>/dev/null < "/proc/$1/cmdline"',
  '  return 1',
  '}',
];

/**
 * One pass's look at the server: the probe (bounded by `timeout`, its output base64 so nothing in
 * it can break the framing), the last wave's GPUs, a line `hold <uuid>` per GPU a live
 * `campaign shell` holds (a file in `holds` naming its pid and script: render/shell-script.ts),
 * and for each attempt directory on stdin one line: `a <i> exit <marker>`, `a <i> running`, or
 * `a <i> gone`.
 */
export function renderQuery(probe: string, probeTimeoutSeconds: number, waveFile: string, holds: string): string {
  return [
    'set -u',
    ...ALIVE_LINES,
    'out=$(mktemp) && err=$(mktemp) || exit 1',
    `timeout -s KILL ${Math.max(1, Math.ceil(probeTimeoutSeconds))} bash -c ${shellQuote(probe)} < /dev/null > "$out" 2> "$err"`,
    'rc=$?',
    'printf \'probe %s %s %s\\n\' "$rc" "$(base64 -w0 < "$out")" "$(head -c 2000 "$err" | base64 -w0)"',
    'rm -f -- "$out" "$err"',
    `printf 'wave %s\\n' "$(cat -- ${shellQuote(waveFile)} 2>/dev/null)"`,
    `for h in ${shellQuote(holds)}/*; do`,
    '  [ -f "$h" ] && read -r p s < "$h" && campaign_alive "$p" "$s" && printf \'hold %s\\n\' "${h##*/}"',
    'done',
    'i=0',
    'while IFS= read -r d; do',
    '  if [ -s "$d/exit" ]; then',
    '    printf \'a %s exit %s\\n\' "$i" "$(cat -- "$d/exit")"',
    '  elif p=; { read -r p < "$d/pid"; } 2>/dev/null; campaign_alive "$p" "$d/wrapper.sh"; then',
    '    printf \'a %s running\\n\' "$i"',
    '  elif [ -s "$d/exit" ]; then',
    '    printf \'a %s exit %s\\n\' "$i" "$(cat -- "$d/exit")"',
    '  else',
    '    printf \'a %s gone\\n\' "$i"',
    '  fi',
    '  i=$((i + 1))',
    'done',
    '',
  ].join('\n');
}

/**
 * Starts the attempts on stdin, a line `<staging>\t<dir>` each, each as a session of its own,
 * and prints per attempt `l <i> <launched ms> <pid> <GPUs> <server>` (a pool's server, else
 * nothing) or `f <i> <reason>`. Each attempt's files were written to a staging directory, put in
 * place whole by one rename: where another controller put the attempt in place first (two
 * controllers with separate states on one campaign), its directory stands, with its GPUs and
 * server, and its launch is reported, so that the attempt runs once. The launch time is linked
 * into place, so the first controller's stays and is never read half-written (a later time
 * would make the run's own outputs look older than the attempt). The time is the server's, taken
 * before the start: outputs older than it are not this attempt's. A wrapper that does not start in time is stopped at its claim, so a late start
 * cannot run unwatched.
 */
export function renderLaunch(): string {
  return [
    'set -u',
    'mapfile -t lines',
    'declare -a dirs=()',
    'declare -A bad=()',
    'for i in "${!lines[@]}"; do',
    "  staging=${lines[$i]%%$'\\t'*} d=${lines[$i]#*$'\\t'}",
    '  dirs[$i]=$d',
    '  mv -T -- "$staging" "$d" 2>/dev/null || rm -rf -- "$staging"',
    '  if [ -s "$d/launched" ]; then',
    '    continue',
    '  elif ! date +%s%3N > "$d/launched.$$"; then',
    '    rm -f -- "$d/launched.$$"',
    '    bad[$i]="cannot write in $d"',
    '  elif ! ln -- "$d/launched.$$" "$d/launched" 2>/dev/null; then',
    '    rm -f -- "$d/launched.$$"',
    '    [ -s "$d/launched" ] || bad[$i]="cannot link in $d"',
    '  else',
    '    rm -f -- "$d/launched.$$"',
    '    setsid -f bash "$d/wrapper.sh" < /dev/null > /dev/null 2>&1 || bad[$i]="setsid could not start the wrapper"',
    '  fi',
    'done',
    'for _ in $(seq 1 100); do',
    '  waiting=0',
    '  for i in "${!dirs[@]}"; do [ -n "${bad[$i]:-}" ] || [ -s "${dirs[$i]}/pid" ] || waiting=1; done',
    '  [ "$waiting" = 0 ] && break',
    '  sleep 0.1',
    'done',
    'for i in "${!dirs[@]}"; do',
    '  d=${dirs[$i]}',
    '  if [ -z "${bad[$i]:-}" ] && [ ! -s "$d/pid" ]; then',
    '    if mkdir "$d/claim" 2>/dev/null; then',
    '      bad[$i]="the wrapper did not start within 10 s"',
    '    else',
    '      for _ in $(seq 1 100); do [ -s "$d/pid" ] && break; sleep 0.1; done',
    '      [ -s "$d/pid" ] || bad[$i]="the wrapper started but wrote no pid"',
    '    fi',
    '  fi',
    '  if [ -n "${bad[$i]:-}" ]; then printf \'f %s %s\\n\' "$i" "${bad[$i]}"',
    '  else printf \'l %s %s %s %s %s\\n\' "$i" "$(cat -- "$d/launched")" "$(cat -- "$d/pid")" "$(cat -- "$d/gpus" 2>/dev/null)" "$(cat -- "$d/server" 2>/dev/null)"; fi',
    'done',
    '',
  ].join('\n');
}
