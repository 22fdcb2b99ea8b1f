/**
 * The bash that activates a task's software environment (which one, manifest/environment.ts
 * says) before the setup, and checks it as the gate `environment`. Every manifest value
 * reaches bash as one quoted word (shellQuote), never as code; the module system's and conda's
 * own shell code is run as they document it.
 */
import { UserError } from '../errors.js';
import type { Environment } from '../manifest/schema.js';
import { shellQuote } from './shell.js';

/**
 * Where a batch shell that has no `module` command finds one, in order: each module system's
 * profile script first (it also sets the site's default MODULEPATH, as a login shell would),
 * then its init file by the variable it exports, then by its usual place. Lmod: Debian's and
 * most sites' /etc/profile.d/lmod.sh, $LMOD_PKG/init/bash, /usr/share/lmod/lmod/init/bash;
 * Environment Modules: /etc/profile.d/modules.sh, $MODULESHOME/init/bash,
 * /usr/share/modules/init/bash.
 */
const MODULE_INITS: readonly { word: string; shown: string }[] = [
  { word: '/etc/profile.d/lmod.sh', shown: '/etc/profile.d/lmod.sh' },
  { word: '${LMOD_PKG:+"$LMOD_PKG/init/bash"}', shown: '\\$LMOD_PKG/init/bash' },
  { word: '/usr/share/lmod/lmod/init/bash', shown: '/usr/share/lmod/lmod/init/bash' },
  { word: '/etc/profile.d/modules.sh', shown: '/etc/profile.d/modules.sh' },
  { word: '${MODULESHOME:+"$MODULESHOME/init/bash"}', shown: '\\$MODULESHOME/init/bash' },
  { word: '/usr/share/modules/init/bash', shown: '/usr/share/modules/init/bash' },
];

/** Where conda is looked for when neither $CONDA_EXE nor the PATH has it: the installers' defaults. */
const CONDA_PLACES = [
  '"$HOME/miniconda3/bin/conda"',
  '"$HOME/miniforge3/bin/conda"',
  '"$HOME/anaconda3/bin/conda"',
  '"$HOME/mambaforge/bin/conda"',
  '/opt/conda/bin/conda',
];

/** A name the module command or conda would read as an option is refused: it would change what runs. */
function refuseOption(key: 'modules' | 'conda', value: string): void {
  if (value.startsWith('-')) {
    const [program, what] = key === 'modules' ? ['the module command', 'module'] : ['conda', 'conda environment'];
    throw new UserError({
      message: `environment.${key} "${value}" starts with "-", which ${program} would read as an option`,
      fix: `name the ${what} without a leading "-"`,
    });
  }
}

/**
 * A path as one bash word: `~/` is the task's home, a relative path is under the directory the
 * task runs in (so no path, whatever it starts with, reaches `.` as an option).
 */
function pathWord(path: string): string {
  if (path === '~') return '"$HOME"';
  if (path.startsWith('~/')) return `"$HOME"/${shellQuote(path.slice(2))}`;
  if (path.startsWith('/')) return shellQuote(path);
  return `"$PWD"/${shellQuote(path)}`;
}

/**
 * The bash lines that activate `env` in the current shell, for a script that defines
 * `campaign_fail NAME REASON` (stops the script) and `campaign_ok NAME`. Run without `set -u`
 * and `set -e`: module systems' and conda's shell code is not written for them. What a module
 * system or conda prints goes to a temporary file, and a failure's reason is its own message
 * (from its first line that reads as an error, else its last lines), on one line.
 */
export function environmentLines(env: Environment): string[] {
  for (const m of env.modules ?? []) refuseOption('modules', m);
  if (env.conda !== undefined) refuseOption('conda', env.conda);
  const lines = [
    '# The environment, activated before the setup and checked as the gate `environment`.',
    'campaign_env_log=$(mktemp "${TMPDIR:-/tmp}/campaign-env.XXXXXX") || campaign_fail environment "cannot create a temporary file in ${TMPDIR:-/tmp}"',
    'campaign_env_said() {',
    '  awk \'{ gsub(/[ \\t\\r\\f\\v]+/, " "); sub(/^ /, ""); sub(/ $/, "") }',
    '    $0 != "" { line[++n] = $0; if (!first && tolower($0) ~ /error|not found|could not|cannot|unable|unknown/) first = n }',
    '    END {',
    '      if (n == 0) { print "it printed nothing"; exit }',
    '      from = first ? first : (n > 2 ? n - 1 : 1)',
    '      for (i = from; i <= n && i < from + 2; i++) out = out (out == "" ? "" : " ") line[i]',
    '      print substr(out, 1, 400)',
    '    }\' "$campaign_env_log"',
    '}',
    // The temporary file goes with the failure: campaign_fail ends the script.
    'campaign_env_fail() {',
    '  rm -f -- "$campaign_env_log"',
    '  campaign_fail environment "$1"',
    '}',
  ];
  if (env.modules !== undefined) {
    lines.push(
      // A batch shell is not a login shell: the module command may be missing until its init is sourced.
      'if ! command -v module >/dev/null 2>&1; then',
      `  for campaign_env_init in ${MODULE_INITS.map((i) => i.word).join(' ')}; do`,
      '    [ -r "$campaign_env_init" ] || continue',
      '    # shellcheck source=/dev/null',
      '    . "$campaign_env_init" >"$campaign_env_log" 2>&1',
      '    command -v module >/dev/null 2>&1 && break',
      '  done',
      'fi',
      `command -v module >/dev/null 2>&1 || campaign_env_fail "no module command: none in this shell, and no init of Lmod or Environment Modules at ${MODULE_INITS.map((i) => i.shown).join(', ')}"`,
      // Old Environment Modules (3.2) has no is-loaded, and Lmod's is-loaded says no to a version
      // it completed (python/3.11 loads python/3.11.4): LOADEDMODULES, which both keep, says yes.
      'campaign_env_loaded() {',
      '  module is-loaded "$1" >/dev/null 2>&1 && return 0',
      '  case ":${LOADEDMODULES:-}:" in *":$1:"* | *":$1/"* | *":$1."*) return 0 ;; esac',
      '  return 1',
      '}',
      'module purge >"$campaign_env_log" 2>&1 || campaign_env_fail "module purge: $(campaign_env_said)"',
    );
    for (const m of env.modules) {
      const name = shellQuote(m);
      // Some Lmod versions and settings print an error and still return 0: what is loaded decides.
      lines.push(
        `module load ${name} >"$campaign_env_log" 2>&1 || campaign_env_fail ${shellQuote(`module load ${m}: `)}"$(campaign_env_said)"`,
        `campaign_env_loaded ${name} || campaign_env_fail ${shellQuote(`module load ${m} returned 0 but ${m} is not loaded: `)}"$(campaign_env_said)"`,
      );
    }
    if (env.modules.length > 1) {
      // A module later in the list can replace an earlier one (same name, or a family) and say so only as a notice.
      lines.push(
        `for campaign_env_m in ${env.modules.map(shellQuote).join(' ')}; do`,
        '  campaign_env_loaded "$campaign_env_m" || campaign_env_fail "$campaign_env_m is not loaded once the whole list is: a module later in the list replaced it (loaded: ${LOADEDMODULES:-none})"',
        'done',
      );
    }
  }
  if (env.conda !== undefined) {
    const name = shellQuote(env.conda);
    lines.push(
      // conda's activation is a shell function its hook defines; a batch shell has not run the hook.
      'campaign_env_conda=',
      `for campaign_env_c in "\${CONDA_EXE:-}" "$(type -P conda)" ${CONDA_PLACES.join(' ')}; do`,
      '  if [ -n "$campaign_env_c" ] && [ -x "$campaign_env_c" ]; then',
      '    campaign_env_conda=$campaign_env_c',
      '    break',
      '  fi',
      'done',
      `[ -n "$campaign_env_conda" ] || campaign_env_fail "no conda: not in \\$CONDA_EXE, not on the PATH, not at ${CONDA_PLACES.map((p) => p.replace(/"/g, '').replace('$HOME', '~')).join(', ')}"`,
      'campaign_env_hook=$("$campaign_env_conda" shell.bash hook 2>"$campaign_env_log") || campaign_env_fail "$campaign_env_conda shell.bash hook: $(campaign_env_said)"',
      "# The hook is conda's own shell code, as `conda init` runs it; no manifest value is in it.",
      'eval "$campaign_env_hook"',
      `conda activate ${name} >"$campaign_env_log" 2>&1 || campaign_env_fail ${shellQuote(`conda activate ${env.conda}: `)}"$(campaign_env_said)"`,
    );
  }
  if (env.venv !== undefined) {
    lines.push(
      `campaign_env_venv=${pathWord(env.venv)}`,
      '[ -r "$campaign_env_venv/bin/activate" ] || campaign_env_fail "no virtual environment at $campaign_env_venv (no bin/activate there)"',
      '# shellcheck source=/dev/null',
      '. "$campaign_env_venv/bin/activate" >"$campaign_env_log" 2>&1 || campaign_env_fail "$campaign_env_venv/bin/activate: $(campaign_env_said)"',
    );
  }
  lines.push('rm -f -- "$campaign_env_log"', 'campaign_ok environment');
  return lines;
}

/**
 * A standalone bash script that activates `env` as a task would, for `campaign check` to run
 * in a bash of its own on the login node (so no module or conda state outlives it). A relative
 * venv is looked for under `workdir` (as the task's shell would see it); nothing else depends
 * on the directory.
 *
 * Output contract: stdout is exactly one line, `[campaign] gate environment: ok` with exit
 * status 0 when the environment activates, or `[campaign] gate environment: FAIL <reason>`
 * with exit status 1 when it does not (GATE_LINE of task-script.ts reads it); the reason is
 * one line, the module system's or conda's own message where they gave one. Any other exit
 * status, or no such line, means the probe itself did not run (no bash, killed).
 */
export function renderEnvironmentProbe(env: Environment, workdir: string): string {
  const relativeVenv = env.venv !== undefined && !env.venv.startsWith('/') && !env.venv.startsWith('~');
  return [
    '#!/usr/bin/env bash',
    '# campaign: does this environment activate here? Generated; see renderEnvironmentProbe.',
    'campaign_fail() { printf \'[campaign] gate %s: FAIL %s\\n\' "$1" "$2"; exit 1; }',
    'campaign_ok() { printf \'[campaign] gate %s: ok\\n\' "$1"; }',
    ...(relativeVenv
      ? [
          `cd -- ${shellQuote(workdir)} 2>/dev/null || campaign_fail environment ${shellQuote(`cannot enter the workdir ${workdir}, where the venv ${env.venv} is looked for`)}`,
        ]
      : []),
    ...environmentLines(env),
    '',
  ].join('\n');
}
