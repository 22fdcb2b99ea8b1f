export const id = 760;
export const ids = [760];
export const modules = {

/***/ 64760:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  runOnState: () => (/* binding */ runOnState)
});

// EXTERNAL MODULE: ./lib/action/toolkit.js + 1 modules
var toolkit = __webpack_require__(25632);
// EXTERNAL MODULE: external "node:fs/promises"
var promises_ = __webpack_require__(51455);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(76760);
// EXTERNAL MODULE: ./lib/errors.js
var errors = __webpack_require__(96020);
// EXTERNAL MODULE: external "node:child_process"
var external_node_child_process_ = __webpack_require__(31421);
// EXTERNAL MODULE: external "node:os"
var external_node_os_ = __webpack_require__(48161);
// EXTERNAL MODULE: ./lib/judge/checklist.js
var checklist = __webpack_require__(96631);
// EXTERNAL MODULE: ./lib/manifest/pattern.js + 1 modules
var pattern = __webpack_require__(52195);
// EXTERNAL MODULE: ./lib/manifest/expand.js
var expand = __webpack_require__(73941);
// EXTERNAL MODULE: ./lib/manifest/template.js
var template = __webpack_require__(23775);
// EXTERNAL MODULE: ./lib/manifest/environment.js
var manifest_environment = __webpack_require__(29056);
// EXTERNAL MODULE: ./lib/render/shell.js
var shell = __webpack_require__(52906);
;// CONCATENATED MODULE: ./lib/render/environment.js


const MODULE_INITS = [
  { word: "/etc/profile.d/lmod.sh", shown: "/etc/profile.d/lmod.sh" },
  { word: '${LMOD_PKG:+"$LMOD_PKG/init/bash"}', shown: "\\$LMOD_PKG/init/bash" },
  { word: "/usr/share/lmod/lmod/init/bash", shown: "/usr/share/lmod/lmod/init/bash" },
  { word: "/etc/profile.d/modules.sh", shown: "/etc/profile.d/modules.sh" },
  { word: '${MODULESHOME:+"$MODULESHOME/init/bash"}', shown: "\\$MODULESHOME/init/bash" },
  { word: "/usr/share/modules/init/bash", shown: "/usr/share/modules/init/bash" }
];
const CONDA_PLACES = [
  '"$HOME/miniconda3/bin/conda"',
  '"$HOME/miniforge3/bin/conda"',
  '"$HOME/anaconda3/bin/conda"',
  '"$HOME/mambaforge/bin/conda"',
  "/opt/conda/bin/conda"
];
function refuseOption(key, value) {
  if (value.startsWith("-")) {
    const [program, what] = key === "modules" ? ["the module command", "module"] : ["conda", "conda environment"];
    throw new errors/* UserError */.yo({
      message: `environment.${key} "${value}" starts with "-", which ${program} would read as an option`,
      fix: `name the ${what} without a leading "-"`
    });
  }
}
function pathWord(path) {
  if (path === "~") return '"$HOME"';
  if (path.startsWith("~/")) return `"$HOME"/${(0,shell/* shellQuote */.ZL)(path.slice(2))}`;
  if (path.startsWith("/")) return (0,shell/* shellQuote */.ZL)(path);
  return `"$PWD"/${(0,shell/* shellQuote */.ZL)(path)}`;
}
function environmentLines(env) {
  for (const m of env.modules ?? []) refuseOption("modules", m);
  if (env.conda !== void 0) refuseOption("conda", env.conda);
  const lines = [
    "# The environment, activated before the setup and checked as the gate `environment`.",
    'campaign_env_log=$(mktemp "${TMPDIR:-/tmp}/campaign-env.XXXXXX") || campaign_fail environment "cannot create a temporary file in ${TMPDIR:-/tmp}"',
    "campaign_env_said() {",
    `  awk '{ gsub(/[ \\t\\r\\f\\v]+/, " "); sub(/^ /, ""); sub(/ $/, "") }`,
    '    $0 != "" { line[++n] = $0; if (!first && tolower($0) ~ /error|not found|could not|cannot|unable|unknown/) first = n }',
    "    END {",
    '      if (n == 0) { print "it printed nothing"; exit }',
    "      from = first ? first : (n > 2 ? n - 1 : 1)",
    '      for (i = from; i <= n && i < from + 2; i++) out = out (out == "" ? "" : " ") line[i]',
    "      print substr(out, 1, 400)",
    `    }' "$campaign_env_log"`,
    "}",
    // The temporary file goes with the failure: campaign_fail ends the script.
    "campaign_env_fail() {",
    '  rm -f -- "$campaign_env_log"',
    '  campaign_fail environment "$1"',
    "}"
  ];
  if (env.modules !== void 0) {
    lines.push(
      // A batch shell is not a login shell: the module command may be missing until its init is sourced.
      "if ! command -v module >/dev/null 2>&1; then",
      `  for campaign_env_init in ${MODULE_INITS.map((i) => i.word).join(" ")}; do`,
      '    [ -r "$campaign_env_init" ] || continue',
      "    # shellcheck source=/dev/null",
      '    . "$campaign_env_init" >"$campaign_env_log" 2>&1',
      "    command -v module >/dev/null 2>&1 && break",
      "  done",
      "fi",
      `command -v module >/dev/null 2>&1 || campaign_env_fail "no module command: none in this shell, and no init of Lmod or Environment Modules at ${MODULE_INITS.map((i) => i.shown).join(", ")}"`,
      // Old Environment Modules (3.2) has no is-loaded, and Lmod's is-loaded says no to a version
      // it completed (python/3.11 loads python/3.11.4): LOADEDMODULES, which both keep, says yes.
      "campaign_env_loaded() {",
      '  module is-loaded "$1" >/dev/null 2>&1 && return 0',
      '  case ":${LOADEDMODULES:-}:" in *":$1:"* | *":$1/"* | *":$1."*) return 0 ;; esac',
      "  return 1",
      "}",
      'module purge >"$campaign_env_log" 2>&1 || campaign_env_fail "module purge: $(campaign_env_said)"'
    );
    for (const m of env.modules) {
      const name = (0,shell/* shellQuote */.ZL)(m);
      lines.push(
        `module load ${name} >"$campaign_env_log" 2>&1 || campaign_env_fail ${(0,shell/* shellQuote */.ZL)(`module load ${m}: `)}"$(campaign_env_said)"`,
        `campaign_env_loaded ${name} || campaign_env_fail ${(0,shell/* shellQuote */.ZL)(`module load ${m} returned 0 but ${m} is not loaded: `)}"$(campaign_env_said)"`
      );
    }
    if (env.modules.length > 1) {
      lines.push(
        `for campaign_env_m in ${env.modules.map(shell/* shellQuote */.ZL).join(" ")}; do`,
        '  campaign_env_loaded "$campaign_env_m" || campaign_env_fail "$campaign_env_m is not loaded once the whole list is: a module later in the list replaced it (loaded: ${LOADEDMODULES:-none})"',
        "done"
      );
    }
  }
  if (env.conda !== void 0) {
    const name = (0,shell/* shellQuote */.ZL)(env.conda);
    lines.push(
      // conda's activation is a shell function its hook defines; a batch shell has not run the hook.
      "campaign_env_conda=",
      `for campaign_env_c in "\${CONDA_EXE:-}" "$(type -P conda)" ${CONDA_PLACES.join(" ")}; do`,
      '  if [ -n "$campaign_env_c" ] && [ -x "$campaign_env_c" ]; then',
      "    campaign_env_conda=$campaign_env_c",
      "    break",
      "  fi",
      "done",
      `[ -n "$campaign_env_conda" ] || campaign_env_fail "no conda: not in \\$CONDA_EXE, not on the PATH, not at ${CONDA_PLACES.map((p) => p.replace(/"/g, "").replace("$HOME", "~")).join(", ")}"`,
      'campaign_env_hook=$("$campaign_env_conda" shell.bash hook 2>"$campaign_env_log") || campaign_env_fail "$campaign_env_conda shell.bash hook: $(campaign_env_said)"',
      "# The hook is conda's own shell code, as `conda init` runs it; no manifest value is in it.",
      'eval "$campaign_env_hook"',
      `conda activate ${name} >"$campaign_env_log" 2>&1 || campaign_env_fail ${(0,shell/* shellQuote */.ZL)(`conda activate ${env.conda}: `)}"$(campaign_env_said)"`
    );
  }
  if (env.venv !== void 0) {
    lines.push(
      `campaign_env_venv=${pathWord(env.venv)}`,
      '[ -r "$campaign_env_venv/bin/activate" ] || campaign_env_fail "no virtual environment at $campaign_env_venv (no bin/activate there)"',
      "# shellcheck source=/dev/null",
      '. "$campaign_env_venv/bin/activate" >"$campaign_env_log" 2>&1 || campaign_env_fail "$campaign_env_venv/bin/activate: $(campaign_env_said)"'
    );
  }
  lines.push('rm -f -- "$campaign_env_log"', "campaign_ok environment");
  return lines;
}
function renderEnvironmentProbe(env, workdir) {
  const relativeVenv = env.venv !== void 0 && !env.venv.startsWith("/") && !env.venv.startsWith("~");
  return [
    "#!/usr/bin/env bash",
    "# campaign: does this environment activate here? Generated; see renderEnvironmentProbe.",
    `campaign_fail() { printf '[campaign] gate %s: FAIL %s\\n' "$1" "$2"; exit 1; }`,
    `campaign_ok() { printf '[campaign] gate %s: ok\\n' "$1"; }`,
    ...relativeVenv ? [
      `cd -- ${(0,shell/* shellQuote */.ZL)(workdir)} 2>/dev/null || campaign_fail environment ${(0,shell/* shellQuote */.ZL)(`cannot enter the workdir ${workdir}, where the venv ${env.venv} is looked for`)}`
    ] : [],
    ...environmentLines(env),
    ""
  ].join("\n");
}


;// CONCATENATED MODULE: ./lib/render/task-script.js





const GATE_EXIT = 97;
const GATE_LINE = /^\[campaign\] gate (\S+): FAIL(.*)$/m;
function markerLines(markers) {
  if (!/^\S+$/.test(markers.key)) throw new Error(`a submission key with blanks: ${JSON.stringify(markers.key)}`);
  return {
    head: [
      `campaign_markers=${(0,shell/* shellQuote */.ZL)(markers.dir)}`,
      "campaign_mark_index=${SLURM_ARRAY_TASK_ID:-none}",
      `campaign_mark_id=${(0,shell/* shellQuote */.ZL)(markers.key)}" $campaign_mark_index \${SLURM_ARRAY_JOB_ID:-none}"`,
      "campaign_gate=-",
      "campaign_signal=-",
      "campaign_mark() {",
      `  { printf '\\n%s .\\n' "$2" > "$campaign_markers/$campaign_mark_index.$1"; } 2>/dev/null || :`,
      "}",
      ...shell/* NOW_MS_FUNCTION */.Lx
    ],
    end: (rc, gate) => `campaign_now; campaign_mark end "e $campaign_mark_id $campaign_ms ${rc} $campaign_signal ${gate}"`
  };
}
const codeDir = (id) => `.campaign/code/${id}`;
function codeLines(id, inputs) {
  if (!/^[0-9a-f]+$/.test(id)) throw new Error(`not a code snapshot id: ${id}`);
  const absolute = (name) => `case $${name} in ''|/*) ;; *) ${name}=$CAMPAIGN_WORKDIR/$${name} ;; esac`;
  return [
    "CAMPAIGN_WORKDIR=$PWD",
    `CAMPAIGN_CODE=$CAMPAIGN_WORKDIR/${codeDir(id)}`,
    "export CAMPAIGN_WORKDIR CAMPAIGN_CODE",
    absolute("CAMPAIGN_OUTPUT"),
    ...Array.from({ length: inputs }, (_, i) => absolute(`CAMPAIGN_INPUT_${i}`)),
    `cd -- "$CAMPAIGN_CODE" || campaign_fail code "the code snapshot ${id} is not in $CAMPAIGN_WORKDIR/.campaign/code (removed by hand?): run the campaign again, which ships it"`
  ];
}
function renderTaskScript(input) {
  const marks = input.markers ? markerLines(input.markers) : void 0;
  const warn = input.checkpointSignal;
  if (warn !== void 0 && !/^[A-Z0-9]+$/.test(warn)) throw new Error(`not a signal name: ${warn}`);
  const lines = [
    "#!/usr/bin/env bash",
    ...input.header ?? [],
    `# campaign ${input.campaign}: one task. Generated; edits are overwritten.`,
    "set -u",
    "campaign_step=start",
    ...marks?.head ?? [],
    "campaign_fail() { " + (marks ? "campaign_gate=$1; " : "") + `printf '[campaign] gate %s: FAIL %s\\n' "$1" "$2"; campaign_step='done'; exit ` + GATE_EXIT + "; }",
    `campaign_ok() { printf '[campaign] gate %s: ok\\n' "$1"; }`,
    "campaign_on_exit() {",
    "  local rc=$?",
    '  if [ "$campaign_step" = setup ]; then',
    `    printf '[campaign] gate setup: FAIL the setup stopped with exit status %s\\n' "$rc"`,
    ...marks ? [`    ${marks.end(String(GATE_EXIT), "setup")}`] : [],
    `    exit ${GATE_EXIT}`,
    "  fi",
    // Without an explicit exit, the shell keeps the status it was leaving with (or its signal).
    ...marks ? [`  ${marks.end("$rc", "$campaign_gate")}`] : [],
    "}",
    "trap campaign_on_exit EXIT",
    ...marks ? [
      // Exiting on SIGTERM runs the EXIT trap, which records the signal. Before the command
      // runs, a foreground child (the setup, a gate) defers the trap until it ends, or until
      // Slurm's SIGKILL after KillWait, which leaves no end marker.
      "campaign_child=",
      ...warn === void 0 ? [] : [
        // The warning interrupts the wait for the command, which is then waited for again.
        // One that comes before the command's process group is known is passed on as
        // soon as it is: the command may be running already, its own trap set.
        "campaign_warned=0",
        "campaign_again=0",
        "campaign_unsent=0",
        "campaign_warn() {",
        // Recorded once, as it comes: an end without its output after it is a continuation.
        '  [ "$campaign_warned" = 1 ] || { campaign_now; campaign_mark warn "w $campaign_mark_id $campaign_ms"; }',
        "  campaign_warned=1",
        "  campaign_again=1",
        `  if [ -n "$campaign_child" ]; then kill -${warn} -- "-$campaign_child" 2>/dev/null; else campaign_unsent=1; fi`,
        "}"
      ],
      ...warn === void 0 || warn === "TERM" ? [] : [`trap campaign_warn ${warn}`],
      "campaign_on_term() {",
      // A warning by SIGTERM is the first SIGTERM; the time limit's is the next.
      ...warn === "TERM" ? ['  [ "$campaign_warned" = 1 ] || { campaign_warn; return; }'] : [],
      "  campaign_signal=TERM",
      '  [ -n "$campaign_child" ] || exit 143',
      // Recorded first: Slurm's SIGKILL after KillWait may come before the command has ended.
      `  ${marks.end("143", "-")}`,
      '  kill -TERM -- "-$campaign_child" 2>/dev/null',
      '  wait "$campaign_child"',
      '  while kill -0 -- "-$campaign_child" 2>/dev/null; do sleep 0.1; done',
      "  exit 143",
      "}",
      "trap campaign_on_term TERM",
      '[ -d "$campaign_markers" ] || mkdir -p -- "$campaign_markers" 2>/dev/null',
      "campaign_node=${SLURMD_NODENAME:-$(hostname -s 2>/dev/null)}",
      "campaign_now",
      'campaign_mark start "s $campaign_mark_id $campaign_ms ${campaign_node:--}"'
    ] : warn === void 0 ? [] : [
      // The wrapper signals the task's whole process group: this shell lives on (a trap, not
      // an ignore, which the command would inherit) and waits for the command.
      "campaign_on_warning() { :; }",
      `trap campaign_on_warning ${warn}`
    ],
    ...input.prelude ?? [],
    `printf '[campaign] task %s -> %s\\n' ${input.index} "$CAMPAIGN_TASK"`,
    'cd -- "$CAMPAIGN_WORKDIR" || campaign_fail workdir "cannot enter $CAMPAIGN_WORKDIR"',
    ...input.code === void 0 ? [] : codeLines(input.code, input.inputs)
  ];
  if (input.oneNode) {
    lines.push(
      '[ "${SLURM_JOB_NUM_NODES:-1}" -eq 1 ] || campaign_fail nodes "the job spans $SLURM_JOB_NUM_NODES nodes"',
      "campaign_ok nodes"
    );
  }
  if (input.gpus !== void 0 && input.gpus > 0) {
    lines.push(
      "campaign_devices=0",
      'if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then',
      `  IFS=',' read -r -a campaign_list <<< "$CUDA_VISIBLE_DEVICES"`,
      "  campaign_devices=${#campaign_list[@]}",
      "fi",
      `[ "$campaign_devices" -eq ${input.gpus} ] || campaign_fail devices "asked for ${input.gpus} GPUs, got $campaign_devices (CUDA_VISIBLE_DEVICES=\${CUDA_VISIBLE_DEVICES:-})"`,
      "campaign_ok devices"
    );
  }
  const names = [...input.setup, input.capability ?? "", input.command].flatMap((t) => (0,template/* templateNames */.VQ)(t).map(template/* envName */.pD));
  const declared = [...new Set(names)].filter((n) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n));
  if (declared.length > 0) lines.push(`export ${declared.join(" ")}`);
  lines.push("set +u");
  if (input.environment) lines.push(...environmentLines(input.environment));
  lines.push("campaign_step=setup", "set -e");
  for (const s of input.setup) lines.push((0,template/* toShell */.aB)(s));
  lines.push("set +e", "campaign_step=gates");
  if (input.imports && input.imports.length > 0) {
    const stmt = (0,shell/* shellQuote */.ZL)(`import ${input.imports.join(", ")}`);
    lines.push(
      'campaign_python=$(command -v python || command -v python3) || campaign_fail imports "no python on PATH"',
      `campaign_err=$("$campaign_python" -c ${stmt} 2>&1) || campaign_fail imports "$(printf '%s' "$campaign_err" | tail -n 1)"`,
      "campaign_ok imports"
    );
  }
  if (input.capability !== void 0) {
    lines.push(
      `( ${(0,template/* toShell */.aB)(input.capability)}`,
      ') || campaign_fail capability "the capability check exited $?"',
      "campaign_ok capability"
    );
  }
  for (let i = 0; i < input.inputs; i++) {
    lines.push(`[ -e "$CAMPAIGN_INPUT_${i}" ] || campaign_fail inputs "missing $CAMPAIGN_INPUT_${i}"`);
  }
  if (input.inputs > 0) lines.push("campaign_ok inputs");
  if (input.claimOutput) {
    lines.push(
      ...input.code === void 0 ? [] : ['cd -- "$CAMPAIGN_WORKDIR" || campaign_fail workdir "cannot enter $CAMPAIGN_WORKDIR"'],
      'campaign_out=${CAMPAIGN_OUTPUT#"$CAMPAIGN_WORKDIR"/}',
      'campaign_claim=".campaign/claims/$campaign_out"',
      'campaign_me="$CAMPAIGN_CAMPAIGN $CAMPAIGN_TASK"',
      "case $campaign_out in */*) campaign_out_dir=${campaign_out%/*} ;; *) campaign_out_dir=. ;; esac",
      '{ [ -d "$campaign_out_dir" ] && [ -d ".campaign/claims/$campaign_out_dir" ]; } ||',
      '  mkdir -p -- "$campaign_out_dir" ".campaign/claims/$campaign_out_dir" || campaign_fail output "cannot create the output directory"',
      "set -o noclobber",
      `{ printf '%s\\n' "$campaign_me" > "$campaign_claim"; } 2>/dev/null`,
      "campaign_claimed=$?",
      "set +o noclobber",
      'if [ "$campaign_claimed" -eq 0 ]; then',
      '  if [ -e "$campaign_out" ] || [ -L "$campaign_out" ]; then',
      '    rm -f -- "$campaign_claim"',
      '    campaign_fail output "$CAMPAIGN_OUTPUT is already there and no task of a campaign claims it (written by something campaign did not launch): move it away, or choose another output path"',
      "  fi",
      "else",
      "  campaign_owner=",
      '  { IFS= read -r campaign_owner < "$campaign_claim"; } 2>/dev/null',
      '  if [ "$campaign_owner" != "$campaign_me" ]; then',
      '    campaign_fail output "$CAMPAIGN_OUTPUT belongs to task ${campaign_owner#* } of campaign ${campaign_owner%% *}: choose another output path (or another workdir) for this campaign"',
      "  fi",
      "fi",
      "campaign_ok output",
      ...input.code === void 0 ? [] : ['cd -- "$CAMPAIGN_CODE" || campaign_fail code "cannot enter $CAMPAIGN_CODE"']
    );
  }
  lines.push("campaign_step='command'");
  if (marks) {
    const survive = warn === void 0 ? [] : [`trap : ${warn}`];
    lines.push("set -m", "{", ...survive, (0,template/* toShell */.aB)(input.command), "} &", "campaign_child=$!", "set +m");
    if (warn === void 0) lines.push('wait "$campaign_child"', "campaign_rc=$?");
    else
      lines.push(
        `[ "$campaign_unsent" = 0 ] || { campaign_unsent=0; kill -${warn} -- "-$campaign_child" 2>/dev/null; }`,
        "campaign_rc=127",
        "campaign_again=1",
        'while [ "$campaign_again" = 1 ]; do',
        "  campaign_again=0",
        '  wait "$campaign_child"',
        "  campaign_status=$?",
        // 127: waited for already (the warning came as it ended), so its status is the one before.
        '  [ "$campaign_status" -eq 127 ] || campaign_rc=$campaign_status',
        "done"
      );
  } else {
    lines.push(
      (0,template/* toShell */.aB)(input.command),
      "# shellcheck disable=SC2320 # the command's own status, even when it ends with echo or printf",
      "campaign_rc=$?"
    );
  }
  lines.push("campaign_step='done'", 'exit "$campaign_rc"', "");
  return lines.join("\n");
}
const phaseOf = (manifest, task) => manifest.phases.find((p) => p.name === task.phase);
function resumeEnv(phase, resume) {
  return phase?.checkpoint ? { CAMPAIGN_RESUME: resume ? "1" : "0" } : {};
}
function taskInputs(manifest, task) {
  const phase = manifest.phases.find((p) => p.name === task.phase);
  return (phase.preconditions ?? []).map((p) => (0,expand/* renderPath */.i7)(manifest, phase, p.exists, task.values, task.tag));
}
function scriptInputFor(manifest, task, index, gpus, code) {
  const phase = manifest.phases.find((p) => p.name === task.phase);
  const environment = (0,manifest_environment/* environmentFor */.D)(manifest, phase);
  return {
    campaign: manifest.campaign,
    index,
    ...environment ? { environment } : {},
    setup: [manifest.setup, phase.setup].filter((s) => s !== void 0),
    command: (0,expand/* stageCommand */.iP)(phase, task.stage),
    ...manifest.gates?.imports ? { imports: manifest.gates.imports } : {},
    ...manifest.gates?.capability ? { capability: manifest.gates.capability } : {},
    inputs: phase.preconditions?.length ?? 0,
    claimOutput: task.output !== void 0,
    ...gpus === void 0 ? {} : { gpus },
    ...phase.checkpoint ? { checkpointSignal: phase.checkpoint.signal } : {},
    ...code === void 0 ? {} : { code }
  };
}


// EXTERNAL MODULE: ./lib/plan/definition.js
var definition = __webpack_require__(1230);
;// CONCATENATED MODULE: ./lib/judge/shortfall.js

const DEVICES = /asked for (\d+) GPUs, got (\d+)/;
function gateShortfall(gate, detail) {
  const seen = gate === "devices" ? DEVICES.exec(detail) : null;
  if (!seen || Number(seen[2]) >= Number(seen[1])) return void 0;
  const [asked, granted] = [seen[1], seen[2]];
  const words = `${granted} GPU${granted === "1" ? "" : "s"} instead of ${asked}`;
  return judgeShortfalls({ cls: "gate", reason: `gate ${gate}:${detail}` }, [{ of: "gpus", asked, granted, words }]).end;
}
function judgeShortfalls(ended, shortfalls) {
  const adapted = shortfalls.filter((s) => definition/* GRANT_PARTS */.Un[s.of] === null).map((s) => s.words);
  const aborting = shortfalls.filter((s) => definition/* GRANT_PARTS */.Un[s.of] !== null);
  if (aborting.length === 0 || ended.cls === "cancelled" || ended.cls === "shortfall") return { end: ended, adapted };
  const parts = [...new Set(aborting.map((s) => definition/* GRANT_PARTS */.Un[s.of]))].join(" and ");
  const otherwise = ended.cls === "completed" ? "" : `; it ended ${ended.cls}${ended.reason ? `: ${ended.reason}` : ""}`;
  return {
    end: {
      cls: "shortfall",
      reason: `granted ${aborting.map((s) => s.words).join(", ")}, and ${parts} ${aborting.length === 1 ? "is" : "are"} part of the task's definition: its output is not its result${otherwise}`
    },
    adapted
  };
}


;// CONCATENATED MODULE: ./lib/judge/attempt-end.js




const DEFAULT_OOM_PATTERNS = [
  "CUDA out of memory",
  "torch\\.OutOfMemoryError",
  "CUDA error: out of memory",
  "CUBLAS_STATUS_ALLOC_FAILED"
];
const DISK_FULL = /^.*(No space left on device|Disk quota exceeded).*$/m;
function diskFull(log) {
  const line = DISK_FULL.exec(log)?.[0].trim();
  return line === void 0 ? void 0 : { cls: "disk_full", reason: `the disk is full: ${line.slice(0, 200)}` };
}
function recordsVerdict(ended, path, records) {
  if (records === void 0) return void 0;
  const problems = (0,checklist/* recordProblems */.OG)(records.text, records.expect.count, records.expect.fields);
  return problems.length === 0 ? void 0 : { cls: "unverified", reason: `${ended} but ${path}: ${problems[0]}` };
}
function clock(at, startedAt) {
  if (startedAt === void 0) return at;
  const total = Math.max(0, Math.round((Date.parse(at) - Date.parse(startedAt)) / 1e3));
  const [hours, minutes, seconds] = [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60];
  const two = (n) => String(n).padStart(2, "0");
  return hours > 0 ? `${hours}:${two(minutes)}:${two(seconds)}` : `${minutes}:${two(seconds)}`;
}
const COMMAND_ENDS = /* @__PURE__ */ new Set(["completed", "failed", "unverified", "timeout"]);
function afterWarning(judged, warning) {
  if (!COMMAND_ENDS.has(judged.cls)) return judged;
  const signalled = `signalled at ${clock(warning.at, warning.startedAt)}`;
  const ended = clock(warning.endedAt, warning.startedAt);
  if (judged.cls === "timeout") return { cls: "timeout", reason: `${signalled}, ended at ${ended} (time limit)` };
  if (warning.outputThere === true || warning.outputThere === void 0 && judged.cls === "completed") return judged;
  const status = warning.exitCode === void 0 ? "ended" : `exited ${warning.exitCode}`;
  const without = warning.outputThere === false ? " without its output" : "";
  return { cls: "timeout", reason: `${signalled}, ${status} at ${ended}${without}` };
}
function classifyEnd(input) {
  const judged = judgeEnd(input);
  const { marker, output } = input;
  if (marker.warnedAt === void 0) return judged;
  return afterWarning(judged, {
    at: marker.warnedAt,
    ...marker.startedAt ? { startedAt: marker.startedAt } : {},
    endedAt: marker.at,
    exitCode: marker.code,
    ...output ? { outputThere: output.exists && output.fresh && output.linkedTo === void 0 } : {}
  });
}
function judgeEnd(input) {
  const { marker, log } = input;
  if (marker.cause === "cancel") return { cls: "cancelled", reason: `by campaign cancel (exit ${marker.code})` };
  if (marker.cause === "walltime") {
    const killed = marker.code === 137 ? "; killed after ignoring SIGTERM" : "";
    return { cls: "timeout", reason: `walltime ${input.walltimeSeconds}s reached${killed}` };
  }
  const gate = GATE_LINE.exec(log);
  if (marker.code === GATE_EXIT && gate)
    return gateShortfall(gate[1], gate[2]) ?? { cls: "gate", reason: `gate ${gate[1]}:${gate[2]}` };
  if (marker.code === GATE_EXIT && marker.step) return { cls: "gate", reason: `gate ${marker.step}` };
  if (marker.code === 0) {
    const out = input.output;
    if (out === void 0) return { cls: "completed" };
    if (!out.exists) return diskFull(log) ?? { cls: "unverified", reason: `exit 0 but ${out.path} does not exist` };
    if (out.linkedTo) return { cls: "unverified", reason: `exit 0 but ${out.path} is a symlink to ${out.linkedTo}` };
    if (!out.fresh) return { cls: "unverified", reason: `exit 0 but ${out.path} is older than the attempt` };
    return recordsVerdict("exit 0", out.path, input.records) ?? { cls: "completed" };
  }
  const full = diskFull(log);
  if (full) return full;
  const oom = input.oomPatterns.find((p) => p.test(log));
  if (oom) return { cls: "out_of_memory", reason: `exit ${marker.code}; the log matches /${oom.source}/` };
  if (marker.code === 137) {
    return { cls: "out_of_memory", reason: "killed by SIGKILL (exit 137: the kernel OOM killer, or a person)" };
  }
  return { cls: "failed", reason: `exit ${marker.code}` };
}
function oomPatterns(patterns) {
  return (patterns ?? DEFAULT_OOM_PATTERNS).map(pattern/* compilePattern */.Eb);
}


;// CONCATENATED MODULE: ./lib/render/task-env.js


function taskEnv(campaign, task, attempt, workdir, inputs = []) {
  const env = {};
  for (const [axis, value] of Object.entries(task.values)) env[(0,template/* envName */.pD)(axis)] = String(value);
  const builtins = {
    output: task.output ?? "",
    tag: task.tag,
    task: task.id,
    phase: task.phase,
    campaign,
    stage: task.stage,
    units: task.units === void 0 ? "" : String(task.units),
    attempt: String(attempt)
  };
  for (const [name, value] of Object.entries(builtins)) env[(0,template/* envName */.pD)(name)] = value ?? "";
  inputs.forEach((path, i) => env[`CAMPAIGN_INPUT_${i}`] = path);
  env.CAMPAIGN_WORKDIR = workdir;
  if (task.definition !== void 0) env.CAMPAIGN_DEFINITION = task.definition;
  return env;
}
function manifestTaskEnv(manifest, task, attempt, workdir) {
  return taskEnv(manifest.campaign, task, attempt, workdir, taskInputs(manifest, task));
}


// EXTERNAL MODULE: ./lib/exec/secrets.js
var secrets = __webpack_require__(47520);
// EXTERNAL MODULE: ./lib/manifest/units.js
var units = __webpack_require__(34906);
;// CONCATENATED MODULE: ./lib/render/wrapper.js


function checkpointOf(checkpoint) {
  return checkpoint && { signal: checkpoint.signal, beforeSeconds: (0,units/* parseDuration */.E9)(checkpoint.before) };
}
function watchdog(wall, grace, checkpoint) {
  const end = `: > walltime; kill -TERM -- "-$task"; sleep ${grace}; kill -KILL -- "-$task"`;
  if (!checkpoint) return `( sleep ${wall}; ${end} ) > /dev/null 2>&1 &`;
  if (!/^[A-Z0-9]+$/.test(checkpoint.signal)) throw new Error(`not a signal name: ${checkpoint.signal}`);
  const before = Math.min(wall, Math.max(0, Math.round(checkpoint.beforeSeconds)));
  return `( sleep ${wall - before}; campaign_now; printf '%s\\n' "$campaign_ms" > warned; kill -${checkpoint.signal} -- "-$task"; sleep ${before}; ${end} ) > /dev/null 2>&1 &`;
}
const CANCEL_FILE = "cancel";
function renderWrapper(input) {
  const d = (0,shell/* shellQuote */.ZL)(input.dir);
  const wall = Math.max(1, Math.ceil(input.walltimeSeconds));
  const grace = Math.max(1, Math.ceil(input.killAfterSeconds));
  return [
    "#!/usr/bin/env bash",
    "# Generated by campaign: runs one attempt of one task.",
    `cd -- ${d} || exit 1`,
    "# One run per attempt: a second launch of the same attempt stops here.",
    "mkdir claim 2>/dev/null || exit 0",
    `printf '%s\\n' "$$" > pid.tmp && mv pid.tmp pid`,
    ...shell/* NOW_MS_FUNCTION */.Lx,
    "campaign_now",
    "started=$campaign_ms",
    ...input.envFile ? ["# shellcheck disable=SC1091 # written beside this script at launch", ". ./env.sh"] : [],
    "# Background jobs become process groups of their own: the task is killed as a group, the wrapper is not in it.",
    "set -m",
    "bash ./task.sh > log 2>&1 < /dev/null &",
    "task=$!",
    `printf '%s\\n' "$task" > pgid.tmp && mv pgid.tmp pgid`,
    watchdog(wall, grace, input.checkpoint),
    "watchdog=$!",
    'wait "$task"',
    "rc=$?",
    "# What the task left running goes with it, SIGKILL for what ignores SIGTERM.",
    'if kill -TERM -- "-$task" 2>/dev/null; then',
    `  for _ in $(seq 1 ${grace * 10}); do kill -0 -- "-$task" 2>/dev/null || break; sleep 0.1; done`,
    '  kill -KILL -- "-$task" 2>/dev/null',
    "fi",
    'kill -- "-$watchdog" 2>/dev/null',
    "cause='exit'",
    `[ -e ${CANCEL_FILE} ] && cause=cancel`,
    "[ -e walltime ] && cause=walltime",
    "step=-",
    `[ "$rc" -eq 97 ] && step=$(sed -n 's/^\\[campaign\\] gate \\([^ :]*\\): FAIL.*/\\1/p' log | head -n 1)`,
    ...input.checkpoint ? [
      "# When it was warned: ended after that without its output, it is continued from its checkpoint.",
      "warned=-",
      "[ -s warned ] && read -r warned < warned"
    ] : [],
    "campaign_now",
    `printf '%s %s %s %s %s %s\\n' "$rc" "$campaign_ms" "$started" "$cause" "\${step:--}" ${input.checkpoint ? '"$warned"' : "-"} > exit.tmp && mv exit.tmp exit`,
    ""
  ].join("\n");
}
function parseExitMarker(text, now) {
  const [code, end, start, cause, step, warned] = text.trim().split(/\s+/);
  const iso = (s) => {
    const n2 = Number(s);
    return s && Number.isFinite(n2) && n2 > 0 ? new Date(n2 < 1e11 ? n2 * 1e3 : n2).toISOString() : void 0;
  };
  const n = Number(code);
  const startedAt = iso(start);
  const warnedAt = iso(warned);
  return {
    code: Number.isInteger(n) ? n : 255,
    at: iso(end) ?? now,
    ...startedAt ? { startedAt } : {},
    cause: cause === "walltime" || cause === "cancel" ? cause : "exit",
    ...step && step !== "-" ? { step } : {},
    ...warnedAt ? { warnedAt } : {}
  };
}
function renderCancel(cancelFile, killAfterSeconds) {
  return [
    "set -u",
    "while IFS= read -r d; do",
    '  [ -s "$d/exit" ] && continue',
    '  pgid=$(cat -- "$d/pgid" 2>/dev/null) || continue',
    // A process group is a canonical decimal number above 1: `kill -- -1` would signal every
    // process of the user, and so would `-01`, which kill reads as -1.
    '  case $pgid in "" | *[!0-9]* | 0* | 1) continue ;; esac',
    `  : > "$d/${cancelFile}"`,
    '  kill -TERM -- "-$pgid" 2>/dev/null',
    `  setsid -f bash -c 'sleep "$1"; kill -KILL -- "-$2" 2>/dev/null' _ ${Math.max(1, Math.ceil(killAfterSeconds))} "$pgid" < /dev/null > /dev/null 2>&1`,
    "done",
    ""
  ].join("\n");
}


// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(77598);
// EXTERNAL MODULE: ./lib/manifest/schema.js + 1 modules
var schema = __webpack_require__(26268);
;// CONCATENATED MODULE: ./lib/render/set-aside.js

function renderSetAside(input) {
  const script = [
    "set -u",
    'cd -- "$1" || exit 3',
    "campaign=$2 attempts=$3 dest=$4 moved=0 bad=0",
    // A task, or another user of a shared workdir, can plant a symlink where a directory of the
    // campaign's is expected: a move through it would write or take files outside the workdir.
    "# The first directory on the way to $1 (relative to the workdir) that is a symlink, if any.",
    "linked_dir() {",
    "  local rest=$1 at=.",
    '  while [ "${rest#*/}" != "$rest" ]; do',
    '    at="$at/${rest%%/*}" rest=${rest#*/}',
    '    if [ -L "$at" ]; then printf "%s" "${at#./}"; return 0; fi',
    "  done",
    "  return 1",
    "}",
    'if link=$(linked_dir "$dest/"); then printf "cannot move aside into %s: %s is a symlink\\n" "$dest" "$link" >&2; exit 4; fi',
    "# A fresh directory: nothing in it was planted.",
    'mkdir -p -- "$(dirname -- "$dest")" && mkdir -- "$dest" || exit 4',
    "if [ -d .campaign/claims ]; then",
    '  while IFS= read -r -d "" c; do',
    '    owner=$(head -n 1 -- "$c" 2>/dev/null)',
    '    [ "${owner%% *}" = "$campaign" ] || continue',
    "    out=${c#.campaign/claims/}",
    '    side="$(dirname -- "$out")/.$(basename -- "$out").provenance.json"',
    '    for p in "$out" "$side"; do',
    '      if [ -e "$p" ] || [ -L "$p" ]; then',
    "        # An output moved earlier may be a symlink that a later one would be moved through.",
    '        if link=$(linked_dir "$dest/outputs/$p"); then',
    '          printf "cannot move %s: %s is a symlink\\n" "$p" "$link" >&2; bad=1; continue 2',
    '        elif mkdir -p -- "$dest/outputs/$(dirname -- "$p")" && mv -T -- "$p" "$dest/outputs/$p"; then',
    '          [ "$p" = "$out" ] && moved=$((moved + 1))',
    "        else",
    '          printf "cannot move %s\\n" "$p" >&2; bad=1; continue 2',
    "        fi",
    "      fi",
    "    done",
    '    rm -f -- "$c"',
    "  done < <(find .campaign/claims -type f -print0)",
    "fi",
    'printf "outputs %s\\n" "$moved"',
    'if link=$(linked_dir "$attempts/"); then',
    '  printf "cannot move %s: %s is a symlink\\n" "$attempts" "$link" >&2; exit 4',
    'elif [ -d "$attempts" ]; then',
    '  mv -T -- "$attempts" "$dest/executor" || { printf "cannot move %s\\n" "$attempts" >&2; exit 4; }',
    '  echo "attempts yes"',
    "else",
    '  echo "attempts no"',
    "fi",
    '[ "$bad" = 0 ] || exit 4'
  ].join("\n");
  return `bash -c ${(0,shell/* shellQuote */.ZL)(script)} campaign-set-aside ${[input.workdir, input.campaign, input.attempts, input.dest].map(shell/* shellQuote */.ZL).join(" ")}`;
}
function parseSetAside(dest, r) {
  if (r.code === 3) return { error: "cannot enter the workdir" };
  if (r.code !== 0) return { error: r.stderr.trim() || `exit status ${r.code}` };
  const outputs = Number(/^outputs (\d+)$/m.exec(r.stdout)?.[1] ?? 0);
  return { outputs, attempts: /^attempts yes$/m.test(r.stdout), dest };
}
function asideDir(campaign, stamp) {
  return `.campaign/aside/${campaign}/${stamp}`;
}


;// CONCATENATED MODULE: ./lib/exec/asked-once.js
function askedOnce(ask) {
  let kept;
  return () => kept ??= ask().catch((e) => {
    kept = void 0;
    throw e;
  });
}


// EXTERNAL MODULE: ./lib/plan/code.js
var code = __webpack_require__(42778);
;// CONCATENATED MODULE: ./lib/exec/code-ship.js






const BLOCK = 512;
function header(name, size, type, mode, link = "") {
  const h = Buffer.alloc(BLOCK);
  const put = (text, at, length) => {
    h.write(text.slice(0, length), at, length, "utf8");
  };
  const octal = (n, length) => n.toString(8).padStart(length - 1, "0");
  put(name, 0, 100);
  put(octal(mode, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(Math.floor(Date.now() / 1e3), 12), 136, 12);
  h.fill(32, 148, 156);
  put(type, 156, 1);
  put(link, 157, 100);
  put("ustar\x0000", 257, 8);
  let sum = 0;
  for (const byte of h) sum += byte;
  put(`${octal(sum, 7)}\0`, 148, 8);
  return h;
}
function paxRecord(key, value) {
  const body = ` ${key}=${value}
`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length) length++;
  return `${length}${body}`;
}
const padding = (size) => Buffer.alloc((BLOCK - size % BLOCK) % BLOCK);
function tarOf(files) {
  const parts = [];
  for (const f of files) {
    const link = f.mode === "link" ? f.data.toString("utf8") : "";
    const long = Buffer.byteLength(f.path) > 99 || Buffer.byteLength(link) > 99;
    if (long) {
      const pax = Buffer.from(paxRecord("path", f.path) + (link ? paxRecord("linkpath", link) : ""));
      parts.push(header("././@PaxHeader", pax.length, "x", 420), pax, padding(pax.length));
    }
    const name = long ? f.path.slice(0, 99) : f.path;
    if (f.mode === "link") parts.push(header(name, 0, "2", 511, long ? "" : link));
    else {
      parts.push(header(name, f.data.length, "0", f.mode === "exec" ? 493 : 420), f.data, padding(f.data.length));
    }
  }
  parts.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(parts);
}
function notShipped(where, why) {
  return new errors/* UserError */.yo({
    message: `cannot ship the code snapshot to ${where}: ${why}`,
    fix: "fix the permissions or free the space named, then run again: nothing was submitted with it"
  });
}
async function shipOverShell(transport, workdir, snapshot) {
  const target = external_node_path_.posix.join(workdir, codeDir(snapshot.facts.id));
  const root = external_node_path_.posix.dirname(target);
  const there = await transport.exec(`[ -d ${(0,shell/* shellQuote */.ZL)(target)} ] && [ ! -L ${(0,shell/* shellQuote */.ZL)(target)} ]`);
  if (there.code === 0) return;
  const script = [
    `root=${(0,shell/* shellQuote */.ZL)(root)}`,
    `target=${(0,shell/* shellQuote */.ZL)(target)}`,
    'mkdir -p -- "${root%/*/*}" || exit 3',
    'for d in "${root%/*}" "$root"; do',
    '  if [ -L "$d" ]; then echo "$d is a symbolic link" >&2; exit 3; fi',
    '  [ -d "$d" ] || mkdir -- "$d" || exit 3',
    "done",
    '[ -d "$target" ] && exit 0',
    `tmp=$(mktemp -d "$root/.ship-${snapshot.facts.id}-XXXXXX") || exit 3`,
    'tar -x -f - -C "$tmp" --no-same-owner || { rm -rf -- "$tmp"; exit 3; }',
    // A folder renamed within its parent needs no write permission of its own.
    'chmod -R a-w -- "$tmp"',
    // Another controller may have shipped the same content meanwhile: theirs stands.
    'mv -T -- "$tmp" "$target" 2>/dev/null && exit 0',
    'chmod -R u+w -- "$tmp"; rm -rf -- "$tmp"',
    '[ -d "$target" ] || exit 3'
  ].join("\n");
  const r = await transport.exec(script, { stdin: tarOf(snapshot.files), timeoutMs: 6e5 });
  if (r.code !== 0) throw notShipped(target, r.stderr.trim() || `exit ${r.code}`);
}
const SFTP_BATCH = 64;
async function shipOverSftp(transport, workdir, snapshot) {
  const target = external_node_path_.posix.join(workdir, codeDir(snapshot.facts.id));
  const there = async () => (await transport.stat(target))?.isFile === false;
  if (await there()) return;
  const tmp = `${external_node_path_.posix.dirname(target)}/.ship-${snapshot.facts.id}-${(0,external_node_crypto_.randomBytes)(4).toString("hex")}`;
  const dirs = new Set(snapshot.files.map((f) => external_node_path_.posix.dirname(external_node_path_.posix.join(tmp, f.path))));
  for (const dir of [...dirs].sort()) await transport.mkdirp(dir);
  const links = snapshot.files.filter((f) => f.mode === "link");
  if (links.length > 0)
    throw notShipped(target, `the automation node's file transfer cannot make links (${links[0].path})`);
  for (let i = 0; i < snapshot.files.length; i += SFTP_BATCH) {
    await Promise.all(
      snapshot.files.slice(i, i + SFTP_BATCH).map((f) => transport.writeFile(external_node_path_.posix.join(tmp, f.path), f.data, { mode: f.mode === "exec" ? 365 : 292 }))
    );
  }
  await transport.rename(tmp, target).catch(async (e) => {
    if (!await there()) throw e;
  });
}
const snapshotNames = (names) => names.filter((n) => code/* SNAPSHOT_ID */.dn.test(n)).sort();
async function removeSnapshotsOverShell(transport, workdir, keep) {
  const root = external_node_path_.posix.join(workdir, ".campaign", "code");
  const r = await transport.exec(
    [
      `root=${(0,shell/* shellQuote */.ZL)(root)}`,
      '[ -d "$root" ] && [ ! -L "$root" ] || exit 0',
      "keep=$(cat)",
      'for d in "$root"/*/; do',
      "  id=${d%/}; id=${id##*/}",
      "  [[ $id =~ ^[0-9a-f]{16}$ ]] || continue",
      '  case $keep in *"$id"*) continue ;; esac',
      `  chmod -R u+w -- "$root/$id" && rm -rf -- "$root/$id" && printf '%s\\n' "$id"`,
      "done"
    ].join("\n"),
    { stdin: [...keep].join("\n") }
  );
  if (r.code !== 0)
    throw new errors/* UserError */.yo({
      message: `cannot remove code snapshots in ${root}: ${r.stderr.trim() || `exit ${r.code}`}`,
      fix: "fix the permissions named and run campaign gc again: what was removed stays removed"
    });
  return snapshotNames(r.stdout.split("\n"));
}


// EXTERNAL MODULE: external "node:zlib"
var external_node_zlib_ = __webpack_require__(38522);
// EXTERNAL MODULE: ./node_modules/zod/v4/classic/schemas.js + 15 modules
var schemas = __webpack_require__(85584);
;// CONCATENATED MODULE: ./lib/report/results/csv.js
function csvField(text) {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
function writeCsv(rows) {
  return rows.map((r) => (r.length === 1 && r[0] === "" ? '""' : r.map(csvField).join(",")) + "\r\n").join("");
}
function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = "";
  let quoted = false;
  let wasQuoted = false;
  let i = 0;
  const endRow = () => {
    row.push(field);
    if (wasQuoted || !(row.length === 1 && row[0] === "")) rows.push(row);
    row = [];
    field = "";
    wasQuoted = false;
  };
  while (i < text.length) {
    const char = text[i];
    if (quoted) {
      if (char === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        const next = text[i];
        if (next !== void 0 && next !== "," && next !== "\n" && next !== "\r") return void 0;
        continue;
      }
      field += char;
      i++;
      continue;
    }
    if (char === '"') {
      if (field !== "") return void 0;
      quoted = true;
      wasQuoted = true;
    } else if (char === ",") {
      row.push(field);
      field = "";
    } else if (char === "\r" && text[i + 1] === "\n") {
      endRow();
      i++;
    } else if (char === "\n") {
      endRow();
    } else {
      field += char;
    }
    i++;
  }
  if (quoted) return void 0;
  if (field !== "" || wasQuoted || row.length > 0) endRow();
  return rows;
}


;// CONCATENATED MODULE: ./lib/report/results/records.js

function parseRecords(text) {
  const body = text.replace(/^\uFEFF/, "").trim();
  if (body === "") return { error: "the output is empty" };
  if (body.startsWith("{") || body.startsWith("[")) {
    const whole = parseJson(body);
    if (whole.ok) {
      const records = Array.isArray(whole.value) ? whole.value : [whole.value];
      const bad = records.findIndex((r) => !isRecord(r));
      if (bad >= 0) return { error: `item ${bad + 1} of the JSON is not an object` };
      return { records, format: "json" };
    }
    return jsonLines(body);
  }
  return csvRecords(body);
}
function isRecord(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
function parseJson(text) {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    const quoted = text.replace(/([:[,]\s*)(-?Infinity|NaN)(?=\s*[,}\]])/g, '$1"$2"');
    if (quoted === text) return { ok: false };
    try {
      return { ok: true, value: JSON.parse(quoted) };
    } catch {
      return { ok: false };
    }
  }
}
function jsonLines(body) {
  const lines = body.split("\n");
  const records = [];
  for (const [i, line] of lines.entries()) {
    if (line.trim() === "") continue;
    const parsed = parseJson(line);
    if (!parsed.ok)
      return { error: `line ${i + 1} is not JSON${i === lines.length - 1 ? " (a record cut off mid-write?)" : ""}` };
    if (!isRecord(parsed.value)) return { error: `line ${i + 1} is not a JSON object` };
    records.push(parsed.value);
  }
  return { records, format: "jsonl" };
}
function csvRecords(body) {
  const rows = parseCsv(body);
  if (rows === void 0) return { error: "the output is neither JSON nor CSV (a quote is never closed)" };
  const [header, ...data] = rows;
  if (header === void 0 || header.length < 2 && data.length === 0)
    return { error: "the output is neither JSON nor CSV with a header line" };
  const records = [];
  for (const [i, row] of data.entries()) {
    if (row.length !== header.length)
      return { error: `CSV line ${i + 2} has ${row.length} fields, the header ${header.length}` };
    const r = {};
    header.forEach((name, k) => {
      const v = row[k];
      if (v.trim() !== "") r[name] = numeric(v) ?? v;
    });
    records.push(r);
  }
  return { records, format: "csv" };
}
function numeric(v) {
  const n = Number(v.trim());
  return Number.isFinite(n) ? n : void 0;
}
function parseRecordRule(rule) {
  if (rule === void 0 || rule === "last") return { kind: "last" };
  if (rule === "all") return { kind: "all" };
  const m = /^best:(.+):(min|max)$/.exec(rule);
  if (!m) throw new Error(`not a record rule: ${rule}`);
  return { kind: "best", field: m[1], by: m[2] };
}
function pickRecords(records, rule) {
  if (records.length === 0) return { error: "the output holds no record" };
  const indexed = records.map((record, i) => ({ index: i + 1, record }));
  if (rule.kind === "all") return { picked: indexed };
  if (rule.kind === "last") return { picked: [indexed.at(-1)] };
  let best;
  for (const r of indexed) {
    const value = r.record[rule.field];
    if (typeof value !== "number" || !Number.isFinite(value)) continue;
    if (best === void 0 || (rule.by === "min" ? value < best.value : value > best.value)) best = { ...r, value };
  }
  if (best === void 0) return { error: `no record has a number in ${rule.field} (record: best)` };
  return { picked: [{ index: best.index, record: best.record }] };
}
function metricValues(record, metrics) {
  const values = {};
  const problems = [];
  for (const m of metrics) {
    if (!Object.hasOwn(record, m)) {
      problems.push(`no ${m}`);
      continue;
    }
    const v = record[m];
    if (typeof v === "number" && Number.isFinite(v)) values[m] = v;
    else problems.push(`${m} is ${JSON.stringify(v) ?? String(v)}, not a number`);
  }
  return { values, problems };
}


;// CONCATENATED MODULE: ./lib/report/results/output-result.js


const ResultRecord = schemas/* object */.Ikc({
  /** The record's place in the output (1-based). */
  index: schemas/* number */.aig().int(),
  values: schemas/* record */.g1P(schemas/* string */.YjP(), schemas/* number */.aig()),
  /** Which of the metrics is missing or not a number. */
  problem: schemas/* string */.YjP().optional()
});
const OutputResult = schemas/* union */.KCZ([schemas/* object */.Ikc({ records: schemas/* array */.YOg(ResultRecord) }), schemas/* object */.Ikc({ problem: schemas/* string */.YjP() })]);
function outputResult(text, rule, metrics) {
  const parsed = parseRecords(text);
  if ("error" in parsed) return { problem: parsed.error };
  const picked = pickRecords(parsed.records, rule);
  if ("error" in picked) return { problem: picked.error };
  return {
    records: picked.picked.map(({ index, record }) => {
      const { values, problems } = metricValues(record, metrics);
      const which = rule.kind === "last" ? "the last record" : `record ${index}`;
      return { index, values, ...problems.length > 0 ? { problem: `${which}: ${problems.join(", ")}` } : {} };
    })
  };
}


;// CONCATENATED MODULE: ./lib/report/results/gathering.js


const ENDS_FROM = 1024 * 1024;
const END_BYTES = 64 * 1024;
const WHOLE_LIMIT = 64 * 1024 * 1024;
const TRANSFER_BYTES = 32 * 1024 * 1024;
function howToRead(size, endsSuffice) {
  if (endsSuffice && size >= ENDS_FROM) return "ends";
  if (size > WHOLE_LIMIT)
    return {
      problem: `it is ${size} bytes, more than the ${WHOLE_LIMIT} read whole (record: best and all read it all)`
    };
  return "whole";
}
function joinEnds(head, tail) {
  const firstLine = head.split("\n", 1)[0];
  const cut = tail.indexOf("\n");
  return `${firstLine}
${cut < 0 ? "" : tail.slice(cut + 1)}`;
}
function transferGroups(files) {
  const groups = [];
  let group = [];
  let bytes = 0;
  for (const f of files) {
    if (group.length > 0 && bytes + f.size > TRANSFER_BYTES) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(f);
    bytes += f.size;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}
const KeptResults = schemas/* object */.Ikc({
  version: schemas/* literal */.euz(1),
  source: schemas/* string */.YjP(),
  declaration: schemas/* string */.YjP(),
  files: schemas/* record */.g1P(schemas/* string */.YjP(), schemas/* object */.Ikc({ stamp: schemas/* string */.YjP(), result: OutputResult }))
});
function knownStamps(kept, source, declaration) {
  if (kept === void 0 || kept.source !== source || kept.declaration !== declaration) return /* @__PURE__ */ new Map();
  return new Map(Object.entries(kept.files).map(([path, f]) => [path, f.stamp]));
}


;// CONCATENATED MODULE: ./lib/exec/transport/tar.js
const tar_BLOCK = 512;
function untar(archive) {
  const files = [];
  let longName;
  let at = 0;
  while (at + tar_BLOCK <= archive.length) {
    const header = archive.subarray(at, at + tar_BLOCK);
    if (header.every((b) => b === 0)) break;
    if (!checksumHolds(header)) throw new Error(`not a tar header at byte ${at}`);
    const size = octal(header.subarray(124, 136));
    const type = String.fromCharCode(header[156]);
    const start = at + tar_BLOCK;
    if (start + size > archive.length) throw new Error(`the archive ends inside ${field(header, 0, 100)}`);
    const data = archive.subarray(start, start + size);
    at = start + Math.ceil(size / tar_BLOCK) * tar_BLOCK;
    if (type === "L") {
      longName = data.toString("utf8").replace(/\0+$/, "");
      continue;
    }
    if (type === "x") {
      longName = paxPath(data) ?? longName;
      continue;
    }
    const prefix = field(header, 345, 155);
    const name = longName ?? (prefix === "" ? field(header, 0, 100) : `${prefix}/${field(header, 0, 100)}`);
    longName = void 0;
    if (type === "0" || type === "\0") files.push({ path: name, data: Buffer.from(data) });
  }
  return files;
}
function field(header, from, length) {
  const raw = header.subarray(from, from + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? length : end).toString("utf8");
}
function octal(raw) {
  if ((raw[0] & 128) !== 0) throw new Error("a tar entry of 8 GiB or more");
  const text = raw.toString("ascii").replace(/\0.*$/s, "").trim();
  return text === "" ? 0 : parseInt(text, 8);
}
function checksumHolds(header) {
  let sum = 0;
  for (let i = 0; i < tar_BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i];
  return sum === octal(header.subarray(148, 156));
}
function paxPath(data) {
  let at = 0;
  let path;
  while (at < data.length) {
    const space = data.indexOf(32, at);
    if (space < 0) break;
    const length = parseInt(data.subarray(at, space).toString("ascii"), 10);
    if (!(length > 0)) break;
    const record = data.subarray(space + 1, at + length - 1).toString("utf8");
    if (record.startsWith("path=")) path = record.slice(5);
    at += length;
  }
  return path;
}


;// CONCATENATED MODULE: ./lib/exec/gather.js





const TRANSFER_TIMEOUT_MS = 3e5;
const AT_ONCE = 64;
async function gatherByArchive(transport, workdir, paths, known, endsSuffice, take) {
  if (paths.length === 0) return;
  const cd = `cd -- ${(0,shell/* shellQuote */.ZL)(workdir)} || exit 3`;
  const listed = await transport.exec(
    `${cd}
xargs -0 -r stat -L --printf '%n\\0%F\\0%s %i %y\\0' -- 2>/dev/null
exit 0`,
    {
      stdin: paths.map((p) => `./${p}\0`).join(""),
      timeoutMs: TRANSFER_TIMEOUT_MS
    }
  );
  if (listed.code !== 0) throw cannotGather(workdir, listed.stderr);
  const whole = [];
  const ends = [];
  const fields = listed.stdout.split("\0");
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const path = fields[i].replace(/^\.\//, "");
    const type = fields[i + 1];
    const stamp = fields[i + 2];
    if (type !== "regular file" && type !== "regular empty file") {
      take(path, { stamp, problem: `it is a ${type}, not a regular file` });
      continue;
    }
    if (known.get(path) === stamp) {
      take(path, { stamp });
      continue;
    }
    const size = Number(stamp.split(" ", 1)[0]);
    const how = howToRead(size, endsSuffice);
    if (how === "whole") whole.push({ path, size, stamp });
    else if (how === "ends") ends.push({ path, stamp });
    else take(path, { stamp, ...how });
  }
  const groups = transferGroups(whole);
  if (ends.length > 0 && groups.length === 0) groups.push([]);
  for (const [g, group] of groups.entries()) {
    const withEnds = g === 0 ? ends : [];
    const r = await transport.exec(
      [
        cd,
        "IFS= read -r -d '' n || exit 0",
        "i=0",
        `while [ "$i" -lt "$n" ] && IFS= read -r -d '' p; do`,
        `  printf '%s\\0' "$p"; head -c ${END_BYTES} -- "$p" | base64 -w0`,
        `  printf '\\0'; tail -c ${END_BYTES} -- "$p" | base64 -w0; printf '\\0'`,
        "  i=$((i + 1))",
        "done",
        // A file gone since it was listed is left out of the archive (tar says so on stderr); a
        // file linked twice (a symlink to a sibling output, a hard link) is carried twice.
        "tar -chzf - --hard-dereference --null --no-recursion -T - 2>/dev/null | base64 -w0"
      ].join("\n"),
      {
        stdin: `${withEnds.length}\0${[...withEnds, ...group].map((f) => `./${f.path}\0`).join("")}`,
        timeoutMs: TRANSFER_TIMEOUT_MS
      }
    );
    if (r.code !== 0) throw cannotGather(workdir, r.stderr);
    const parts = r.stdout.split("\0");
    const stamps = new Map([...withEnds, ...group].map((f) => [f.path, f.stamp]));
    for (let i = 0; i < withEnds.length; i++) {
      const path = parts[3 * i].replace(/^\.\//, "");
      const text = joinEnds(fromBase64(parts[3 * i + 1]), fromBase64(parts[3 * i + 2]));
      take(path, { stamp: stamps.get(path), text });
    }
    const archive = parts[3 * withEnds.length] ?? "";
    if (group.length === 0 || archive === "") continue;
    for (const f of untar((0,external_node_zlib_.gunzipSync)(Buffer.from(archive, "base64")))) {
      const path = f.path.replace(/^\.\//, "");
      const stamp = stamps.get(path);
      if (stamp !== void 0) take(path, { stamp, text: f.data.toString("utf8") });
    }
  }
}
async function gatherEach(files, root, paths, known, take) {
  for (let i = 0; i < paths.length; i += AT_ONCE) {
    await Promise.all(
      paths.slice(i, i + AT_ONCE).map(async (path) => {
        const st = await files.stat(`${root}/${path}`);
        if (st === void 0) return;
        const stamp = `${st.size} ${st.mtimeMs}`;
        if (!st.isFile) return take(path, { stamp, problem: "it is not a regular file" });
        if (known.get(path) === stamp) return take(path, { stamp });
        const how = howToRead(st.size, false);
        if (typeof how === "object") return take(path, { stamp, ...how });
        const text = await files.readFile(`${root}/${path}`, { maxBytes: WHOLE_LIMIT });
        if (text !== void 0) take(path, { stamp, text });
      })
    );
  }
}
function fromBase64(text) {
  return Buffer.from(text, "base64").toString("utf8");
}
function cannotGather(workdir, stderr) {
  return new errors/* UserError */.yo({
    message: `cannot read the outputs in ${workdir}: ${stderr.trim() || "the workdir cannot be entered"}`,
    fix: "check that the workdir exists and is readable on the cluster, then run again"
  });
}


// EXTERNAL MODULE: ./lib/decide/generation.js
var decide_generation = __webpack_require__(47884);
// EXTERNAL MODULE: ./lib/exec/transport/transport.js
var transport = __webpack_require__(31286);
;// CONCATENATED MODULE: ./lib/exec/generation.js



class GenerationRecord {
  constructor(files, path) {
    this.files = files;
    this.path = path;
  }
  files;
  path;
  /** The generation as this record last read or wrote it: the one a submission is keyed by. */
  last;
  async read() {
    const recorded = (0,decide_generation/* parseGeneration */.ux)(await this.files.readFile(this.path));
    if (recorded !== void 0) this.last = recorded;
    return recorded;
  }
  /**
   * Records `generation` where none is, and returns the one recorded: of two controllers racing,
   * the first writer's stands and the other reads it. A workdir where nothing can be written (a
   * file, a directory not writable, a login with neither a shell nor file transfer) records
   * nothing: the generation is the caller's, and the tasks' launches say what is wrong.
   */
  async record(generation) {
    try {
      if (!await this.files.createFile(this.path, (0,decide_generation/* renderGeneration */.FD)(generation)))
        return await this.read() ?? generation;
    } catch (e) {
      if (e instanceof transport/* LinkError */.R6) throw e;
    }
    this.last = generation;
    return generation;
  }
  /** Records a new generation over the one there (`run --fresh`): every controller then follows it. */
  async replace(generation) {
    const failed = await this.files.writeFiles([{ path: this.path, text: (0,decide_generation/* renderGeneration */.FD)(generation) }]);
    if (failed.length > 0)
      throw new errors/* UserError */.yo({
        message: `cannot record the campaign's new generation in ${this.path} of the workdir`,
        fix: "check that the workdir is writable, then run --fresh again"
      });
    this.last = generation;
  }
}


;// CONCATENATED MODULE: ./lib/exec/transport-workdir.js













const RECORDS_READ_LIMIT = 64 * 1024 * 1024;
function needsShell(what, fix) {
  return new errors/* UserError */.yo({
    message: `${what} needs a shell on the login node, and cluster.restricted says it is an automation node, which runs none`,
    fix
  });
}
const CHECK_TIMEOUT_MS = 61e4;
const transport_workdir_SFTP_BATCH = 64;
const WRITE_BATCH = 500;
const STAT_BATCH = 500;
const STAT_BATCH_BYTES = 1e5;
class TransportWorkdir {
  constructor(transport, manifest, kind) {
    this.transport = transport;
    this.manifest = manifest;
    this.kind = kind;
    this.restricted = (0,schema/* restriction */.V0)(manifest.cluster) !== void 0;
    this.abs = kind.path;
    this.generation = new GenerationRecord(this, `${kind.folder}/generation`);
  }
  transport;
  manifest;
  kind;
  abs;
  /** Where the workdir really is (symlinks resolved), against which outputs are checked. */
  real = askedOnce(async () => this.transport.realpath(await this.path()));
  /**
   * The tasks whose outputs a pass may judge (lookOutputs), looked at together at the first
   * freshness check of the pass, and what that look found, by absolute path (null where nothing
   * is there). Undefined outside such a pass: each output is looked at alone.
   */
  toLook;
  looked;
  /**
   * Restricted to plain commands and SFTP (an automation node): what would run a shell there
   * goes through SFTP here instead, or is refused.
   */
  restricted;
  generation;
  /** The absolute workdir (`~` is the remote user's home). */
  async path() {
    if (this.abs === void 0) this.abs = (0,transport/* resolveHome */.e6)(this.manifest.workdir, await this.home());
    return this.abs;
  }
  async home() {
    if (this.manifest.workdir.startsWith("/")) return "/";
    if (this.restricted) {
      const home = await this.transport.realpath("~").catch((e) => {
        if (!(e instanceof errors/* UserError */.yo)) throw e;
        throw new errors/* UserError */.yo({
          message: `cannot find the home directory on the automation node: ${e.problems[0]?.message}`,
          fix: "give workdir as an absolute path (e.g. /home/you/scratch/runs): without file transfer, campaign cannot ask where ~ is"
        });
      });
      if (home?.startsWith("/")) return home;
      throw new errors/* UserError */.yo("cannot find the home directory on the automation node: SFTP gave none");
    }
    const r = await this.transport.exec('printf %s "$HOME"');
    if (r.code !== 0 || !r.stdout.startsWith("/"))
      throw new errors/* UserError */.yo(`cannot find the home directory on the server: ${r.stderr.trim()}`);
    return r.stdout;
  }
  /** When the attempt's output counts from, as its kind says. */
  since(attempt) {
    return this.kind.since?.(attempt) ?? attempt.submittedAt;
  }
  /**
   * Whether the task's output exists, was written at or after `since` (the server's clock, to
   * the second), and is really there: an output that is a symlink, or under one (to a
   * sibling's output, or out of the workdir), proves nothing of this task's work.
   */
  async freshness(task, since) {
    const path = `${await this.path()}/${task.output ?? ""}`;
    let seen;
    if (task.output !== void 0 && this.toLook !== void 0) {
      this.looked ??= this.lookNow(this.toLook);
      seen = (await this.looked).get(path);
    }
    const st = task.output === void 0 ? void 0 : seen === void 0 ? await this.transport.stat(path) : seen;
    if (!st?.isFile) return { exists: false, fresh: false, path };
    const [real, workdir] = await Promise.all([seen ? seen.real : this.transport.realpath(path), this.real()]);
    if (real !== `${workdir}/${external_node_path_.posix.normalize(task.output)}`) {
      return { exists: true, fresh: false, path, linkedTo: real ?? "a missing file" };
    }
    return { exists: true, fresh: st.mtimeMs >= Math.floor(Date.parse(since) / 1e3) * 1e3, path, size: st.size };
  }
  /**
   * The outputs of these tasks are looked at together, for the freshness checks of the ends a
   * pass judges, until `forget`: at the first such check, with a shell, one command per {@link
   * STAT_BATCH} outputs (a `stat` of them all, and where each really is by `cd -P`, a builtin),
   * not two SFTP round trips each; restricted, their SFTP requests {@link SFTP_BATCH} at a time.
   * A pass that judges none looks at none. A thousand packed tasks ending in one pass were two
   * thousand round trips one after another.
   */
  lookOutputs(tasks) {
    this.toLook = tasks;
    this.looked = void 0;
  }
  /** Outputs are looked at one by one again (the pass that looked at them together is over). */
  forget() {
    this.toLook = void 0;
    this.looked = void 0;
  }
  async lookNow(tasks) {
    const workdir = await this.path();
    const paths = [...new Set(tasks.flatMap((t) => t.output === void 0 ? [] : [`${workdir}/${t.output}`]))];
    const looked = /* @__PURE__ */ new Map();
    if (this.restricted) {
      for (let i = 0; i < paths.length; i += transport_workdir_SFTP_BATCH) {
        const chunk = paths.slice(i, i + transport_workdir_SFTP_BATCH);
        const found = await Promise.all(
          chunk.map(async (p) => {
            const st = await this.transport.stat(p);
            return st?.isFile ? { ...st, real: await this.transport.realpath(p) } : st;
          })
        );
        chunk.forEach((p, j) => looked.set(p, found[j] ?? null));
      }
    } else {
      for (let i = 0; i < paths.length; ) {
        let bytes = 0;
        let end = i;
        while (end < paths.length && end - i < STAT_BATCH && (end === i || bytes + paths[end].length < STAT_BATCH_BYTES))
          bytes += paths[end++].length + 1;
        const chunk = paths.slice(i, end);
        i = end;
        for (const [p, st] of await this.statBatch(chunk)) looked.set(p, st);
      }
    }
    return looked;
  }
  /**
   * One command: `stat -L` of every path (following symlinks, as SFTP's stat does; a missing
   * one prints nothing), then each regular file's real path, its directory resolved by the
   * builtin `cd -P` and, where the file itself is a symlink, by `realpath`. Every field ends
   * in a NUL; paths travel on standard input, never in the command's text.
   */
  async statBatch(paths) {
    const r = await this.transport.exec(
      [
        "paths=()",
        `while IFS= read -r -d '' p; do paths+=("$p"); done`,
        '[ "${#paths[@]}" -gt 0 ] || exit 0',
        `stat -L --printf 'S\\0%n\\0%F\\0%Y\\0%s\\0' -- "\${paths[@]}" 2>/dev/null`,
        'for p in "${paths[@]}"; do',
        `  [ -e "$p" ] || { printf 'X\\0%s\\0' "$p"; continue; }`,
        '  [ -f "$p" ] || continue',
        '  if [ -L "$p" ]; then r=$(realpath -e -- "$p" 2>/dev/null) || continue',
        '  elif cd -P -- "${p%/*}/" 2>/dev/null; then r=$PWD/${p##*/}',
        "  else continue",
        "  fi",
        `  printf 'R\\0%s\\0%s\\0' "$p" "$r"`,
        "done",
        "printf 'END\\0'"
      ].join("\n"),
      { stdin: paths.map((p) => `${p}\0`).join("") }
    );
    const found = /* @__PURE__ */ new Map();
    const f = r.stdout.split("\0");
    if (r.code !== 0 || f.at(-2) !== "END") return found;
    const asked = new Set(paths);
    for (let i = 0; i < f.length; ) {
      if (f[i] === "X" && i + 1 < f.length) {
        if (asked.has(f[i + 1])) found.set(f[i + 1], null);
        i += 2;
      } else if (f[i] === "S" && i + 4 < f.length) {
        const [path, type, mtime, size] = [f[i + 1], f[i + 2], f[i + 3], f[i + 4]];
        if (asked.has(path) && /^\d+$/.test(mtime) && /^\d+$/.test(size))
          found.set(path, { isFile: type.startsWith("regular"), mtimeMs: Number(mtime) * 1e3, size: Number(size) });
        i += 5;
      } else if (f[i] === "R" && i + 2 < f.length) {
        const st = found.get(f[i + 1]);
        if (st) st.real = f[i + 2];
        i += 3;
      } else i++;
    }
    for (const [p, st] of found) if (st?.isFile && st.real === void 0) found.delete(p);
    return found;
  }
  /**
   * A fresh output's text with what its phase expects it to hold, for classifyEnd; undefined
   * where nothing is expected, or where it is too large to read whole (then it goes unchecked).
   */
  async records(task, out) {
    const expect = (0,checklist/* fullRecordExpectation */.vL)(this.manifest, task);
    if (!expect || !out.fresh || out.linkedTo || (out.size ?? Infinity) > RECORDS_READ_LIMIT) return void 0;
    const text = await this.transport.readFile(out.path, { maxBytes: RECORDS_READ_LIMIT });
    return text === void 0 ? void 0 : { expect, text };
  }
  async outputFacts(task, attempt, withText) {
    if (task.output === void 0) return { exists: false, fresh: false };
    const { exists, fresh, path, linkedTo, size } = await this.freshness(task, this.since(attempt));
    if (!exists) return { exists: false, fresh: false };
    if (linkedTo) return { exists, fresh, linkedTo };
    if (this.restricted) {
      const text2 = await this.transport.readFile(path, { maxBytes: RECORDS_READ_LIMIT }).catch(() => void 0);
      const digest2 = text2 === void 0 ? void 0 : (0,external_node_crypto_.createHash)("sha256").update(text2).digest("hex");
      return {
        exists: true,
        fresh,
        ...digest2 ? { digest: digest2 } : {},
        ...withText && text2 !== void 0 ? { text: text2 } : {}
      };
    }
    const sum = await this.transport.exec(`sha256sum -- ${(0,shell/* shellQuote */.ZL)(path)}`);
    const digest = sum.code === 0 ? sum.stdout.split(" ")[0] : void 0;
    const text = withText && (size ?? 0) <= RECORDS_READ_LIMIT ? await this.transport.readFile(path) : void 0;
    return { exists: true, fresh, ...digest ? { digest } : {}, ...text === void 0 ? {} : { text } };
  }
  async runCheck(task, command) {
    if (this.restricted)
      throw needsShell(
        "a `check: command` item",
        "check the outputs with output_exists, records or log_contains items"
      );
    const workdir = await this.path();
    const env = (0,shell/* exportLines */.Es)(manifestTaskEnv(this.manifest, task, 0, workdir));
    const r = await this.transport.exec(
      `cd -- ${(0,shell/* shellQuote */.ZL)(workdir)} || exit 127
${env}
timeout 600 bash -c ${(0,shell/* shellQuote */.ZL)(command)} 2>&1`,
      { timeoutMs: CHECK_TIMEOUT_MS }
    );
    return { exitCode: r.code, tail: (r.stdout + r.stderr).slice(-4e3) };
  }
  async writeFiles(files) {
    if (files.length === 0) return [];
    const workdir = await this.path();
    if (this.restricted) {
      const failed2 = [];
      const made = /* @__PURE__ */ new Map();
      for (const f of files) {
        const to = external_node_path_.posix.resolve(workdir, f.path);
        const dir = external_node_path_.posix.dirname(to);
        if (!made.has(dir)) made.set(dir, this.transport.mkdirp(dir));
        await made.get(dir).then(() => this.transport.writeFile(to, f.text)).catch(() => failed2.push(f.path));
      }
      return failed2;
    }
    const failed = [];
    for (let i = 0; i < files.length; i += WRITE_BATCH)
      failed.push(...await this.writeBatch(workdir, files.slice(i, i + WRITE_BATCH)));
    return failed;
  }
  async writeBatch(workdir, files) {
    const raw = files.every((f) => !f.text.includes("\0"));
    const r = await this.transport.exec(
      [
        `cd -- ${(0,shell/* shellQuote */.ZL)(workdir)} || exit 3`,
        "shopt -s dotglob nullglob",
        "declare -A stage=()",
        "paths=() staged=()",
        "while IFS= read -r -d '' p && IFS= read -r -d '' b; do",
        "  case $p in */*) d=${p%/*} n=${p##*/} ;; *) d=. n=$p ;; esac",
        "  s=${stage[$d]-}",
        '  if [ -z "$s" ]; then',
        '    if { [ -d "$d" ] || mkdir -p -- "$d" 2>/dev/null; } && s=$(mktemp -d -- "$d/.campaign-write-XXXXXXXX" 2>/dev/null); then',
        "      stage[$d]=$s",
        `    else printf '%s\\0' "$p"; continue; fi`,
        "  fi",
        raw ? `  { printf '%s' "$b" > "$s/$n"; } 2>/dev/null || { printf '%s\\0' "$p"; continue; }` : `  { printf '%s' "$b" | base64 -d > "$s/$n"; } 2>/dev/null || { printf '%s\\0' "$p"; continue; }`,
        '  paths+=("$p") staged+=("$s/$n")',
        "done",
        'for d in "${!stage[@]}"; do',
        "  s=${stage[$d]}",
        '  f=("$s"/*)',
        '  [ "${#f[@]}" -eq 0 ] || { chmod 644 -- "${f[@]}" && mv -f -t "$d" -- "${f[@]}"; } 2>/dev/null',
        "done",
        // What is still in its folder was not put in place.
        'for i in "${!paths[@]}"; do [ ! -e "${staged[$i]}" ] || printf \'%s\\0\' "${paths[$i]}"; done',
        '[ "${#stage[@]}" -eq 0 ] || rm -rf -- "${stage[@]}"'
      ].join("\n"),
      {
        stdin: files.map((f) => `${f.path}\0${raw ? f.text : Buffer.from(f.text).toString("base64")}\0`).join("")
      }
    );
    if (r.code === 3) return files.map((f) => f.path);
    return [...new Set(r.stdout.split("\0").filter(Boolean))];
  }
  /**
   * Writes a small file where nothing is at the workdir-relative path, whole, by a hard link
   * from a temporary file (link(2) refuses a path that exists, atomically); false where
   * something is. Restricted, by SFTP's rename, which refuses a target that exists.
   */
  async createFile(path, text) {
    const to = external_node_path_.posix.resolve(await this.path(), path);
    if (this.restricted) {
      await this.transport.mkdirp(external_node_path_.posix.dirname(to));
      const temp = (0,transport/* tempPathFor */.FD)(to);
      await this.transport.writeFile(temp, text);
      return this.transport.rename(temp, to).then(
        () => true,
        // The temporary file stays (no shell to remove it with): small, and named as one.
        async (e) => {
          if (await this.transport.stat(to) === void 0) throw e;
          return false;
        }
      );
    }
    const script = [
      // An absolute path: its directory and name by bash's own expansions, not two processes.
      "p=$1 d=${1%/*} && d=${d:-/}",
      'mkdir -p -- "$d" && t=$(mktemp -- "$d/.${p##*/}.tmp-XXXXXXXX") || exit 4',
      'printf %s "$2" > "$t" && chmod 644 -- "$t" || { rm -f -- "$t"; exit 4; }',
      'if ln -- "$t" "$p" 2>/dev/null; then made=yes; else made=no; fi',
      'rm -f -- "$t"',
      '[ "$made" = yes ] || [ -e "$p" ] || exit 4',
      'echo "$made"'
    ].join("\n");
    const r = await this.transport.exec(
      `bash -c ${(0,shell/* shellQuote */.ZL)(script)} campaign-create ${(0,shell/* shellQuote */.ZL)(to)} ${(0,shell/* shellQuote */.ZL)(text)}`
    );
    if (r.code !== 0)
      throw new errors/* UserError */.yo({
        message: `cannot write ${to}: ${r.stderr.trim() || `exit status ${r.code}`}`,
        fix: "check that the workdir is writable and has space"
      });
    return r.stdout.trim() === "yes";
  }
  /** renderSetAside run in the workdir, the kind's folder of the campaign holding its attempts. */
  async setAside(dest) {
    if (this.restricted)
      throw needsShell(
        "--fresh (moving the earlier attempts and outputs aside)",
        `move ${this.manifest.workdir} aside by hand from a login node with a shell, or give the campaign a new workdir`
      );
    const workdir = await this.path();
    const r = await this.transport.exec(
      renderSetAside({ workdir, campaign: this.manifest.campaign, attempts: this.kind.folder, dest })
    );
    const aside = parseSetAside(dest, r);
    if (!("error" in aside)) return aside;
    throw new errors/* UserError */.yo({
      message: `cannot move the campaign's earlier attempts and outputs aside in ${workdir}: ${aside.error}`,
      fix: "fix the permissions named and run again: what was moved stays moved, and the rest follows"
    });
  }
  async readFile(path) {
    return this.transport.readFile(`${await this.path()}/${path}`).catch(() => void 0);
  }
  /** Over the shell where there is one, else by file transfer alone. */
  async shipCode(snapshot) {
    const workdir = await this.path();
    if (this.restricted) return shipOverSftp(this.transport, workdir, snapshot);
    return shipOverShell(this.transport, workdir, snapshot);
  }
  async removeCode(keep) {
    const workdir = await this.path();
    if (this.restricted)
      throw needsShell(
        "`campaign gc` (removing code snapshots)",
        `remove the folders of ${workdir}/.campaign/code/ that no task runs by hand, from a login node with a shell`
      );
    return removeSnapshotsOverShell(this.transport, workdir, keep);
  }
  async gather(paths, known, endsSuffice, take) {
    const workdir = await this.path();
    if (this.restricted) return gatherEach(this.transport, workdir, paths, known, take);
    return gatherByArchive(this.transport, workdir, paths, known, endsSuffice, take);
  }
  async missing(paths) {
    const workdir = await this.path();
    const out = [];
    if (this.restricted) {
      for (let i = 0; i < paths.length; i += transport_workdir_SFTP_BATCH) {
        const chunk = paths.slice(i, i + transport_workdir_SFTP_BATCH);
        const found = await Promise.all(chunk.map((p) => this.transport.stat(external_node_path_.posix.resolve(workdir, p))));
        out.push(...chunk.filter((_, j) => found[j] === void 0));
      }
      return out;
    }
    for (let i = 0; i < paths.length; i += 1e3) {
      const chunk = paths.slice(i, i + 1e3);
      const r = await this.transport.exec(
        `cd -- ${(0,shell/* shellQuote */.ZL)(workdir)} || exit 3; while IFS= read -r -d '' p; do [ -e "$p" ] || printf '%s\\0' "$p"; done`,
        { stdin: chunk.map((p) => `${p}\0`).join("") }
      );
      if (r.code === 3) return [...paths];
      out.push(...r.stdout.split("\0").filter(Boolean));
    }
    return out;
  }
}


// EXTERNAL MODULE: ./lib/exec/transport/words.js
var transport_words = __webpack_require__(73466);
;// CONCATENATED MODULE: ./lib/exec/transport/whole-file.js


async function writeWholeFile(path, data, options = {}) {
  const temp = (0,transport/* tempPathFor */.FD)(path);
  try {
    await (0,promises_.writeFile)(temp, data, { flag: "wx", ...options.mode === void 0 ? {} : { mode: options.mode } });
    if (options.mode !== void 0) await (0,promises_.chmod)(temp, options.mode);
    if (!options.keepExisting) {
      await (0,promises_.rename)(temp, path);
      return true;
    }
    return await (0,promises_.link)(temp, path).then(
      () => true,
      (e) => {
        if (e.code === "EEXIST") return false;
        throw e;
      }
    );
  } finally {
    await (0,promises_.rm)(temp, { force: true });
  }
}


;// CONCATENATED MODULE: ./lib/exec/transport/local.js








class LocalTransport {
  home;
  inherited;
  sent = 0;
  constructor(opts = {}) {
    this.home = opts.home ?? (0,external_node_os_.homedir)();
    this.inherited = opts.environment === "inherited";
  }
  get commandsSent() {
    return this.sent;
  }
  exec(command, opts = {}) {
    return this.bash(command, command, opts);
  }
  /**
   * Through bash, as the node's wrapper runs them (a builtin such as `cd` as a builtin, 127 for
   * a program that is not there), but with each string word quoted, so that it is one literal
   * word, and in a glob word only its `*` and `?` left bare, so that bash expands them as the
   * node does (no nullglob: a pattern that matches nothing stays as it is).
   */
  async run(words, opts = {}) {
    const command = (0,transport_words/* plainCommand */.O)(words);
    const script = words.map(
      (w) => typeof w === "string" ? (0,shell/* shellQuote */.ZL)(w) : w.glob.split(/([*?])/).map((part, i) => i % 2 === 1 ? part : (0,shell/* shellQuote */.ZL)(part)).join("")
    ).join(" ");
    return this.bash(script, command, opts);
  }
  /**
   * In the foreground of this terminal (its process group), so that the terminal's Ctrl-C and
   * Ctrl-Z reach the command; this process lets Ctrl-C pass meanwhile.
   */
  async attach(command) {
    this.sent++;
    const child = (0,external_node_child_process_.spawn)("bash", ["-c", command], {
      cwd: this.home,
      env: { ...this.inherited ? (0,secrets/* environmentWithoutSecrets */.tL)() : (0,secrets/* loginEnvironment */.X6)(), HOME: this.home },
      stdio: "inherit"
    });
    const passOn = () => {
    };
    process.on("SIGINT", passOn);
    try {
      return await new Promise((resolve, reject) => {
        child.once("error", reject);
        child.once("close", (code, signal) => resolve(code ?? 128 + (signal ? external_node_os_.constants.signals[signal] : 0)));
      });
    } finally {
      process.off("SIGINT", passOn);
    }
  }
  /** Runs `script` in bash; errors name `command` by its first word. */
  bash(script, command, opts) {
    this.sent++;
    const timeoutMs = opts.timeoutMs ?? transport/* DEFAULT_COMMAND_TIMEOUT_MS */.LP;
    return new Promise((resolve, reject) => {
      const child = (0,external_node_child_process_.spawn)("bash", ["-c", script], {
        cwd: this.home,
        env: { ...this.inherited ? (0,secrets/* environmentWithoutSecrets */.tL)() : (0,secrets/* loginEnvironment */.X6)(), HOME: this.home },
        detached: true,
        stdio: "pipe"
      });
      const stdout = [];
      const stderr = [];
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
        }
        reject((0,transport/* commandTimeout */.bf)(command, timeoutMs, "this machine"));
      }, timeoutMs);
      child.stdout.on("data", (b) => stdout.push(b));
      child.stderr.on("data", (b) => stderr.push(b));
      child.on("error", (e) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(e);
      });
      child.on("close", (code, signal) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({
          // As a shell reports it: 128 + the signal's number for a killed command.
          code: code ?? 128 + (signal ? external_node_os_.constants.signals[signal] : 0),
          stdout: Buffer.concat(stdout).toString("utf8"),
          stderr: Buffer.concat(stderr).toString("utf8")
        });
      });
      child.stdin.on("error", () => {
      });
      child.stdin.end(opts.stdin ?? "");
    });
  }
  async writeFile(path, data, opts = {}) {
    await writeWholeFile((0,transport/* resolveHome */.e6)(path, this.home), data, opts);
  }
  async rename(from, to) {
    const [source, target] = [(0,transport/* resolveHome */.e6)(from, this.home), (0,transport/* resolveHome */.e6)(to, this.home)];
    if (await (0,promises_.stat)(target).catch(() => void 0)) throw new Error(`${target} exists`);
    await (0,promises_.rename)(source, target);
  }
  async readFile(path, opts = {}) {
    const target = (0,transport/* resolveHome */.e6)(path, this.home);
    const maxBytes = opts.maxBytes ?? transport/* DEFAULT_MAX_READ_BYTES */.W2;
    const handle = await (0,promises_.open)(target, "r").catch((e) => {
      if (missing(e)) return void 0;
      throw e;
    });
    if (!handle) return void 0;
    try {
      const { size } = await handle.stat();
      if (size > maxBytes) throw (0,transport/* tooLarge */.g$)(target, size, maxBytes);
      const bytes = await handle.readFile();
      if (bytes.length > maxBytes) throw (0,transport/* tooLarge */.g$)(target, bytes.length, maxBytes);
      return bytes.toString("utf8");
    } finally {
      await handle.close();
    }
  }
  async stat(path) {
    const s = await (0,promises_.stat)((0,transport/* resolveHome */.e6)(path, this.home)).catch((e) => {
      if (missing(e)) return void 0;
      throw e;
    });
    return s && { size: s.size, mtimeMs: s.mtimeMs, isFile: s.isFile() };
  }
  async realpath(path) {
    return (0,promises_.realpath)((0,transport/* resolveHome */.e6)(path, this.home)).catch((e) => {
      if (missing(e)) return void 0;
      throw e;
    });
  }
  async mkdirp(path) {
    await (0,promises_.mkdir)((0,transport/* resolveHome */.e6)(path, this.home), { recursive: true });
  }
  async close() {
  }
}
function missing(e) {
  return e.code === "ENOENT" || e.code === "ENOTDIR";
}


;// CONCATENATED MODULE: ./lib/exec/executor.js

function cancelFailed(code, stderr) {
  return new errors/* UserError */.yo({
    message: `cancelling failed (exit ${code}): ${stderr.trim()}`,
    fix: "stop the tasks by hand: each attempt's directory holds its process group in pgid (kill -- -PGID)"
  });
}


;// CONCATENATED MODULE: ./lib/exec/local/process.js

async function processAlive(pid, script) {
  const stat = await (0,promises_.readFile)(`/proc/${pid}/stat`, "utf8").catch(() => void 0);
  if (stat === void 0) return false;
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  if (state === "Z" || state === "X") return false;
  const cmdline = await (0,promises_.readFile)(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
  return cmdline.split("\0").includes(script);
}
async function waitFor(probe, timeoutMs, everyMs = 20) {
  const end = Date.now() + timeoutMs;
  for (; ; ) {
    const v = await probe();
    if (v !== void 0 || Date.now() >= end) return v;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}


;// CONCATENATED MODULE: ./lib/exec/local/local-executor.js















const KILL_AFTER = 10;
const localAttemptsDir = (campaign) => [".campaign", "local", campaign, "attempts"];
class LocalExecutor {
  constructor(opts) {
    this.opts = opts;
    this.maxParallel = opts.manifest.cluster.max_parallel ?? 2;
    this.workdir = new TransportWorkdir(new LocalTransport({ environment: "inherited" }), opts.manifest, {
      folder: localAttemptsDir(opts.manifest.campaign).slice(0, -1).join("/"),
      path: opts.workdir
    });
    this.now = opts.now ?? (() => (/* @__PURE__ */ new Date()).toISOString());
  }
  opts;
  maxParallel;
  now;
  /** The workdir, on this machine. */
  workdir;
  capacity(active) {
    return Math.max(0, this.maxParallel - active);
  }
  /**
   * Stops the attempts with the script ssh-gpu runs on its server: SIGTERM to each one's
   * process group, SIGKILL after the grace period. Their ends (class `cancelled`) are reported
   * by the next observation.
   */
  async cancel(active) {
    const dirs = active.map((a) => this.attemptDir(a.task.id, a.attempt.n));
    const r = await new LocalTransport({ environment: "inherited" }).exec(renderCancel(CANCEL_FILE, KILL_AFTER), {
      stdin: dirs.map((d) => `${d}
`).join("")
    });
    if (r.code !== 0) throw cancelFailed(r.code, r.stderr);
  }
  /**
   * Where one attempt keeps its script, pid, exit marker and log: under the campaign's own
   * directory, so that two campaigns sharing a workdir never see each other's attempts.
   */
  attemptDir(taskId, attempt) {
    return (0,external_node_path_.join)(
      this.opts.workdir,
      ...localAttemptsDir(this.opts.manifest.campaign),
      ...taskId.split("/"),
      String(attempt)
    );
  }
  async submit(submissions) {
    const events = [];
    for (const sub of submissions) {
      const dir = this.attemptDir(sub.task.id, sub.attempt);
      const event = (at, pid) => ({
        type: "submitted",
        task: sub.task.id,
        attempt: sub.attempt,
        at,
        handle: `pid:${pid}`,
        log: (0,external_node_path_.join)(dir, "log"),
        ...sub.memBytes === void 0 ? {} : { memBytes: sub.memBytes }
      });
      const adopted = await this.adopt(dir, sub.task.definition);
      if (adopted) {
        events.push(event(adopted.at, adopted.pid));
        continue;
      }
      try {
        const at = await this.launch(sub, dir, this.now());
        const pid = await waitFor(() => readPid(dir), 1e4);
        events.push(pid === void 0 ? failed(sub, at, "the wrapper did not start within 10 s") : event(at, pid));
      } catch (e) {
        events.push(failed(sub, this.now(), e.message));
      }
    }
    return events;
  }
  /**
   * An attempt launched by an earlier pass under the same definition: its pid and launch time.
   * One of another definition (left by a state that was lost before the manifest changed) is
   * not this attempt: it is moved aside, never adopted.
   */
  async adopt(dir, definition) {
    const at = await (0,promises_.readFile)((0,external_node_path_.join)(dir, "launched"), "utf8").catch(() => void 0);
    if (at === void 0) return void 0;
    const ranUnder = (await (0,promises_.readFile)((0,external_node_path_.join)(dir, "definition"), "utf8").catch(() => "")).trim();
    if (definition !== void 0 && ranUnder !== definition) {
      await (0,promises_.rename)(dir, `${dir}.superseded-${Date.now()}`);
      return void 0;
    }
    const pid = await waitFor(() => readPid(dir), 3e3);
    return pid === void 0 ? void 0 : { pid, at: at.trim() };
  }
  /** Launches the attempt; returns its launch time, another controller's where it launched the attempt first. */
  async launch(sub, dir, at) {
    await (0,promises_.mkdir)(dir, { recursive: true });
    const body = renderTaskScript(scriptInputFor(this.opts.manifest, sub.task, sub.index, void 0, sub.code));
    await writeWholeFile((0,external_node_path_.join)(dir, "task.sh"), body, { mode: 493 });
    await writeWholeFile(
      (0,external_node_path_.join)(dir, "wrapper.sh"),
      renderWrapper({
        dir,
        walltimeSeconds: sub.array.budget.seconds,
        killAfterSeconds: KILL_AFTER,
        checkpoint: checkpointOf(phaseOf(this.opts.manifest, sub.task)?.checkpoint)
      }),
      { mode: 493 }
    );
    if (sub.task.definition !== void 0) await (0,promises_.writeFile)((0,external_node_path_.join)(dir, "definition"), `${sub.task.definition}
`);
    const launched = (0,external_node_path_.join)(dir, "launched");
    const first = await writeWholeFile(launched, `${at}
`, { keepExisting: true });
    const env = {
      ...(0,secrets/* environmentWithoutSecrets */.tL)(),
      ...manifestTaskEnv(this.opts.manifest, sub.task, sub.attempt, this.opts.workdir),
      ...resumeEnv(phaseOf(this.opts.manifest, sub.task), sub.resume)
    };
    const child = (0,external_node_child_process_.spawn)("bash", [(0,external_node_path_.join)(dir, "wrapper.sh")], {
      detached: true,
      stdio: "ignore",
      env,
      cwd: this.opts.workdir
    });
    await new Promise((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
    child.unref();
    return first ? at : (await (0,promises_.readFile)(launched, "utf8")).trim();
  }
  async observe(active) {
    const events = [];
    for (const { task, attempt, walltimeSeconds } of active) {
      const dir = this.attemptDir(task.id, attempt.n);
      const base = { task: task.id, attempt: attempt.n };
      let marker = await readExit(dir, this.now());
      if (marker === void 0) {
        const pid = await readPid(dir);
        if (pid !== void 0 && await processAlive(pid, (0,external_node_path_.join)(dir, "wrapper.sh"))) {
          if (!attempt.startedAt) events.push({ type: "started", ...base, at: await pidTime(dir) ?? this.now() });
          continue;
        }
        marker = await readExit(dir, this.now());
        if (marker === void 0) {
          events.push({
            type: "finished",
            ...base,
            at: this.now(),
            class: "lost",
            reason: "the process is gone and left no exit marker"
          });
          continue;
        }
      }
      if (!attempt.startedAt) events.push({ type: "started", ...base, at: marker.startedAt ?? marker.at });
      const log = await this.readLog(task, attempt);
      const { cls, reason } = await this.classify(task, attempt, marker, log, walltimeSeconds);
      events.push({
        type: "finished",
        ...base,
        at: marker.at,
        class: cls,
        exitCode: marker.code,
        ...reason ? { reason } : {},
        node: (0,external_node_os_.hostname)()
      });
    }
    return events;
  }
  async classify(task, attempt, marker, log, walltimeSeconds) {
    const expect = (0,checklist/* fullRecordExpectation */.vL)(this.opts.manifest, task);
    const judged = marker.code === 0 || marker.warnedAt !== void 0;
    const out = task.output === void 0 || !judged ? void 0 : await this.workdir.outputFacts(task, attempt, !!expect);
    const records = expect && out?.text !== void 0 ? { expect, text: out.text } : void 0;
    return classifyEnd({
      marker,
      log,
      walltimeSeconds,
      // Exit status 137 alone marks an out-of-memory end here: no GPU, no CUDA messages.
      oomPatterns: [],
      ...out ? { output: { path: task.output, ...out } } : {},
      ...records ? { records } : {}
    });
  }
  async readLog(task, attempt) {
    return (0,promises_.readFile)(await this.logPath(task, attempt), "utf8").catch(() => "");
  }
  async logPath(task, attempt) {
    return (0,external_node_path_.join)(this.attemptDir(task.id, attempt.n), "log");
  }
  async close() {
  }
}
function failed(sub, at, reason) {
  return { type: "submit_failed", task: sub.task.id, attempt: sub.attempt, at, reason };
}
async function pidTime(dir) {
  const st = await (0,promises_.stat)((0,external_node_path_.join)(dir, "pid")).catch(() => void 0);
  return st ? st.mtime.toISOString() : void 0;
}
async function readPid(dir) {
  const text = await (0,promises_.readFile)((0,external_node_path_.join)(dir, "pid"), "utf8").catch(() => "");
  const pid = Number.parseInt(text, 10);
  return Number.isInteger(pid) && pid > 0 ? pid : void 0;
}
async function readExit(dir, now) {
  const text = await (0,promises_.readFile)((0,external_node_path_.join)(dir, "exit"), "utf8").catch(() => void 0);
  return text === void 0 ? void 0 : parseExitMarker(text, now);
}


// EXTERNAL MODULE: ./lib/plan/pack.js
var pack = __webpack_require__(3342);
;// CONCATENATED MODULE: ./lib/render/pack-driver.js

const elementOf = (i, tasks) => Math.floor(i / tasks);
function elementLine(element, rows) {
  return `e${element}	${rows.join(" ")}`;
}
function parseElementLine(line) {
  const m = /^e(\d+)\t(\d+(?: \d+)*)$/.exec(line);
  return m ? { element: Number(m[1]), rows: m[2].split(" ").map(Number) } : void 0;
}
function packShares(input) {
  return {
    cpus: Math.max(1, Math.floor(input.cpus / input.parallel)),
    gpus: Math.floor(input.gpus / input.parallel)
  };
}
function renderPackDriver(input) {
  const k = input.parallel;
  if (!Number.isInteger(k) || k < 1) throw new Error(`not a parallel count: ${k}`);
  const share = packShares(input);
  if (!Number.isInteger(share.cpus) || !Number.isInteger(share.gpus) || share.gpus < 0)
    throw new Error(`not a share of CPUs and GPUs: ${JSON.stringify(share)}`);
  const slices = k > 1 && share.gpus > 0;
  const env = [
    ...slices ? ['CUDA_VISIBLE_DEVICES="$campaign_gpus"'] : [],
    `SLURM_CPUS_PER_TASK=${share.cpus}`,
    ...k > 1 ? [`OMP_NUM_THREADS=${share.cpus}`] : [],
    `CAMPAIGN_CPUS=${share.cpus}`
  ].join(" ");
  return [
    "#!/usr/bin/env bash",
    ...input.header,
    `# campaign ${input.campaign}: one packed array element. Generated; edits are overwritten.`,
    "set -u",
    `campaign_dir=${(0,shell/* shellQuote */.ZL)(input.dir)}`,
    "campaign_element=${SLURM_ARRAY_TASK_ID:-none}",
    // Compared as strings, as the task script's lookup is. The element's line first, then each
    // of its rows as the table has it, read in one pass: its tasks look up nothing themselves.
    `campaign_found=$(awk -F "\\t" -v e="e$campaign_element" '$1 "" == e "" { print $2; n = split($2, r, " "); for (k = 1; k <= n; k++) want[r[k] ""] = 1; found = 1; next } found && ($1 "") in want { print $1 "\\t" $2 } END { exit !found }' "$campaign_dir/table.tsv") || {`,
    `  printf '[campaign] element %s is not in the task table %s\\n' "$campaign_element" "$campaign_dir/table.tsv"`,
    "  exit 1",
    "}",
    "campaign_nl=$'\\n'",
    'campaign_rows=${campaign_found%%"$campaign_nl"*}',
    "[[ $campaign_rows =~ ^[0-9]+( [0-9]+)*$ ]] || { printf '[campaign] a malformed element line\\n'; exit 1; }",
    "declare -A campaign_data=()",
    `while IFS=$'\\t' read -r campaign_r campaign_d; do [[ $campaign_r =~ ^[0-9]+$ ]] && campaign_data[$campaign_r]=$campaign_d; done <<< "\${campaign_found#*"$campaign_nl"}"`,
    ...slices ? [
      // The element's devices, as Slurm gave them; a slot's slice of fewer is a shortfall its task's devices gate tells.
      `IFS=',' read -r -a campaign_devices <<< "\${CUDA_VISIBLE_DEVICES:-}"`,
      "campaign_gpus="
    ] : [],
    "campaign_stop=0",
    // Each running task by pid: its row, and the slot (its share of the element) it holds.
    "declare -A campaign_running=() campaign_slot_of=()",
    "campaign_busy=()",
    "campaign_on_term() {",
    "  campaign_stop=1",
    "  local p",
    '  for p in "${!campaign_running[@]}"; do kill -TERM -- "-$p" 2>/dev/null; done',
    "}",
    "trap campaign_on_term TERM",
    // wait -n returns when any task ends, or when SIGTERM's trap has run; the tasks still alive
    // are the ones kill -0 finds (one ended but not yet waited for is found, and waited for next).
    "campaign_reap() {",
    "  wait -n 2>/dev/null",
    "  local p",
    '  for p in "${!campaign_running[@]}"; do',
    '    kill -0 "$p" 2>/dev/null && continue',
    "    campaign_busy[${campaign_slot_of[$p]}]=",
    '    unset "campaign_running[$p]" "campaign_slot_of[$p]"',
    "  done",
    "}",
    "for campaign_row in $campaign_rows; do",
    `  while [ "\${#campaign_running[@]}" -ge ${k} ]; do campaign_reap; done`,
    '  [ "$campaign_stop" = 0 ] || break',
    "  campaign_slot=0",
    '  while [ -n "${campaign_busy[$campaign_slot]:-}" ]; do campaign_slot=$((campaign_slot + 1)); done',
    ...slices ? [
      `  campaign_slice=("\${campaign_devices[@]:$((campaign_slot * ${share.gpus})):${share.gpus}}")`,
      `  printf -v campaign_gpus '%s,' "\${campaign_slice[@]}"`,
      "  campaign_gpus=${campaign_gpus%,}"
    ] : [],
    `  printf '[campaign] element %s runs row %s (slot %s)\\n' "$campaign_element" "$campaign_row" "$campaign_slot"`,
    // Job control gives the task a process group of its own, which SIGTERM is passed to.
    "  set -m",
    `  ${env} CAMPAIGN_PACKED_ROW="\${campaign_data[$campaign_row]:-}" SLURM_ARRAY_TASK_ID=$campaign_row bash "$campaign_dir/task.sh" >> "$campaign_dir/logs/$campaign_row.log" 2>&1 &`,
    "  set +m",
    "  campaign_running[$!]=$campaign_row",
    "  campaign_slot_of[$!]=$campaign_slot",
    "  campaign_busy[$campaign_slot]=$!",
    "done",
    'while [ "${#campaign_running[@]}" -gt 0 ]; do campaign_reap; done',
    '[ "$campaign_stop" = 0 ] || exit 143',
    ""
  ].join("\n");
}


;// CONCATENATED MODULE: ./lib/render/sbatch.js








const sbatchLine = (o) => `#SBATCH ${slurmOptionText(o)}`;
const directive = (option, value) => sbatchLine({ option, value });
function arraySpec(indices) {
  const sorted = [...new Set(indices)].sort((a, b) => a - b);
  const parts = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(j > i ? `${sorted[i]}-${sorted[j]}` : String(sorted[i]));
    i = j + 1;
  }
  return parts.join(",");
}
function tableRow(index, env) {
  const pairs = Object.entries(env).map(([k, v]) => escapePair(`${k}=${v}`));
  return `${index}	${pairs.join(" ")}`;
}
const hexBytes = (c) => [...Buffer.from(c, "utf8")].map((b) => `\\x${b.toString(16).padStart(2, "0")}`).join("");
const escapePair = (pair) => pair.replace(shell/* NOT_PLAIN */.HV, hexBytes);
function rowPairs(data) {
  if (!data.startsWith("CAMPAIGN_")) return Buffer.from(data, "base64").toString("utf8").split("\0");
  const byte = (_, hex) => String.fromCharCode(parseInt(hex, 16));
  return data.split(" ").map((pair) => Buffer.from(pair.replace(/\\x([0-9a-f]{2})/g, byte), "latin1").toString("utf8"));
}
function rowEnvironment(line) {
  const [index = "", data = ""] = line.split("	");
  if (!/^\d+$/.test(index)) return void 0;
  const pairs = rowPairs(data).map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]);
  return { index: Number(index), env: new Map(pairs) };
}
function rowAttempt(line) {
  const row = rowEnvironment(line);
  if (!row) return void 0;
  const task = row.env.get((0,template/* envName */.pD)("task"));
  const attempt = Number(row.env.get((0,template/* envName */.pD)("attempt")));
  const definition = row.env.get("CAMPAIGN_DEFINITION") ?? "";
  return task && Number.isInteger(attempt) && attempt > 0 ? { index: row.index, task, attempt, definition } : void 0;
}
function allocationOptions(manifest, array, extra = {}) {
  const cluster = manifest.cluster;
  const r = array.resources;
  const budget = extra.budget ?? array.budget;
  const mem = extra.memBytes ?? r.memBytes;
  const account = r.account ?? (cluster.executor === "slurm" ? cluster.account : void 0);
  const exclude = [...r.exclude ? [r.exclude] : [], ...extra.exclude ?? []];
  return [
    { option: "time", value: (0,units/* formatSlurmTime */.Cw)(budget.seconds) },
    ...budget.partition ? [{ option: "partition", value: budget.partition }] : [],
    ...account ? [{ option: "account", value: account }] : [],
    ...r.qos ? [{ option: "qos", value: r.qos }] : [],
    ...r.constraint ? [{ option: "constraint", value: r.constraint }] : [],
    ...r.reservation ? [{ option: "reservation", value: r.reservation }] : [],
    { option: "nodes", value: 1 },
    { option: "ntasks", value: 1 },
    { option: "cpus-per-task", value: r.cpus },
    ...r.gpus > 0 ? [{ option: "gres", value: `gpu:${r.gpuType ? `${r.gpuType}:` : ""}${r.gpus}` }] : [],
    ...mem === void 0 ? [] : r.memPerCpu ? [{ option: "mem-per-cpu", value: (0,units/* formatSlurmMem */.Ee)(Math.ceil(mem / r.cpus)) }] : [{ option: "mem", value: (0,units/* formatSlurmMem */.Ee)(mem) }],
    ...exclude.length > 0 ? [{ option: "exclude", value: exclude.join(",") }] : []
  ];
}
function slurmOptionText({ option, value }) {
  if (!/^[a-z][a-z0-9-]*$/.test(option)) throw new Error(`not an sbatch option name: ${option}`);
  if (value === void 0) return `--${option}`;
  const text = String(value);
  if (!/^[^\s"'\\#]+$/.test(text)) {
    throw new errors/* UserError */.yo({
      message: `the value for sbatch --${option} (${JSON.stringify(text)}) holds blanks, quotes, "#" or backslashes`,
      fix: "use a workdir, account and partition without such characters"
    });
  }
  return `--${option}=${text}`;
}
function renderSbatch(input) {
  const { manifest, array } = input;
  const r = array.resources;
  const phase = manifest.phases.find((p) => p.name === array.phase);
  const packing = array.packing;
  if (packing && input.selfContained)
    throw new Error("a packed array cannot be self-contained: its elements run task.sh (lint refuses pack there)");
  const indices = packing ? [...new Set(input.rows.map((x) => x.element ?? 0))] : input.rows.map((x) => x.index);
  const caps = [manifest.cluster.max_parallel, phase?.max_parallel].filter((cap) => cap !== void 0);
  const throttle = caps.length === 0 ? void 0 : Math.min(indices.length, ...caps);
  const passed = phase?.slurm_args ?? manifest.defaults?.slurm_args ?? [];
  const allocation = allocationOptions(manifest, array, {
    ...input.memBytes === void 0 ? {} : { memBytes: input.memBytes },
    ...input.exclude === void 0 ? {} : { exclude: input.exclude },
    // An element asks the sum of its tasks' budgets (plan/pack.ts).
    ...packing ? { budget: packing.budget } : {}
  });
  const logs = input.logDir.replace(/%/g, "%%");
  const header = [
    directive("job-name", input.jobName),
    directive("comment", input.key),
    directive("array", `${arraySpec(indices)}${throttle ? `%${throttle}` : ""}`),
    ...allocation.filter((o) => o.option !== "exclude").map(sbatchLine),
    directive("chdir", input.workdir),
    // A packed element's own output (the driver's lines) is apart from its tasks' logs.
    directive("output", input.selfContained ? "/dev/null" : packing ? `${logs}/e%a.log` : `${logs}/%a.log`),
    ...allocation.filter((o) => o.option === "exclude").map(sbatchLine),
    // Passed through as written; the schema refused the options campaign sets itself.
    ...passed.map((arg) => {
      const [option = "", ...value] = arg.slice(2).split("=");
      return sbatchLine(value.length === 0 ? { option } : { option, value: value.join("=") });
    }),
    // A failed node is the controller's to handle (that index alone, elsewhere), not Slurm's.
    "#SBATCH --no-requeue",
    // The warning goes to the batch shell, which passes it on to the command (task-script.ts).
    ...phase?.checkpoint ? [directive("signal", `B:${phase.checkpoint.signal}@${Math.round((0,units/* parseDuration */.E9)(phase.checkpoint.before))}`)] : []
  ];
  const rows = input.rows.map(
    (row) => tableRow(row.index, {
      ...manifestTaskEnv(manifest, row.task, row.attempt, input.workdir),
      ...resumeEnv(phase, row.resume)
    })
  ).join("\n");
  const elements = packing ? elementLines(input.rows) : [];
  const table = `${[tableHeader(input.submission), ...elements].join("\n")}
${rows}
`;
  const lookup = `awk -F "\\t" -v i="\${SLURM_ARRAY_TASK_ID:-none}" '$1 "" == i "" { print $2; found = 1; exit } END { exit !found }'`;
  const prelude = [
    `campaign_table=${(0,shell/* shellQuote */.ZL)(input.tablePath)}`,
    ...input.selfContained ? selfContainedLines(input.logDir, table, lookup) : packing ? [
      // The element's driver read this row from the table with its own (pack-driver.ts): a
      // task of a packed element forks no lookup of its own. Looked up here where it did not.
      "campaign_row=${CAMPAIGN_PACKED_ROW:-}",
      "unset CAMPAIGN_PACKED_ROW",
      `[ -n "$campaign_row" ] || campaign_row=$(${lookup} "$campaign_table") ||`
    ] : [`campaign_row=$(${lookup} "$campaign_table") ||`],
    '  campaign_fail index "array index ${SLURM_ARRAY_TASK_ID:-none} is not in the task table $campaign_table"',
    // Decoded by bash itself (tableRow): a here-string and printf fork nothing.
    'read -r -a campaign_pairs <<< "$campaign_row"',
    'for campaign_pair in "${campaign_pairs[@]}"; do',
    `  printf -v campaign_kv '%b' "$campaign_pair"`,
    "  campaign_key=${campaign_kv%%=*}",
    '  [[ $campaign_key =~ ^CAMPAIGN_[A-Za-z0-9_]+$ ]] || campaign_fail index "a malformed task-table row"',
    '  export "$campaign_key=${campaign_kv#*=}"',
    "done"
  ];
  const first = input.rows[0];
  if (!first) throw new Error("an sbatch submission needs at least one row");
  const gpus = packing ? packShares({ parallel: packing.parallel, cpus: r.cpus, gpus: r.gpus }).gpus : r.gpus;
  const task = renderTaskScript({
    ...scriptInputFor(manifest, first.task, 0, gpus, input.code),
    index: '"${SLURM_ARRAY_TASK_ID}"',
    header: packing ? [] : header,
    prelude,
    oneNode: true,
    markers: { dir: input.markerDir, key: input.submission }
  });
  if (!packing) return { script: task, table };
  const dir = input.tablePath.slice(0, input.tablePath.lastIndexOf("/"));
  const driver = renderPackDriver({
    header,
    campaign: manifest.campaign,
    dir,
    parallel: packing.parallel,
    cpus: r.cpus,
    gpus: r.gpus
  });
  return { script: driver, table, task };
}
function elementLines(rows) {
  const byElement = /* @__PURE__ */ new Map();
  for (const row of rows) {
    if (row.element === void 0) throw new Error(`row ${row.index} of a packed array has no element`);
    const held = byElement.get(row.element);
    if (held) held.push(row.index);
    else byElement.set(row.element, [row.index]);
  }
  return [...byElement].sort(([a], [b]) => a - b).map(([element, held]) => elementLine(element, held));
}
function selfContainedLines(logDir, table, lookup) {
  return [
    `mkdir -p -- ${(0,shell/* shellQuote */.ZL)(logDir)} 2>/dev/null`,
    `exec >> ${(0,shell/* shellQuote */.ZL)(logDir)}/"\${SLURM_ARRAY_TASK_ID:-none}.log" 2>&1`,
    "campaign_rows=$(cat <<'CAMPAIGN_TABLE'",
    table.trimEnd(),
    "CAMPAIGN_TABLE",
    ")",
    `[ -e "$campaign_table" ] || { printf '%s\\n' "$campaign_rows" > "$campaign_table.\${SLURM_ARRAY_TASK_ID:-none}" &&`,
    '  mv -f -- "$campaign_table.${SLURM_ARRAY_TASK_ID:-none}" "$campaign_table"; } 2>/dev/null',
    `campaign_row=$(printf '%s\\n' "$campaign_rows" | ${lookup}) ||`
  ];
}
const tableHeader = (submission) => `# submission ${submission}`;
const TABLE_HEADER = /^# submission (\S+)$/;
function slurmRoot(workdir, campaign) {
  return `${workdir}/.campaign/slurm/${campaign}`;
}
function submissionFiles(manifest, group, where) {
  const first = group[0];
  const packing = first.array.packing;
  return renderSbatch({
    manifest,
    array: first.array,
    jobName: where.name,
    key: first.array.id,
    submission: where.dir.slice(where.dir.lastIndexOf("/") + 1),
    rows: group.map((s, i) => ({
      index: s.index,
      task: s.task,
      attempt: s.attempt,
      ...s.resume ? { resume: true } : {},
      ...packing ? { element: elementOf(i, packing.tasks) } : {}
    })),
    workdir: where.workdir,
    tablePath: `${where.dir}/table.tsv`,
    logDir: `${where.dir}/logs`,
    markerDir: `${where.dir}/markers`,
    ...first.memBytes === void 0 ? {} : { memBytes: first.memBytes },
    ...where.exclude && first.avoidNodes ? { exclude: first.avoidNodes } : {},
    ...where.selfContained ? { selfContained: true } : {},
    ...first.code === void 0 ? {} : { code: first.code }
  });
}
function submissionKey(campaign, generation, group) {
  const h = (0,external_node_crypto_.createHash)("sha256");
  h.update(
    `${campaign}\0${generation}\0${group[0].array.id}\0${group[0].memBytes ?? ""}\0${(group[0].avoidNodes ?? []).join(",")}`
  );
  for (const s of group) h.update(`\0${s.task.id}:${s.attempt}:${s.task.definition ?? ""}`);
  return h.digest("hex").slice(0, 12);
}


// EXTERNAL MODULE: ./lib/state/events.js
var events = __webpack_require__(98432);
;// CONCATENATED MODULE: ./lib/exec/slurm/commands.js

class SlurmCommands {
  constructor(opts) {
    this.opts = opts;
  }
  opts;
  /** The user's jobs in the queue that are not the campaign's, as the queue last said. */
  others = 0;
  /** Jobs are named `<campaign>~<key>`. */
  get prefix() {
    return `${this.opts.manifest.campaign}~`;
  }
  /**
   * The script and its task table written to the submission's directory, side by side: over SFTP
   * each file is a few round trips of its own (on the test cluster, the directory and the three
   * files took 0.9 s of a campaign's start one after another, 0.5 s side by side). All have
   * ended, written or not, before it returns.
   */
  async upload(files, dir) {
    const t = this.opts.transport;
    await t.mkdirp(`${dir}/logs`);
    const written = await Promise.allSettled([
      t.writeFile(`${dir}/table.tsv`, files.table),
      ...files.task === void 0 ? [] : [t.writeFile(`${dir}/task.sh`, files.task)],
      t.writeFile(`${dir}/job.sh`, files.script, { mode: 493 })
    ]);
    const failed = written.find((w) => w.status === "rejected");
    if (failed) throw failed.reason;
  }
  /** sbatch's answer; where the link failed, the record is read again before anything more is sent. */
  sbatch(sending) {
    return sending.catch((e) => {
      this.opts.record.forget();
      throw e;
    });
  }
}
function sbatchFailure(r) {
  const error = (r.stderr.trim() || r.stdout.trim() || `sbatch exited ${r.code}`).split("\n").slice(-3).join(" ");
  return {
    error,
    transient: /temporarily|timed out|unable to contact|connection refused|try again|socket/i.test(error)
  };
}
function scontrolOutput(r) {
  if (r.code !== 0)
    throw new errors/* UserError */.yo({
      message: `scontrol failed on the cluster: ${r.stderr.trim() || r.stdout.trim()}`,
      fix: "check that Slurm is reachable from the login node"
    });
  return r.stdout;
}
function declaredMaxJobs(manifest) {
  const cluster = manifest.cluster;
  return cluster.executor === "slurm" ? cluster.max_jobs : void 0;
}


;// CONCATENATED MODULE: ./lib/exec/slurm/test-only.js

const MARK = "== campaign test-only";
const STATUS_LINE = new RegExp(`^${MARK} (\\d+) (\\d+)$`);
function renderTestOnly(arrays) {
  return arrays.map((a, i) => {
    const b64 = Buffer.from(a.script, "utf8").toString("base64");
    return `printf '%s' ${(0,shell/* shellQuote */.ZL)(b64)} | base64 -d | sbatch --test-only ${testedIndices(a)} 2>&1; printf '\\n${MARK} %s %s\\n' ${i} "$?"`;
  }).join("\n");
}
function testedIndices(a) {
  const from = a.size - Math.min(a.count ?? a.size, a.size);
  return `--array=${a.size - 1 > from ? `${from}-${a.size - 1}` : a.size - 1}`;
}
const ARRAY_SIZE_OPTION = "cluster.max_array_size";
const QUEUE_LIMIT_OPTION = "cluster.max_jobs";
const REFUSALS = [
  {
    // Before the QOS: the refusal's words name the "accounting/QOS policy".
    words: /SubmitJob/i,
    option: QUEUE_LIMIT_OPTION,
    fix: "wait for your jobs in the queue to end, or declare cluster.max_jobs within the limit: `sacctmgr show assoc user=$USER format=account,maxsubmit`"
  },
  {
    words: /job array/i,
    option: ARRAY_SIZE_OPTION,
    fix: "keep max_array_size within the cluster's MaxArraySize: `scontrol show config | grep MaxArraySize`"
  },
  {
    words: /qos/i,
    option: "resources.qos",
    fix: "ask for a QOS your account may use: `sacctmgr show assoc user=$USER format=account,partition,qos`"
  },
  {
    words: /account/i,
    option: "resources.account (or cluster.account)",
    fix: "name an account you belong to: `sacctmgr show assoc user=$USER format=account`"
  },
  {
    words: /feature/i,
    option: "resources.constraint",
    fix: 'ask for features the nodes have: `sinfo -o "%P %f"`'
  },
  {
    words: /reservation/i,
    option: "resources.reservation",
    fix: "name a reservation that is active and open to you: `scontrol show reservation`"
  },
  {
    words: /partition/i,
    option: "resources.partition (or cluster.partitions)",
    fix: "name a partition you may use: `sinfo -s`"
  },
  {
    words: /gres|generic resource/i,
    option: "resources.gpus / resources.gpu_type",
    fix: 'ask for a GPU type and count the nodes have: `sinfo -o "%P %G"`'
  },
  {
    words: /node configuration is not available|memory|cpu count|more processors/i,
    option: "resources (gpus, gpu_type, cpus, mem)",
    fix: 'ask for no more than one node of the partition has: `sinfo -o "%P %c %m %G %f"`'
  },
  {
    words: /time limit/i,
    option: "the walltime",
    fix: "fit the walltime into the partition's MaxTime: `scontrol show partition`"
  }
];
function parseTestOnly(arrays, output) {
  const answers = arrays.map(() => void 0);
  let text = [];
  for (const line of output.split("\n")) {
    const m = STATUS_LINE.exec(line);
    if (!m) {
      text.push(line);
      continue;
    }
    if (arrays[Number(m[1])]) answers[Number(m[1])] = { code: Number(m[2]), output: text.join("\n") };
    text = [];
  }
  return testOnlyRefusals(arrays, answers);
}
function testOnlyRefusals(arrays, answers) {
  return arrays.flatMap((a, i) => {
    const answer = answers[i];
    if (answer === void 0) return [refusal(a, "sbatch --test-only gave no answer")];
    if (answer.code === 0) return [];
    const words = answer.output.split("\n").map((l) => l.trim()).filter((l) => l !== "").join(" ");
    return [refusal(a, words.replace(/^sbatch: error: /i, ""))];
  });
}
function refusal(a, error) {
  const known = REFUSALS.find((r) => r.words.test(error));
  return {
    array: a.array,
    phase: a.phase,
    error: error || "sbatch --test-only refused it without a reason",
    ...known ? { option: known.option } : {},
    fix: known?.fix ?? "run the script through `sbatch --test-only` on the login node to see what Slurm refuses"
  };
}


;// CONCATENATED MODULE: ./lib/exec/slurm/fit.js





function arraySizeIn(config) {
  const max = /MaxArraySize\s*=\s*(\d+)/i.exec(config);
  return max ? Number(max[1]) : 1001;
}
function partitionsIn(text) {
  const partitions = /* @__PURE__ */ new Map();
  let defaultPartition;
  for (const line of text.split("\n")) {
    const name = /PartitionName=(\S+)/.exec(line)?.[1];
    const time = /MaxTime=(\S+)/.exec(line)?.[1];
    if (!name) continue;
    partitions.set(name, time === void 0 || time === "UNLIMITED" ? void 0 : (0,units/* parseDuration */.E9)(time));
    if (/\bDefault=YES\b/.test(line)) defaultPartition = name;
  }
  return { partitions, ...defaultPartition ? { defaultPartition } : {} };
}
function checkPlan(plan, limits) {
  const problems = [];
  for (const phase of plan.phases) {
    for (const a of phase.arrays) {
      const indices = a.packing ? (0,pack/* elementsOf */.ZE)(a.tasks.length, a.packing.tasks) : a.tasks.length;
      if (limits.maxArraySize !== void 0 && indices > limits.maxArraySize)
        problems.push(
          `array ${a.id} has ${a.tasks.length} tasks${a.packing ? ` in ${indices} elements` : ""}; the cluster's MaxArraySize is ${limits.maxArraySize}`
        );
      const p = a.budget.partition ?? limits.defaultPartition;
      if (p === void 0) continue;
      const where = a.budget.partition === void 0 ? `${p} (the cluster's default partition)` : p;
      if (!limits.partitions.has(p))
        problems.push(
          `array ${a.id} asks for partition ${p}, which the cluster does not have (it has ${[...limits.partitions.keys()].join(", ")})`
        );
      const cap = limits.partitions.get(p);
      if (cap !== void 0 && a.budget.seconds > cap) {
        problems.push(
          `array ${a.id} asks ${(0,units/* formatDuration */.a3)(a.budget.seconds)} on ${where}, whose MaxTime is ${(0,units/* formatDuration */.a3)(cap)}`
        );
      }
    }
  }
  if (problems.length > 0) {
    throw new errors/* UserError */.yo(
      problems.map((message) => ({
        message,
        fix: "match cluster.partitions and max_array_size to `scontrol show partition` and `scontrol show config`"
      }))
    );
  }
}
function testedArrays(plan, manifest, where, room) {
  const arrays = /* @__PURE__ */ new Map();
  for (const phase of plan.phases) {
    const specs = new Map([...phase.tasks, ...phase.smoke].map((t) => [t.id, t]));
    for (const array of phase.arrays) {
      const task = specs.get(array.tasks[0]);
      if (!task) continue;
      const { script } = submissionFiles(manifest, [{ task, attempt: 1, array, index: 0 }], where);
      const asks = script.split("\n").filter((l) => l.startsWith("#SBATCH") && !/^#SBATCH --(comment|array)=/.test(l)).join("\n");
      const size = array.packing ? (0,pack/* elementsOf */.ZE)(array.tasks.length, array.packing.tasks) : array.tasks.length;
      if (size > (arrays.get(asks)?.size ?? 0))
        arrays.set(asks, {
          array: array.id,
          phase: phase.name,
          script,
          size,
          ...room !== void 0 && room < size ? { count: room } : {}
        });
    }
  }
  return [...arrays.values()];
}
function roomAside(refusals, warn) {
  const full = refusals.filter((r) => r.option === QUEUE_LIMIT_OPTION);
  if (full.length > 0)
    warn(
      `sbatch --test-only could not try ${full.map((r) => r.array).join(", ")}: your queue is at its limit (${full[0].error}); the campaign waits for room`
    );
  return refusals.filter((r) => r.option !== QUEUE_LIMIT_OPTION);
}
function refusedError(refusals) {
  return new errors/* UserError */.yo(
    refusals.map((r) => ({
      message: `sbatch --test-only refuses array ${r.array} (phase ${r.phase})${r.option ? `, for ${r.option}` : ""}: ${r.error}`,
      fix: r.fix
    }))
  );
}


;// CONCATENATED MODULE: ./lib/exec/slurm/handles.js
function isJobLog(root, path) {
  return path.startsWith(`${root}/`) && /^[0-9a-f]{12}\/logs\/\d+\.log$/.test(path.slice(root.length + 1));
}
function arrayHandle(a) {
  const h = a.attempt.handle;
  return h !== void 0 && /^\d+_\d+$/.test(h) ? h : void 0;
}
function arrayJob(a) {
  return arrayHandle(a)?.split("_")[0];
}
function markerKey(a, packed) {
  const handle = a.attempt.handle;
  if (handle === void 0 || !packed) return handle;
  const row = /\/logs\/(\d+)\.log$/.exec(a.attempt.log ?? "")?.[1];
  return row === void 0 ? handle : `${handle.split("_")[0]}_${row}`;
}
function submissionsOf(root, active) {
  const keys = new Set(
    active.flatMap(
      ({ attempt }) => attempt.log && isJobLog(root, attempt.log) ? [attempt.log.slice(root.length + 1).split("/")[0]] : []
    )
  );
  return [...keys];
}


;// CONCATENATED MODULE: ./lib/exec/slurm/accounting.js

const SACCT_FIELDS = "JobID,JobName,State,ExitCode,Start,End,NodeList,Reason,Timelimit,Partition,ReqTRES,AllocTRES";
const SQUEUE_FORMAT = "%i@%j@%T@%r@%N@%S@%e@%l@%P";
const epoch = (s) => {
  const n = Number(s);
  return s && /^\d+$/.test(s) && n > 0 ? n : void 0;
};
function expandJobId(id) {
  const m = /^(\d+)_(\d+)$/.exec(id);
  if (m) return [`${m[1]}_${m[2]}`];
  const r = /^(\d+)_\[([^\]]+)\]$/.exec(id);
  if (!r) return [];
  const out = [];
  for (const part of r[2].replace(/%\d+$/, "").split(",")) {
    const [a, b] = part.split("-").map(Number);
    if (a === void 0 || !Number.isInteger(a)) continue;
    for (let i = a; i <= (b ?? a); i++) out.push(`${r[1]}_${i}`);
  }
  return out;
}
function parseSacct(text, namePrefix) {
  const out = [];
  for (const line of text.split("\n")) {
    const [id, name, state, exit, start, end, node, reason, limit, partition, reqTres, allocTres] = line.split("|");
    if (!id || name === void 0 || !name.startsWith(namePrefix)) continue;
    const [code, signal] = (exit ?? "").split(":").map(Number);
    const timelimit = limitSeconds(limit);
    const reqGpus = tresGpus(reqTres);
    const allocGpus = tresGpus(allocTres);
    for (const handle of expandJobId(id)) {
      out.push({
        handle,
        name,
        state: (state ?? "").split(" ")[0],
        ...Number.isInteger(code) ? { exitCode: signal ? 128 + signal : code } : {},
        ...epoch(start) ? { start: epoch(start) } : {},
        ...epoch(end) ? { end: epoch(end) } : {},
        ...node && node !== "None assigned" ? { node } : {},
        ...reason && reason !== "None" ? { reason } : {},
        ...timelimit === void 0 ? {} : { timelimit },
        ...partition ? { partition } : {},
        ...reqGpus === void 0 ? {} : { reqGpus },
        ...allocGpus === void 0 ? {} : { allocGpus }
      });
    }
  }
  return out;
}
function limitSeconds(limit) {
  return limit && limit !== "UNLIMITED" && limit !== "Partition_Limit" ? (0,units/* parseDuration */.E9)(limit) : void 0;
}
function tresGpus(tres) {
  if (!tres) return void 0;
  const all = /(?:^|,)gres\/gpu=(\d+)/.exec(tres);
  if (all) return Number(all[1]);
  return [...tres.matchAll(/(?:^|,)gres\/gpu:[^=,]+=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
}
function shortfalls(r, asked) {
  const out = [];
  if (r.timelimit !== void 0 && r.timelimit < asked.seconds)
    out.push({
      of: "time",
      asked: (0,units/* formatDuration */.a3)(asked.seconds),
      granted: (0,units/* formatDuration */.a3)(r.timelimit),
      words: `a time limit of ${(0,units/* formatDuration */.a3)(r.timelimit)} instead of ${(0,units/* formatDuration */.a3)(asked.seconds)}`
    });
  const gpus = Math.max(asked.gpus ?? 0, r.reqGpus ?? 0);
  const accounted = r.reqGpus !== void 0 && (r.reqGpus > 0 || (r.allocGpus ?? 0) > 0);
  if (accounted && r.allocGpus !== void 0 && r.allocGpus < gpus)
    out.push({
      of: "gpus",
      asked: String(gpus),
      granted: String(r.allocGpus),
      words: `${r.allocGpus} GPU${r.allocGpus === 1 ? "" : "s"} instead of ${gpus}`
    });
  if (asked.partition !== void 0 && r.partition !== void 0 && r.partition !== asked.partition)
    out.push({
      of: "partition",
      asked: asked.partition,
      granted: r.partition,
      words: `partition ${r.partition} instead of ${asked.partition}`
    });
  return out;
}
function parseSqueue(text, namePrefix) {
  const out = [];
  for (const line of text.split("\n")) {
    const [id, name, state = "", reason, node, start, end, limit, partition] = line.split("@");
    if (!id || name === void 0 || !name.startsWith(namePrefix)) continue;
    const began = state === "PENDING" ? void 0 : epoch(start);
    const ended = ACTIVE_STATES.has(state) ? void 0 : epoch(end);
    const timelimit = limitSeconds(limit);
    for (const handle of expandJobId(id)) {
      out.push({
        handle,
        name,
        state,
        ...node ? { node } : {},
        ...reason && reason !== "None" ? { reason } : {},
        ...began ? { start: began } : {},
        ...ended ? { end: ended } : {},
        ...timelimit === void 0 ? {} : { timelimit },
        ...partition ? { partition } : {},
        queueOnly: true
      });
    }
  }
  return out;
}
function mergeRecords(sacct, squeue) {
  const byHandle = /* @__PURE__ */ new Map();
  for (const r of squeue) byHandle.set(r.handle, r);
  for (const r of sacct) {
    const queued = byHandle.get(r.handle);
    if (queued && r.state === "PENDING") continue;
    byHandle.set(r.handle, r);
  }
  return byHandle;
}
function withQueueEnds(acct, queue) {
  const out = new Map(acct);
  for (const q of queue) {
    const a = acct.get(q.handle);
    if (classify(q).active || a && !a.queueOnly && !classify(a).active) continue;
    if (!a || a.queueOnly) {
      const alone = { ...q };
      delete alone.queueOnly;
      out.set(q.handle, alone);
      continue;
    }
    const ended = { ...a, state: q.state };
    delete ended.exitCode;
    delete ended.reason;
    if (q.end !== void 0) ended.end = q.end;
    if (q.reason) ended.reason = q.reason;
    out.set(q.handle, ended);
  }
  return out;
}
const ACTIVE_STATES = /* @__PURE__ */ new Set([
  "PENDING",
  "CONFIGURING",
  "RUNNING",
  "COMPLETING",
  "SUSPENDED",
  "REQUEUED",
  "REQUEUE_FED",
  "REQUEUE_HOLD",
  "RESIZING",
  "SIGNALING",
  "STAGE_OUT",
  "STOPPED",
  "RESV_DEL_HOLD",
  "SPECIAL_EXIT"
]);
const RUNNING_STATES = /* @__PURE__ */ new Set(["RUNNING", "COMPLETING", "CONFIGURING", "SIGNALING", "STAGE_OUT"]);
function classify(r) {
  if (ACTIVE_STATES.has(r.state)) return { active: true, running: RUNNING_STATES.has(r.state) };
  const exit = r.exitCode === void 0 ? "" : ` (exit ${r.exitCode})`;
  switch (r.state) {
    case "COMPLETED":
      return { active: false, cls: "completed" };
    case "OUT_OF_MEMORY":
      return { active: false, cls: "out_of_memory", reason: `over its memory limit${exit}` };
    case "TIMEOUT":
      return { active: false, cls: "timeout", reason: "reached its walltime" };
    case "NODE_FAIL":
    case "BOOT_FAIL":
      return { active: false, cls: "node_fail", reason: `${r.state}${r.node ? ` on ${r.node}` : ""}` };
    case "PREEMPTED":
      return {
        active: false,
        cls: "preempted",
        reason: `preempted by a job of higher priority${r.node ? ` on ${r.node}` : ""}`
      };
    case "CANCELLED":
      return { active: false, cls: "cancelled", reason: "cancelled" };
    case "DEADLINE":
      return { active: false, cls: "cancelled", reason: "passed its deadline" };
    default:
      return { active: false, cls: "failed", reason: `${r.state}${exit}` };
  }
}
const REASONS = {
  Resources: "waiting for resources to free up",
  Priority: "waiting behind jobs of higher priority",
  Dependency: "waiting for a job it depends on",
  DependencyNeverSatisfied: "its dependency can never be satisfied",
  JobArrayTaskLimit: "held back by the array's limit on tasks running at once",
  PartitionTimeLimit: "asks for more time than the partition allows",
  PartitionNodeLimit: "asks for more nodes than the partition allows",
  PartitionDown: "its partition is down",
  ReqNodeNotAvail: "the nodes it may use are not available",
  BeginTime: "not allowed to start yet",
  InvalidAccount: "the account is not valid",
  InvalidQOS: "the QOS is not valid",
  QOSMaxJobsPerUserLimit: "at the QOS's limit of jobs per user",
  AssocGrpGRES: "at the account's limit of GPUs",
  AssocMaxJobsLimit: "at the account's limit of jobs",
  launch_failed_requeued_held: "its launch failed and Slurm holds it"
};
function neverStarts(reason) {
  if (!reason) return false;
  return /PerJob/.test(reason) || [
    "PartitionTimeLimit",
    "PartitionNodeLimit",
    "InvalidAccount",
    "InvalidQOS",
    "BadConstraints",
    "DependencyNeverSatisfied"
  ].includes(reason);
}
function explainReason(reason) {
  if (!reason) return void 0;
  return REASONS[reason] ?? `pending: ${reason}`;
}


;// CONCATENATED MODULE: ./lib/exec/slurm/ask-plan.js

const VANISH_GRACE_MS = 6e4;
const SCHEDULER_EVERY_MS = 3e4;
const ACCOUNTING = {
  asksOfEnded({ open, ended, pending, nowMs }) {
    const again = [...open, ...ended].filter((a) => pending.has(a.handle ?? ""));
    const jobs = new Set(again.flatMap((a) => a.job ?? []));
    const oldest = Math.min(...ended.map((a) => Date.parse(a.end.at)));
    const wantsWord = (end) => end.signal === "TERM" || end.code !== 0;
    if (ended.length > 0 && (open.length === 0 || again.length > 0 || ended.some((a) => wantsWord(a.end)) || nowMs - oldest >= SCHEDULER_EVERY_MS)) {
      for (const a of ended) if (a.job !== void 0) jobs.add(a.job);
    }
    return { queue: false, jobs };
  },
  afterQueue(open, records, asked) {
    const more = /* @__PURE__ */ new Set();
    for (const a of open) {
      const r = records.get(a.handle ?? "");
      if (a.job !== void 0 && !asked.has(a.job) && (!r || !classify(r).active)) more.add(a.job);
    }
    return more;
  },
  ended({ record, job, packed, end }, asks, acctOk, nowMs) {
    const asked = job !== void 0 && asks.jobs.has(job);
    const settled = record !== void 0 && !classify(record).active && !record.queueOnly;
    if (asked && settled) return { by: "record" };
    if (!acctOk || nowMs - Date.parse(end.at) >= VANISH_GRACE_MS) return { by: "markers" };
    return { by: "later", askAgain: asked, placeFree: !packed };
  },
  exitFromMarker: false
};
const QUEUE = {
  asksOfEnded({ ended }) {
    return { queue: ended.some((a) => a.end.signal === "TERM" || a.end.code >= 128), jobs: /* @__PURE__ */ new Set() };
  },
  afterQueue() {
    return /* @__PURE__ */ new Set();
  },
  ended({ record, packed }, asks) {
    const settled = record !== void 0 && !classify(record).active;
    if (asks.queue && settled) return { by: "record" };
    if (!asks.queue || !record) return { by: "markers" };
    return { by: "later", askAgain: false, placeFree: !packed };
  },
  // The exit code is the end marker's (none yet: no exit code), which a shared filesystem may show a moment late.
  exitFromMarker: true
};
function firstAsks(witness, pass) {
  const { open, nowMs, queueAskedAt } = pass;
  const overdue = (a) => {
    const limit = a.startedAt === void 0 ? Infinity : Date.parse(a.startedAt) + a.walltimeSeconds * 1e3;
    return limit <= nowMs && queueAskedAt < limit;
  };
  const due = open.length > 0 && (nowMs - queueAskedAt >= SCHEDULER_EVERY_MS || open.some(overdue));
  const ofEnded = witness.asksOfEnded(pass);
  return { queue: due || ofEnded.queue, jobs: ofEnded.jobs };
}
function laggingEnds(pass, records, asks, acctOk) {
  const unsettled = (a) => {
    const r = records.get(a.handle ?? "");
    return !r || classify(r).active || r.queueOnly === true;
  };
  const lagging = pass.open.length === 0 && acctOk ? pass.ended.filter(unsettled) : [];
  if (lagging.length === 0 || !lagging.every((a) => a.job !== void 0 && asks.jobs.has(a.job))) return /* @__PURE__ */ new Set();
  return new Set(lagging.flatMap((a) => a.handle ?? []));
}
function verdictOf(witness, a, asks, acctOk, nowMs) {
  const { markers: m, record, job } = a;
  if (a.reread && m?.end)
    return m.end.signal !== "TERM" ? { by: "markers" } : { by: "later", askAgain: false, placeFree: false };
  if (m?.end) return witness.ended({ ...a, end: m.end }, asks, acctOk, nowMs);
  const asked = asks.queue || job !== void 0 && asks.jobs.has(job);
  const over = record !== void 0 && !classify(record).active;
  if (!asked || !asks.queue && !over) return { by: "later", askAgain: asked, placeFree: false };
  if (a.packed && !m?.startedAt && over) return { by: "unstarted" };
  if (!record) return m?.startedAt ? { by: "markers" } : { by: "absent" };
  if (over && record.queueOnly && acctOk) return { by: "later", askAgain: true, placeFree: false };
  return { by: "record" };
}


;// CONCATENATED MODULE: ./lib/exec/slurm/marker-class.js
const KILLED_FOR_MEMORY = /oom[-_]kill event|exceeded (?:virtual )?memory limit \(\d+ > \d+\), being killed|Exceeded job memory limit(?! at some point)/i;
function killedForMemory(log) {
  return KILLED_FOR_MEMORY.test(log);
}
const LIMIT_SLACK_S = 5;
function classifyByMarkers(m, walltimeSeconds, now, log) {
  const started = m.startedAt === void 0 ? void 0 : Date.parse(m.startedAt);
  const end = m.end;
  if (end === void 0) {
    if (killedForMemory(log))
      return { cls: "out_of_memory", reason: "over its memory limit (the log says so; no end marker)" };
    if (started !== void 0 && Date.parse(now) >= started + walltimeSeconds * 1e3)
      return {
        cls: "timeout",
        reason: "reached its walltime: it left no end marker, so it was killed at its time limit after ignoring SIGTERM"
      };
    return {
      cls: "node_fail",
      reason: `left no end marker before its walltime${m.node ? ` on ${m.node}` : ""}: its node failed or it was killed`
    };
  }
  const base = { exitCode: end.code, at: end.at };
  if (end.signal === "TERM") {
    const ran = started === void 0 ? Infinity : (Date.parse(end.at) - started) / 1e3;
    if (ran >= walltimeSeconds - LIMIT_SLACK_S) return { ...base, cls: "timeout", reason: "reached its walltime" };
    return {
      ...base,
      cls: "cancelled",
      reason: `ended by SIGTERM after ${Math.round(ran)}s, before its walltime: cancelled or preempted (the scheduler no longer says which)`
    };
  }
  if (killedForMemory(log))
    return { ...base, cls: "out_of_memory", reason: `over its memory limit (exit ${end.code})` };
  if (end.code === 0) return { ...base, cls: "completed" };
  return { ...base, cls: "failed", reason: `exit ${end.code}` };
}


;// CONCATENATED MODULE: ./lib/exec/slurm/judge.js




class AttemptJudge {
  constructor(opts) {
    this.opts = opts;
  }
  opts;
  lastWaiting = /* @__PURE__ */ new Map();
  /** Handles missing from the queries, with when they were first missed. */
  missingSince = /* @__PURE__ */ new Map();
  /** Handles that ended in the queue before their end marker could be read: given one pass for it. */
  awaitingMarker = /* @__PURE__ */ new Set();
  /** Whether the attempt's phase packs its tasks: its handle is its element's, its markers its row's. */
  packed(a) {
    return this.opts.packedPhases.has(a.task.phase);
  }
  /**
   * An attempt the scheduler has a record of: what that record, as the task's own (taskRecord)
   * and with what its markers add, says. An index Slurm will never start goes to `unschedulable`.
   */
  byRecord(active, record, markers, now, unschedulable) {
    const own = this.taskRecord(active, record);
    return this.judge(active, markers ? withMarker(own, markers) : own, now, unschedulable, markers?.warnedAt);
  }
  /**
   * The element's record as a packed task's: its start is the task's own (its start marker's),
   * not the element's; its end, state and exit are the element's, which the task shares only
   * where it was running when the element ended (a time limit, a node lost).
   */
  taskRecord(a, record) {
    if (!this.packed(a)) return record;
    const own = { ...record };
    delete own.start;
    return own;
  }
  /** What the scheduler's record, made the task's own and with its markers' additions, says. */
  async judge(active, record, now, unschedulable, warnedAt) {
    const { verification } = this.opts;
    const { task, attempt, walltimeSeconds, partition, gpus } = active;
    const base = { task: task.id, attempt: attempt.n };
    const events = [];
    this.missingSince.delete(attempt.handle);
    const classified = classify(record);
    const startedAt = record.start ? new Date(record.start * 1e3).toISOString() : now;
    if (!attempt.startedAt && (classified.active ? classified.running && !this.packed(active) : true)) {
      events.push({ type: "started", ...base, at: startedAt, ...record.node ? { node: record.node } : {} });
    }
    if (!classified.active && this.opts.commands.witness.exitFromMarker && record.exitCode === void 0 && !this.awaitingMarker.has(record.handle)) {
      this.awaitingMarker.add(record.handle);
      return events;
    }
    this.awaitingMarker.delete(record.handle);
    if (classified.active && !classified.running && neverStarts(record.reason)) {
      const reason2 = `Slurm will never start it: ${explainReason(record.reason)} (${record.reason}); cancelled`;
      unschedulable.push({ active, event: { type: "finished", ...base, at: now, class: "unschedulable", reason: reason2 } });
      return events;
    }
    if (classified.active) {
      const waiting = classified.running ? void 0 : explainReason(record.reason);
      if (waiting && this.lastWaiting.get(task.id) !== waiting)
        events.push({ type: "queued", ...base, at: now, waiting });
      if (waiting) this.lastWaiting.set(task.id, waiting);
      return events;
    }
    this.lastWaiting.delete(task.id);
    const at = record.end ? new Date(record.end * 1e3).toISOString() : now;
    const started = { ...attempt, startedAt: record.start ? startedAt : attempt.startedAt ?? startedAt };
    const verdict = await verification.verify(task, started, classified.cls, classified.reason, record.exitCode);
    const { cls, reason } = await verification.warned(task, started, warnedAt, at, record.exitCode, verdict);
    const { end, adapted } = judgeShortfalls(
      { cls, ...reason ? { reason } : {} },
      shortfalls(record, {
        seconds: walltimeSeconds,
        ...partition === void 0 ? {} : { partition },
        ...gpus === void 0 ? {} : { gpus }
      })
    );
    events.push({
      type: "finished",
      ...base,
      at,
      class: end.cls,
      ...record.exitCode === void 0 ? {} : { exitCode: record.exitCode },
      ...end.reason ? { reason: end.reason } : {},
      ...record.node ? { node: record.node } : {},
      ...adapted.length > 0 ? { adapted } : {},
      // Seen running first in the queue (which gives no start), its start was the time of that pass.
      ...record.start ? { startedAt } : {}
    });
    return events;
  }
  /**
   * A task that started (its start marker says so) and that the queue no longer lists: it
   * ended more than MinJobAge before this pass, and its markers and log say how.
   */
  async byMarkers(task, attempt, m, walltimeSeconds, now) {
    const { verification } = this.opts;
    const base = { task: task.id, attempt: attempt.n };
    const startedAt = attempt.startedAt ?? m.startedAt;
    const node = m.node ? { node: m.node } : {};
    const events = [];
    if (!attempt.startedAt) events.push({ type: "started", ...base, at: startedAt, ...node });
    const wellPacked = this.opts.packedPhases.has(task.phase) && m.end?.code === 0 && m.end.signal === void 0;
    const v = classifyByMarkers(m, walltimeSeconds, now, wellPacked ? "" : await verification.readLog(task, attempt));
    const verdict = await verification.verify(task, { ...attempt, startedAt }, v.cls, v.reason, v.exitCode);
    const { cls, reason } = await verification.warned(
      task,
      { ...attempt, startedAt },
      m.warnedAt,
      v.at ?? now,
      v.exitCode,
      verdict
    );
    events.push({
      type: "finished",
      ...base,
      at: v.at ?? now,
      class: cls,
      ...v.exitCode === void 0 ? {} : { exitCode: v.exitCode },
      ...reason ? { reason } : {},
      ...node,
      startedAt
    });
    return events;
  }
  /** A task Slurm has no record of: still in accounting's delay, ended (queue-only), or vanished. */
  async absent(task, attempt, now) {
    const base = { task: task.id, attempt: attempt.n };
    const handle = attempt.handle ?? task.id;
    const since = this.missingSince.get(handle) ?? Date.parse(now);
    this.missingSince.set(handle, since);
    if (Date.parse(now) - since < VANISH_GRACE_MS) return [];
    this.missingSince.delete(handle);
    if (!this.opts.commands.accountingOk && attempt.startedAt) {
      const out = await this.opts.verification.freshness(task, attempt);
      const ok = task.output === void 0 || out.exists && out.fresh;
      return [
        {
          type: "finished",
          ...base,
          at: now,
          class: ok ? "completed" : "lost",
          ...ok ? {} : { reason: "left the queue without a fresh output (no accounting to say why)" }
        }
      ];
    }
    return [
      { type: "finished", ...base, at: now, class: "lost", reason: "vanished from Slurm (cancelled while pending?)" }
    ];
  }
}
function withMarker(record, m) {
  const epoch = (iso) => iso === void 0 ? void 0 : Math.floor(Date.parse(iso) / 1e3);
  const start = record.start ?? epoch(m.startedAt);
  const end = record.end ?? epoch(m.end?.at);
  return {
    ...record,
    ...start === void 0 ? {} : { start },
    ...end === void 0 ? {} : { end },
    ...record.exitCode === void 0 && m.end ? { exitCode: m.end.code } : {},
    ...record.node === void 0 && m.node ? { node: m.node } : {}
  };
}


;// CONCATENATED MODULE: ./lib/exec/slurm/observe.js





class Observation {
  constructor(opts) {
    this.opts = opts;
    this.judgement = new AttemptJudge(opts);
  }
  opts;
  /** When the queue was last asked (epoch ms); a first pass counts as having asked. */
  queueAskedAt;
  /** Ended tasks whose end accounting had not recorded when asked: asked again next pass. */
  acctPending = /* @__PURE__ */ new Set();
  /** Tasks whose attempts the last pass found ended by their markers and left for accounting to judge. */
  endedUnjudged = /* @__PURE__ */ new Set();
  judgement;
  /** Tasks that have left their node and wait for accounting's word on how: their places are free. */
  get ended() {
    return this.endedUnjudged;
  }
  /** Markers first: the markers of the submissions of `all`, then the scheduler for what they cannot say. */
  async observe(all) {
    this.endedUnjudged = /* @__PURE__ */ new Set();
    if (all.length === 0) return [];
    const root = await this.opts.root();
    const markers = await this.opts.commands.readMarkers(root, submissionsOf(root, all));
    try {
      return await this.pass(root, all, markers);
    } finally {
      this.opts.workdir.forget();
    }
  }
  async pass(root, all, markers) {
    const { commands } = this.opts;
    const now = this.opts.now();
    const nowMs = Date.parse(now);
    const markerOf = (a) => {
      const key = markerKey(a, this.packed(a));
      return key === void 0 ? void 0 : markers.get(key);
    };
    this.opts.workdir.lookOutputs(all.filter((a) => markerOf(a)?.end).map((a) => a.task));
    const ownEnd = (a) => {
      const end = this.packed(a) ? markerOf(a)?.end : void 0;
      return end !== void 0 && end.signal !== "TERM";
    };
    const byMarkers = [];
    for (const a of all.filter(ownEnd))
      byMarkers.push(...await this.judgement.byMarkers(a.task, a.attempt, markerOf(a), a.walltimeSeconds, now));
    const active = all.filter((a) => !ownEnd(a));
    if (active.length === 0) return byMarkers;
    const seen = (a) => ({
      handle: a.attempt.handle,
      job: arrayJob(a),
      startedAt: a.attempt.startedAt ?? markerOf(a)?.startedAt,
      walltimeSeconds: a.walltimeSeconds,
      end: markerOf(a)?.end
    });
    const pass = {
      open: active.filter((a) => !markerOf(a)?.end).map(seen),
      ended: active.filter((a) => markerOf(a)?.end).map(seen),
      pending: this.acctPending,
      nowMs,
      queueAskedAt: this.queueAskedAt ??= nowMs
    };
    const witness = commands.witness;
    const asks = firstAsks(witness, pass);
    let records = /* @__PURE__ */ new Map();
    let acctOk = true;
    if (asks.queue || asks.jobs.size > 0) ({ records, acctOk } = await commands.ask(asks.queue, asks.jobs));
    if (asks.queue) this.queueAskedAt = nowMs;
    const lagging = laggingEnds(pass, records, asks, acctOk);
    if (lagging.size > 0) {
      try {
        const queued = (await commands.ask(true, /* @__PURE__ */ new Set())).records.values();
        records = withQueueEnds(
          records,
          [...queued].filter((q) => lagging.has(q.handle))
        );
      } catch (e) {
        if (!(e instanceof transport/* LinkError */.R6)) throw e;
      }
    }
    if (asks.queue) {
      const more = witness.afterQueue(pass.open, records, asks.jobs);
      if (more.size > 0) {
        const second = await commands.ask(false, more);
        records = mergeRecords([...second.records.values()], [...records.values()]);
        acctOk &&= second.acctOk;
        for (const job of more) asks.jobs.add(job);
      }
    }
    const recheck = active.filter((a) => {
      const r = this.packed(a) && !markerOf(a)?.end && a.attempt.handle ? records.get(a.attempt.handle) : void 0;
      return r !== void 0 && !classify(r).active;
    });
    const reread = recheck.length === 0 ? /* @__PURE__ */ new Map() : await commands.readMarkers(root, submissionsOf(root, recheck));
    const rechecked = new Set(recheck);
    const events = byMarkers;
    const unschedulable = [];
    const pending = /* @__PURE__ */ new Set();
    for (const a of active) {
      const { task, attempt, walltimeSeconds } = a;
      const m = rechecked.has(a) ? reread.get(markerKey(a, this.packed(a))) : markerOf(a);
      const handle = attempt.handle;
      const record = handle ? records.get(handle) : void 0;
      const answered = { markers: m, record, job: arrayJob(a), packed: this.packed(a), reread: rechecked.has(a) };
      const verdict = verdictOf(witness, answered, asks, acctOk, nowMs);
      if (verdict.by === "record") {
        events.push(...await this.judgement.byRecord(a, record, m, now, unschedulable));
      } else if (verdict.by === "markers")
        events.push(...await this.judgement.byMarkers(task, attempt, m, walltimeSeconds, now));
      else if (verdict.by === "absent") events.push(...await this.judgement.absent(task, attempt, now));
      else if (verdict.by === "unstarted")
        events.push({
          type: "unstarted",
          task: task.id,
          attempt: attempt.n,
          at: now,
          reason: `its element ${handle} ended ${record.state} before this task's turn`
        });
      else {
        if (verdict.askAgain) pending.add(handle);
        if (verdict.placeFree) this.endedUnjudged.add(task.id);
        events.push(...startedByMarker(a, m));
      }
    }
    this.acctPending = pending;
    return events.concat(await this.cancelPending(unschedulable));
  }
  /**
   * Held first (`scontrol hold`: slurmctld holds each index it finds still pending, and one
   * already running goes on unharmed), so none can start while the queue (`squeue -r -t all`)
   * and the start markers are read; then the indices seen pending are cancelled. `scancel
   * --state=PENDING` alone would not do: scancel filters by state on its own side, so an index
   * that starts in between is killed, and pending indices cancelled together leave the queue's
   * view as one record of the array job, without their indices.
   */
  async withdraw(queued) {
    const { commands, transport } = this.opts;
    const handled = queued.filter((a) => arrayHandle(a) !== void 0);
    if (handled.length === 0) return [];
    await transport.run(["scontrol", "hold", ...handled.map((a) => a.attempt.handle)]);
    const { records } = await commands.ask(true, /* @__PURE__ */ new Set());
    const root = await this.opts.root();
    const markers = await commands.readMarkers(root, submissionsOf(root, handled));
    const held = handled.filter(
      (a) => records.get(a.attempt.handle)?.state === "PENDING" && !markers.get(markerKey(a, this.packed(a)))?.startedAt
    );
    if (held.length === 0) return [];
    const handles = held.map((a) => a.attempt.handle);
    const r = await transport.run(["scancel", ...handles]);
    if (r.code === 0) return held;
    await transport.run(["scontrol", "release", ...handles]);
    this.opts.warn(`scancel failed (${(r.stderr || r.stdout).trim().split("\n")[0]}); trying again next pass`);
    return [];
  }
  /** Whether the attempt's phase packs its tasks: its handle is its element's, its markers its row's. */
  packed(a) {
    return this.opts.packedPhases.has(a.task.phase);
  }
  /**
   * Takes indices that would wait for ever out of the queue and ends their attempts: those
   * withdrawn (see `withdraw`), so that one whose limit was lifted as it was judged, and which
   * started, runs on; where the cancel failed, they are looked at again next pass.
   */
  async cancelPending(found) {
    if (found.length === 0) return [];
    const withdrawn = new Set(await this.withdraw(found.map((f) => f.active)));
    return found.filter((f) => withdrawn.has(f.active)).map((f) => f.event);
  }
}
function startedByMarker({ task, attempt }, m) {
  if (attempt.startedAt || !m?.startedAt) return [];
  return [{ type: "started", task: task.id, attempt: attempt.n, at: m.startedAt, ...m.node ? { node: m.node } : {} }];
}


// EXTERNAL MODULE: ./lib/plan/executor-kinds.js
var executor_kinds = __webpack_require__(89036);
;// CONCATENATED MODULE: ./lib/exec/slurm/markers.js

const FIELDS = /* @__PURE__ */ new Map([
  ["s", 7],
  ["w", 6],
  ["e", 9],
  ["S", 6],
  ["W", 5],
  ["E", 8]
]);
function wholeFields(line) {
  const f = line.split(" ");
  const kind = f[0] ?? "";
  if (FIELDS.get(kind) !== f.length) return void 0;
  const renamedWhole = kind === kind.toUpperCase();
  if (renamedWhole) return f;
  return f.pop() === "." ? [kind.toUpperCase(), ...f.slice(1)] : void 0;
}
function parseMarkers(text) {
  const found = /* @__PURE__ */ new Map();
  for (const line of text.split("\n")) {
    const f = wholeFields(line);
    if (!f) continue;
    const [kind, key = "", index = "", jobId = "", ms = ""] = f;
    const at = markers_epoch(ms);
    if (!key || !/^\d+$/.test(index) || !/^\d+$/.test(jobId) || !at) continue;
    if (kind === "W") {
      entry(found, key, index, jobId, { warnedAt: at });
      continue;
    }
    if (kind === "S") {
      const node = f[5];
      if (!node) continue;
      entry(found, key, index, jobId, { startedAt: at, ...node === "-" ? {} : { node } });
      continue;
    }
    const [code = "", signal = "", gate = ""] = f.slice(5);
    if (!/^\d{1,3}$/.test(code) || Number(code) > 255 || signal !== "TERM" && signal !== "-" || !gate) continue;
    entry(found, key, index, jobId, {
      end: {
        at,
        code: Number(code),
        ...signal === "TERM" ? { signal } : {},
        ...gate === "-" ? {} : { gate }
      }
    });
  }
  return found;
}
function entry(found, key, index, jobId, part) {
  const handle = `${jobId}_${Number(index)}`;
  found.set(handle, { key, index: Number(index), jobId, ...found.get(handle), ...part });
}
function markers_epoch(ms) {
  if (!/^\d{1,15}$/.test(ms)) return void 0;
  return new Date(Number(ms)).toISOString();
}
function markersGlob(root, submission) {
  if (!/^\/[A-Za-z0-9_.,:=%@+/-]*$/.test(root) || !/^[A-Za-z0-9_.-]+$/.test(submission)) {
    throw new errors/* UserError */.yo({
      message: `the campaign's Slurm directory ${JSON.stringify(root)} holds characters a shell would expand or split at`,
      fix: "use a workdir of letters, digits and . _ - / only"
    });
  }
  return `${root}/${submission}/markers/*`;
}


;// CONCATENATED MODULE: ./lib/exec/slurm/submit-limit.js
const SECTION = /^== (\w+)$/;
const SUBMIT_LIMIT_COMMAND = [
  "user=$(id -un)",
  'exec 3< <(sacctmgr -n -P show assoc user="$user" format=Account,Partition,MaxSubmit,DefaultQOS 2>/dev/null) \\',
  '  4< <(sacctmgr -n -P show user "$user" format=DefaultAccount 2>/dev/null) \\',
  "  5< <(sacctmgr -n -P show qos format=Name,MaxSubmitPU 2>/dev/null) \\",
  `  6< <(squeue -h -r -u "$user" -o '%j@%T')`,
  "echo '== assoc'",
  "cat <&3",
  "echo '== user'",
  "cat <&4",
  "echo '== qos'",
  "cat <&5",
  "echo '== queue'",
  "cat <&6"
].join("\n");
function chargesOf(plan, clusterAccount) {
  const seen = /* @__PURE__ */ new Map();
  for (const phase of plan.phases)
    for (const array of phase.arrays) {
      const account = array.resources.account ?? clusterAccount;
      const qos = array.resources.qos;
      seen.set(`${account ?? ""}\0${qos ?? ""}`, {
        ...account === void 0 ? {} : { account },
        ...qos === void 0 ? {} : { qos }
      });
    }
  return [...seen.values()];
}
function sections(text) {
  const out = /* @__PURE__ */ new Map();
  let lines;
  for (const line of text.split("\n")) {
    const head = SECTION.exec(line);
    if (head) out.set(head[1], lines = []);
    else if (line.trim() !== "") lines?.push(line.trim());
  }
  return out;
}
const count = (field) => field !== void 0 && /^\d+$/.test(field) ? Number(field) : void 0;
function siteLimit(text, charges) {
  const parts = sections(text);
  const assocs = (parts.get("assoc") ?? []).map((l) => {
    const [account = "", partition = "", maxSubmit, defaultQos = ""] = l.split("|");
    return { account, partition, maxSubmit: count(maxSubmit), defaultQos };
  });
  const defaultAccount = parts.get("user")?.[0]?.split("|")[0];
  const qosLimits = new Map(
    (parts.get("qos") ?? []).map((l) => {
      const [name = "", perUser] = l.split("|");
      return [name, count(perUser)];
    })
  );
  let best;
  const consider = (limit, from) => {
    if (limit !== void 0 && (best === void 0 || limit < best.limit)) best = { limit, from };
  };
  for (const charge of charges) {
    const account = charge.account ?? defaultAccount;
    for (const a of assocs.filter((row) => row.account === account)) {
      const where = `account ${a.account}${a.partition ? `, partition ${a.partition}` : ""}`;
      consider(a.maxSubmit, `sacctmgr: MaxSubmitJobs of your association (${where})`);
      const qos = charge.qos ?? (a.defaultQos || "normal");
      consider(qosLimits.get(qos), `sacctmgr: MaxSubmitJobsPerUser of QOS ${qos}`);
    }
  }
  return { ...best === void 0 ? {} : { limit: best }, read: assocs.length > 0 };
}
function effectiveLimit(site, declared) {
  if (declared !== void 0 && (site === void 0 || declared <= site.limit))
    return { limit: declared, from: "cluster.max_jobs" };
  return site;
}
const HOLDS_A_PLACE = /* @__PURE__ */ new Set(["PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING"]);
function queueCount(lines, prefix, withId) {
  const counted = { own: 0, others: 0 };
  for (const line of lines) {
    const fields = line.split("@");
    const [name = "", state = ""] = withId ? fields.slice(1) : fields;
    if (name === "" || !HOLDS_A_PLACE.has(state)) continue;
    if (name.startsWith(prefix)) counted.own++;
    else counted.others++;
  }
  return counted;
}
function othersQueued(lines, prefix, withId) {
  return queueCount(lines, prefix, withId).others;
}
function queueLines(text) {
  return sections(text).get("queue") ?? [];
}
function roomUnder(limit, queued, ownQueued) {
  return Math.max(ownQueued > 0 ? 0 : 1, limit - queued);
}
function isSubmitLimit(error) {
  return /(MaxSubmitJob|GrpSubmitJob|SubmitJobs?Limit)/i.test(error);
}


;// CONCATENATED MODULE: ./lib/exec/slurm/plain-commands.js











const MARKER_GLOBS_PER_COMMAND = 16;
class PlainCommands extends SlurmCommands {
  /** `noTransfer`: the login allows no file transfer (restricted: slurm); scripts go to sbatch on its standard input. */
  constructor(opts, noTransfer) {
    super(opts);
    this.noTransfer = noTransfer;
  }
  noTransfer;
  witness = QUEUE;
  // There is no accounting to wait for: an ended task is judged by the queue and its markers.
  accountingOk = false;
  /** `scontrol show config` and `scontrol show partition -o`, each a plain command; no sacctmgr. */
  async readLimits() {
    await this.checkPlainWorkdir();
    const config = await this.config();
    const age = Number(/^MinJobAge\s*=\s*(\d+)/m.exec(config)?.[1] ?? NaN);
    const longest = executor_kinds/* EXECUTOR_KINDS */.q.slurm.pollSeconds[1];
    if (age > 0 && age < 2 * longest)
      this.opts.warn(
        `the cluster forgets an ended job after ${age}s (MinJobAge), sooner than two passes: most ends will be judged by the tasks' markers (a cancel and a preemption then look alike)`
      );
    return {
      config,
      partitions: scontrolOutput(await this.opts.transport.run(["scontrol", "show", "partition", "-o"]))
    };
  }
  async config() {
    return scontrolOutput(await this.opts.transport.run(["scontrol", "show", "config"]));
  }
  /** One plain sbatch per array, its script on standard input: nothing to upload first. */
  async testOnly(tested) {
    const answers = [];
    for (const a of tested) {
      const r = await this.opts.transport.run(["sbatch", "--test-only", testedIndices(a)], {
        stdin: a.script,
        timeoutMs: 3e4
      });
      answers.push({ code: r.code, output: `${r.stdout}
${r.stderr}` });
    }
    return testOnlyRefusals(tested, answers);
  }
  async recount() {
    const r = await this.opts.transport.run(["squeue", "-h", "-r", "-u", await this.userName(), "-o", "%j@%T"]);
    if (r.code !== 0) throw new transport/* LinkError */.R6(`squeue failed on the cluster: ${r.stderr.trim() || `exit ${r.code}`}`);
    const count = queueCount(r.stdout.split("\n"), this.prefix, false);
    this.others = count.others;
    return count;
  }
  /**
   * The record without sacct: the task tables (each names its submission on its first line),
   * with the job of each from the queue (pending, running, or ended within MinJobAge) or, for
   * a job the queue has forgotten, from the markers its tasks left (which name their job).
   * An attempt whose job is in neither never ran and is not on record.
   */
  async readRecord(root) {
    const jobs = /* @__PURE__ */ new Map();
    for (const q of await this.queue()) jobs.set(q.name.slice(this.prefix.length), q.handle.split("_")[0]);
    const tables = await this.opts.transport.run(["cat", { glob: `${root}/*/table.tsv` }]);
    let text = tables.stdout;
    const listed = new Set([...text.matchAll(new RegExp(TABLE_HEADER.source, "gm"))].map((m) => m[1]));
    const forgotten = [...listed].filter((key) => !jobs.has(key));
    for (const m of (await this.readMarkers(root, forgotten)).values()) if (!jobs.has(m.key)) jobs.set(m.key, m.jobId);
    for (const [key, jobId] of jobs) {
      if (listed.has(key)) continue;
      const script = await this.opts.transport.run(["scontrol", "write", "batch_script", jobId, "-"]);
      if (script.code === 0) text += `
${script.stdout}`;
    }
    const sections = [];
    for (const line of text.split("\n")) {
      const named = TABLE_HEADER.exec(line);
      if (named) sections.push({ key: named[1], lines: [] });
      else sections.at(-1)?.lines.push(line);
    }
    return { jobs, sections };
  }
  /** 16 submissions to a `cat` (patterns the node expands). */
  async readMarkers(root, keys) {
    if (keys.length === 0) return /* @__PURE__ */ new Map();
    const globs = keys.map((k) => markersGlob(root, k));
    let text = "";
    for (let i = 0; i < globs.length; i += MARKER_GLOBS_PER_COMMAND) {
      const words = globs.slice(i, i + MARKER_GLOBS_PER_COMMAND).map((glob) => ({ glob }));
      text += (await this.opts.transport.run(["cat", ...words])).stdout;
    }
    return parseMarkers(text);
  }
  async send(group, _key, files, place) {
    const t = this.opts.transport;
    if (!this.noTransfer) await this.upload(files, place.dir);
    const r = await this.sbatch(
      this.noTransfer ? (
        // No file transfer: the script, its table within, goes on sbatch's standard input.
        t.run(["sbatch", "--parsable"], {
          stdin: submissionFiles(this.opts.manifest, group, { ...place, selfContained: true }).script
        })
      ) : t.run(["sbatch", "--parsable", `${place.dir}/job.sh`])
    );
    const jobId = /^(\d+)/.exec(r.stdout.trim())?.[1];
    if (r.code === 0 && jobId) return { jobId };
    return sbatchFailure(r);
  }
  async ask(queue) {
    const queued = queue ? await this.queue() : [];
    this.opts.record.remember(queued);
    return { records: mergeRecords([], queued), acctOk: false };
  }
  /** The campaign's jobs in the queue, every state (plain `squeue`, times as the queue prints them). */
  async queue() {
    const r = await this.opts.transport.run([
      "squeue",
      "-h",
      "-r",
      "-t",
      "all",
      "-u",
      await this.userName(),
      "-o",
      SQUEUE_FORMAT
    ]);
    if (r.code !== 0) throw new transport/* LinkError */.R6(`squeue failed on the cluster: ${r.stderr.trim() || `exit ${r.code}`}`);
    this.others = othersQueued(r.stdout.split("\n"), this.prefix, true);
    return parseSqueue(r.stdout, this.prefix);
  }
  /** The login's user name (no `$(id -un)` in a command), asked once. */
  userName = askedOnce(async () => {
    const r = await this.opts.transport.run(["id", "-un"]);
    const user = r.stdout.trim();
    if (r.code !== 0 || !/^[A-Za-z0-9._-]+$/.test(user)) {
      throw new transport/* LinkError */.R6(`id -un failed on the cluster: ${r.stderr.trim() || `exit ${r.code}`}`);
    }
    return user;
  });
  /**
   * Every path is a plain word of a command: an automation node's wrapper would split a blank
   * and expand a `*`. Said before anything is sent.
   */
  async checkPlainWorkdir() {
    const workdir = await this.opts.workdir();
    if (/^[A-Za-z0-9_.,:=%@+/-]+$/.test(workdir)) return;
    throw new errors/* UserError */.yo({
      message: `the workdir ${workdir} holds characters an automation node's forced command would split or expand (blanks, quotes, *, ?, $ and the like)`,
      fix: "give a workdir of letters, digits and . _ - / only"
    });
  }
}


;// CONCATENATED MODULE: ./lib/exec/slurm/record.js


const attemptKey = (s) => `${s.task.id}\0${s.attempt}\0${s.task.definition ?? ""}`;
class SubmissionRecord {
  constructor(prefix) {
    this.prefix = prefix;
  }
  prefix;
  /**
   * Every attempt the cluster has a job for (task and attempt → where it went), read before the
   * first submission: a state rebuilt from nothing, or older than the cluster, then never
   * sends an attempt a second time.
   */
  attempts;
  /** The campaign's jobs as last seen: name → array job id (to find a submission again). */
  jobs;
  /** How far this controller has read the ledger of submissions (render/submit-once.ts), in bytes. */
  ledgerFrom = 0;
  /** The oldest submission on record (epoch seconds): accounting looks back at least that far. */
  earliest = Infinity;
  /** Whether the attempts on record have been read since the last submission whose answer was lost. */
  get attemptsRead() {
    return this.attempts !== void 0;
  }
  /** Whether the campaign's jobs by name are known (from the record, or from the queue). */
  get jobsKnown() {
    return this.jobs !== void 0;
  }
  /**
   * On record: the attempts of the task tables `read` found under `root`, with the jobs they
   * went to. Where it could not be read (undefined), no attempt is on record, and the jobs by
   * name are left to the queue.
   */
  fill(root, read) {
    this.attempts = /* @__PURE__ */ new Map();
    if (read === void 0) return;
    if (read.ledgerFrom !== void 0) this.ledgerFrom = read.ledgerFrom;
    if (read.earliest !== void 0) this.earliest = Math.min(this.earliest, read.earliest);
    this.jobs = new Map([...read.jobs].map(([key, id]) => [`${this.prefix}${key}`, id]));
    for (const { key, lines } of read.sections) {
      const elements = /* @__PURE__ */ new Map();
      for (const line of lines)
        if (!readElement(elements, line)) this.putRow(root, key, read.jobs.get(key), line, elements);
    }
  }
  /** Starts the jobs by name afresh, for the queue to fill (the record could not be read). */
  knowNoJobs() {
    this.jobs = /* @__PURE__ */ new Map();
  }
  /** The job of the submission named `name`, where one is known. */
  jobNamed(name) {
    return this.jobs?.get(name);
  }
  /** Where the attempt went, where it is on record. */
  find(s) {
    return this.attempts?.get(attemptKey(s));
  }
  /** Whether any of these attempts is on record. */
  holdsAny(group) {
    return group.some((s) => this.attempts?.has(attemptKey(s)));
  }
  /** The attempts of `group` as sent in array job `jobId`, their events (submission `dir`). */
  sent(group, name, jobId, dir, at) {
    this.jobs?.set(name, jobId);
    const packing = group[0].array.packing;
    return group.map((s, i) => {
      const slot = packing ? elementOf(i, packing.tasks) : s.index;
      const where = { handle: `${jobId}_${slot}`, log: `${dir}/logs/${s.index}.log` };
      this.attempts?.set(attemptKey(s), where);
      return submittedEvent(s, at, where);
    });
  }
  /** Attempts another controller sent, read from the ledger: on record, as a rebuilt state finds them. */
  adopt(rows, root) {
    for (const row of rows) {
      this.attempts?.set(attemptKey({ task: { id: row.task, definition: row.definition }, attempt: row.attempt }), {
        handle: `${row.jobId}_${row.element ?? row.index}`,
        log: `${root}/${row.key}/logs/${row.index}.log`
      });
      this.jobs?.set(`${this.prefix}${row.key}`, row.jobId);
    }
  }
  /** Jobs the queue showed, kept by name (to find a submission again). */
  remember(queued) {
    for (const q of queued) this.jobs?.set(q.name, q.handle.split("_")[0]);
  }
  /** The job may be queued without our having heard its id: both are read again before anything more is sent. */
  forget() {
    this.jobs = void 0;
    this.attempts = void 0;
  }
  /** The attempt a row of submission `key`'s task table runs, on record with the job it went to (if it went to one). */
  putRow(root, key, jobId, line, elements) {
    const row = jobId === void 0 ? void 0 : rowAttempt(line);
    if (!row) return;
    this.attempts?.set(attemptKey({ task: { id: row.task, definition: row.definition }, attempt: row.attempt }), {
      handle: `${jobId}_${elements.get(row.index) ?? row.index}`,
      log: `${root}/${key}/logs/${row.index}.log`
    });
  }
}
function submittedEvent(s, at, where) {
  return {
    type: "submitted",
    task: s.task.id,
    attempt: s.attempt,
    at,
    handle: where.handle,
    log: where.log,
    ...s.memBytes === void 0 ? {} : { memBytes: s.memBytes }
  };
}
function readElement(elements, line) {
  const e = parseElementLine(line);
  if (!e) return false;
  for (const row of e.rows) elements.set(row, e.element);
  return true;
}


;// CONCATENATED MODULE: ./lib/render/submit-once.js


const LEDGER = "submitted.tsv";
const LOCK_WAIT_S = 60;
function attemptLines(group, packed) {
  return group.map((s, i) => {
    const at = packed === void 0 ? String(s.index) : `${s.index}@${elementOf(i, packed)}`;
    return `${at}	${s.task.definition ?? ""}	${s.attempt}	${s.task.id}
`;
  }).join("");
}
function renderSubmitOnce(root, key, from) {
  const script = [
    "set -u",
    'cd -- "$1" || exit 3',
    "key=$2 from=$3",
    "ours=$(cat)",
    // A link dropped between sbatch and the ledger's line must not stop it there.
    "trap '' HUP PIPE",
    `exec 9>> submitted.lock && flock -w ${LOCK_WAIT_S} 9 || { echo '== locked'; exit 0; }`,
    `touch -- ${LEDGER} || exit 3`,
    `size=$(stat -c %s -- ${LEDGER})`,
    // Started afresh since (a new, shorter ledger): read it whole.
    '[ "$from" -le "$size" ] || from=0',
    `news=$(tail -c +$((from + 1)) -- ${LEDGER} | head -c $((size - from)))`,
    `[ -z "$news" ] || printf '%s\\n' "$news"`,
    `if [ -n "$news" ] && printf '%s\\n' "$news" | cut -f4- | grep -Fxq -f <(printf '%s\\n' "$ours" | cut -f2-); then`,
    "  echo '== taken'",
    "else",
    "  err=$(mktemp) || exit 3",
    '  out=$(sbatch --parsable "$key/job.sh" 2> "$err")',
    "  rc=$?",
    '  if [ "$rc" = 0 ] && [[ $out =~ ^([0-9]+) ]]; then',
    "    job=${BASH_REMATCH[1]}",
    `    while IFS= read -r line; do printf '%s\\t%s\\t%s\\n' "$key" "$job" "$line"; done <<< "$ours" >> ${LEDGER}`,
    '    echo "== sent $job"',
    "  else",
    `    { cat -- "$err"; printf '%s\\n' "$out"; } >&2`,
    '    echo "== failed $rc"',
    "  fi",
    '  rm -f -- "$err"',
    "fi",
    `echo "== upto $(stat -c %s -- ${LEDGER})"`
  ].join("\n");
  return `bash -c ${(0,shell/* shellQuote */.ZL)(script)} campaign-submit ${[root, key, String(from)].map(shell/* shellQuote */.ZL).join(" ")}`;
}
function parseSubmitOnce(stdout) {
  const rows = [];
  let outcome;
  let upto;
  for (const line of stdout.split("\n")) {
    const control = /^== (sent (\d+)|taken|failed (\d+)|locked|upto (\d+))$/.exec(line);
    if (control) {
      if (control[2] !== void 0) outcome = { sent: control[2] };
      else if (control[1] === "taken") outcome = { taken: true };
      else if (control[3] !== void 0) outcome = { failed: Number(control[3]) };
      else if (control[1] === "locked") outcome = { locked: true };
      else upto = Number(control[4]);
      continue;
    }
    const row = ledgerRow(line);
    if (row) rows.push(row);
  }
  return { rows, outcome, upto };
}
function ledgerRow(line) {
  const [key = "", jobId = "", index = "", definition = "", attempt = "", ...task] = line.split("	");
  const at = /^(\d+)(?:@(\d+))?$/.exec(index);
  if (!/^[0-9a-f]+$/.test(key) || !/^\d+$/.test(jobId) || !at || !/^[1-9]\d*$/.test(attempt)) return void 0;
  return {
    key,
    jobId,
    index: Number(at[1]),
    ...at[2] === void 0 ? {} : { element: Number(at[2]) },
    definition,
    attempt: Number(attempt),
    task: task.join("	")
  };
}


;// CONCATENATED MODULE: ./lib/exec/slurm/shell-commands.js









const SEPARATOR = "--campaign-sacct--";
const RECORD_LOOKBACK = "now-100days";
class ShellCommands extends SlurmCommands {
  witness = ACCOUNTING;
  accountingOk = true;
  /** A failure of accounting has been said this run. */
  accountingWarned = false;
  async readLimits(charges) {
    const [partitionsRead, r] = await Promise.all([
      this.opts.transport.exec("scontrol show partition -o"),
      this.opts.transport.exec(SUBMIT_LIMIT_COMMAND, { timeoutMs: 3e4 })
    ]);
    const partitions = scontrolOutput(partitionsRead);
    const { own, others } = queueCount(queueLines(r.stdout), this.prefix, false);
    this.others = others;
    return { partitions, site: { ...siteLimit(r.stdout, charges), ownQueued: own } };
  }
  async config() {
    return scontrolOutput(await this.opts.transport.exec("scontrol show config | grep -i '^MaxArraySize'"));
  }
  async testOnly(tested) {
    const r = await this.opts.transport.exec(renderTestOnly(tested), { timeoutMs: 3e4 + 5e3 * tested.length });
    return parseTestOnly(tested, `${r.stdout}
${r.stderr}`);
  }
  async recount() {
    const r = await this.opts.transport.exec(`squeue -h -r -u "$(id -un)" -o ${(0,shell/* shellQuote */.ZL)("%j@%T")}`);
    if (r.code !== 0) throw new transport/* LinkError */.R6(`squeue failed on the cluster: ${r.stderr.trim() || `exit ${r.code}`}`);
    const count = queueCount(r.stdout.split("\n"), this.prefix, false);
    this.others = count.others;
    return count;
  }
  /**
   * In one command: the ledger's size, the campaign's jobs accounting and the queue know (by
   * the names the task tables' keys give) with their ids, and the task tables under `root`.
   */
  async readRecord(root) {
    const r = await this.opts.transport.exec(
      [
        `cd -- ${(0,shell/* shellQuote */.ZL)(root)} 2>/dev/null || exit 0`,
        // What the ledger holds now is on record below: a later submission reads past it.
        `printf '== ledger %s\\n' "$(stat -c %s -- ${LEDGER} 2>/dev/null || echo 0)"`,
        "export SLURM_TIME_FORMAT=%s",
        "user=$(id -un)",
        `names=; for d in */; do if [ -f "$d/table.tsv" ]; then names="$names,"${(0,shell/* shellQuote */.ZL)(this.prefix)}"\${d%/}"; fi; done`,
        '[ -n "$names" ] || exit 0',
        `sacct -X -n -P -u "$user" -S ${RECORD_LOOKBACK} -E now --name="\${names#,}" -o JobID,JobName,Submit || exit 4`,
        `squeue -h -t all -u "$user" --name="\${names#,}" -o '%i|%j|%V' || exit 4`,
        `for d in */; do if [ -f "$d/table.tsv" ]; then printf '== %s\\n' "\${d%/}"; cat -- "$d/table.tsv"; fi; done`
      ].join("\n")
    );
    if (r.code !== 0) {
      this.opts.warn(`cannot read the record of earlier submissions (${r.stderr.trim() || `exit ${r.code}`})`);
      return void 0;
    }
    const read = { jobs: /* @__PURE__ */ new Map(), sections: [] };
    for (const line of r.stdout.split("\n")) {
      const ledger = /^== ledger (\d+)$/.exec(line);
      if (ledger) {
        read.ledgerFrom = Number(ledger[1]);
        continue;
      }
      if (line.startsWith("== ")) {
        read.sections.push({ key: line.slice(3), lines: [] });
        continue;
      }
      const section = read.sections.at(-1);
      if (section) {
        section.lines.push(line);
        continue;
      }
      const [id = "", name = "", submit = ""] = line.split("|");
      if (!name.startsWith(this.prefix) || !/^\d+/.test(id)) continue;
      read.jobs.set(name.slice(this.prefix.length), id.split("_")[0]);
      if (/^\d+$/.test(submit)) read.earliest = Math.min(read.earliest ?? Infinity, Number(submit));
    }
    return read;
  }
  async readMarkers(root, keys) {
    if (keys.length === 0) return /* @__PURE__ */ new Map();
    const dirs = keys.map((k) => (0,shell/* shellQuote */.ZL)(`${root}/${k}/markers`)).join(" ");
    const r = await this.opts.transport.exec(`for d in ${dirs}; do cat -- "$d"/* 2>/dev/null; done; true`);
    return parseMarkers(r.stdout);
  }
  async send(group, key, files, place, root) {
    const record = this.opts.record;
    await this.upload(files, place.dir);
    const r = await this.sbatch(
      this.opts.transport.exec(renderSubmitOnce(root, key, record.ledgerFrom), {
        stdin: attemptLines(group, group[0].array.packing?.tasks)
      })
    );
    const { rows, outcome, upto } = parseSubmitOnce(r.stdout);
    record.adopt(rows, root);
    if (upto !== void 0) record.ledgerFrom = upto;
    if (outcome && "sent" in outcome) return { jobId: outcome.sent };
    if (outcome && "taken" in outcome && record.holdsAny(group)) return { taken: true };
    if (outcome && !("failed" in outcome))
      return { error: "another controller is sending the campaign's tasks", transient: true };
    return sbatchFailure(r);
  }
  /** Accounting failing is said once, and the ended tasks are judged without it. */
  async ask(queue, jobs) {
    const lines = [];
    if (jobs.size > 0) {
      const from = Math.min(Date.parse(this.opts.since) / 1e3, this.opts.record.earliest);
      const back = Math.ceil(Date.parse(this.opts.now()) / 1e3 - from) + 3600;
      lines.push(
        `SLURM_TIME_FORMAT=%s sacct -X -n -P -j ${[...jobs].join(",")} -S now-${back} -E now --format=${SACCT_FIELDS} 2>&1`,
        `printf '\\n%s %s\\n' ${SEPARATOR} "$?"`
      );
    }
    if (queue)
      lines.push(
        "user=$(id -un)",
        `SLURM_TIME_FORMAT=%s squeue -h -r -t all -u "$user" -o ${(0,shell/* shellQuote */.ZL)(SQUEUE_FORMAT)}`
      );
    const r = await this.opts.transport.exec(lines.join("; "));
    let acct = "";
    let rest = r.stdout;
    let acctOk = true;
    if (jobs.size > 0) {
      [acct = "", rest = ""] = r.stdout.split(`
${SEPARATOR} `);
      acctOk = rest.startsWith("0");
      rest = rest.slice(rest.indexOf("\n") + 1);
    }
    if (queue && r.code !== 0) throw new transport/* LinkError */.R6(`squeue failed on the cluster: ${r.stderr.trim() || rest.trim()}`);
    if (!acctOk && !this.accountingWarned) {
      this.accountingWarned = true;
      this.opts.warn(
        `sacct failed (${acct.trim().split("\n")[0]}): watching the queue only; ended tasks are judged by their outputs`
      );
    }
    if (jobs.size > 0) this.accountingOk = acctOk;
    const queued = queue ? parseSqueue(rest, this.prefix) : [];
    if (queue) this.others = othersQueued(rest.split("\n"), this.prefix, true);
    this.opts.record.remember(queued);
    return { records: mergeRecords(acctOk ? parseSacct(acct, this.prefix) : [], queued), acctOk };
  }
}


;// CONCATENATED MODULE: ./lib/exec/slurm/verify.js





const LOG_LIMIT = 16 * 1024 * 1024;
class Verification {
  constructor(transport, workdir, root) {
    this.transport = transport;
    this.workdir = workdir;
    this.root = root;
  }
  transport;
  workdir;
  root;
  /** Completion is proven by the output; a failure whose log names a gate is that gate's. */
  async verify(task, attempt, cls, reason, exitCode) {
    if (cls === "failed") {
      const log = await this.readLog(task, attempt);
      const gate = exitCode === GATE_EXIT ? GATE_LINE.exec(log) : null;
      if (gate) return gateShortfall(gate[1], gate[2]) ?? { cls: "gate", reason: `gate ${gate[1]}:${gate[2]}` };
      if (killedForMemory(log))
        return {
          cls: "out_of_memory",
          reason: `over its memory limit${exitCode === void 0 ? "" : ` (exit ${exitCode})`}`
        };
      const full = diskFull(log);
      if (full) return full;
    }
    if (cls !== "completed" || task.output === void 0) return { cls, ...reason ? { reason } : {} };
    const out = await this.freshness(task, attempt);
    if (!out.exists) {
      const full = diskFull(await this.readLog(task, attempt));
      return full ?? { cls: "unverified", reason: `COMPLETED but ${task.output} does not exist` };
    }
    if (out.linkedTo)
      return { cls: "unverified", reason: `COMPLETED but ${task.output} is a symlink to ${out.linkedTo}` };
    if (!out.fresh) return { cls: "unverified", reason: `COMPLETED but ${task.output} is older than the attempt` };
    return recordsVerdict("COMPLETED", task.output, await this.workdir.records(task, out)) ?? { cls: "completed" };
  }
  /**
   * An attempt its checkpoint signal reached (its warn marker is there): ended without its
   * output, whatever its status, it is a continuation (judge/attempt-end.ts).
   */
  async warned(task, attempt, warnedAt, endedAt, exitCode, verdict) {
    if (warnedAt === void 0) return verdict;
    const out = task.output === void 0 ? void 0 : await this.freshness(task, attempt);
    return afterWarning(verdict, {
      at: warnedAt,
      ...attempt.startedAt === void 0 ? {} : { startedAt: attempt.startedAt },
      endedAt,
      ...exitCode === void 0 ? {} : { exitCode },
      ...out ? { outputThere: out.exists && out.fresh && out.linkedTo === void 0 } : {}
    });
  }
  /**
   * The attempt's log, where the state says it is only if that is where this executor puts logs
   * (`<campaign dir>/<key>/logs/<index>.log`): a state is not trusted to name any other file.
   */
  async readLog(task, attempt) {
    const log = await this.logPath(attempt);
    if (log === void 0) return "";
    return await this.transport.readFile(log, { maxBytes: LOG_LIMIT }).catch(() => void 0) ?? "";
  }
  /** The job's log as Slurm reported it, only where this executor's layout puts logs. */
  async logPath(attempt) {
    return attempt.log && isJobLog(await this.root(), attempt.log) ? attempt.log : void 0;
  }
  /** Both times are the cluster's: the job's start from accounting, the file's mtime. */
  freshness(task, attempt) {
    return this.workdir.freshness(task, this.workdir.since(attempt));
  }
}


;// CONCATENATED MODULE: ./lib/exec/slurm/slurm-executor.js















class SlurmExecutor {
  constructor(opts) {
    this.opts = opts;
    this.now = opts.now ?? (() => (/* @__PURE__ */ new Date()).toISOString());
    this.warn = opts.warn ?? (() => {
    });
    this.prefix = `${opts.manifest.campaign}~`;
    this.workdir = new TransportWorkdir(opts.transport, opts.manifest, {
      folder: `.campaign/slurm/${opts.manifest.campaign}`,
      since: (a) => a.startedAt ?? a.submittedAt
    });
    this.record = new SubmissionRecord(this.prefix);
    const workdir = () => this.workdirPath();
    const root = async () => this.root(await this.workdirPath());
    const context = { ...opts, record: this.record, workdir, now: this.now, warn: this.warn };
    const restricted = (0,schema/* restriction */.V0)(opts.manifest.cluster);
    this.commands = restricted === void 0 ? new ShellCommands(context) : new PlainCommands(context, restricted === "slurm");
    this.verification = new Verification(opts.transport, this.workdir, root);
    this.observation = new Observation({
      commands: this.commands,
      transport: opts.transport,
      workdir: this.workdir,
      verification: this.verification,
      packedPhases: new Set(opts.manifest.phases.filter((p) => p.pack !== void 0).map((p) => p.name)),
      root,
      now: this.now,
      warn: this.warn
    });
    this.submitLimit = effectiveLimit(void 0, declaredMaxJobs(opts.manifest));
  }
  opts;
  /** The campaign's workdir, behind the login; submissions are keyed by the generation it records. */
  workdir;
  now;
  warn;
  prefix;
  record;
  commands;
  verification;
  observation;
  /** Node sets sbatch refused to exclude (no other node can take the job): not asked again, nor warned of, this run. */
  unavoidable = /* @__PURE__ */ new Set();
  /** The site's limit on jobs queued (cluster.max_jobs, or sacctmgr's where smaller), lowered where sbatch says so. */
  submitLimit;
  /** The campaign's jobs in the queue when the limit was read (a run resumed). */
  ownQueued = 0;
  /** A refusal for the submit limit has been warned of this run. */
  limitWarned = false;
  /**
   * The campaign's max_parallel less the attempts in the queue, however they are grouped in
   * arrays (each array is throttled to its share besides: render/sbatch.ts), and the room the
   * submit limit leaves, which the user's other jobs in the queue take too (submit-limit.ts).
   * An attempt whose end marker is there has left the node, though it counts as active until
   * accounting judges it: its place is free.
   */
  capacity(active) {
    const cap = this.opts.manifest.cluster.max_parallel;
    const left = active - this.observation.ended.size;
    const parallel = cap === void 0 ? Number.MAX_SAFE_INTEGER : Math.max(0, cap - left);
    const limit = this.submitLimit?.limit;
    return limit === void 0 ? parallel : Math.min(parallel, roomUnder(limit, left + this.commands.others, left));
  }
  /** Tasks that have left their node and wait for accounting's word on how: their places are free. */
  ended() {
    return this.observation.ended;
  }
  workdirPath() {
    return this.workdir.path();
  }
  root(workdir) {
    return slurmRoot(workdir, this.opts.manifest.campaign);
  }
  /**
   * The cluster's partition caps (`scontrol`), read once before submitting; restricted, its
   * MaxArraySize too, from the configuration read there anyway. With a shell, the submit limit
   * of the accounts and QOS `charges` name (sacctmgr) and the user's jobs in the queue too;
   * restricted, cluster.max_jobs alone.
   */
  async limits(charges = [{ ...this.account === void 0 ? {} : { account: this.account } }]) {
    const read = await this.commands.readLimits(charges);
    if (read.site) {
      this.submitLimit = effectiveLimit(read.site.limit, declaredMaxJobs(this.opts.manifest));
      this.ownQueued = read.site.ownQueued;
    }
    return {
      ...read.config === void 0 ? {} : { maxArraySize: arraySizeIn(read.config) },
      ...partitionsIn(read.partitions),
      ...this.submitLimit ? { maxJobs: this.submitLimit } : {},
      accountingRead: read.site?.read ?? false,
      othersQueued: this.commands.others
    };
  }
  /** The account jobs are charged to where an array names none. */
  get account() {
    const cluster = this.opts.manifest.cluster;
    return cluster.executor === "slurm" ? cluster.account : void 0;
  }
  /**
   * The cluster's MaxArraySize, from its configuration: asked only once an array's test says it
   * matters (restricted, `limits` gives it).
   */
  async maxArraySize() {
    return arraySizeIn(await this.commands.config());
  }
  /**
   * What the cluster would refuse of the plan as campaign would send it: each distinct
   * submission's script through `sbatch --test-only`; nothing is queued.
   */
  async testSubmissions(plan) {
    const workdir = await this.workdirPath();
    const where = { name: `${this.prefix}test-only`, dir: `${this.root(workdir)}/test-only`, workdir, exclude: false };
    const room = this.submitLimit && Math.max(1, this.submitLimit.limit - this.commands.others - this.ownQueued);
    const tested = testedArrays(plan, this.opts.manifest, where, room);
    if (tested.length === 0) return [];
    return roomAside(await this.commands.testOnly(tested), this.warn);
  }
  /** The refusals of testSubmissions as the error that stops a run before anything is sent. */
  static refused(refusals) {
    return refusedError(refusals);
  }
  /** Refuses a plan the cluster would refuse, before anything is submitted. */
  static checkPlan(plan, limits) {
    checkPlan(plan, limits);
  }
  async submit(submissions) {
    const workdir = await this.workdirPath();
    const root = this.root(workdir);
    const record = this.record;
    if (!record.attemptsRead) record.fill(root, await this.commands.readRecord(root));
    if (!record.jobsKnown) {
      record.knowNoJobs();
      await this.commands.ask(true, /* @__PURE__ */ new Set());
    }
    const events = [];
    let full = false;
    for (const whole of groupSubmissions(submissions)) {
      for (const s of whole) {
        const found = record.find(s);
        if (found) events.push(submittedEvent(s, this.now(), found));
      }
      const group = whole.filter((s) => !record.find(s));
      if (group.length === 0) continue;
      const key = submissionKey(this.opts.manifest.campaign, this.workdir.generation.last ?? this.opts.since, group);
      const name = `${this.prefix}${key}`;
      const dir = `${root}/${key}`;
      let jobId = record.jobNamed(name);
      if (jobId === void 0) {
        if (full) continue;
        const avoid = group[0].avoidNodes?.join(", ");
        const exclude = avoid !== void 0 && !this.unavoidable.has(avoid);
        let submitted = await this.send(group, key, { name, dir, workdir, exclude }, root);
        if ("error" in submitted && !submitted.transient && exclude) {
          this.unavoidable.add(avoid);
          this.warn(
            `cannot avoid ${avoid} (${submitted.error}); submitting without --exclude, for the rest of this run`
          );
          submitted = await this.send(group, key, { name, dir, workdir, exclude: false }, root);
        }
        if ("error" in submitted) {
          if (isSubmitLimit(submitted.error)) {
            full = true;
            const packing = group[0].array.packing;
            await this.refusedForLimit(
              submitted.error,
              packing ? (0,pack/* elementsOf */.ZE)(group.length, packing.tasks) : group.length
            );
          } else if (submitted.transient) this.warn(`sbatch will be tried again on the next pass: ${submitted.error}`);
          else
            events.push(
              ...group.map((s) => ({
                type: "submit_failed",
                task: s.task.id,
                attempt: s.attempt,
                at: this.now(),
                reason: submitted.error
              }))
            );
          continue;
        }
        if ("taken" in submitted) {
          events.push(...await this.submit(group));
          continue;
        }
        jobId = submitted.jobId;
      }
      events.push(...record.sent(group, name, jobId, dir, this.now()));
    }
    return events;
  }
  /** One sbatch of `group` as submission `key`, its script and table written for `place`. */
  send(group, key, place, root) {
    return this.commands.send(group, key, submissionFiles(this.opts.manifest, group, place), place, root);
  }
  /**
   * sbatch refused `size` jobs (tasks, or packed elements) for the limit on jobs queued. The
   * queue, counted afresh, says whether the limit is lower than the campaign thought (lowered
   * during the run, or set where sacctmgr did not show it): then it is at most what is queued
   * now and `size` less one, which it becomes, and the rest follow as room frees (a second
   * refusal lowers it again). Otherwise the count of the user's other jobs was behind, and is
   * now right.
   */
  async refusedForLimit(error, size) {
    const { own, others } = await this.commands.recount();
    const queued = own + others;
    const known = this.submitLimit?.limit;
    const lowered = known === void 0 || queued + size <= known;
    const limit = Math.max(1, queued + size - 1);
    if (lowered) this.submitLimit = { limit, from: `sbatch refused ${size} more with ${queued} queued` };
    if (lowered || !this.limitWarned)
      this.warn(
        `sbatch refused for the limit on jobs queued (${error}): ${size} tasks wait for room${lowered ? `; at most ${limit} queued from now on` : ""}`
      );
    this.limitWarned = true;
  }
  /** Markers first: see observe.ts. */
  observe(all) {
    return this.observation.observe(all);
  }
  /**
   * Asks Slurm to end these attempts (SIGTERM, then SIGKILL after KillWait); a pending one
   * never starts. Their ends, as `cancelled`, come from later passes.
   */
  async cancel(active) {
    const handles = active.flatMap((a) => arrayHandle(a) ?? []);
    if (handles.length === 0) return;
    const r = await this.opts.transport.run(["scancel", ...handles]);
    if (r.code !== 0)
      throw new errors/* UserError */.yo({
        message: `scancel failed (exit ${r.code}): ${(r.stderr || r.stdout).trim().split("\n")[0]}`,
        fix: `cancel the jobs by hand on the login node: scancel ${handles.join(" ")}`
      });
  }
  /** Takes the attempts still pending out of the queue, held first: see observe.ts. */
  withdraw(queued) {
    return this.observation.withdraw(queued);
  }
  async readLog(task, attempt) {
    return this.verification.readLog(task, attempt);
  }
  async logPath(_task, attempt) {
    return this.verification.logPath(attempt);
  }
  async close() {
    await this.opts.transport.close();
  }
}
function groupSubmissions(subs) {
  const groups = /* @__PURE__ */ new Map();
  for (const s of subs) {
    const k = (0,events/* submissionGroup */.m)(s);
    const g = groups.get(k);
    if (g) g.push(s);
    else groups.set(k, [s]);
  }
  return [...groups.values()];
}


;// CONCATENATED MODULE: ./lib/decide/gpu.js
const DEFAULT_PROBE = "nvidia-smi --query-gpu=index,uuid,memory.used,memory.total --format=csv,noheader,nounits";
const NUMBER = /^\d+(\.\d+)?$/;
const UUID = /^[A-Za-z0-9][A-Za-z0-9-]*$/;
function parseProbe(text) {
  const gpus = [];
  const unusable = [];
  const seen = /* @__PURE__ */ new Set();
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    const fields = line.split(",").map((f) => f.trim());
    const index = /^\d+$/.test(fields[0] ?? "") ? Number(fields[0]) : void 0;
    const at = index === void 0 ? {} : { index };
    if (fields.length !== 4 || index === void 0) {
      unusable.push({ ...at, line, why: 'not "index, uuid, memory.used, memory.total"' });
      continue;
    }
    const [, uuid, used, total] = fields;
    if (!UUID.test(uuid)) unusable.push({ index, line, why: `uuid is "${uuid}"` });
    else if (!NUMBER.test(used)) unusable.push({ index, line, why: `memory.used is "${used}"` });
    else if (!NUMBER.test(total)) unusable.push({ index, line, why: `memory.total is "${total}"` });
    else if (seen.has(`i${index}`) || seen.has(`u${uuid}`)) unusable.push({ index, line, why: "listed twice" });
    else {
      seen.add(`i${index}`).add(`u${uuid}`);
      gpus.push({ index, uuid, usedMiB: Number(used), totalMiB: Number(total) });
    }
  }
  return { gpus, unusable };
}
function gpuStatus(input) {
  const { table, freeBelowMiB, held } = input;
  const indices = input.allowed ?? [...table.gpus.map((g) => g.index), ...table.unusable.flatMap((u) => u.index ?? [])];
  const out = [];
  for (const index of [...new Set(indices)].sort((a, b) => a - b)) {
    const g = table.gpus.find((x) => x.index === index);
    const bad = table.unusable.find((u) => u.index === index);
    if (!g) out.push({ index, free: false, why: bad ? `unusable: ${bad.why}` : "not listed by the probe" });
    else if (held.has(g.uuid)) out.push({ index, uuid: g.uuid, free: false, why: "held by a task of this campaign" });
    else if (input.shells?.has(g.uuid)) out.push({ index, uuid: g.uuid, free: false, why: "held by a campaign shell" });
    else if (g.usedMiB >= freeBelowMiB)
      out.push({ index, uuid: g.uuid, free: false, why: `${g.usedMiB} MiB in use (free below ${freeBelowMiB} MiB)` });
    else out.push({ index, uuid: g.uuid, free: true });
  }
  return out;
}
function placeTasks(requests, free) {
  const left = free.filter((g) => g.free && g.uuid !== void 0).map((g) => g.uuid);
  const placed = /* @__PURE__ */ new Map();
  for (const r of requests) {
    if (r.gpus > left.length) continue;
    const avoid = new Set(r.avoid);
    const order = [...left.filter((u) => !avoid.has(u)), ...left.filter((u) => avoid.has(u))];
    const take = order.slice(0, r.gpus);
    placed.set(r.key, take);
    for (const u of take) left.splice(left.indexOf(u), 1);
  }
  return placed;
}
function waveMayStart(input) {
  if (input.active > 0) return { ok: false, why: `${input.active} task(s) of the current wave still running` };
  for (const uuid of input.lastWave) {
    const g = input.table?.gpus.find((x) => x.uuid === uuid);
    if (!g) return { ok: false, why: `GPU ${uuid} of the last wave has no reading` };
    if (g.usedMiB >= input.freeBelowMiB)
      return { ok: false, why: `GPU ${g.index} of the last wave still has ${g.usedMiB} MiB in use` };
  }
  return { ok: true };
}
function placeInPool(requests, servers) {
  const left = servers.map((s) => ({
    server: s.server,
    slots: s.slots,
    uuids: s.status.filter((g) => g.free && g.uuid !== void 0).map((g) => g.uuid)
  }));
  const placed = /* @__PURE__ */ new Map();
  for (const r of requests) {
    const rank = (s) => {
      const avoid2 = new Set(r.avoid.filter((a) => a.server === s.server).map((a) => a.uuid));
      const clear = s.uuids.filter((u) => !avoid2.has(u)).length >= r.gpus;
      return (clear ? 1e6 : 0) + s.uuids.length;
    };
    let best;
    for (const s of left) {
      if (s.slots < 1 || s.uuids.length < r.gpus) continue;
      if (!best || rank(s) > rank(best)) best = s;
    }
    if (!best) continue;
    const avoid = new Set(r.avoid.filter((a) => a.server === best.server).map((a) => a.uuid));
    const take = [...best.uuids.filter((u) => !avoid.has(u)), ...best.uuids.filter((u) => avoid.has(u))].slice(
      0,
      r.gpus
    );
    placed.set(r.key, { server: best.server, gpus: take });
    best.uuids = best.uuids.filter((u) => !take.includes(u));
    best.slots -= 1;
  }
  return placed;
}


;// CONCATENATED MODULE: ./lib/exec/workdir.js
function workdirThrough(pick) {
  return {
    path: () => pick().path(),
    outputFacts: (task, attempt, withText) => pick().outputFacts(task, attempt, withText),
    runCheck: (task, command) => pick().runCheck(task, command),
    missing: (paths) => pick().missing(paths),
    writeFiles: (files) => pick().writeFiles(files),
    readFile: (path) => pick().readFile(path),
    gather: (paths, known, endsSuffice, take) => pick().gather(paths, known, endsSuffice, take),
    get generation() {
      return pick().generation;
    },
    setAside: (dest) => pick().setAside(dest),
    shipCode: (snapshot) => pick().shipCode(snapshot),
    removeCode: (keep) => pick().removeCode(keep)
  };
}


;// CONCATENATED MODULE: ./lib/exec/ssh-gpu/paths.js
const campaignFolder = (campaign) => `.campaign/ssh-gpu/${campaign}`;
async function campaignDir(s, campaign) {
  return `${await s.workdir.path()}/${campaignFolder(campaign)}`;
}
async function attemptDir(s, campaign, taskId, attempt) {
  return `${await campaignDir(s, campaign)}/attempts/${taskId}/${attempt}`;
}
async function waveFile(s, campaign) {
  return `${await campaignDir(s, campaign)}/wave${s.name === void 0 ? "" : `-${s.name.replace(/[^A-Za-z0-9._-]/g, "_")}`}`;
}
async function shellHolds(s) {
  return `${await s.workdir.path()}/.campaign/ssh-gpu/shells`;
}


;// CONCATENATED MODULE: ./lib/exec/ssh-gpu/server.js


const handleOf = (pid, gpus, server) => `${server === void 0 ? "" : `server:${server} `}pid:${pid} gpu:${gpus.length > 0 ? gpus.join(",") : "-"}`;
const gpusOfHandle = (handle) => (/ gpu:(\S+)$/.exec(handle ?? "")?.[1] ?? "-").split(",").filter((u) => u !== "-" && u !== "");
const serverOfHandle = (handle) => /^server:(\S+) /.exec(handle ?? "")?.[1];
function outOfPoolReason(handle, names) {
  const server = serverOfHandle(handle);
  if (server === void 0) return "its handle names no server of cluster.servers (it was started without a pool)";
  return names.has(server) ? void 0 : `its server ${server} is no longer in cluster.servers`;
}
const isUnanswered = (e) => e instanceof transport/* LinkError */.R6 || e instanceof errors/* UserError */.yo;
const notAnswering = (where, why, attempts) => `${where} does not answer (${why.split("\n")[0]}); ${attempts > 0 ? `its ${attempts} task(s) are looked at again when it does, and ` : ""}no task starts there until then`;
function sharedWorkdirProblem(first, other, path) {
  return new errors/* UserError */.yo({
    message: `the servers of cluster.servers do not share the workdir: ${path}, written on ${first}, is not there on ${other}`,
    fix: "put the workdir on a filesystem every server mounts at the same path (an NFS home, say), or run one campaign per server"
  });
}


;// CONCATENATED MODULE: ./lib/exec/ssh-gpu/ends.js






const ends_LOG_LIMIT = 64 * 1024 * 1024;
class EndsObserver {
  constructor(pool, settings) {
    this.pool = pool;
    this.settings = settings;
  }
  pool;
  settings;
  /** The starts and ends of the active attempts, on every server that answers; throws a LinkError when none does. */
  async observe(active) {
    const { pool } = this;
    if (!pool.pooled) return await this.observeOn(pool.servers[0], active);
    const names = new Set(pool.servers.map((s) => s.name));
    const events = [];
    const on = new Map(pool.servers.map((s) => [s, []]));
    for (const a of active) {
      const reason = outOfPoolReason(a.attempt.handle, names);
      if (reason)
        events.push({
          type: "finished",
          task: a.task.id,
          attempt: a.attempt.n,
          at: this.settings.now(),
          class: "lost",
          reason
        });
      else on.get(pool.byName(serverOfHandle(a.attempt.handle))).push(a);
    }
    const seen = await Promise.all([...on].map(([s, list]) => this.observeOn(s, list)));
    if (seen.every((e) => e === void 0)) {
      throw new transport/* LinkError */.R6(
        `no server of cluster.servers answers (${pool.servers.map((s) => `${s.where}: ${s.out?.why ?? "no answer yet"}`).join("; ")})`
      );
    }
    return [...events, ...seen.flatMap((e) => e ?? [])];
  }
  /** The events of the attempts on one server; undefined when a pool's server does not answer. */
  async observeOn(s, active) {
    if (this.pool.sitsOut(s)) {
      s.running = active.length;
      return void 0;
    }
    const result = await this.pool.answered(s, async () => {
      const dirs = await Promise.all(active.map((a) => attemptDir(s, this.settings.campaign, a.task.id, a.attempt.n)));
      return this.endsOn(s, active, dirs, await this.pool.prober.look(s, dirs));
    });
    if (result === void 0) s.running = active.length;
    return result;
  }
  /** What the server's answer says of each attempt, with the class of each end. */
  async endsOn(s, active, dirs, seen) {
    const { now, oomPatterns } = this.settings;
    const events = [];
    const held = /* @__PURE__ */ new Set();
    let running = 0;
    for (const [i, { task, attempt, walltimeSeconds }] of active.entries()) {
      const base = { task: task.id, attempt: attempt.n };
      const what = seen.get(i) ?? "gone";
      if (what === "running") {
        running++;
        gpusOfHandle(attempt.handle).forEach((u) => held.add(u));
        if (!attempt.startedAt) events.push({ type: "started", ...base, at: now() });
        continue;
      }
      if (!what.startsWith("exit ")) {
        events.push({
          type: "finished",
          ...base,
          at: now(),
          class: "lost",
          reason: "the wrapper is gone and left no exit marker"
        });
        continue;
      }
      const marker = parseExitMarker(what.slice(5), now());
      const started = marker.startedAt ?? marker.at;
      if (!attempt.startedAt) events.push({ type: "started", ...base, at: started });
      const log = await this.logForClassifying(s, dirs[i]);
      const output = task.output === void 0 ? void 0 : await s.workdir.freshness(task, s.workdir.since(attempt));
      const records = output && marker.code === 0 ? await s.workdir.records(task, output) : void 0;
      const { cls, reason } = classifyEnd({
        marker,
        log,
        walltimeSeconds,
        oomPatterns,
        output,
        ...records ? { records } : {}
      });
      events.push({
        type: "finished",
        ...base,
        at: marker.at,
        class: cls,
        exitCode: marker.code,
        ...reason ? { reason } : {}
      });
    }
    s.held = held;
    s.running = running;
    return events;
  }
  /**
   * The whole log of the attempt in `dir`; one too large to read is searched on the server, for
   * its gate line and the patterns.
   */
  async logForClassifying(s, dir) {
    try {
      return await s.transport.readFile(`${dir}/log`, { maxBytes: ends_LOG_LIMIT }) ?? "";
    } catch {
      const log = (0,shell/* shellQuote */.ZL)(`${dir}/log`);
      const args = this.settings.oomPatterns.map((p) => `-e ${(0,shell/* shellQuote */.ZL)(p.source)}`).join(" ");
      const r = await s.transport.exec(
        `head -c 1048576 ${log}; echo; grep -a -m 5 -P ${args} ${log}; echo; tail -c 1048576 ${log}`
      );
      return r.stdout;
    }
  }
}


;// CONCATENATED MODULE: ./lib/render/ssh-gpu.js

const ALIVE_LINES = [
  "campaign_alive() {",
  "  local s a",
  '  [[ $1 =~ ^[0-9]+$ ]] && { read -r s < "/proc/$1/stat"; } 2>/dev/null || return 1',
  "  s=${s##*) }",
  '  [ "${s%% *}" != Z ] || return 1',
  `  while IFS= read -r -d '' a; do [ "$a" != "$2" ] || return 0; done 2>/dev/null < "/proc/$1/cmdline"`,
  "  return 1",
  "}"
];
function renderQuery(probe, probeTimeoutSeconds, waveFile, holds) {
  return [
    "set -u",
    ...ALIVE_LINES,
    "out=$(mktemp) && err=$(mktemp) || exit 1",
    `timeout -s KILL ${Math.max(1, Math.ceil(probeTimeoutSeconds))} bash -c ${(0,shell/* shellQuote */.ZL)(probe)} < /dev/null > "$out" 2> "$err"`,
    "rc=$?",
    `printf 'probe %s %s %s\\n' "$rc" "$(base64 -w0 < "$out")" "$(head -c 2000 "$err" | base64 -w0)"`,
    'rm -f -- "$out" "$err"',
    `printf 'wave %s\\n' "$(cat -- ${(0,shell/* shellQuote */.ZL)(waveFile)} 2>/dev/null)"`,
    `for h in ${(0,shell/* shellQuote */.ZL)(holds)}/*; do`,
    `  [ -f "$h" ] && read -r p s < "$h" && campaign_alive "$p" "$s" && printf 'hold %s\\n' "\${h##*/}"`,
    "done",
    "i=0",
    "while IFS= read -r d; do",
    '  if [ -s "$d/exit" ]; then',
    `    printf 'a %s exit %s\\n' "$i" "$(cat -- "$d/exit")"`,
    '  elif p=; { read -r p < "$d/pid"; } 2>/dev/null; campaign_alive "$p" "$d/wrapper.sh"; then',
    `    printf 'a %s running\\n' "$i"`,
    '  elif [ -s "$d/exit" ]; then',
    `    printf 'a %s exit %s\\n' "$i" "$(cat -- "$d/exit")"`,
    "  else",
    `    printf 'a %s gone\\n' "$i"`,
    "  fi",
    "  i=$((i + 1))",
    "done",
    ""
  ].join("\n");
}
function renderLaunch() {
  return [
    "set -u",
    "mapfile -t lines",
    "declare -a dirs=()",
    "declare -A bad=()",
    'for i in "${!lines[@]}"; do',
    "  staging=${lines[$i]%%$'\\t'*} d=${lines[$i]#*$'\\t'}",
    "  dirs[$i]=$d",
    '  mv -T -- "$staging" "$d" 2>/dev/null || rm -rf -- "$staging"',
    '  if [ -s "$d/launched" ]; then',
    "    continue",
    '  elif ! date +%s%3N > "$d/launched.$$"; then',
    '    rm -f -- "$d/launched.$$"',
    '    bad[$i]="cannot write in $d"',
    '  elif ! ln -- "$d/launched.$$" "$d/launched" 2>/dev/null; then',
    '    rm -f -- "$d/launched.$$"',
    '    [ -s "$d/launched" ] || bad[$i]="cannot link in $d"',
    "  else",
    '    rm -f -- "$d/launched.$$"',
    '    setsid -f bash "$d/wrapper.sh" < /dev/null > /dev/null 2>&1 || bad[$i]="setsid could not start the wrapper"',
    "  fi",
    "done",
    "for _ in $(seq 1 100); do",
    "  waiting=0",
    '  for i in "${!dirs[@]}"; do [ -n "${bad[$i]:-}" ] || [ -s "${dirs[$i]}/pid" ] || waiting=1; done',
    '  [ "$waiting" = 0 ] && break',
    "  sleep 0.1",
    "done",
    'for i in "${!dirs[@]}"; do',
    "  d=${dirs[$i]}",
    '  if [ -z "${bad[$i]:-}" ] && [ ! -s "$d/pid" ]; then',
    '    if mkdir "$d/claim" 2>/dev/null; then',
    '      bad[$i]="the wrapper did not start within 10 s"',
    "    else",
    '      for _ in $(seq 1 100); do [ -s "$d/pid" ] && break; sleep 0.1; done',
    '      [ -s "$d/pid" ] || bad[$i]="the wrapper started but wrote no pid"',
    "    fi",
    "  fi",
    '  if [ -n "${bad[$i]:-}" ]; then printf \'f %s %s\\n\' "$i" "${bad[$i]}"',
    `  else printf 'l %s %s %s %s %s\\n' "$i" "$(cat -- "$d/launched")" "$(cat -- "$d/pid")" "$(cat -- "$d/gpus" 2>/dev/null)" "$(cat -- "$d/server" 2>/dev/null)"; fi`,
    "done",
    ""
  ].join("\n");
}


;// CONCATENATED MODULE: ./lib/exec/ssh-gpu/launch.js








class Launcher {
  constructor(pool, settings) {
    this.pool = pool;
    this.settings = settings;
  }
  pool;
  settings;
  /**
   * What an earlier pass left of this attempt (a launch, read back with its pid, GPUs and, in a
   * pool, server; a launch cut short gets 3 s to write its pid), and the GPUs (and server) the
   * task's previous attempt ran on. Read through `via`: a pool's servers share the workdir.
   */
  async earlierLaunch(via, sub, dir) {
    const read = (path) => via.transport.readFile(path).catch(() => void 0);
    const list = (text) => (text ?? "").trim().split(",").filter(Boolean);
    const server = async (d) => {
      const name = this.pool.pooled ? (await read(`${d}/server`))?.trim() : void 0;
      return name ? { server: name } : {};
    };
    const { campaign } = this.settings.manifest;
    const prev = sub.attempt > 1 ? await attemptDir(via, campaign, sub.task.id, sub.attempt - 1) : void 0;
    const beforeOn = prev === void 0 ? {} : await server(prev);
    const before = {
      before: prev === void 0 ? [] : list(await read(`${prev}/gpus`)),
      ...beforeOn.server === void 0 ? {} : { beforeServer: beforeOn.server }
    };
    const launched = await read(`${dir}/launched`);
    if (launched === void 0) return before;
    const ranUnder = (await read(`${dir}/definition`))?.trim() ?? "";
    if (sub.task.definition !== void 0 && ranUnder !== sub.task.definition) {
      await via.transport.exec(`mv -- ${(0,shell/* shellQuote */.ZL)(dir)} ${(0,shell/* shellQuote */.ZL)(`${dir}.superseded-${Date.now()}`)}`);
      return before;
    }
    let pid;
    for (let waited = 0; waited <= 3e3; waited += 100) {
      pid = (await read(`${dir}/pid`))?.trim();
      if (pid) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!pid) return before;
    const gpus = list(await read(`${dir}/gpus`));
    return {
      launch: { at: msToIso(launched.trim(), this.settings.now()), pid, gpus, ...await server(dir) },
      ...before
    };
  }
  /**
   * Writes each attempt's files and starts them all on the server with one command. An attempt
   * whose answer was lost gets no event: the next pass finds it launched, or launches it.
   */
  async launch(s, placed) {
    if (placed.length === 0) return [];
    const { manifest, killAfterS, now, warn } = this.settings;
    const t = s.transport;
    const workdir = await s.workdir.path();
    const items = await Promise.all(
      placed.map(async (p) => ({ ...p, dir: await attemptDir(s, manifest.campaign, p.sub.task.id, p.sub.attempt) }))
    );
    const events = [];
    const ready = [];
    let unanswered;
    await Promise.all(
      items.map(async (it) => {
        const { sub, dir, gpus } = it;
        const env = {
          ...manifestTaskEnv(manifest, sub.task, sub.attempt, workdir),
          ...resumeEnv(phaseOf(manifest, sub.task), sub.resume),
          CUDA_VISIBLE_DEVICES: gpus.join(",")
        };
        const script = renderTaskScript(scriptInputFor(manifest, sub.task, sub.index, gpus.length, sub.code));
        const wrapper = renderWrapper({
          dir,
          walltimeSeconds: sub.array.budget.seconds,
          killAfterSeconds: killAfterS,
          envFile: true,
          checkpoint: checkpointOf(phaseOf(manifest, sub.task)?.checkpoint)
        });
        const staging = (0,transport/* tempPathFor */.FD)(dir);
        try {
          await t.mkdirp(staging);
          await Promise.all([
            t.writeFile(`${staging}/task.sh`, script, { mode: 493 }),
            t.writeFile(`${staging}/env.sh`, `${(0,shell/* exportLines */.Es)(env)}
`),
            t.writeFile(`${staging}/gpus`, `${gpus.join(",")}
`),
            t.writeFile(`${staging}/definition`, `${sub.task.definition ?? ""}
`),
            ...s.name === void 0 ? [] : [t.writeFile(`${staging}/server`, `${s.name}
`)],
            t.writeFile(`${staging}/wrapper.sh`, wrapper, { mode: 493 })
          ]);
          ready.push({ ...it, staging });
        } catch (e) {
          if (this.pool.pooled && isUnanswered(e)) unanswered = e;
          else events.push(submitFailed(sub, now(), `cannot write the attempt's files: ${e.message}`));
        }
      })
    );
    if (unanswered) {
      this.pool.leaveOut(s, unanswered.message);
      return events;
    }
    if (ready.length === 0) return events;
    let r;
    try {
      r = await t.exec(renderLaunch(), {
        stdin: ready.map((it) => `${it.staging}	${it.dir}
`).join(""),
        timeoutMs: 12e4
      });
    } catch (e) {
      const where = s.name === void 0 ? "" : ` on ${s.name}`;
      warn(`launching ${ready.length} task(s)${where}: ${e.message}; the next pass looks again`);
      return events;
    }
    const answered = /* @__PURE__ */ new Set();
    for (const line of r.stdout.split("\n")) {
      const [kind, n = "", at = "", pid = "", ranGpus = "", ranOn = ""] = line.split(" ");
      const it = ready[Number(n)];
      if (!it || kind !== "l" && kind !== "f") continue;
      answered.add(Number(n));
      if (kind === "l" && /^\d+$/.test(pid)) {
        const gpus = ranGpus === "" ? it.gpus : ranGpus.split(",");
        const on = (ranOn === "" ? void 0 : this.pool.byName(ranOn)) ?? s;
        events.push(submitted(it.sub, it.dir, msToIso(at, now()), pid, gpus, on.name));
        on.running++;
      } else events.push(submitFailed(it.sub, now(), line.split(" ").slice(2).join(" ") || "the launch failed"));
    }
    if (answered.size < ready.length) {
      warn(`the launch command exited ${r.code} (${r.stderr.trim()}); the next pass looks again`);
    }
    return events;
  }
}
function submitted(sub, dir, at, pid, gpus, server) {
  return {
    type: "submitted",
    task: sub.task.id,
    attempt: sub.attempt,
    at,
    handle: handleOf(pid, gpus, server),
    log: `${dir}/log`,
    gpus: [...gpus],
    ...sub.memBytes === void 0 ? {} : { memBytes: sub.memBytes }
  };
}
function submitFailed(sub, at, reason) {
  return { type: "submit_failed", task: sub.task.id, attempt: sub.attempt, at, reason };
}
function msToIso(ms, fallback) {
  const n = Number(ms);
  return Number.isFinite(n) && n > 0 ? new Date(n).toISOString() : fallback;
}


;// CONCATENATED MODULE: ./lib/exec/ssh-gpu/notes.js
class Notes {
  constructor(warn) {
    this.warn = warn;
  }
  warn;
  /** Key → the message last said under it. */
  said = /* @__PURE__ */ new Map();
  /** Says `message` unless it is what was said last under `key`. */
  say(key, message) {
    if (this.said.get(key) === message) return;
    this.said.set(key, message);
    this.warn(message);
  }
  /** Forgets what was said under `key`: once the trouble is over, its return is said again. */
  forget(key) {
    this.said.delete(key);
  }
}
const noteKey = (s, what) => s.name === void 0 ? what : `${s.name} ${what}`;


;// CONCATENATED MODULE: ./lib/exec/ssh-gpu/probe.js






const MIB = 1024 * 1024;
const DEFAULT_FREE_BELOW_MIB = 500;
const DEFAULT_PROBE_TIMEOUT_S = 20;
function probeSettings(cluster, campaign) {
  const below = cluster.gpu_free_below;
  const timeout = cluster.probe_timeout;
  return {
    command: cluster.probe ?? DEFAULT_PROBE,
    timeoutS: timeout === void 0 ? DEFAULT_PROBE_TIMEOUT_S : (0,units/* parseDuration */.E9)(timeout),
    freeBelowMiB: below === void 0 ? DEFAULT_FREE_BELOW_MIB : (0,units/* parseSize */.DB)(below) / MIB,
    campaign
  };
}
class Prober {
  constructor(settings, notes) {
    this.settings = settings;
    this.notes = notes;
  }
  settings;
  notes;
  /**
   * Runs the server's probe and reads the attempts in `dirs`: one command. What the probe saw
   * becomes the server's view; the attempts' states are returned by their index in `dirs`.
   */
  async look(s, dirs) {
    const { command, timeoutS, campaign } = this.settings;
    const r = await s.transport.exec(renderQuery(command, timeoutS, await waveFile(s, campaign), await shellHolds(s)), {
      stdin: dirs.map((d) => `${d}
`).join(""),
      timeoutMs: (timeoutS + 60) * 1e3
    });
    if (r.code !== 0)
      throw new errors/* UserError */.yo({
        message: `reading the GPU server${s.name === void 0 ? "" : ` ${s.name}`} failed (exit ${r.code}): ${r.stderr.trim()}`,
        fix: "check that the probe (nvidia-smi, or cluster.probe) runs on the server as the login user"
      });
    const { view, attempts } = readAnswer(r.stdout, timeoutS);
    s.view = view;
    s.probeFailures = view.error ? s.probeFailures + 1 : 0;
    const probeKey = noteKey(s, "probe");
    if (view.error)
      this.notes.say(
        probeKey,
        s.name === void 0 ? `${view.error}; no task starts until it answers` : `${view.error} on ${s.name}; no task starts there until it answers`
      );
    else this.notes.forget(probeKey);
    for (const u of view.table?.unusable ?? []) {
      this.notes.say(
        noteKey(s, `unusable${u.index ?? u.line}`),
        `GPU ${u.index ?? "?"}${s.name === void 0 ? "" : ` of ${s.name}`} is not used: ${u.why} (probe line "${u.line}")`
      );
    }
    return attempts;
  }
  /** The server's GPUs from its last probe; throws a UserError for a probe that cannot work or GPUs it lacks. */
  judge(s) {
    const view = s.view;
    if (view.error && !view.error.includes("did not answer")) {
      throw new errors/* UserError */.yo({
        message: `${view.error} on ${s.where} (probe: ${this.settings.command})`,
        fix: "install nvidia-smi on the server, or set cluster.probe to a command that prints the same table"
      });
    }
    const listed = new Set(
      [...view.table?.gpus ?? [], ...view.table?.unusable ?? []].flatMap((g) => g.index ?? [])
    );
    const unknown = (s.gpus ?? []).filter((i) => view.table && !listed.has(i));
    if (unknown.length > 0) {
      const key = s.name === void 0 ? "cluster.gpus" : `the gpus of ${s.name}`;
      throw new errors/* UserError */.yo({
        message: `${key} names GPU ${unknown.join(", ")}, which the probe on ${s.where} does not list (it lists ${[...listed].sort((a, b) => a - b).join(", ")})`,
        fix: `list only the GPUs the server has in ${s.name === void 0 ? "cluster.gpus" : "its gpus"}`
      });
    }
    return this.status(s, /* @__PURE__ */ new Set());
  }
  /** Every allowed GPU of the server as its last probe saw it, free or why not; none when the probe gave no table. */
  status(s, held) {
    const table = s.view?.table;
    return table ? gpuStatus({
      table,
      ...s.gpus ? { allowed: s.gpus } : {},
      freeBelowMiB: this.settings.freeBelowMiB,
      held,
      shells: s.view.shells
    }) : [];
  }
}
function gpuCount(s) {
  const t = s.view?.table;
  return t ? t.gpus.length + t.unusable.length : 0;
}
function readAnswer(stdout, timeoutS) {
  const attempts = /* @__PURE__ */ new Map();
  const view = { at: Date.now(), wave: [], shells: /* @__PURE__ */ new Set() };
  for (const line of stdout.split("\n")) {
    const [kind, a = "", b = "", c = ""] = line.split(" ");
    if (kind === "probe") {
      const out = Buffer.from(b, "base64").toString("utf8");
      const err = Buffer.from(c, "base64").toString("utf8").trim();
      if (a === "137") view.error = `the GPU probe did not answer within ${timeoutS}s`;
      else if (a !== "0") view.error = `the GPU probe exited ${a}${err ? `: ${err.split("\n")[0]}` : ""}`;
      else {
        const table = parseProbe(out);
        if (table.gpus.length + table.unusable.length === 0) view.error = "the GPU probe listed no GPU";
        else view.table = table;
      }
    } else if (kind === "wave") view.wave = a.split(",").filter(Boolean);
    else if (kind === "hold") view.shells.add(a);
    else if (kind === "a") attempts.set(Number(a), line.split(" ").slice(2).join(" "));
  }
  return { view, attempts };
}


;// CONCATENATED MODULE: ./lib/exec/ssh-gpu/placement.js





function tasksAtOnce(s) {
  return s.maxParallel ?? s.gpus?.length ?? Math.max(1, gpuCount(s));
}
function place(pool, requests, up, held) {
  if (!pool.pooled) {
    const s = pool.servers[0];
    const placed2 = placeTasks(requests, pool.prober.status(s, held.get(s)));
    return new Map([...placed2].map(([key, gpus]) => [key, { server: s, gpus }]));
  }
  const placed = placeInPool(
    requests.map((r) => ({
      key: r.key,
      gpus: r.gpus,
      avoid: r.avoid.map((uuid) => ({ server: r.beforeOn ?? "", uuid }))
    })),
    up.map((s) => ({
      server: s.name,
      status: pool.prober.status(s, held.get(s)),
      slots: s.maxParallel === void 0 ? Infinity : s.maxParallel - s.running
    }))
  );
  return new Map([...placed].map(([key, p]) => [key, { server: pool.byName(p.server), gpus: p.gpus }]));
}
function whyWaiting(pool, held) {
  const busy = (s) => pool.prober.status(s, held.get(s)).filter((g) => !g.free).map((g) => `GPU ${g.index}: ${g.why}`);
  if (!pool.pooled) {
    const s = pool.servers[0];
    const list = busy(s);
    return s.view.error ?? (list.length > 0 ? list.join("; ") : "no GPU is free");
  }
  return pool.servers.map((s) => {
    if (s.out || s.pending) return `${s.where}: does not answer`;
    if (s.view?.error) return `${s.where}: ${s.view.error}`;
    if (s.maxParallel !== void 0 && s.running >= s.maxParallel)
      return `${s.where}: runs its max_parallel of ${s.maxParallel}`;
    const list = busy(s);
    return `${s.where}: ${list.length > 0 ? list.join(", ") : "no GPU is free"}`;
  }).join("; ");
}
async function gpusForShell(pool, count, active) {
  const busy = [];
  for (const s of pool.servers) {
    try {
      await pool.prober.look(s, []);
    } catch (e) {
      if (!pool.pooled || !isUnanswered(e)) throw e;
      busy.push(`${s.where}: does not answer`);
      continue;
    }
    const held = new Set(
      active.filter((h) => !pool.pooled || serverOfHandle(h) === s.name).flatMap((h) => gpusOfHandle(h))
    );
    const status = pool.prober.judge(s).map(
      (g) => g.uuid !== void 0 && held.has(g.uuid) ? { ...g, free: false, why: "held by a task of this campaign" } : g
    );
    const gpus = count === 0 ? [] : placeTasks([{ key: "shell", gpus: count, avoid: [] }], status).get("shell");
    if (gpus) return { transport: s.transport, workdir: await s.workdir.path(), gpus, holds: await shellHolds(s) };
    const why = status.filter((g) => !g.free).map((g) => `GPU ${g.index}: ${g.why}`);
    busy.push(`${pool.pooled ? `${s.where}: ` : ""}${why.length > 0 ? why.join("; ") : "no GPU is free"}`);
  }
  throw new errors/* UserError */.yo({
    message: `the task asks for ${count} GPU${count === 1 ? "" : "s"}, and no server has so many free now (${busy.join("; ")})`,
    fix: "run campaign shell again once a GPU is free (campaign check lists what holds them)"
  });
}


;// CONCATENATED MODULE: ./lib/exec/ssh-gpu/pool.js



const ANSWER_GRACE_S = 10;
const RETRY_OUT_MS = 5e3;
class Pool {
  constructor(manifest, cluster, transports, prober, warn) {
    this.manifest = manifest;
    this.cluster = cluster;
    this.prober = prober;
    this.warn = warn;
    const pool = cluster.servers;
    this.pooled = pool !== void 0;
    if (pool) {
      if (transports.servers?.length !== pool.length) throw new Error("SshGpuExecutor needs a transport per server");
      this.servers = pool.map((s, i) => this.server(transports.servers[i], s.login, s.gpus, s.max_parallel));
    } else {
      if (!transports.transport) throw new Error("SshGpuExecutor needs a transport");
      this.servers = [this.server(transports.transport, void 0, cluster.gpus, cluster.max_parallel)];
    }
  }
  manifest;
  cluster;
  prober;
  warn;
  /** The servers: one, or a pool's in the order of cluster.servers. */
  servers;
  /** The servers are cluster.servers (a pool, even of one), whose handles name their server. */
  pooled;
  server(transport, name, gpus, maxParallel) {
    return {
      ...name === void 0 ? {} : { name },
      where: name ?? this.cluster.login ?? "this machine",
      transport,
      workdir: new TransportWorkdir(transport, this.manifest, { folder: campaignFolder(this.manifest.campaign) }),
      ...gpus === void 0 ? {} : { gpus },
      ...maxParallel === void 0 ? {} : { maxParallel },
      probeFailures: 0,
      held: /* @__PURE__ */ new Set(),
      running: 0
    };
  }
  /**
   * The server the workdir's files are reached through: the first that answers (a pool's
   * servers share the workdir).
   */
  shared() {
    return this.servers.find((s) => !s.out && !s.pending) ?? this.servers[0];
  }
  /** The server a handle names (serverOfHandle); the single server whatever the name. */
  byName(name) {
    return this.pooled ? this.servers.find((s) => s.name === name) : this.servers[0];
  }
  /**
   * Runs the probe once before anything starts: a probe that fails outright (not found, no GPU
   * listed), or a GPU in cluster.gpus that it does not list, is a mistake to fix, not a wait. In
   * a pool, every server is probed, and a server that does not answer is said and waited for
   * (as long as one answers); the servers must share the workdir.
   */
  async check() {
    if (!this.pooled) {
      const s = this.servers[0];
      await this.prober.look(s, []);
      return this.prober.judge(s);
    }
    const checks = await this.checkServers();
    const refused = checks.find((serverCheck) => serverCheck.error !== void 0 && !serverCheck.unreachable);
    if (refused) throw refused.error;
    if (checks.every((serverCheck) => serverCheck.unreachable)) throw checks[0].error;
    for (const [i, serverCheck] of checks.entries())
      if (serverCheck.unreachable) this.warn(notAnswering(serverCheck.where, this.servers[i].out.why, 0));
    await this.checkShared();
    return checks.flatMap((serverCheck) => serverCheck.gpus ?? []);
  }
  /**
   * Each server probed, what it has or why it could not be; a server that does not answer is
   * left out for now (said by the caller).
   */
  async checkServers() {
    return Promise.all(
      this.servers.map(async (s) => {
        try {
          await this.prober.look(s, []);
        } catch (e) {
          if (!isUnanswered(e)) throw e;
          s.out = { why: e.message, retryAt: Date.now() + RETRY_OUT_MS };
          return { where: s.where, error: e, unreachable: true };
        }
        try {
          return { where: s.where, gpus: this.prober.judge(s) };
        } catch (e) {
          return { where: s.where, error: e };
        }
      })
    );
  }
  /**
   * A pool's servers share the workdir: a file written through the first that answers must be
   * there through each other one; throws a UserError when it is not.
   */
  async checkShared() {
    const [first, ...others] = this.servers.filter((s) => !s.out);
    if (!first || others.length === 0) return;
    const rel = `${campaignFolder(this.manifest.campaign)}/pool-check`;
    const token = `${Date.now()} ${Math.random()}
`;
    const path = `${await first.workdir.path()}/${rel}`;
    await first.transport.mkdirp(path.slice(0, path.lastIndexOf("/")));
    await first.transport.writeFile(path, token);
    for (const s of others) {
      const seen = await s.transport.readFile(`${await s.workdir.path()}/${rel}`).catch(() => void 0);
      if (seen !== token) throw sharedWorkdirProblem(first.where, s.where, path);
    }
  }
  /**
   * Whether a pool's server sits this pass out: it has not answered lately. Once its wait is
   * over it is tried again in the background, so that a pass never waits on a server that is down.
   */
  sitsOut(s) {
    if (!this.pooled) return false;
    if (s.pending) return true;
    if (!s.out) return false;
    if (Date.now() >= s.out.retryAt) {
      s.pending = this.prober.look(s, []).then(
        () => this.backIn(s),
        (e) => this.leaveOut(s, e.message)
      );
      void s.pending.finally(() => s.pending = void 0);
    }
    return true;
  }
  /**
   * `work` on the server; in a pool, undefined when the server does not answer, or not within
   * its probe's timeout and a grace (the work then goes on in the background, and the server
   * sits out until it ends).
   */
  async answered(s, work) {
    if (!this.pooled) return work();
    const within = this.prober.settings.timeoutS + ANSWER_GRACE_S;
    const done = work().then(
      (value) => ({ value }),
      (error) => ({ error })
    );
    let timer;
    const late = new Promise((r) => timer = setTimeout(() => r("late"), within * 1e3));
    const first = await Promise.race([done, late]);
    clearTimeout(timer);
    if (first === "late") {
      this.leaveOut(s, `no answer within ${within}s`);
      s.pending = done.then((r) => "error" in r ? this.leaveOut(s, r.error.message) : this.backIn(s));
      void s.pending.finally(() => s.pending = void 0);
      return void 0;
    }
    if ("error" in first) {
      if (!isUnanswered(first.error)) throw first.error;
      this.leaveOut(s, first.error.message);
      return void 0;
    }
    return first.value;
  }
  /** A pool's server stops answering: said once per outage. */
  leaveOut(s, why) {
    if (!s.out) this.warn(notAnswering(s.where, why, s.running));
    s.out = { why, retryAt: Date.now() + RETRY_OUT_MS };
  }
  backIn(s) {
    if (!s.out) return;
    delete s.out;
    this.warn(`${s.where} answers again: its tasks are looked at, and tasks start there, as before`);
  }
}


;// CONCATENATED MODULE: ./lib/exec/ssh-gpu/ssh-gpu-executor.js













const KILL_AFTER_S = 10;
const VIEW_MAX_AGE_MS = 5e3;
const PROBE_GIVE_UP = 20;
class SshGpuExecutor {
  manifest;
  cluster;
  now;
  killAfterS;
  notes;
  pool;
  launcher;
  ends;
  /** The workdir the servers share, through the one that stands for it when asked: the first that answers. */
  workdir = workdirThrough(() => this.pool.shared().workdir);
  constructor(opts) {
    if (opts.manifest.cluster.executor !== "ssh-gpu") throw new Error("SshGpuExecutor needs an ssh-gpu manifest");
    const { manifest } = opts;
    this.manifest = manifest;
    this.cluster = opts.manifest.cluster;
    this.now = opts.now ?? (() => (/* @__PURE__ */ new Date()).toISOString());
    const warn = opts.warn ?? (() => {
    });
    this.killAfterS = opts.killAfterSeconds ?? KILL_AFTER_S;
    this.notes = new Notes(warn);
    const prober = new Prober(probeSettings(this.cluster, manifest.campaign), this.notes);
    this.pool = new Pool(manifest, this.cluster, opts, prober, warn);
    this.launcher = new Launcher(this.pool, { manifest, killAfterS: this.killAfterS, now: this.now, warn });
    this.ends = new EndsObserver(this.pool, {
      campaign: manifest.campaign,
      oomPatterns: oomPatterns(this.cluster.oom?.patterns),
      now: this.now
    });
  }
  /** Where one attempt keeps its scripts, environment, GPUs, pid, exit marker and log. */
  attemptDir(taskId, attempt, server = this.pool.shared()) {
    return attemptDir(server, this.manifest.campaign, taskId, attempt);
  }
  /** `count` free GPUs of one server for a shell in a task's place (placement.ts). */
  gpusForShell(count, active) {
    return gpusForShell(this.pool, count, active);
  }
  capacity(active) {
    const own = this.pool.servers.reduce((n, s) => n + tasksAtOnce(s), 0);
    const max = this.pool.pooled ? Math.min(this.cluster.max_parallel ?? Infinity, own) : own;
    if (this.cluster.mode === "waves" && active > 0) return 0;
    return Math.max(0, max - active);
  }
  /** The probe run once before anything starts, and a pool's shared workdir checked (pool.ts). */
  check() {
    return this.pool.check();
  }
  /** Each server probed, what it has or why it could not be (pool.ts). */
  checkServers() {
    return this.pool.checkServers();
  }
  /** Whether a pool's servers share the workdir; a UserError when they do not (pool.ts). */
  checkShared() {
    return this.pool.checkShared();
  }
  observe(active) {
    return this.ends.observe(active);
  }
  /**
   * Starts the attempts: each server looked at afresh, what an earlier pass launched reported,
   * the others placed on free GPUs and launched, and in waves mode the wave's GPUs recorded.
   */
  async submit(submissions) {
    if (submissions.length === 0) return [];
    const { pool } = this;
    const { servers } = pool;
    await Promise.all(
      servers.map(async (s) => {
        if (pool.sitsOut(s) || s.view && Date.now() - s.view.at <= VIEW_MAX_AGE_MS) return;
        await pool.answered(s, () => pool.prober.look(s, []));
      })
    );
    const up = servers.filter((s) => !s.out && !s.pending);
    if (up.length === 0) {
      this.notes.say("waiting", `${submissions.length} task(s) wait: no server of cluster.servers answers`);
      return [];
    }
    if (this.cluster.mode === "waves") {
      for (const s of up) {
        const view = s.view;
        const w = waveMayStart({
          active: 0,
          lastWave: view.wave,
          table: view.table,
          freeBelowMiB: pool.prober.settings.freeBelowMiB
        });
        if (!w.ok) {
          this.notes.say("wave", `the next wave waits: ${w.why}${s.name === void 0 ? "" : ` on ${s.name}`}`);
          return [];
        }
      }
    }
    const via = up[0];
    const dirs = await Promise.all(
      submissions.map((s) => attemptDir(via, this.manifest.campaign, s.task.id, s.attempt))
    );
    const earlier = await Promise.all(submissions.map((s, i) => this.launcher.earlierLaunch(via, s, dirs[i])));
    const events = [];
    const held = new Map(servers.map((s) => [s, new Set(s.held)]));
    const fresh = [];
    for (const [i, sub] of submissions.entries()) {
      const e = earlier[i];
      if (e.launch) {
        const on = pool.byName(e.launch.server);
        if (on) {
          e.launch.gpus.forEach((u) => held.get(on).add(u));
          on.running++;
        }
        events.push(submitted(sub, dirs[i], e.launch.at, e.launch.pid, e.launch.gpus, e.launch.server));
      } else fresh.push(i);
    }
    if (servers.every((s) => s.view?.error && s.probeFailures >= PROBE_GIVE_UP)) {
      const s0 = servers[0];
      const reason = pool.pooled ? `the GPU probe failed ${PROBE_GIVE_UP} times in a row on every server of cluster.servers (${s0.view.error} on ${s0.where})` : `the GPU probe failed ${s0.probeFailures} times in a row (${s0.view.error})`;
      return [...events, ...fresh.map((i) => submitFailed(submissions[i], this.now(), reason))];
    }
    const totals = servers.map((s) => s.view?.table ? s.gpus?.length ?? gpuCount(s) : Infinity);
    const total = Math.max(...totals);
    const requests = [];
    for (const i of fresh) {
      const sub = submissions[i];
      const want = sub.array.resources.gpus;
      if (want > total) {
        const has = pool.pooled ? "the largest server of cluster.servers has" : "the server has";
        events.push(submitFailed(sub, this.now(), `asks for ${want} GPUs; ${has} ${total} to use`));
        continue;
      }
      const e = earlier[i];
      requests.push({ key: String(i), gpus: want, avoid: e.before, beforeOn: e.beforeServer });
    }
    const placed = place(pool, requests, up, held);
    const launched = (await Promise.all(
      up.map((s) => {
        const items = [...placed].filter(([, p]) => p.server === s).map(([key, p]) => ({ sub: submissions[Number(key)], gpus: p.gpus }));
        return this.launcher.launch(s, items);
      })
    )).flat();
    events.push(...launched);
    const waiting = requests.length - placed.size;
    if (waiting > 0) this.notes.say("waiting", `${waiting} task(s) wait for a free GPU (${whyWaiting(pool, held)})`);
    for (const s of up) {
      const gpusNow = launched.flatMap(
        (e) => e.type === "submitted" && serverOfHandle(e.handle) === s.name ? gpusOfHandle(e.handle) : []
      );
      if (this.cluster.mode === "waves" && gpusNow.length > 0) {
        await s.transport.writeFile(await waveFile(s, this.manifest.campaign), `${gpusNow.join(",")}
`);
        s.view.wave = gpusNow;
      }
      gpusNow.forEach((u) => s.held.add(u));
    }
    return events;
  }
  /**
   * Stops the attempts: SIGTERM to each one's process group, SIGKILL from its wrapper after the
   * grace period. Their ends (class `cancelled`) are reported by the next observation. In a
   * pool, each on its server; a server that does not answer is said after the others are done.
   */
  async cancel(active) {
    const byServer = /* @__PURE__ */ new Map();
    for (const a of active) {
      const s = this.pool.byName(serverOfHandle(a.attempt.handle));
      if (s) byServer.set(s, [...byServer.get(s) ?? [], a]);
    }
    const failures = await Promise.all(
      [...byServer].map(async ([s, list]) => {
        try {
          const dirs = await Promise.all(
            list.map((a) => attemptDir(s, this.manifest.campaign, a.task.id, a.attempt.n))
          );
          const r = await s.transport.exec(renderCancel(CANCEL_FILE, this.killAfterS), {
            stdin: dirs.map((d) => `${d}
`).join("")
          });
          return r.code === 0 ? void 0 : cancelFailed(r.code, r.stderr);
        } catch (e) {
          if (!this.pool.pooled) throw e;
          return e;
        }
      })
    );
    const failure = failures.find((f) => f !== void 0);
    if (failure !== void 0) throw failure;
  }
  /** The log is where this executor puts it, never where a state says: a state is not trusted to name files. */
  async readLog(task, attempt) {
    const log = await this.logPath(task, attempt);
    return await this.pool.shared().transport.readFile(log, { maxBytes: ends_LOG_LIMIT }).catch(() => void 0) ?? "";
  }
  async logPath(task, attempt) {
    return `${await this.attemptDir(task.id, attempt.n)}/log`;
  }
  async close() {
    await Promise.all(this.pool.servers.map((s) => s.transport.close()));
  }
}


// EXTERNAL MODULE: ./lib/plan/plan.js
var plan_plan = __webpack_require__(12796);
// EXTERNAL MODULE: ./lib/app/load.js
var load = __webpack_require__(46167);
// EXTERNAL MODULE: ./lib/lint/lint.js
var lint = __webpack_require__(73844);
// EXTERNAL MODULE: ./lib/lint/shared-outputs.js
var shared_outputs = __webpack_require__(27071);
// EXTERNAL MODULE: ./lib/app/lint-files.js + 1 modules
var lint_files = __webpack_require__(1915);
;// CONCATENATED MODULE: ./lib/app/shared-outputs.js





async function sharedOutputItems(file) {
  const campaigns = [];
  for (const each of await (0,lint_files/* manifestFiles */.T)([(0,external_node_path_.dirname)(file)], "check")) {
    const text = (0,external_node_path_.resolve)(each) === (0,external_node_path_.resolve)(file) ? await (0,load/* readManifest */.WI)(each) : await (0,load/* readManifest */.WI)(each).catch(() => void 0);
    const result = text === void 0 ? void 0 : (0,lint/* lintText */.D)(each, text);
    if (result?.context) campaigns.push((0,shared_outputs/* campaignOutputs */.N)(each, result.context));
  }
  return (0,shared_outputs/* sharedOutputFindings */.X)(campaigns).filter((f) => (0,external_node_path_.resolve)(f.position.file) === (0,external_node_path_.resolve)(file)).map((f) => ({ check: "outputs", status: "fail", detail: f.message, ...f.fix ? { fix: f.fix } : {} }));
}


;// CONCATENATED MODULE: ./lib/app/preflight.js






const MARKS = { ok: "ok  ", warn: "warn", fail: "FAIL" };
function renderPreflight(items, phases) {
  const width = Math.max(...items.map((i) => i.check.length), 5);
  const lines = items.flatMap((i) => [
    `${MARKS[i.status]}  ${i.check.padEnd(width)}  ${i.detail}${i.status === "fail" && i.phases ? ` [blocks ${i.phases.join(", ")}]` : ""}`,
    ...i.fix && i.status !== "ok" ? [`${" ".repeat(width + 8)}fix: ${i.fix}`] : []
  ]);
  const failed = items.filter((i) => i.status === "fail");
  const blocked = new Set(failed.flatMap((i) => i.phases ?? phases.map((p) => p.name)));
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of phases)
      if (!blocked.has(p.name) && p.dependsOn.some((d) => blocked.has(d))) grew = Boolean(blocked.add(p.name));
  }
  lines.push(
    failed.length === 0 ? `nothing blocks the campaign (${items.length} checks)` : `${failed.length} of ${items.length} checks failed; blocked: ${phases.filter((p) => blocked.has(p.name)).map((p) => p.name).join(", ")}`
  );
  return lines.join("\n") + "\n";
}
const LOW_DISK_BYTES = 1024 ** 3;
function failedItems(check, e, phases) {
  if (!(e instanceof errors/* UserError */.yo)) throw e;
  return e.problems.map((i) => ({
    check,
    status: "fail",
    detail: i.message,
    ...i.fix ? { fix: i.fix } : {},
    ...phases ? { phases } : {}
  }));
}
async function runPreflight(c, plan, made, specific) {
  const { executor, transport, where } = made;
  const items = [];
  const restricted = (0,schema/* restriction */.V0)(c.manifest.cluster) !== void 0;
  try {
    const r = restricted ? await transport.run(["uname", "-n"]) : await transport.exec("uname -n");
    if (r.code !== 0) throw new errors/* UserError */.yo(`uname -n failed on ${where}: ${r.stderr.trim() || `exit ${r.code}`}`);
    items.push({ check: "login", status: "ok", detail: `${where} answers (node ${r.stdout.trim()})` });
  } catch (e) {
    return [...items, ...failedItems("login", e)];
  }
  let workdir;
  try {
    workdir = await executor.workdir.path();
    items.push(...await (restricted ? restrictedWorkdirItems : workdirItems)(transport, workdir));
  } catch (e) {
    return [...items, ...failedItems("workdir", e)];
  }
  items.push(...restricted ? environmentNotProbed(c) : await environmentItems(c, transport, workdir));
  items.push(...await preconditionItems(c, plan, executor));
  items.push(...await specific());
  return items;
}
async function workdirItems(transport, workdir) {
  const r = await transport.exec(
    [
      `w=${(0,shell/* shellQuote */.ZL)(workdir)}`,
      'p=$w; while [ ! -e "$p" ]; do p=$(dirname -- "$p"); done',
      'if [ "$p" = "$w" ]; then',
      '  t=$(mktemp -p "$w" .campaign-check.XXXXXX 2>/dev/null) && rm -f -- "$t" && echo "writable" || echo "readonly"',
      'elif [ -d "$p" ] && [ -w "$p" ]; then echo "creatable $p"; else echo "blocked $p"; fi',
      `df -Pk -- "$p" 2>/dev/null | awk 'NR == 2 { print "free " $4 * 1024 }'`
    ].join("\n")
  );
  const out = r.stdout.split("\n");
  const [state = "", at = ""] = (out[0] ?? "").split(" ");
  const items = [];
  if (state === "writable") items.push({ check: "workdir", status: "ok", detail: `${workdir} is writable` });
  else if (state === "creatable")
    items.push({ check: "workdir", status: "ok", detail: `${workdir} will be created (in ${at}, which is writable)` });
  else
    items.push({
      check: "workdir",
      status: "fail",
      detail: state === "readonly" ? `${workdir} is not writable by the login user` : `${workdir} cannot be created: ${at || workdir} is not a writable directory`,
      fix: "choose a workdir the login user may write (e.g. under $HOME or your scratch space), or fix its permissions"
    });
  const free = Number(/^free (\d+)$/m.exec(r.stdout)?.[1] ?? NaN);
  if (Number.isFinite(free)) {
    items.push({
      check: "disk",
      status: free < LOW_DISK_BYTES ? "warn" : "ok",
      detail: `${(free / 1024 ** 3).toFixed(1)} GiB free where the workdir is`,
      ...free < LOW_DISK_BYTES ? { fix: "free some space, or move the workdir to a larger filesystem (scratch)" } : {}
    });
  }
  return items;
}
async function restrictedWorkdirItems(transport, workdir) {
  const st = await transport.stat(workdir);
  return [
    {
      check: "workdir",
      status: "ok",
      detail: `${workdir} ${st ? "exists" : "will be created"} (an automation node has no shell to test writing or free space with: the first upload does)`
    }
  ];
}
function environmentNotProbed(c) {
  const phases = c.manifest.phases.filter((p) => (0,manifest_environment/* environmentFor */.D)(c.manifest, p)).map((p) => p.name);
  if (phases.length === 0) return [];
  return [
    {
      check: "environment",
      status: "warn",
      detail: "not tried on the login node: an automation node runs no shell (each task checks it as its environment gate)",
      phases,
      fix: "try it once by hand on a login node with a shell, or let the smoke stage find out"
    }
  ];
}
async function environmentItems(c, transport, workdir) {
  const byEnv = /* @__PURE__ */ new Map();
  for (const phase of c.manifest.phases) {
    const env = (0,manifest_environment/* environmentFor */.D)(c.manifest, phase);
    if (!env) continue;
    const key = JSON.stringify(env);
    const seen = byEnv.get(key);
    if (seen) seen.phases.push(phase.name);
    else byEnv.set(key, { env, phases: [phase.name] });
  }
  const items = [];
  for (const { env, phases } of byEnv.values()) {
    const what = [
      ...env.modules ? [`modules ${env.modules.join(" ")}`] : [],
      ...env.conda ? [`conda ${env.conda}`] : [],
      ...env.venv ? [`venv ${env.venv}`] : []
    ].join(", ");
    const r = await transport.exec(renderEnvironmentProbe(env, workdir));
    const failed = GATE_LINE.exec(r.stdout);
    if (r.code === 0 && !failed)
      items.push({ check: "environment", status: "ok", detail: `${what} activates`, phases });
    else
      items.push({
        check: "environment",
        status: "fail",
        detail: `${what} does not activate on the login node: ${failed?.[2]?.trim() || r.stderr.trim() || `exit ${r.code}`}`,
        phases,
        fix: "load the same modules or activate the same environment by hand on the login node to see why (`module spider NAME` finds a module)"
      });
  }
  return items;
}
async function preconditionItems(c, plan, executor) {
  const items = [];
  for (const phase of plan.phases) {
    if (phase.dependsOn.length > 0 || phase.preconditions.length === 0) continue;
    const paths = [...new Set([...phase.smoke, ...phase.tasks].flatMap((t) => taskInputs(c.manifest, t)))];
    const missing = await executor.workdir.missing(paths);
    items.push(
      missing.length === 0 ? {
        check: "preconditions",
        status: "ok",
        detail: `the ${paths.length} inputs of ${phase.name} exist`,
        phases: [phase.name]
      } : {
        check: "preconditions",
        status: "fail",
        detail: `${missing.length} of the ${paths.length} inputs of ${phase.name} are missing: ${missing.slice(0, 3).join(", ")}${missing.length > 3 ? ", \u2026" : ""}`,
        phases: [phase.name],
        fix: "put the inputs in place (relative to the workdir), or correct the preconditions"
      }
    );
  }
  return items;
}


;// CONCATENATED MODULE: ./lib/app/queue-limit.js
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
function queueLimitItem(limits, plan, maxParallel, restricted) {
  const tasks = plan.phases.reduce((n, p) => n + p.tasks.length + p.smoke.length, 0);
  const limit = limits.maxJobs;
  if (limit === void 0)
    return {
      check: "max_jobs",
      status: "ok",
      detail: restricted ? "no limit on jobs queued is known (an automation node has no sacctmgr): cluster.max_jobs is not declared" : limits.accountingRead ? "no limit on jobs queued: sacctmgr sets no MaxSubmitJobs for your associations or QOS, and cluster.max_jobs is not declared" : "no limit on jobs queued is known (sacctmgr lists no association of yours): cluster.max_jobs is not declared"
    };
  const others = limits.othersQueued;
  const room = limit.limit - others;
  const fits = room <= 0 ? `your ${plural(others, "other job")} in the queue fill it now: the campaign waits for them to end` : tasks <= room ? `${plural(tasks, "task")}: all fit in the queue at once` : `${plural(tasks, "task")}; at most ${room} queued at once: sent in waves as room frees`;
  const beside = others > 0 && room > 0 ? ` (beside your ${plural(others, "other job")} in the queue)` : "";
  const unreachable = maxParallel !== void 0 && maxParallel > limit.limit;
  return {
    check: "max_jobs",
    status: room <= 0 || unreachable ? "warn" : "ok",
    detail: `${limit.limit} jobs and array tasks queued at once (${limit.from}); ${fits}${beside}${unreachable ? `; max_parallel ${maxParallel} can never be reached` : ""}`,
    ...unreachable ? { fix: `lower max_parallel to ${limit.limit}, or ask the site for a higher MaxSubmitJobs` } : room <= 0 ? { fix: "the campaign starts as your other jobs end; cancel those you no longer need to start sooner" } : {}
  };
}


// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(73024);
;// CONCATENATED MODULE: ./lib/exec/transport/files-by-commands.js




const MAX_LINKS = 40;
class FilesByCommands {
  constructor(inner) {
    this.inner = inner;
  }
  inner;
  get commandsSent() {
    return this.inner.commandsSent;
  }
  exec(command, opts) {
    return this.inner.exec(command, opts);
  }
  run(words, opts) {
    return this.inner.run(words, opts);
  }
  close() {
    return this.inner.close();
  }
  writeFile(path) {
    return Promise.reject(cannotWrite(path));
  }
  mkdirp(path) {
    return Promise.reject(cannotWrite(path));
  }
  rename(from) {
    return Promise.reject(cannotWrite(from));
  }
  async readFile(path, opts = {}) {
    const r = await this.inner.run(["cat", "--", plainPath(path)]);
    if (r.code !== 0) {
      if (/No such file or directory/.test(r.stderr)) return void 0;
      throw new errors/* UserError */.yo(`cat ${path} failed on the automation node: ${r.stderr.trim() || `exit ${r.code}`}`);
    }
    const maxBytes = opts.maxBytes ?? transport/* DEFAULT_MAX_READ_BYTES */.W2;
    const size = Buffer.byteLength(r.stdout);
    if (size > maxBytes) throw (0,transport/* tooLarge */.g$)(path, size, maxBytes);
    return r.stdout;
  }
  async stat(path) {
    const found = (await this.list([path], true)).get(plainPath(path));
    return found && { size: found.size, mtimeMs: found.mtimeMs, isFile: found.type === "-" };
  }
  /** Each prefix of the path listed in one command; the first symlink among them is followed, and again. */
  async realpath(path) {
    let p = external_node_path_.posix.normalize(plainPath(path));
    if (!p.startsWith("/"))
      throw new errors/* UserError */.yo({
        message: `cannot resolve ${path} on the automation node without file transfer: it is not an absolute path`,
        fix: "give workdir as an absolute path (e.g. /home/you/scratch/runs): without file transfer, campaign cannot ask where ~ is"
      });
    for (let links = 0; links <= MAX_LINKS; links++) {
      const parts = p.split("/").filter(Boolean);
      if (parts.length === 0) return "/";
      const prefixes = parts.map((_, i) => `/${parts.slice(0, i + 1).join("/")}`);
      const listed = await this.list(prefixes, false);
      const link = prefixes.find((q) => listed.get(q)?.type === "l");
      if (link === void 0) return prefixes.every((q) => listed.has(q)) ? p : void 0;
      p = external_node_path_.posix.normalize(`${external_node_path_.posix.resolve(external_node_path_.posix.dirname(link), listed.get(link).target)}${p.slice(link.length)}`);
    }
    return void 0;
  }
  /** `ls -ldn` of the paths (following symlinks with `follow`): what exists, by path. */
  async list(paths, follow) {
    const r = await this.inner.run([
      "ls",
      follow ? "-ldnL" : "-ldn",
      "--time-style=+%s",
      "--",
      ...paths.map(plainPath)
    ]);
    const out = /* @__PURE__ */ new Map();
    for (const line of r.stdout.split("\n")) {
      const m = /^(\S)\S*\s+\d+\s+\d+\s+\d+\s+(\d+)\s+(\d+)\s+(\S+)(?: -> (\S+))?$/.exec(line);
      if (!m) continue;
      out.set(m[4], {
        type: m[1],
        size: Number(m[2]),
        mtimeMs: Number(m[3]) * 1e3,
        ...m[5] ? { target: m[5] } : {}
      });
    }
    return out;
  }
}
function cannotWrite(path) {
  return new transport/* NoFileTransfer */.tp({
    message: `cannot write ${path}: the automation node's key allows no file transfer (restricted: slurm)`,
    fix: "ask the centre for the transfer commands (SFTP) as well, and set restricted: true"
  });
}
function plainPath(path) {
  try {
    (0,transport_words/* plainCommand */.O)(["ls", path]);
    return path;
  } catch {
    throw new errors/* UserError */.yo({
      message: `the path ${path} holds characters an automation node's forced command would split or expand, and without file transfer campaign reads files with cat and ls`,
      fix: "name outputs and the workdir with letters, digits and . _ - / only, or ask the centre for the transfer commands (SFTP) as well"
    });
  }
}


// EXTERNAL MODULE: ./lib/exec/transport/target.js
var target = __webpack_require__(17530);
// EXTERNAL MODULE: ./lib/exec/transport/wildcard.js
var wildcard = __webpack_require__(33525);
;// CONCATENATED MODULE: ./lib/exec/transport/ssh-config.js





const MAX_INCLUDE_DEPTH = 16;
const MAX_HOPS = 16;
function parseConfig(text, path) {
  const lines = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const at = `${path}:${i + 1}`;
    const m = /^[ \t]*([^ \t=#"']+)[ \t]*(?:=[ \t]*)?(.*)$/.exec(raw);
    if (!m) {
      if (raw.trim() !== "" && !raw.trim().startsWith("#") && !raw.trim().startsWith("=")) {
        throw new errors/* UserError */.yo({
          message: `${at}: cannot read this line of the SSH config`,
          fix: "write it as Keyword value"
        });
      }
      return;
    }
    lines.push({ keyword: m[1].toLowerCase(), args: splitArgs(m[2], at), at });
  });
  return lines;
}
function splitArgs(s, at) {
  const args = [];
  let i = 0;
  while (i < s.length) {
    if (s[i] === " " || s[i] === "	") {
      i++;
      continue;
    }
    if (s[i] === "#") break;
    let arg = "";
    let quote;
    for (; i < s.length; i++) {
      const char = s[i];
      if (char === "\\" && (s[i + 1] === "'" || s[i + 1] === '"' || s[i + 1] === "\\" || !quote && s[i + 1] === " ")) {
        arg += s[++i];
      } else if (!quote && (char === " " || char === "	")) break;
      else if (!quote && (char === '"' || char === "'")) quote = char;
      else if (quote === char) quote = void 0;
      else arg += char;
    }
    if (quote) throw new errors/* UserError */.yo({ message: `${at}: a quote is not closed`, fix: `close the ${quote} on that line` });
    args.push(arg);
  }
  return args;
}
function hostLineMatches(patterns, name) {
  let match = false;
  let named = false;
  for (const p of patterns) {
    const negated = p.startsWith("!");
    if (!(0,wildcard/* wildcardMatches */.w)(negated ? p.slice(1) : p, name)) continue;
    if (negated) return { match: false, named: false };
    match = true;
    named ||= p !== "*";
  }
  return { match, named };
}
function lookupHost(config, name) {
  const found = { named: false, identityFiles: [] };
  const walk = (file, state, neverMatch) => {
    for (const line of file.lines) {
      const { keyword, args, at } = line;
      if (keyword === "host") {
        const verdict = neverMatch ? { match: false, named: false } : hostLineMatches(args, name);
        state.active = verdict.match;
        found.named ||= verdict.named;
      } else if (keyword === "match") {
        state.active = false;
      } else if (keyword === "include") {
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
function apply(o, keyword, args, at) {
  const first = args[0];
  if (first === void 0) {
    if (KNOWN.has(keyword))
      throw new errors/* UserError */.yo({ message: `${at}: ${keyword} has no value`, fix: "give it one or remove the line" });
    return;
  }
  switch (keyword) {
    case "hostname":
      o.hostname ??= first;
      break;
    case "user":
      o.user ??= first;
      break;
    case "port":
      if (o.port === void 0) {
        const port = Number(first);
        if (!/^\d+$/.test(first) || port < 1 || port > 65535) {
          throw new errors/* UserError */.yo({
            message: `${at}: Port ${first} is not a port number`,
            fix: "give a number from 1 to 65535"
          });
        }
        o.port = port;
      }
      break;
    case "identityfile":
      o.identityFiles.push(first);
      break;
    case "identitiesonly":
      o.identitiesOnly ??= yesNo(first, keyword, at);
      break;
    case "userknownhostsfile":
      o.knownHostsFiles ??= args;
      break;
    case "proxyjump":
      o.proxy ??= { kind: "jump", value: args.join(" "), at };
      break;
    case "proxycommand":
      o.proxy ??= { kind: "command", value: args.join(" "), at };
      break;
  }
}
const KNOWN = /* @__PURE__ */ new Set([
  "hostname",
  "user",
  "port",
  "identityfile",
  "identitiesonly",
  "userknownhostsfile",
  "proxyjump",
  "proxycommand"
]);
function yesNo(value, keyword, at) {
  const v = value.toLowerCase();
  if (v === "yes" || v === "true") return true;
  if (v === "no" || v === "false") return false;
  throw new errors/* UserError */.yo({ message: `${at}: ${keyword} ${value} is neither yes nor no`, fix: "write yes or no" });
}
const JUMP_SPEC = /^(?:([^@\s]+)@)?(\[[0-9A-Fa-f:.]+\]|[^@\s:[\]]+)(?::(\d+))?$/;
function isExplicitTarget(login) {
  try {
    (0,target/* parseTarget */.h)(login);
    return true;
  } catch {
    return false;
  }
}
function resolveAccess(access, config, local) {
  const clusterKnownHosts = access.known_hosts === void 0 ? [] : [access.known_hosts];
  const fromManifest = (login, host_key, known_hosts) => {
    const hop = explicitOrAlias(login, config, local);
    if (host_key === void 0 && known_hosts === void 0) return hop;
    delete hop.knownHostsFiles;
    return {
      ...hop,
      ...host_key !== void 0 ? { hostKeyFingerprint: host_key } : {},
      ...known_hosts !== void 0 ? { knownHostsFile: known_hosts } : {}
    };
  };
  const target = fromManifest(access.login, access.host_key, access.known_hosts);
  if (access.jump !== void 0) {
    return [...access.jump.map((j) => fromManifest(j.login, j.host_key, j.known_hosts)), target];
  }
  if (isExplicitTarget(access.login)) return [target];
  const options = lookupHost(config, access.login);
  const chain = proxyChain(options, access.login, config, local, clusterKnownHosts, 0);
  return [...chain, target];
}
function explicitOrAlias(login, config, local) {
  if (isExplicitTarget(login)) {
    return { target: (0,target/* formatTarget */.P)((0,target/* parseTarget */.h)(login)) };
  }
  const options = lookupHost(config, login);
  if (!options.named && options.hostname === void 0) {
    throw new errors/* UserError */.yo({
      message: `SSH login '${login}' is neither user@host:port nor a Host of ${config.path}`,
      fix: `write it as user@host:port, or add a \`Host ${login}\` block with its HostName to ${config.path} (or point ssh_config at the file that has it)`
    });
  }
  return hopFrom(login, void 0, void 0, options, local, []);
}
function proxyChain(options, name, config, local, knownHosts, depth) {
  const proxy = options.proxy;
  if (proxy === void 0 || proxy.value.toLowerCase() === "none") return [];
  if (proxy.kind === "command") {
    throw new errors/* UserError */.yo({
      message: `${proxy.at}: ${name} is reached by a ProxyCommand, which campaign does not run`,
      fix: "give the bastions as ProxyJump in the SSH config, or as `jump` in the manifest, each with its host key"
    });
  }
  const specs = proxy.value.split(",").map((s) => s.trim());
  const hops = [];
  specs.forEach((spec, i) => {
    const m = JUMP_SPEC.exec(spec);
    if (!m) {
      throw new errors/* UserError */.yo({
        message: `${proxy.at}: ProxyJump entry '${spec}' is not [user@]host[:port]`,
        fix: "write each bastion as [user@]host[:port], separated by commas"
      });
    }
    const host = m[2].startsWith("[") ? m[2].slice(1, -1) : m[2];
    const hopOptions = lookupHost(config, host);
    if (i === 0) {
      if (depth + specs.length >= MAX_HOPS) {
        throw new errors/* UserError */.yo({
          message: `${proxy.at}: the ProxyJump chain to ${name} is longer than ${MAX_HOPS} hops, or loops`,
          fix: "check the ProxyJump lines of the bastions in the SSH config"
        });
      }
      hops.push(...proxyChain(hopOptions, host, config, local, knownHosts, depth + specs.length));
    }
    const port = m[3] === void 0 ? void 0 : Number(m[3]);
    hops.push(hopFrom(host, m[1], port, hopOptions, local, knownHosts));
  });
  return hops;
}
function hopFrom(name, user, port, o, local, knownHosts) {
  const at = o.proxy?.at ?? name;
  const hostname = o.hostname === void 0 ? name : ssh_config_expand(o.hostname, { h: name }, "HostName", at);
  const remote = {
    user: user ?? o.user ?? local.localUser,
    host: hostname,
    port: port ?? o.port ?? 22
  };
  if (remote.port < 1 || remote.port > 65535) {
    throw new errors/* UserError */.yo({
      message: `the port of ${name} (${remote.port}) is not a port number`,
      fix: "give 1 to 65535"
    });
  }
  const tokens = {
    d: local.home,
    u: local.localUser,
    i: String(local.uid),
    h: remote.host,
    n: name,
    p: String(remote.port),
    r: remote.user
  };
  const path = (p, what) => {
    const e = ssh_config_expand(p.startsWith("~/") || p === "~" ? local.home + p.slice(1) : p, tokens, what, name);
    return (0,external_node_path_.isAbsolute)(e) ? e : (0,external_node_path_.join)(local.home, e);
  };
  const configured = o.knownHostsFiles ?? ["~/.ssh/known_hosts", "~/.ssh/known_hosts2"];
  const files = configured.some((f) => f.toLowerCase() === "none") ? [] : configured.map((f) => path(f, "UserKnownHostsFile"));
  return {
    alias: name,
    target: (0,target/* formatTarget */.P)(remote),
    ...o.identityFiles.length > 0 ? { identityFiles: o.identityFiles.map((f) => path(f, "IdentityFile")) } : {},
    ...o.identitiesOnly ? { identitiesOnly: true } : {},
    knownHostsFiles: [...knownHosts, ...files]
  };
}
function ssh_config_expand(text, tokens, what, where) {
  return text.replace(/%(.?)/g, (whole, t) => {
    if (t === "%") return "%";
    const value = tokens[t];
    if (value === void 0) {
      throw new errors/* UserError */.yo({
        message: `${what} '${text}' for ${where} has the token ${whole}, which campaign does not expand`,
        fix: `write that part out in the SSH config (${Object.keys(tokens).map((k) => `%${k}`).join(" ")} and %% are expanded)`
      });
    }
    return value;
  });
}
function readSshConfig(path, home, depth = 0) {
  if (depth > MAX_INCLUDE_DEPTH) {
    throw new errors/* UserError */.yo({
      message: `SSH config ${path} is included more than ${MAX_INCLUDE_DEPTH} levels deep (an Include loop?)`,
      fix: "check the Include lines of the SSH config"
    });
  }
  let text;
  try {
    text = (0,external_node_fs_.readFileSync)(path, "utf8");
  } catch (e) {
    if (e.code === "ENOENT") return { path, lines: [] };
    throw new errors/* UserError */.yo({
      message: `cannot read the SSH config ${path}: ${e.code ?? "error"}`,
      fix: "make it readable, or point ssh_config at another file"
    });
  }
  const lines = parseConfig(text, path);
  for (const line of lines) {
    if (line.keyword !== "include") continue;
    line.included = line.args.flatMap((arg) => {
      const full = arg.startsWith("~/") ? (0,external_node_path_.join)(home, arg.slice(2)) : (0,external_node_path_.isAbsolute)(arg) ? arg : (0,external_node_path_.join)(home, ".ssh", arg);
      return glob(full).map((p) => readSshConfig(p, home, depth + 1));
    });
  }
  return { path, lines };
}
function glob(pattern) {
  const parts = pattern.split("/").filter((p) => p !== "");
  let found = ["/"];
  for (const part of parts) {
    if (!/[*?]/.test(part)) {
      found = found.map((dir) => (0,external_node_path_.join)(dir, part));
      continue;
    }
    found = found.flatMap((dir) => {
      let names;
      try {
        names = (0,external_node_fs_.readdirSync)(dir);
      } catch {
        return [];
      }
      return names.filter((n) => (part.startsWith(".") || !n.startsWith(".")) && (0,wildcard/* wildcardMatches */.w)(part, n)).sort().map((n) => (0,external_node_path_.join)(dir, n));
    });
  }
  return found;
}


;// CONCATENATED MODULE: ./lib/report/terminal.js
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
function terminal_terminalText(text) {
  return text.replace(/\r\n?/g, "\n").replace(CONTROL, "");
}


// EXTERNAL MODULE: external "node:string_decoder"
var external_node_string_decoder_ = __webpack_require__(46193);
;// CONCATENATED MODULE: ./lib/app/terminal.js


const raw = /* @__PURE__ */ new WeakMap();
function guardTerminal(stream) {
  if (!stream.isTTY || raw.has(stream)) return;
  const write = stream.write.bind(stream);
  raw.set(stream, write);
  const decoder = new StringDecoder("utf8");
  stream.write = ((chunk, ...rest) => write(terminalText(typeof chunk === "string" ? chunk : decoder.write(Buffer.from(chunk))), ...rest));
}
function rawWrite(stream, text) {
  const write = raw.get(stream);
  if (write) write(text);
  else stream.write(text);
}


;// CONCATENATED MODULE: ./lib/app/terminal-prompt.js


const ENTER = /* @__PURE__ */ new Set(["\r", "\n"]);
const GIVE_UP = /* @__PURE__ */ new Set(["", ""]);
const ERASE = /* @__PURE__ */ new Set(["\x7F", "\b"]);
const askOnTerminal = async (request) => {
  const heading = [request.name, request.instructions].filter((s) => s.trim() !== "").join("\n");
  process.stderr.write(terminal_terminalText(`${request.host} asks${heading ? `:
${heading}` : ":"}
`));
  const answers = [];
  for (const p of request.prompts) answers.push(await terminal_prompt_readAnswer(p.prompt, p.echo === true));
  return answers;
};
function terminal_prompt_readAnswer(prompt, echo) {
  const input = process.stdin;
  const out = process.stderr;
  return new Promise((resolve, reject) => {
    const wasRaw = input.isRaw;
    input.setRawMode(true);
    input.resume();
    out.write(terminal_terminalText(prompt));
    let answer = "";
    const finish = (settle) => {
      input.off("data", onData);
      input.setRawMode(wasRaw);
      input.pause();
      out.write("\n");
      settle();
    };
    const onData = (chunk) => {
      for (const ch of chunk.toString("utf8")) {
        if (ENTER.has(ch)) return finish(() => resolve(answer));
        if (GIVE_UP.has(ch)) return finish(() => reject(new Error("no answer given")));
        if (ERASE.has(ch)) {
          if (answer !== "" && echo) rawWrite(out, "\b \b");
          answer = [...answer].slice(0, -1).join("");
        } else {
          answer += ch;
          if (echo) out.write(terminal_terminalText(ch));
        }
      }
    };
    input.on("data", onData);
  });
}


;// CONCATENATED MODULE: ./lib/app/transport-for.js











function sshSecretsFrom(env) {
  return {
    ...env[secrets/* KEY_ENV */.uM] ? { key: env[secrets/* KEY_ENV */.uM] } : {},
    ...env[secrets/* KEY_FILE_ENV */.Nr] ? { keyFile: env[secrets/* KEY_FILE_ENV */.Nr] } : {},
    ...env[secrets/* PASSPHRASE_ENV */.hk] ? { passphrase: env[secrets/* PASSPHRASE_ENV */.hk] } : {},
    ...env.SSH_AUTH_SOCK ? { agent: env.SSH_AUTH_SOCK } : {}
  };
}
const DEFAULT_KEYS = ["id_ed25519", "id_ecdsa", "id_rsa"];
function transportFor(c, ssh) {
  const cluster = c.manifest.cluster;
  if (cluster.executor === "local") return new LocalTransport();
  if (!cluster.login) {
    if ((0,schema/* restriction */.V0)(cluster))
      throw new errors/* UserError */.yo({
        message: "cluster.restricted says the login is an automation node, and there is no cluster.login to reach it by",
        fix: "give the automation node's address as cluster.login, or remove restricted: true to run sbatch on this machine"
      });
    return new LocalTransport(cluster.executor === "ssh-gpu" ? { environment: "inherited" } : {});
  }
  const hops = sshHops(c);
  const target = hops.pop();
  const ssh2 = new LazySshTransport({
    ...target,
    jumps: hops,
    // Looked up in an environment of their own, never process.env: no child can inherit them.
    ...ssh.key ? { keyEnv: secrets/* KEY_ENV */.uM } : ssh.keyFile ? { keyFile: ssh.keyFile } : {},
    passphraseEnv: secrets/* PASSPHRASE_ENV */.hk,
    env: { [secrets/* KEY_ENV */.uM]: ssh.key, [secrets/* PASSPHRASE_ENV */.hk]: ssh.passphrase },
    ...ssh.agent ? { agent: ssh.agent } : {},
    // A second factor is asked for only where someone can answer it.
    ...process.stdin.isTTY ? { keyboardInteractive: askOnTerminal } : {}
  });
  return (0,schema/* restriction */.V0)(cluster) === "slurm" ? new FilesByCommands(ssh2) : ssh2;
}
class LazySshTransport {
  constructor(opts) {
    this.opts = opts;
  }
  opts;
  made;
  inner;
  open() {
    return this.made ??= Promise.all(/* import() */[__webpack_require__.e(488), __webpack_require__.e(954)]).then(__webpack_require__.bind(__webpack_require__, 83538)).then((m) => this.inner = new m.SshTransport(this.opts));
  }
  get commandsSent() {
    return this.inner?.commandsSent ?? 0;
  }
  async exec(command, opts) {
    return (await this.open()).exec(command, opts);
  }
  async run(words, opts) {
    return (await this.open()).run(words, opts);
  }
  async writeFile(path, data, opts) {
    return (await this.open()).writeFile(path, data, opts);
  }
  async attach(command, opts) {
    return (await this.open()).attach(command, opts);
  }
  async readFile(path, opts) {
    return (await this.open()).readFile(path, opts);
  }
  async stat(path) {
    return (await this.open()).stat(path);
  }
  async realpath(path) {
    return (await this.open()).realpath(path);
  }
  async mkdirp(path) {
    return (await this.open()).mkdirp(path);
  }
  async rename(from, to) {
    return (await this.open()).rename(from, to);
  }
  async close() {
    if (this.made === void 0) return;
    await (await this.made.catch(() => void 0))?.close();
  }
}
function loginUser(c) {
  const target = sshHops(c)?.at(-1)?.target;
  return target === void 0 ? void 0 : parseTarget(target).user;
}
function sshHops(c) {
  const cluster = c.manifest.cluster;
  if (cluster.executor === "local" || !cluster.login) return void 0;
  const base = (0,external_node_path_.dirname)(c.file);
  const user = (0,external_node_os_.userInfo)();
  const local = { home: (0,external_node_os_.homedir)(), localUser: user.username, uid: user.uid };
  const access = {
    login: cluster.login,
    ...cluster.host_key ? { host_key: cluster.host_key } : {},
    ...cluster.known_hosts ? { known_hosts: (0,external_node_path_.resolve)(base, cluster.known_hosts) } : {},
    ...cluster.jump ? {
      jump: cluster.jump.map((j) => ({
        login: j.login,
        ...j.host_key ? { host_key: j.host_key } : {},
        ...j.known_hosts ? { known_hosts: (0,external_node_path_.resolve)(base, j.known_hosts) } : {}
      }))
    } : {}
  };
  const logins = [access.login, ...(access.jump ?? []).map((j) => j.login)];
  const config = logins.every(isExplicitTarget) ? { path: "(none)", lines: [] } : sshConfig(cluster.ssh_config === void 0 ? void 0 : (0,external_node_path_.resolve)(base, cluster.ssh_config), local.home);
  return resolveAccess(access, config, local).map((hop) => ({
    ...hop,
    identityFiles: hop.identityFiles ?? DEFAULT_KEYS.map((k) => (0,external_node_path_.join)(local.home, ".ssh", k))
  }));
}
function sshConfig(path, home) {
  if (path === void 0) return readSshConfig((0,external_node_path_.join)(home, ".ssh", "config"), home);
  const config = readSshConfig(path, home);
  if (config.lines.length === 0 && !(0,external_node_fs_.existsSync)(path)) {
    throw new errors/* UserError */.yo({
      message: `the SSH config ${path} (ssh_config in the manifest) does not exist`,
      fix: "point ssh_config at the OpenSSH client config that has the Host, relative to the manifest"
    });
  }
  return config;
}


;// CONCATENATED MODULE: ./lib/app/executors.js














function remote(c, opts) {
  const cluster = c.manifest.cluster;
  const login = cluster.executor === "local" ? void 0 : cluster.login;
  return { transport: transportFor(c, opts.ssh), where: login ?? "this machine" };
}
const OPENERS = {
  local: {
    make: (c) => ({
      executor: new LocalExecutor({ manifest: c.manifest, workdir: (0,load/* localWorkdir */.k7)(c) }),
      transport: new LocalTransport({ environment: "inherited" }),
      where: "this machine"
    }),
    fit: async (_made, c) => c.plan,
    preflight: async () => []
  },
  "ssh-gpu": {
    make(c, cluster, opts) {
      if (cluster.servers) return poolMade(c, cluster.servers, opts);
      const { transport, where } = remote(c, opts);
      const executor = new SshGpuExecutor({ manifest: c.manifest, transport, warn: opts.warn });
      return { executor, transport, where };
    },
    async fit(made, c) {
      await made.executor.check();
      return c.plan;
    },
    async preflight(made, c) {
      if (c.manifest.cluster.executor === "ssh-gpu" && c.manifest.cluster.servers) return poolPreflight(made.executor);
      let gpus;
      try {
        gpus = await made.executor.check();
      } catch (e) {
        return failedItems("gpus", e);
      }
      return [gpusItem(gpus)];
    }
  },
  slurm: {
    make(c, _cluster, opts) {
      const { transport, where } = remote(c, opts);
      const executor = new SlurmExecutor({
        manifest: c.manifest,
        transport,
        get since() {
          return opts.since();
        },
        warn: opts.warn
      });
      return { executor, transport, where };
    },
    async fit(made, c) {
      const { executor } = made;
      const { plan, refusals } = await testedPlan(executor, c, await slurmPlan(executor, c));
      if (refusals.length > 0) throw SlurmExecutor.refused(refusals);
      return plan;
    },
    async preflight(made, c) {
      const { executor } = made;
      let fitted2;
      try {
        fitted2 = await slurmPlan(executor, c);
      } catch (e) {
        return failedItems("cluster", e);
      }
      const { plan, refusals } = await testedPlan(executor, c, fitted2);
      const items = [
        { check: "cluster", status: "ok", detail: "partitions, walltime caps and MaxArraySize fit the plan" },
        queueLimitItem(
          fitted2.limits,
          plan,
          c.manifest.cluster.max_parallel,
          (0,schema/* restriction */.V0)(c.manifest.cluster) !== void 0
        )
      ];
      for (const r of refusals) items.push(...failedItems("submission", SlurmExecutor.refused([r]), [r.phase]));
      const arrays = plan.phases.reduce((n, p) => n + p.arrays.length, 0);
      if (refusals.length === 0)
        items.push({ check: "submission", status: "ok", detail: `sbatch --test-only accepts the ${arrays} arrays` });
      return items;
    }
  }
};
function gpusItem(gpus, on = "") {
  const free = gpus.filter((g) => g.free);
  const busy = gpus.filter((g) => !g.free).map((g) => `GPU ${g.index}: ${g.why}`);
  return {
    check: "gpus",
    // Busy GPUs only delay tasks: they start as GPUs come free.
    status: free.length === 0 ? "warn" : "ok",
    detail: `${on}${free.length} of ${gpus.length} GPUs free${busy.length > 0 ? ` (${busy.join("; ")})` : ""}`,
    ...free.length === 0 ? { fix: "tasks wait until a GPU is free; see what holds them with nvidia-smi" } : {}
  };
}
function poolMade(c, servers, opts) {
  const transports = servers.map((s) => {
    const access = {
      login: s.login,
      ...s.host_key === void 0 ? {} : { host_key: s.host_key },
      ...s.known_hosts === void 0 ? {} : { known_hosts: s.known_hosts },
      ...s.ssh_config === void 0 ? {} : { ssh_config: s.ssh_config },
      ...s.jump === void 0 ? {} : { jump: s.jump }
    };
    return transportFor({ ...c, manifest: { ...c.manifest, cluster: { executor: "ssh-gpu", ...access } } }, opts.ssh);
  });
  const executor = new SshGpuExecutor({ manifest: c.manifest, servers: transports, warn: opts.warn });
  return { executor, transport: transports[0], where: servers[0].login };
}
async function poolPreflight(executor) {
  const items = [];
  for (const ch of await executor.checkServers()) {
    if (ch.gpus) items.push(gpusItem(ch.gpus, `${ch.where}: `));
    else if (ch.error instanceof errors/* UserError */.yo) items.push(...failedItems("gpus", ch.error));
    else
      items.push({
        check: "gpus",
        status: "fail",
        detail: `${ch.where} does not answer: ${ch.error.message}`,
        fix: "check that the server is up and reachable; the campaign waits for it when another server answers"
      });
  }
  try {
    await executor.checkShared();
    items.push({ check: "workdir", status: "ok", detail: "the servers that answer share the workdir" });
  } catch (e) {
    items.push(...failedItems("workdir", e));
  }
  return items;
}
async function slurmPlan(executor, c) {
  const cluster = c.manifest.cluster;
  const limits = await executor.limits(chargesOf(c.plan, cluster.executor === "slurm" ? cluster.account : void 0));
  return { plan: fitted(c, limits), limits };
}
function fitted(c, limits) {
  const plan = (0,plan_plan/* planCampaign */.yS)(c.manifest, void 0, limits.maxArraySize, c.code?.facts);
  SlurmExecutor.checkPlan(plan, limits);
  return plan;
}
async function testedPlan(executor, c, { plan, limits }) {
  const refusals = await executor.testSubmissions(plan);
  if (limits.maxArraySize !== void 0 || !refusals.some((r) => r.option === ARRAY_SIZE_OPTION))
    return { plan, refusals };
  const cut = fitted(c, { ...limits, maxArraySize: await executor.maxArraySize() });
  return { plan: cut, refusals: await executor.testSubmissions(cut) };
}
function executors_opener(c) {
  return OPENERS[c.manifest.cluster.executor];
}
async function openExecutor(c, opts) {
  const kind = executors_opener(c);
  const made = kind.make(c, c.manifest.cluster, opts);
  const opened = { executor: made.executor, transport: made.transport };
  if (!opts.checkCluster) return { ...opened, plan: c.plan };
  return { ...opened, plan: await closingOnError(made.executor, () => kind.fit(made, c)) };
}
async function preflightCampaign(c, opts) {
  const kind = executors_opener(c);
  const made = kind.make(c, c.manifest.cluster, { ...opts, checkCluster: false });
  try {
    const items = await runPreflight(c, c.plan, made, () => kind.preflight(made, c));
    return [...items, ...await sharedOutputItems(c.file)];
  } finally {
    await made.executor.close();
  }
}
async function closingOnError(executor, work) {
  try {
    return await work();
  } catch (e) {
    await executor.close();
    throw e;
  }
}


// EXTERNAL MODULE: external "node:v8"
var external_node_v8_ = __webpack_require__(78877);
// EXTERNAL MODULE: external "node:vm"
var external_node_vm_ = __webpack_require__(30714);
;// CONCATENATED MODULE: ./lib/app/heap.js


const GARBAGE_SHARE = 0.1;
const MIN_GARBAGE = 16 * 1024 * 1024;
function worthCollecting(used, live2) {
  return used - live2 > Math.max(MIN_GARBAGE, live2 * GARBAGE_SHARE);
}
function fullCollection() {
  try {
    (0,external_node_v8_.setFlagsFromString)("--expose-gc");
    const gc = (0,external_node_vm_.runInNewContext)("gc");
    if (typeof gc !== "function") return void 0;
    const full = gc;
    return Number(process.versions.v8.split(".")[0]) >= 12 ? () => full({ type: "major", flavor: "last-resort" }) : () => full();
  } catch {
    return void 0;
  }
}
let collect = null;
let live = 0;
function collectIfWorthIt() {
  if (!worthCollecting((0,external_node_v8_.getHeapStatistics)().used_heap_size, live)) return false;
  if (collect === null) collect = fullCollection();
  if (collect === void 0) return false;
  collect();
  live = (0,external_node_v8_.getHeapStatistics)().used_heap_size;
  return true;
}


;// CONCATENATED MODULE: ./lib/app/drive.js

const systemClock = {
  now: () => Date.now(),
  sleep: (ms, signal) => new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  })
};
function progressOf(state) {
  const counts = /* @__PURE__ */ new Map();
  let attempts = 0;
  for (const t of Object.values(state.tasks)) {
    counts.set(t.status, (counts.get(t.status) ?? 0) + 1);
    attempts += t.attempts.length;
  }
  return `${[...counts].sort().join(",")};${attempts}`;
}
async function driveCampaign(start, parts) {
  const { controller, store, pacer, clock, deadline = Infinity, signal } = parts;
  let state = start;
  let passes = 0;
  const park = parts.park;
  let progress = park ? progressOf(start) : "";
  let since = park?.since ?? 0;
  for (; ; ) {
    if (signal?.aborted) return { state, atRest: false, passes };
    const r = await controller.pass(state);
    passes++;
    state = r.state;
    parts.onPass?.(state);
    if (r.atRest || signal?.aborted || clock.now() >= deadline) return { state, atRest: r.atRest, passes };
    if (park) {
      const now = clock.now();
      const p = progressOf(state);
      if (p !== progress) [progress, since] = [p, now];
      if (park.out(state) && (park.quiet(state, now) >= park.seconds || now - since >= park.seconds * 1e3))
        return { state, atRest: false, passes, parked: { since } };
    }
    const from = clock.now();
    const until = Math.min(from + pacer.next(state, from) * 1e3, deadline);
    await betweenPasses(store);
    await clock.sleep(Math.max(0, until - clock.now()), signal);
  }
}
async function betweenPasses(store) {
  collectIfWorthIt();
  if (await store.compactIfDue()) collectIfWorthIt();
}


// EXTERNAL MODULE: ./lib/app/merge-saves.js
var merge_saves = __webpack_require__(84472);
// EXTERNAL MODULE: ./lib/exec/controller.js + 4 modules
var exec_controller = __webpack_require__(88906);
// EXTERNAL MODULE: ./lib/exec/store/file-store.js + 5 modules
var file_store = __webpack_require__(80448);
// EXTERNAL MODULE: ./lib/decide/definition-changes.js
var definition_changes = __webpack_require__(31687);
// EXTERNAL MODULE: ./lib/decide/scope.js
var scope = __webpack_require__(48792);
;// CONCATENATED MODULE: ./lib/decide/park.js

function parkedAfter(plan, driven, scopes, resume) {
  const { state } = driven;
  const same = (a, b) => a.phase === b.phase && a.stage === b.stage;
  const others = (state.parked?.scopes ?? []).filter((p) => !scopes.some((m) => same(m, p)));
  const rest = { ...state };
  delete rest.parked;
  const without = (kept, since) => kept.length > 0 ? { ...rest, parked: { scopes: kept, since } } : rest;
  if (resume) {
    if (driven.parked && scopes.every((sc) => !(0,scope/* scopeAtRest */.WU)(plan, state, [], sc)))
      return { state: without([...scopes], new Date(driven.parked.since).toISOString()), continues: false };
    if (driven.parked || driven.atRest)
      return { state: rest, continues: !plan.phases.every((p) => state.phases[p.name]?.status === "completed") };
    return { state, continues: false };
  }
  if (driven.parked)
    return { state: without([...others, ...scopes], new Date(driven.parked.since).toISOString()), continues: false };
  return { state: state.parked ? without(others, state.parked.since) : state, continues: false };
}


// EXTERNAL MODULE: ./lib/state/state.js
var state_state = __webpack_require__(95824);
;// CONCATENATED MODULE: ./lib/state/phase-counts.js

function retriesOf(s, definition) {
  if (!s) return 0;
  const own = s.attempts.filter((a) => {
    const d = (0,state_state/* definitionOf */.Fg)(a);
    return d === void 0 || d === definition;
  });
  return Math.max(0, own.length - 1);
}
function phase_counts_phaseCounts(plan, state) {
  return plan.phases.map((p) => {
    const ps = state.phases[p.name];
    const stage = ps?.status === "smoke" || ps?.status === "gate" ? "smoke" : "full";
    const specs = stage === "smoke" ? p.smoke : p.tasks;
    const counts = { done: 0, running: 0, queued: 0, pending: 0, failed: 0, retries: 0 };
    const reasons = /* @__PURE__ */ new Map();
    for (const t of specs) {
      const s = state.tasks[t.id];
      const status = s?.status ?? "pending";
      if (status === "completed") counts.done++;
      else if (status === "running") counts.running++;
      else if (status === "submitted") {
        counts.queued++;
        if (s?.waiting) reasons.set(s.waiting, (reasons.get(s.waiting) ?? 0) + 1);
      } else if (status === "failed" || status === "stuck") counts.failed++;
      else counts.pending++;
      counts.retries += retriesOf(s, t.definition);
    }
    const waiting = [...reasons.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
    return {
      phase: p.name,
      ...waiting ? { waiting } : {},
      status: ps?.status ?? "waiting",
      ...ps?.reason ? { reason: ps.reason } : {},
      stage,
      ...counts,
      total: specs.length
    };
  });
}


// EXTERNAL MODULE: ./lib/state/placement.js
var placement = __webpack_require__(43490);
// EXTERNAL MODULE: ./lib/state/task-index.js
var task_index = __webpack_require__(68505);
;// CONCATENATED MODULE: ./lib/decide/poll.js




const MORE_TO_COME = /* @__PURE__ */ new Set(["waiting", "smoke", "gate"]);
const SETTLE_SECONDS = 1;
const STARTING_SECONDS = 10;
function expectedSeconds(plan) {
  const expected = /* @__PURE__ */ new Map();
  for (const phase of plan.phases)
    for (const array of phase.arrays) {
      const seconds = array.budget.costSeconds;
      if (seconds !== void 0) for (const id of array.tasks) expected.set(id, seconds);
    }
  return expected;
}
class LearnedRunTimes {
  /** The group of each task without a cost model. */
  groupOf = /* @__PURE__ */ new Map();
  members = /* @__PURE__ */ new Map();
  /** Per group: how many completed when its median was taken, and the median. */
  known = /* @__PURE__ */ new Map();
  constructor(plan, costed) {
    for (const phase of plan.phases)
      for (const array of phase.arrays) {
        const group = `${array.phase}\0${array.stage}\0${array.stratum}`;
        for (const id of array.tasks) {
          if (costed.has(id)) continue;
          this.groupOf.set(id, group);
          const list = this.members.get(group) ?? [];
          list.push(id);
          this.members.set(group, list);
        }
      }
  }
  /**
   * The learned run time of a task's group in `state`, in seconds (undefined while none of it
   * completed), each group counted once per state and its median taken again only when more of
   * it completed.
   */
  forState(state, completed) {
    const now = /* @__PURE__ */ new Map();
    return (id) => {
      const group = this.groupOf.get(id);
      if (group === void 0) return void 0;
      if (now.has(group)) return now.get(group);
      const ids = this.members.get(group);
      let count = 0;
      for (const m of ids) if (completed.has(m)) count++;
      const before = this.known.get(group);
      let seconds = before?.seconds;
      if (before?.completed !== count) {
        const runs = [];
        for (const m of ids) {
          const a = completed.has(m) ? state.tasks[m]?.attempts.at(-1) : void 0;
          if (a?.startedAt && a.endedAt) runs.push((Date.parse(a.endedAt) - Date.parse(a.startedAt)) / 1e3);
        }
        runs.sort((x, y) => x - y);
        seconds = runs.length === 0 ? void 0 : runs[Math.floor((runs.length - 1) / 2)];
        this.known.set(group, { completed: count, seconds });
      }
      now.set(group, seconds);
      return seconds;
    };
  }
}
class PollPacer {
  constructor(plan, limits) {
    this.plan = plan;
    this.limits = limits;
    this.wait = limits.minSeconds;
    this.expected = expectedSeconds(plan);
    this.learned = new LearnedRunTimes(plan, this.expected);
  }
  plan;
  limits;
  wait;
  counts = "";
  /** Expected seconds of each task that has a cost model. */
  expected;
  learned;
  /** The most jobs seen running at once: as many places as the queued ones will take in waves. */
  widest = 0;
  /** The jobs the last pass saw running (none before the first). */
  lastRunning;
  /** Seconds to wait after a pass that left `state`, at `nowMs`. */
  next(state, nowMs) {
    const { minSeconds: min, maxSeconds: max } = this.limits;
    if (!this.limits.costly) {
      const counts = JSON.stringify(phase_counts_phaseCounts(this.plan, state));
      this.wait = counts !== this.counts ? min : Math.min(max, this.wait * 1.5);
      this.counts = counts;
      return this.wait;
    }
    const clamp = (s) => Math.min(max, Math.max(min, s));
    const due = this.due(state, nowMs);
    const filling = this.lastRunning !== void 0 && due.jobsRunning > this.lastRunning && nowMs - due.newestQueued <= STARTING_SECONDS * 1e3;
    this.widest = Math.max(this.widest, due.jobsRunning);
    this.lastRunning = due.jobsRunning;
    if (filling) return min;
    let wait = max;
    for (const at of due.times) {
      const ahead = (at - nowMs) / 1e3;
      wait = Math.min(wait, clamp(ahead >= 0 ? ahead + SETTLE_SECONDS : -ahead / 2));
    }
    return wait;
  }
  /**
   * Seconds from `nowMs` until an answer from the scheduler is first due: 0 when one is due now
   * (or a task's run time is unknown), Infinity when none is. How long a job may leave the
   * campaign alone (park).
   */
  quietSeconds(state, nowMs) {
    const first = this.due(state, nowMs).times.reduce((a, b) => Math.min(a, b), Infinity);
    return Math.max(0, (first - nowMs) / 1e3);
  }
  due(state, nowMs) {
    const learned = this.learned.forState(state, (0,task_index/* indexOf */.qh)(state.tasks).ids("completed"));
    return dueTimes(state, this.plan, (id) => this.expected.get(id) ?? learned(id), nowMs, this.widest);
  }
}
function dueTimes(state, plan, expected, nowMs, widest) {
  const due = [];
  const ends = [];
  const index = (0,task_index/* indexOf */.qh)(state.tasks);
  const running = index.ids("running").size;
  const elements = /* @__PURE__ */ new Map();
  const elementOf = (id) => {
    const packed = (0,placement/* packedElement */.L)(plan, state.tasks[id], id);
    if (packed === void 0) return void 0;
    let element = elements.get(packed.handle);
    if (element === void 0)
      elements.set(
        packed.handle,
        element = {
          parallel: packed.packing.parallel,
          running: 0,
          end: -Infinity,
          queued: 0,
          longest: 0,
          sent: -Infinity
        }
      );
    return element;
  };
  let soleQueued = 0;
  let soleRunning = 0;
  let longestQueued = 0;
  let newestQueued = -Infinity;
  let soonestQueued = Infinity;
  const waiting = index.ids("pending").size > 0 || index.ids("retrying").size > 0 || plan.phases.some((p) => {
    const status = state.phases[p.name]?.status ?? "waiting";
    const missing = () => index.completeFor !== plan && p.tasks.some((t) => state.tasks[t.id] === void 0);
    return MORE_TO_COME.has(status) || status === "full" && missing();
  });
  for (const id of index.ids("retrying")) {
    const notBefore = state.tasks[id].notBefore;
    if (notBefore) due.push(Date.parse(notBefore));
  }
  for (const id of index.ids("submitted")) {
    const seconds = expected(id);
    soonestQueued = Math.min(soonestQueued, seconds ?? Infinity);
    const submitted = state.tasks[id].attempts.at(-1)?.submittedAt;
    const sent = submitted === void 0 ? -Infinity : Date.parse(submitted);
    const element = elementOf(id);
    if (element === void 0) {
      soleQueued++;
      longestQueued = Math.max(longestQueued, seconds ?? Infinity);
      newestQueued = Math.max(newestQueued, sent);
    } else {
      element.queued++;
      element.longest = Math.max(element.longest, seconds ?? Infinity);
      element.sent = Math.max(element.sent, sent);
    }
    if (seconds === void 0 && submitted) due.push(sent);
  }
  for (const id of index.ids("running")) {
    const element = elementOf(id);
    if (element === void 0) soleRunning++;
    else element.running++;
    const started = state.tasks[id].attempts.at(-1)?.startedAt;
    if (!started) continue;
    const seconds = expected(id);
    if (seconds !== void 0) {
      const end = Date.parse(started) + seconds * 1e3;
      ends.push(end);
      if (element !== void 0) element.end = Math.max(element.end, end);
    } else due.push(Date.parse(started));
  }
  let jobsRunning = soleRunning;
  let jobsQueued = soleQueued;
  let lastEnd = ends.reduce((a, b) => Math.max(a, b), nowMs);
  for (const element of elements.values()) {
    const rest = element.queued === 0 ? 0 : Math.ceil(element.queued / element.parallel) * element.longest * 1e3;
    if (element.running > 0) {
      jobsRunning++;
      lastEnd = Math.max(lastEnd, element.queued === 0 ? element.end : Math.max(element.end, nowMs) + rest);
    } else {
      jobsQueued++;
      longestQueued = Math.max(longestQueued, rest / 1e3);
      newestQueued = Math.max(newestQueued, element.sent);
    }
  }
  const jobs = { jobsRunning, newestQueued };
  if (running === 0 && soonestQueued < Infinity) due.push(nowMs + soonestQueued * 1e3);
  if (waiting) return { times: due.concat(ends), ...jobs };
  if (ends.length < running || lastEnd === Infinity) return { times: due, ...jobs };
  if (jobsQueued === 0) due.push(lastEnd);
  else if (jobsRunning > 0 && longestQueued < Infinity)
    due.push(lastEnd + Math.ceil(jobsQueued / Math.max(jobsRunning, widest)) * longestQueued * 1e3);
  return { times: due, ...jobs };
}
function pollLimits(executor, maxSeconds) {
  const { pollSeconds, costlyPolls } = executor_kinds/* EXECUTOR_KINDS */.q[executor];
  const longest = maxSeconds ?? pollSeconds[1];
  return { costly: costlyPolls, minSeconds: Math.min(pollSeconds[0], longest), maxSeconds: longest };
}


// EXTERNAL MODULE: ./lib/decide/start.js
var decide_start = __webpack_require__(95860);
// EXTERNAL MODULE: ./lib/decide/step.js
var step = __webpack_require__(13388);
;// CONCATENATED MODULE: ./lib/app/run.js














async function runCampaign(c, o, finish) {
  const store = new file_store/* FileStateStore */.n(c.stateDir, { onWarning: o.warn });
  const lock = await store.acquire(o.holder);
  o.onLock?.(lock);
  let executor;
  try {
    const loaded = await (0,exec_controller.loadState)(store, c.manifest.campaign, (/* @__PURE__ */ new Date()).toISOString());
    const open = o.open ?? openExecutor;
    const opened = await open(c, { ssh: o.ssh, since: () => loaded.created, warn: o.warn, checkCluster: true });
    executor = opened.executor;
    const { plan } = opened;
    const run = await prepare(c, o, store, executor, plan, loaded);
    const driven = await drive(c, o, store, plan, run);
    let ended = driven.state;
    let continues = false;
    if (o.job !== void 0) {
      ({ state: ended, continues } = parkedAfter(plan, driven, o.job.scopes, o.job.resume));
      if (ended !== driven.state) await store.save(ended);
    }
    return await finish({ plan, state: ended, driven, continues, diskFull: (0,step/* diskFullTasks */.Re)(ended), executor });
  } finally {
    await lock.release();
    await executor?.close();
  }
}
async function prepare(c, o, store, executor, plan, stored) {
  const loaded = o.fresh ? await startFresh(c, store, executor, stored, o.note) : stored;
  const scopes = o.job?.scopes;
  const controller = new exec_controller/* CampaignController */.H({
    manifest: c.manifest,
    plan,
    executor,
    store,
    warn: o.warn,
    ...scopes === void 0 ? {} : { scope: scopes },
    ...o.commit === void 0 ? {} : { commit: o.commit },
    ...c.code === void 0 ? {} : { code: c.code }
  });
  const reconciled = await controller.reconcile(loaded, o.retryFix);
  reconciled.warnings.forEach(o.warn);
  const changes = (0,definition_changes/* definitionChanges */.x6)(reconciled.state, plan);
  for (const change of changes) o.note((0,definition_changes/* definitionChangeLine */.el)(change, o.keepChanged));
  const start = { retryFailed: o.retryFailed, keepChanged: o.keepChanged, now: new Date(o.clock.now()).toISOString() };
  const state = scopes === void 0 ? (0,decide_start/* startRun */.AD)(reconciled.state, plan, start) : (0,scope/* startScopedRun */.qo)(reconciled.state, plan, scopes, start);
  if (o.keepChanged) await controller.recordProvenance(state, (0,definition_changes/* keptTasks */.dO)(changes));
  o.onStart?.(plan, state);
  return { controller, state, loaded };
}
async function drive(c, o, store, plan, run) {
  const pacer = new PollPacer(plan, pollLimits(c.manifest.cluster.executor, o.maxPoll));
  const job = o.job;
  return driveCampaign(run.state, {
    controller: run.controller,
    store,
    pacer,
    clock: o.clock,
    ...o.deadline === void 0 ? {} : { deadline: o.deadline },
    ...o.signal === void 0 ? {} : { signal: o.signal },
    ...o.onPass === void 0 ? {} : { onPass: o.onPass },
    ...job?.park === void 0 ? {} : { park: parking(job, job.park, plan, pacer, run.loaded, o.clock) }
  });
}
function parking(job, seconds, plan, pacer, loaded, clock) {
  return {
    seconds,
    since: job.resume && loaded.parked ? Date.parse(loaded.parked.since) : clock.now(),
    quiet: (state, now) => pacer.quietSeconds(state, now),
    out: (state) => !(0,scope/* scopeAtRest */.WU)(plan, state, [], job.scopes)
  };
}
async function startFresh(c, store, executor, loaded, note) {
  const running = Object.entries(loaded.tasks).filter(([, t]) => t.status === "submitted" || t.status === "running");
  if (running.length > 0) {
    throw new errors/* UserError */.yo({
      message: `${running.length} task${running.length === 1 ? " is" : "s are"} still running (${running[0][0]}${running.length > 1 ? ", \u2026" : ""}): a fresh start would leave them unwatched`,
      fix: `stop them with \`campaign cancel ${c.file}\`, or let them end, then run --fresh again`
    });
  }
  const now = (/* @__PURE__ */ new Date()).toISOString();
  const stamp = now.replace(/[:.]/g, "-");
  const aside = await executor.workdir.setAside(asideDir(c.manifest.campaign, stamp));
  const moved = await store.setAside((0,external_node_path_.join)(c.stateDir, "previous", stamp));
  const parts = [
    moved.length > 0 ? `the earlier state is in ${(0,external_node_path_.join)(c.stateDir, "previous", stamp)}` : "there was no earlier state",
    `${aside.outputs} output${aside.outputs === 1 ? "" : "s"}${aside.attempts ? " and the attempts" : ""} moved to ${aside.dest} in the workdir`
  ];
  await executor.workdir.generation.replace(now);
  note(`started afresh: ${parts.join("; ")}; nothing was deleted, and nothing earlier counts for this run`);
  return { ...(0,state_state/* emptyState */.p$)(c.manifest.campaign, now), generation: now };
}


;// CONCATENATED MODULE: ./lib/app/stored-state.js



async function storedState(c) {
  const { loadState } = await Promise.resolve(/* import() */).then(__webpack_require__.bind(__webpack_require__, 88906));
  return loadState(new file_store/* FileStateStore */.n(c.stateDir, { readOnly: true }), c.manifest.campaign, (/* @__PURE__ */ new Date()).toISOString());
}
async function changedDefinitionLines(c, { defined = true } = {}) {
  const store = new FileStateStore(c.stateDir, { readOnly: true });
  const raw = await store.load();
  if (raw === void 0) return void 0;
  if (!defined) defineTasks(c.manifest, c.plan);
  const { checkedState } = await Promise.resolve(/* import() */).then(__webpack_require__.bind(__webpack_require__, 88906));
  const state = checkedState(raw, store, c.manifest.campaign);
  return definitionChanges(state, c.plan).map((change) => definitionChangeLine(change, false));
}


// EXTERNAL MODULE: ./lib/state/provenance.js
var provenance = __webpack_require__(96642);
// EXTERNAL MODULE: ./lib/report/markdown.js
var markdown = __webpack_require__(92957);
;// CONCATENATED MODULE: ./lib/report/gpu-hours.js
function attemptsGpuHours(attempts, gpus, until) {
  let seconds = 0;
  for (const a of attempts) {
    if (a.startedAt === void 0) continue;
    const end = a.endedAt === void 0 ? until : Date.parse(a.endedAt);
    if (end === void 0) continue;
    const ran = (end - Date.parse(a.startedAt)) / 1e3;
    if (ran > 0) seconds += ran * (a.gpus?.length ?? gpus);
  }
  return seconds / 3600;
}
function gpu_hours_phaseGpuHours(plan, state) {
  const until = Date.parse(state.updated);
  return plan.phases.map((p) => {
    let used = 0;
    for (const array of p.arrays) {
      for (const id of array.tasks) {
        const attempts = state.tasks[id]?.attempts;
        if (attempts) used += attemptsGpuHours(attempts, array.resources.gpus, until);
      }
    }
    return { phase: p.name, used, budget: p.gpuHours + p.smokeGpuHours };
  });
}
function formatGpuHours(hours) {
  return hours.toFixed(hours < 10 ? 2 : 1);
}


;// CONCATENATED MODULE: ./lib/report/svg/svg.js
const NOT_XML = (
  // eslint-disable-next-line no-control-regex -- these control characters are what the pattern is for
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g
);
const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };
function escapeXml(text2) {
  return text2.replace(NOT_XML, "\uFFFD").replace(/[&<>"']/g, (char) => ENTITIES[char]);
}
const num = (v) => String(Math.round(v * 100) / 100);
function attributes(attrs) {
  return Object.entries(attrs).filter(([, v]) => v !== void 0).map(([k, v]) => ` ${k}="${typeof v === "number" ? num(v) : escapeXml(v)}"`).join("");
}
function el(name, attrs, children = []) {
  const open = `<${name}${attributes(attrs)}`;
  return children.length === 0 ? `${open}/>` : `${open}>${children.join("")}</${name}>`;
}
function svg_text(x, y, content, attrs = {}) {
  return `<text${attributes({ x, y, ...attrs })}>${escapeXml(content)}</text>`;
}
function title(content) {
  return `<title>${escapeXml(content)}</title>`;
}
const COLORS = {
  completed: "#2e9d5b",
  running: "#3b82f6",
  queued: "#c8d1dc",
  failed: "#d64541",
  timeout: "#e8912d",
  out_of_memory: "#8e44ad",
  node_fail: "#6b7a89",
  preempted: "#17a2b8",
  gate: "#a93226",
  unverified: "#b7950b",
  lost: "#95a5a6",
  cancelled: "#bdc3c7",
  ink: "#1f2933",
  muted: "#6b7785",
  grid: "#e4e9ef",
  paper: "#ffffff"
};
function classColor(cls) {
  return COLORS[cls ?? "running"] ?? COLORS.failed;
}
const STYLE = 'text{font-family:"DejaVu Sans",system-ui,-apple-system,"Segoe UI",sans-serif;font-size:12px;fill:#1f2933}.muted{fill:#6b7785}.small{font-size:10.5px}.heading{font-size:15px;font-weight:600}';
function svgDocument(width, height, heading, body) {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${num(width)}" height="${num(height)}" viewBox="0 0 ${num(width)} ${num(height)}" role="img">` + title(heading) + `<style>${STYLE}</style>` + el("rect", { x: 0, y: 0, width, height, fill: COLORS.paper }) + body.join("") + "</svg>\n";
}
function niceStep(span, count) {
  if (!(span > 0)) return 1;
  const raw = span / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}
function timeStep(span, count) {
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];
  const raw = span / Math.max(1, count);
  return steps.find((s) => s >= raw) ?? Math.ceil(raw / 86400) * 86400;
}
function extent(values) {
  let least = Infinity;
  let greatest = -Infinity;
  for (const v of values) {
    if (v < least) least = v;
    if (v > greatest) greatest = v;
  }
  return [least, greatest];
}


;// CONCATENATED MODULE: ./lib/report/svg/results.js

const MAX_LINES = 8;
const LINE_COLORS = ["#1f77b4", "#d95f02", "#7570b3", "#e7298a", "#8c564b", "#bcbd22", "#393b79", "#0f8f8f"];
const key = (v) => `${typeof v}:${String(v)}`;
function distinct(cells, axis) {
  const seen = /* @__PURE__ */ new Map();
  for (const cellResult of cells) {
    const v = cellResult.values[axis];
    if (v !== void 0 && !seen.has(key(v))) seen.set(key(v), v);
  }
  return [...seen.values()];
}
const results_numeric = (vs) => vs.length > 0 && vs.every((v) => typeof v === "number" && Number.isFinite(v));
const finite = (v) => v !== void 0 && Number.isFinite(v);
const drawable = (cellResult, metric) => cellResult.n > 0 && finite(cellResult.stats[metric]?.mean);
const named = (axis, v) => `${axis}=${String(v)}`;
function resultsPlot(cellAxes, cells, metric, replicates) {
  const own = cells.filter((cellResult) => cellResult.record === void 0);
  if (!own.some((cellResult) => drawable(cellResult, metric))) return void 0;
  const axes = cellAxes.map((axis) => {
    const values = distinct(own, axis);
    return { axis, values, numeric: results_numeric(values) };
  });
  const x = [...axes].sort((a, b) => b.values.length - a.values.length || Number(b.numeric) - Number(a.numeric))[0];
  const rest = axes.filter((a) => a !== x && a.values.length > 1);
  const lineAxis = [...rest].sort((a, b) => a.values.length - b.values.length)[0];
  let shown = own;
  const held = [];
  for (const a of rest.filter((r) => r !== lineAxis)) {
    const value = a.values.find(
      (v) => shown.some((cellResult) => key(cellResult.values[a.axis]) === key(v) && drawable(cellResult, metric))
    );
    held.push({ axis: a.axis, value });
    shown = shown.filter((cellResult) => key(cellResult.values[a.axis]) === key(value));
  }
  const xs = x === void 0 ? [] : distinct(shown, x.axis);
  let xValues = xs;
  let scale = "category";
  if (results_numeric(xs)) {
    const sorted = [...xs].sort((a, b) => a - b);
    xValues = sorted;
    const [lo, hi] = [sorted[0], sorted[sorted.length - 1]];
    scale = lo > 0 && hi / lo >= 100 ? "log" : "linear";
  }
  const lineValues = lineAxis === void 0 ? [void 0] : distinct(shown, lineAxis.axis);
  const point = (cellResult, at) => {
    const s = cellResult.n > 0 ? cellResult.stats[metric] : void 0;
    const mean = finite(s?.mean) ? s.mean : void 0;
    const std = mean !== void 0 && cellResult.n >= 2 && finite(s?.std) && s.std >= 0 ? s.std : void 0;
    return {
      x: at,
      values: cellResult.values,
      mean,
      std,
      n: cellResult.n,
      planned: cellResult.planned,
      missing: cellResult.missing
    };
  };
  const lines = lineValues.slice(0, MAX_LINES).map((value) => {
    const mine = lineAxis === void 0 ? shown : shown.filter((cellResult) => key(cellResult.values[lineAxis.axis]) === key(value));
    if (x === void 0) return { value, points: mine.slice(0, 1).map((cellResult) => point(cellResult, 0)) };
    const atX = /* @__PURE__ */ new Map();
    for (const m of mine) if (!atX.has(key(m.values[x.axis]))) atX.set(key(m.values[x.axis]), m);
    const points = [];
    xValues.forEach((xv, i) => {
      const cellResult = atX.get(key(xv));
      if (cellResult !== void 0) points.push(point(cellResult, scale === "category" ? i : xv));
    });
    return { value, points };
  });
  const drawn = lines.flatMap((l) => l.points);
  const planned = [...new Set(shown.map((cellResult) => cellResult.planned))].sort((a, b) => a - b);
  const over = planned.length === 1 ? `${planned[0]}` : `${planned[0]}\u2013${planned[planned.length - 1]}`;
  const caption = [
    replicates === void 0 ? `${metric}, one task per point` : `${metric}: mean \xB1 std over ${over} ${replicates}`
  ];
  if (drawn.some((p) => p.mean !== void 0 && p.n < p.planned)) caption.push("hollow: short of replicates");
  if (drawn.some((p) => p.mean === void 0)) caption.push("gaps: cells without a result");
  if (held.length > 0) caption.push(`${held.map((h) => named(h.axis, h.value)).join(", ")} held`);
  if (lineValues.length > MAX_LINES)
    caption.push(`first ${MAX_LINES} of ${lineValues.length} ${lineAxis.axis} values shown`);
  return {
    metric,
    x: { axis: x?.axis, scale, values: xValues },
    lines,
    lineAxis: lineAxis?.axis,
    held,
    caption
  };
}
const WIDTH = 760;
const LEFT = 84;
const PLOT_H = 300;
const CAPTION_LINE = 14;
const PAD = 0.06;
const fmt = (v, digits = 4) => {
  const short = Number(v.toPrecision(digits));
  return String(Number.isFinite(short) ? short : v);
};
function linear(lo, hi) {
  let half = hi / 2 - lo / 2;
  if (!(half > 0)) half = Math.abs(lo / 2) * 0.2 || 0.5;
  const clamp = (v) => Math.min(Number.MAX_VALUE, Math.max(-Number.MAX_VALUE, v));
  const a = clamp(lo - half * (2 * PAD));
  const b = clamp(hi + half * (2 * PAD));
  const unit = (v) => {
    const f = (v / 2 - a / 2) / (b / 2 - a / 2);
    return Number.isNaN(f) ? 0.5 : Math.min(1, Math.max(0, f));
  };
  const step = niceStep(b / 2 - a / 2, 3);
  const first = Math.ceil(a / step);
  const last = Math.floor(b / step);
  const ticks = [];
  if (Number.isSafeInteger(first) && Number.isSafeInteger(last) && last - first <= 20)
    for (let k = first; k <= last; k++) ticks.push({ at: k * step, label: fmt(k * step, 12) });
  return { unit, ticks };
}
function logarithmic(lo, hi) {
  const [l, h] = [Math.log10(lo), Math.log10(hi)];
  const a = l - (h - l) * PAD;
  const b = h + (h - l) * PAD;
  const unit = (v) => {
    const f = (Math.log10(v) - a) / (b - a);
    return Number.isNaN(f) ? 0.5 : Math.min(1, Math.max(0, f));
  };
  const every = Math.max(1, Math.ceil((Math.floor(b) - Math.ceil(a) + 1) / 8));
  const ticks = [];
  for (let k = Math.ceil(a); k <= Math.floor(b); k++) {
    if (k % every !== 0) continue;
    const at = Number(`1e${k}`);
    ticks.push({ at, label: k >= -4 && k <= 4 ? String(at) : `1e${k}` });
  }
  return { unit, ticks };
}
const fit = (s, chars) => s.length > chars ? `${s.slice(0, Math.max(1, chars - 1))}\u2026` : s;
const r2 = (v) => Math.round(v * 100) / 100;
function tooltip(p, replicates) {
  const cell = Object.entries(p.values).map(([k, v]) => named(k, v)).join(", ");
  const spread = p.std === void 0 ? "" : ` \xB1 ${fmt(p.std)}`;
  const count = replicates ? ` (${p.n} of ${p.planned})` : "";
  const short = p.missing.length > 0 ? `; short: ${p.missing.join("; ")}` : p.n < p.planned ? "; short of replicates" : "";
  return `${cell === "" ? "the one cell" : cell}: ${fmt(p.mean)}${spread}${count}${short}`;
}
const POINT_LIMIT = 2e3;
function envelope(run, x, y) {
  const out = [];
  let column = NaN;
  let low = 0;
  let high = 0;
  const flush = () => {
    if (Number.isNaN(column)) return;
    out.push([column, low]);
    if (high !== low) out.push([column, high]);
  };
  for (const p of run) {
    const [px, py] = [Math.round(x(p.x)), y(p.mean)];
    if (px !== column) {
      flush();
      [column, low, high] = [px, py, py];
    } else [low, high] = [Math.min(low, py), Math.max(high, py)];
  }
  flush();
  return out;
}
function resultsSvg(plot, heading) {
  const legend = plot.lineAxis !== void 0;
  const right = legend ? 180 : 32;
  const top = 44 + plot.caption.length * CAPTION_LINE + 16;
  const plotW = WIDTH - LEFT - right;
  const bottom = top + PLOT_H;
  const body = [svg_text(16, 26, heading, { class: "heading" })];
  plot.caption.forEach((line, i) => body.push(svg_text(16, 44 + i * CAPTION_LINE, line, { class: "small muted" })));
  const points = plot.lines.flatMap((l) => l.points.filter((p) => p.mean !== void 0));
  const ys = points.flatMap(
    (p) => [p.mean, p.mean - (p.std ?? 0), p.mean + (p.std ?? 0)].filter((v) => Number.isFinite(v))
  );
  const yScale = ys.length === 0 ? linear(0, 1) : linear(...extent(ys));
  const y = (v) => bottom - yScale.unit(v) * PLOT_H;
  const count = Math.max(1, plot.x.values.length);
  const numericX = plot.x.values.filter((v) => typeof v === "number");
  const xScale = plot.x.scale === "category" ? {
    unit: (i) => (i + 0.5) / count,
    // One label every so many values where there are more than the axis has room for.
    ticks: plot.x.values.flatMap(
      (v, i) => i % Math.ceil(count / (plotW / 24)) === 0 ? [{ at: i, label: fit(String(v), Math.max(3, Math.floor(plotW / Math.min(count, plotW / 24) / 7))) }] : []
    )
  } : plot.x.scale === "log" ? logarithmic(numericX[0], numericX[numericX.length - 1]) : linear(numericX[0], numericX[numericX.length - 1]);
  const x = (v) => LEFT + xScale.unit(v) * plotW;
  const yAxis = [el("line", { x1: LEFT, y1: top, x2: LEFT, y2: bottom, stroke: COLORS.muted })];
  for (const t of yScale.ticks) {
    yAxis.push(
      el("line", { x1: LEFT, y1: y(t.at), x2: LEFT + plotW, y2: y(t.at), stroke: COLORS.grid }),
      el("line", { x1: LEFT - 4, y1: y(t.at), x2: LEFT, y2: y(t.at), stroke: COLORS.muted }),
      svg_text(LEFT - 7, y(t.at) + 4, t.label, { class: "small muted", "text-anchor": "end" })
    );
  }
  const mid = r2(top + PLOT_H / 2);
  yAxis.push(svg_text(18, mid, fit(plot.metric, 40), { "text-anchor": "middle", transform: `rotate(-90 18 ${mid})` }));
  const xAxis = [el("line", { x1: LEFT, y1: bottom, x2: LEFT + plotW, y2: bottom, stroke: COLORS.muted })];
  for (const t of xScale.ticks) {
    xAxis.push(
      el("line", { x1: x(t.at), y1: bottom, x2: x(t.at), y2: bottom + 4, stroke: COLORS.muted }),
      svg_text(x(t.at), bottom + 17, t.label, { class: "small muted", "text-anchor": "middle" })
    );
  }
  if (plot.x.axis !== void 0)
    xAxis.push(svg_text(LEFT + plotW / 2, bottom + 38, fit(plot.x.axis, 60), { "text-anchor": "middle" }));
  body.push(el("g", { class: "axis y" }, yAxis), el("g", { class: "axis x" }, xAxis));
  const replicates = points.some((p) => p.planned > 1);
  const dense = points.length > POINT_LIMIT;
  if (dense)
    body.push(
      svg_text(WIDTH - 16, 26, `${points.length} points: each line drawn without its markers`, {
        class: "small muted",
        "text-anchor": "end"
      })
    );
  plot.lines.forEach((line, i) => {
    const color = LINE_COLORS[i % LINE_COLORS.length];
    const runs = [[]];
    for (const p of line.points) {
      if (p.mean === void 0) runs.push([]);
      else runs[runs.length - 1].push(p);
    }
    const parts = runs.filter((r) => r.length > 1).map(
      (r) => el("path", {
        d: (dense ? envelope(r, x, y) : r.map((p) => [x(p.x), y(p.mean)])).map(([px, py], k) => `${k === 0 ? "M" : "L"}${r2(px)} ${r2(py)}`).join(" "),
        fill: "none",
        stroke: color,
        "stroke-width": 2,
        class: "trend"
      })
    );
    for (const p of dense ? [] : line.points) {
      if (p.mean === void 0 || p.std === void 0) continue;
      const [cx, lo, hi] = [x(p.x), y(p.mean - p.std), y(p.mean + p.std)];
      parts.push(
        el("g", { class: "error-bar", stroke: color, "stroke-width": 1.5 }, [
          el("line", { x1: cx, y1: lo, x2: cx, y2: hi }),
          el("line", { x1: cx - 4, y1: lo, x2: cx + 4, y2: lo }),
          el("line", { x1: cx - 4, y1: hi, x2: cx + 4, y2: hi })
        ])
      );
    }
    for (const p of dense ? [] : line.points) {
      if (p.mean === void 0) continue;
      const short = p.n < p.planned;
      parts.push(
        el(
          "circle",
          {
            cx: x(p.x),
            cy: y(p.mean),
            r: 4.5,
            fill: short ? COLORS.paper : color,
            stroke: color,
            "stroke-width": 2,
            class: short ? "point short" : "point"
          },
          [title(tooltip(p, replicates))]
        )
      );
    }
    body.push(el("g", { class: "series" }, parts));
  });
  if (legend) {
    const lx = WIDTH - right + 20;
    body.push(svg_text(lx, top + 4, fit(plot.lineAxis, 22), { class: "small muted" }));
    plot.lines.forEach((line, i) => {
      const color = LINE_COLORS[i % LINE_COLORS.length];
      const ly = top + 22 + i * 20;
      body.push(
        el("g", { class: "legend-item" }, [
          el("line", { x1: lx, y1: ly, x2: lx + 22, y2: ly, stroke: color, "stroke-width": 2 }),
          el("circle", { cx: lx + 11, cy: ly, r: 4, fill: color }),
          svg_text(lx + 30, ly + 4, fit(String(line.value), 20), {})
        ])
      );
    });
  }
  return svgDocument(WIDTH, bottom + 52, heading, body);
}


;// CONCATENATED MODULE: ./lib/report/mermaid.js

const LABEL_CHARS = 60;
const DAY = 24 * 3600 * 1e3;
function mermaidLabel(text) {
  const kept = text.replace(/[^\p{L}\p{N} _.\-+()/]/gu, " ").replace(/ +/g, " ").trim();
  const cut = Array.from(kept).slice(0, LABEL_CHARS).join("").trim();
  return cut === "" ? "-" : cut;
}
function axisFormat(ms) {
  if (ms > DAY) return "%m-%d %H:%M";
  return ms < SHORT ? "%H:%M:%S" : "%H:%M";
}
const SHORT = 15 * 60 * 1e3;
const chartTime = (ms) => new Date(ms).toISOString().slice(0, 19).replace("T", " ");
function bar(stage, tasks, state, now) {
  const states = tasks.map((t) => state.tasks[t.id]);
  let start = Infinity;
  let end = -Infinity;
  let running = false;
  for (const s of states) {
    for (const a of s?.attempts ?? []) {
      const from = Date.parse(a.startedAt ?? a.submittedAt);
      const to = a.endedAt === void 0 ? now : Date.parse(a.endedAt);
      if (a.endedAt === void 0) running = true;
      if (Number.isFinite(from)) start = Math.min(start, from);
      if (Number.isFinite(to)) end = Math.max(end, to);
    }
  }
  if (!Number.isFinite(start)) return void 0;
  const failed = states.some((s) => s?.status === "failed" || s?.status === "stuck");
  return { stage, start, end: Math.max(end, start + 1e3), running, failed };
}
function ganttChart(plan, state, now) {
  const at = Date.parse(now);
  const lines = [];
  let first = Infinity;
  let last = -Infinity;
  for (const p of plan.phases) {
    const bars = [bar("smoke", p.smoke, state, at), bar("full", p.tasks, state, at)].filter(
      (b) => b !== void 0
    );
    if (bars.length === 0) continue;
    lines.push(`  section ${mermaidLabel(p.name)}`);
    for (const b of bars) {
      const tags = [...b.failed ? ["crit"] : [], b.running ? "active" : "done"].join(", ");
      lines.push(`  ${mermaidLabel(b.stage)} :${tags}, ${chartTime(b.start)}, ${chartTime(b.end)}`);
      first = Math.min(first, b.start);
      last = Math.max(last, b.end);
    }
  }
  if (lines.length === 0) return [];
  return [
    "```mermaid",
    "gantt",
    `  title ${mermaidLabel(`Campaign ${plan.campaign}`)}`,
    "  dateFormat YYYY-MM-DD HH:mm:ss",
    `  axisFormat ${axisFormat(last - first)}`,
    ...lines,
    "```"
  ];
}
const CHART_VALUES = 40;
const CHARTS = 4;
const plain = (v) => v.toLocaleString("en-US", { useGrouping: false, maximumSignificantDigits: 6 });
function resultsCharts(section) {
  const metric = section.metrics[0];
  if (metric === void 0) return [];
  const plot = resultsPlot(section.axes, section.cells, metric, section.replicates);
  if (plot === void 0 || plot.x.axis === void 0) return [];
  const xs = plot.x.values;
  if (xs.length < 2 || xs.length > CHART_VALUES) return [];
  const over = section.replicates === void 0 ? "" : ` (mean over ${section.replicates})`;
  const out = [];
  for (const line of plot.lines.slice(0, CHARTS)) {
    const means = line.points.map((p) => p.mean);
    if (means.length !== xs.length || !means.every((m) => m !== void 0)) continue;
    let [low, high] = [Math.min(...means), Math.max(...means)];
    const room = (high - low) * 0.1 || Math.abs(high) * 0.1 || 1;
    [low, high] = [low - room, high + room];
    const held = [
      ...plot.lineAxis === void 0 ? [] : [`${plot.lineAxis}=${String(line.value)}`],
      ...plot.held.map((h) => `${h.axis}=${String(h.value)}`)
    ];
    const title = `${metric} of ${section.phase}${held.length > 0 ? ` at ${held.join(" ")}` : ""}${over}`;
    out.push(
      "",
      "```mermaid",
      "xychart-beta",
      `  title "${mermaidLabel(title)}"`,
      `  x-axis "${mermaidLabel(plot.x.axis)}" [${xs.map((v) => `"${mermaidLabel(String(v))}"`).join(", ")}]`,
      `  y-axis "${mermaidLabel(metric)}" ${plain(low)} --> ${plain(high)}`,
      `  ${plot.x.scale === "category" ? "bar" : "line"} [${means.map(plain).join(", ")}]`,
      "```"
    );
  }
  if (out.length > 0 && plot.lines.length > CHARTS)
    out.push(
      "",
      `The first ${CHARTS} of ${plot.lines.length} values of ${plot.lineAxis} are charted; the tables have them all.`
    );
  return out;
}


;// CONCATENATED MODULE: ./lib/report/results/section.js

const SHOWN_CELLS = 20;
const shown = (v) => String(Number(v.toPrecision(4)));
function renderResultsSection(part, links) {
  if ("unavailable" in part)
    return ["", `## Results: ${part.phase}`, "", `The outputs could not be gathered: ${part.unavailable}`];
  const s = part;
  const complete = s.cells.filter((cellResult) => cellResult.n === cellResult.planned).length;
  const over = s.replicates === void 0 ? "" : ` over ${s.replicates}`;
  const out = [
    "",
    `## Results: ${s.phase}`,
    "",
    `${complete} of ${s.cells.length} cell${s.cells.length === 1 ? "" : "s"} have every replicate; each metric is the mean \xB1 standard deviation${over}, and n counts the replicates present of those planned.`,
    ""
  ];
  const record = s.cells.some((cellResult) => cellResult.record !== void 0);
  out.push(
    `| ${[...s.axes, ...record ? ["record"] : [], "n", ...s.metrics].map(markdown/* tableCell */.xR).join(" | ")} |`,
    `| ${[...s.axes, ...record ? ["record"] : [], "n", ...s.metrics].map((_, i) => i < s.axes.length ? "---" : "---:").join(" | ")} |`
  );
  for (const cellResult of s.cells.slice(0, SHOWN_CELLS)) {
    const metrics = s.metrics.map((m) => {
      const st = cellResult.stats[m];
      if (st === void 0) return "";
      return st.std === void 0 ? shown(st.mean) : `${shown(st.mean)} \xB1 ${shown(st.std)}`;
    });
    const n = cellResult.n === cellResult.planned ? `${cellResult.n}` : `**${cellResult.n} of ${cellResult.planned}**`;
    out.push(
      `| ${[
        ...s.axes.map((a) => (0,markdown/* tableCell */.xR)(String(cellResult.values[a] ?? ""))),
        ...record ? [String(cellResult.record ?? "")] : [],
        n,
        ...metrics
      ].join(" | ")} |`
    );
  }
  const rest = s.cells.length - SHOWN_CELLS;
  const files = s.files;
  const named = (file) => links === "relative" ? `[${file}](${file})` : `\`${file}\``;
  const where = links === "relative" ? "" : " in the state artifact";
  const all = files === void 0 ? "" : ` All of them${where}: ${named(files.cells)}; per task: ${named(files.tasks)}.`;
  if (rest > 0 || all !== "") out.push("", `${rest > 0 ? `\u2026 and ${rest} more cells.` : ""}${all}`.trim());
  const missing = s.cells.filter((cellResult) => cellResult.missing.length > 0);
  if (missing.length > 0) {
    out.push("", "Missing replicates:", "");
    for (const cellResult of missing.slice(0, SHOWN_CELLS)) {
      const where2 = s.axes.map((a) => `${a}=${String(cellResult.values[a])}`).join(", ") || "the cell";
      out.push(`- ${(0,markdown/* tableCell */.xR)(where2)}: ${(0,markdown/* inlineCode */.ti)(cellResult.missing.join("; "))}`);
    }
    if (missing.length > SHOWN_CELLS) out.push(`- \u2026 and ${missing.length - SHOWN_CELLS} more cells`);
  }
  if (files?.picture && links === "relative") out.push("", `![${files.picture.caption}](${files.picture.file})`);
  return out;
}


// EXTERNAL MODULE: ./lib/state/continuation.js
var continuation = __webpack_require__(52350);
;// CONCATENATED MODULE: ./lib/report/summary.js








function progressLine(counts) {
  const reason = counts.reason && (counts.status === "blocked" || counts.status === "failed" || counts.status === "waiting") ? ` (${counts.reason})` : "";
  const queued = counts.queued > 0 ? `, ${counts.queued} queued${counts.waiting ? ` (${counts.waiting})` : ""}` : "";
  return `${counts.phase} [${counts.status}${counts.stage === "smoke" ? " stage" : ""}] ${counts.done}/${counts.total} done, ${counts.running} running${queued}, ${counts.pending} pending, ${counts.failed} failed${reason}`;
}
function summary_allCompleted(plan, state) {
  return plan.phases.every((p) => state.phases[p.name]?.status === "completed");
}
const UNFINISHED_SHOWN = 50;
const ADAPTED_SHOWN = 200;
const JOB_TAIL_CHARS = 4e3;
const ADAPTED_SHARE = 0.25;
const CUT_LINES_BYTES = 4096;
const bytesOf = (lines) => new TextEncoder().encode(lines.join("\n") + "\n").length;
function summary_fit(items, budget) {
  const kept = [];
  let used = 0;
  for (const item of items) {
    used += bytesOf(item);
    if (used > budget) break;
    kept.push(item);
  }
  return kept;
}
function artifactRef(job) {
  const a = job.artifact;
  if (a === void 0) return "the state directory (`campaign summary` writes it all)";
  return `the state artifact ${a.url === void 0 ? `\`${a.name}\`` : `[${a.name}](${a.url})`}`;
}
const adaptedNote = (s) => {
  const a = s.attempts[s.attempts.length - 1]?.adapted;
  return a && a.length > 0 ? `; it ran with less than it asked: ${a.join("; ")}` : "";
};
function span(states) {
  let first = Infinity;
  let last = -Infinity;
  let completed = 0;
  let total = 0;
  for (const s of states) {
    for (const a of s.attempts) {
      const start = Date.parse(a.startedAt ?? a.submittedAt);
      first = Math.min(first, start);
      if (a.endedAt) last = Math.max(last, Date.parse(a.endedAt));
      if (a.endedAt && a.class === "completed") {
        completed++;
        total += Math.max(0, Date.parse(a.endedAt) - start);
      }
    }
  }
  return {
    ...first !== Infinity && last !== -Infinity ? { wall: Math.max(0, last - first) / 1e3 } : {},
    ...completed > 0 ? { mean: total / completed / 1e3 } : {}
  };
}
function phaseTable(plan, state) {
  const hours = gpu_hours_phaseGpuHours(plan, state);
  const out = [
    "| phase | status | tasks | completed | running | queued | failed | retries | wall time | mean task | GPU-h used | GPU-h budget |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  ];
  plan.phases.forEach((p, i) => {
    const states = p.tasks.map((t) => state.tasks[t.id]).filter((s) => s !== void 0);
    const completed = states.filter((s) => s.status === "completed").length;
    const failed = states.filter((s) => s.status === "failed" || s.status === "stuck").length;
    let running = 0;
    let queued = 0;
    for (const t of [...p.smoke, ...p.tasks]) {
      const status2 = state.tasks[t.id]?.status;
      if (status2 === "running") running++;
      else if (status2 === "submitted") queued++;
    }
    const retries = p.tasks.reduce((n, t) => n + retriesOf(state.tasks[t.id], t.definition), 0);
    const { wall, mean } = span(states);
    const ps = state.phases[p.name];
    const status = `${ps?.status ?? "waiting"}${ps?.reason ? `: ${(0,markdown/* inlineCode */.ti)(ps.reason)}` : ""}`;
    const { used: used2, budget: budget2 } = hours[i];
    out.push(
      `| ${p.name} | ${(0,markdown/* tableCell */.xR)(status)} | ${p.tasks.length} | ${completed} | ${running} | ${queued} | ${failed} | ${retries} | ${wall === void 0 ? "" : (0,units/* formatDuration */.a3)(wall)} | ${mean === void 0 ? "" : (0,units/* formatDuration */.a3)(mean)} | ${formatGpuHours(used2)} | ${formatGpuHours(budget2)} |`
    );
  });
  const used = hours.reduce((n, h) => n + h.used, 0);
  const budget = hours.reduce((n, h) => n + h.budget, 0);
  out.push("", `GPU-hours: ${formatGpuHours(used)} used, of a budget of ${formatGpuHours(budget)}.`);
  return out;
}
function summary_renderSummary(input, job) {
  const { plan, state, tails, pictures = [], provenance, results = [] } = input;
  const ok = summary_allCompleted(plan, state);
  const head = [
    `# Campaign ${plan.campaign}`,
    "",
    ok ? "**Every task completed.**" : "**The campaign did not complete:** see the phases and tasks below.",
    "",
    ...phaseTable(plan, state)
  ];
  if (job !== void 0) {
    const chart = ganttChart(plan, state, job.now);
    if (chart.length > 0) head.push("", ...chart);
    if (pictures.length > 0 && job.artifact !== void 0)
      head.push(
        "",
        `The pictures (${pictures.map((p) => p.file).join(", ")}) and the whole tables are in ${artifactRef(job)}.`
      );
  } else if (pictures.length > 0) {
    head.push("", pictures.map((p) => `[${p.caption}](${p.file})`).join(" \xB7 "), "");
    for (const p of pictures) head.push(`![${p.caption}](${p.file})`);
  }
  for (const r of results) {
    head.push(...renderResultsSection(r, job === void 0 ? "relative" : "named"));
    if (job !== void 0 && !("unavailable" in r)) head.push(...resultsCharts(r));
  }
  for (const p of plan.phases) head.push(...gateSection(p, state));
  const provenanceLines = provenanceSection(plan, state, provenance, job);
  const adapted = adaptedRows(plan, state);
  const retimed = retimedRows(plan, state);
  const unfinished = plan.phases.flatMap((p) => [...p.smoke, ...p.tasks]).filter((t) => {
    const s = state.tasks[t.id]?.status;
    return s === "failed" || s === "stuck";
  });
  const entries = unfinished.slice(0, UNFINISHED_SHOWN).map((t) => unfinishedEntry(t.id, state, tails, job));
  let adaptedShown = adapted.slice(0, ADAPTED_SHOWN);
  let retimedShown = retimed.slice(0, ADAPTED_SHOWN);
  let entriesShown = entries;
  if (job !== void 0) {
    const left = job.bytes - bytesOf([...head, ...provenanceLines]) - CUT_LINES_BYTES;
    adaptedShown = summary_fit(
      adaptedShown.map((r) => [r]),
      Math.max(0, left * ADAPTED_SHARE)
    ).map((r) => r[0]);
    retimedShown = summary_fit(
      retimedShown.map((r) => [r]),
      Math.max(0, left * ADAPTED_SHARE - bytesOf(adaptedShown))
    ).map((r) => r[0]);
    entriesShown = summary_fit(entries, Math.max(0, left - bytesOf(adaptedShown) - bytesOf(retimedShown)));
  }
  const rest = (n, where) => job === void 0 ? `\u2026 and ${n} more (see ${where}).` : `\u2026 and ${n} more, left out here: ${artifactRef(job)} has them (summary.md; every task in state.json).`;
  const out = [...head];
  if (adapted.length > 0) {
    out.push(
      "",
      "## Tasks that ran with less than they asked",
      "",
      "| task | attempt | result | ran with |",
      "| --- | ---: | --- | --- |",
      ...adaptedShown
    );
    if (adapted.length > adaptedShown.length) out.push(rest(adapted.length - adaptedShown.length, "state.json"));
  }
  if (retimed.length > 0) {
    out.push(
      "",
      "## Tasks continued or given more time",
      "",
      "| task | attempt | result | walltime | how |",
      "| --- | ---: | --- | ---: | --- |",
      ...retimedShown
    );
    if (retimed.length > retimedShown.length) out.push(rest(retimed.length - retimedShown.length, "state.json"));
  }
  out.push(...provenanceLines);
  if (unfinished.length > 0) {
    out.push("", "## Tasks that did not complete", "");
    for (const e of entriesShown) out.push(...e);
    if (unfinished.length > entriesShown.length)
      out.push(rest(unfinished.length - entriesShown.length, "`campaign status`"));
  }
  return out.join("\n") + "\n";
}
function unfinishedEntry(id, state, tails, job) {
  const s = state.tasks[id];
  const out = [
    `### ${id}`,
    "",
    `${s.reason === void 0 ? s.status : (0,markdown/* inlineCode */.ti)(s.reason)} (${s.attempts.length} attempt${s.attempts.length === 1 ? "" : "s"})${adaptedNote(s)}`,
    ""
  ];
  const tail = tails.get(id);
  const where = tail?.path ? ` (${tail.path})` : "";
  let text = tail?.text.trimEnd() ?? "";
  if (job !== void 0 && text.length > JOB_TAIL_CHARS)
    text = `\u2026${text.slice(-JOB_TAIL_CHARS).replace(/^[\uDC00-\uDFFF]/, "")}`;
  if (tail && text.trim() !== "") out.push(`The end of its log${where}:`, "", ...(0,markdown/* codeBlock */.DV)(text), "");
  else if (tail) out.push(`Its log is empty${where}: the task printed nothing before it ended.`, "");
  return out;
}
function provenanceSection(plan, state, index, job) {
  let results = 0;
  let kept = 0;
  for (const p of plan.phases) {
    for (const t of p.tasks) {
      const last = state.tasks[t.id]?.attempts.at(-1);
      if (!t.output || last?.class !== "completed") continue;
      results++;
      if (last.kept?.length) kept++;
    }
  }
  if (results === 0) return [];
  const all = index === void 0 ? "" : job === void 0 ? ` All of them, one JSON line each: [${index}](${index}).` : ` All of them, one JSON line each: \`${index}\` in ${artifactRef(job)}.`;
  const keptLine = kept > 0 ? ` ${kept} of the ${results} results were kept, by choice (\`run --keep-changed\`), under a definition changed since they were made; their records say what changed.` : "";
  return [
    "",
    "## Provenance",
    "",
    `${results === 1 ? "The result has" : `Each of the ${results} results has`} beside it a record of what made it (\`.NAME.provenance.json\` in its directory: task, grid values, definition, attempt, where and when it ran, the manifest's commit); \`campaign provenance MANIFEST PATH\` prints it.${all}${keptLine}`,
    ...summary_codeLines(plan, state)
  ];
}
function summary_codeLines(plan, state) {
  const lines = [];
  for (const p of plan.phases) {
    if (p.code === void 0) continue;
    const ran = /* @__PURE__ */ new Map();
    for (const t of p.tasks) {
      const last = state.tasks[t.id]?.attempts.at(-1);
      if (last?.class === "completed" && last.code !== void 0) ran.set(last.code, (ran.get(last.code) ?? 0) + 1);
    }
    for (const [id, count] of [...ran].sort((a, b) => b[1] - a[1])) {
      const snapshot = state.code?.[id];
      const commit = snapshot?.commit ? `commit \`${snapshot.commit.slice(0, 12)}\`` : "no commit";
      const dirty = (snapshot?.dirty ?? []).filter((f) => (0,code/* underPaths */.De)(f, p.code.paths));
      const edits = dirty.length > 0 ? `, with uncommitted edits to ${dirty.map((f) => `\`${f}\``).join(", ")}` : "";
      lines.push(
        `- phase ${p.name}: ${count} result${count === 1 ? "" : "s"} ran code snapshot \`${id}\` (${commit}${edits})`
      );
    }
  }
  return lines.length > 0 ? ["", "The code each phase ran (`<workdir>/.campaign/code/<snapshot>/`):", "", ...lines] : [];
}
function adaptedRows(plan, state) {
  const rows = [];
  for (const t of plan.phases.flatMap((p) => [...p.smoke, ...p.tasks])) {
    for (const a of state.tasks[t.id]?.attempts ?? []) {
      if (!a.adapted || a.adapted.length === 0) continue;
      const result = a.class ?? "running";
      rows.push(`| ${t.id} | ${a.n} | ${(0,markdown/* tableCell */.xR)(result)} | ${(0,markdown/* tableCell */.xR)(a.adapted.join("; "))} |`);
    }
  }
  return rows;
}
function retimedRows(plan, state) {
  const rows = [];
  for (const t of plan.phases.flatMap((p) => [...p.smoke, ...p.tasks])) {
    const attempts = state.tasks[t.id]?.attempts ?? [];
    for (const [i, a] of attempts.entries()) {
      if (!a.resumed && a.retimed === void 0) continue;
      const how = a.resumed ? [continued(attempts, i), ...a.retimed === void 0 ? [] : [`walltime ${a.retimed}`]].join("; ") : a.retimed;
      const wall = a.walltimeSeconds === void 0 ? "" : (0,units/* formatDuration */.a3)(a.walltimeSeconds);
      rows.push(`| ${t.id} | ${a.n} | ${(0,markdown/* tableCell */.xR)(a.class ?? "running")} | ${wall} | ${(0,markdown/* tableCell */.xR)(how)} |`);
    }
  }
  return rows;
}
function continued(attempts, i) {
  const { before, what } = (0,continuation/* continuation */.w)(attempts, i);
  return [...before ? [`attempt ${before.n} ${(0,markdown/* inlineCode */.ti)(before.reason)}`] : [], what].join("; ");
}
function gateSection(p, state) {
  if (p.smoke.length === 0) return [];
  const gate = state.phases[p.name]?.gate;
  const out = ["", `## ${p.name}: smoke stage (${p.smoke.length} task${p.smoke.length === 1 ? "" : "s"})`, ""];
  if (!gate) return [...out, "The checklist has not been evaluated yet."];
  out.push(
    gate.passed ? "The checklist passed: the pipeline works, and the full arrays were released. Smoke results are not findings." : "The checklist failed: the full arrays were not released.",
    "",
    "| check | result | detail | if it fails |",
    "| --- | --- | --- | --- |"
  );
  for (const r of gate.results) {
    out.push(
      `| ${r.check} | ${r.passed ? "pass" : "**FAIL**"} | ${(0,markdown/* tableCell */.xR)((0,markdown/* inlineCode */.ti)(r.detail))} | ${(0,markdown/* tableCell */.xR)(r.otherwise ?? "")} |`
    );
  }
  return out;
}
function statusText(record) {
  const lines = record.phases.map(progressLine);
  for (const t of record.stopped.slice(0, 20)) lines.push(`  ${t.id}: ${t.reason ?? t.status}`);
  if (record.stopped.length > 20)
    lines.push(`  \u2026 and ${record.stopped.length - 20} more (campaign summary lists them)`);
  return lines.join("\n") + "\n";
}


;// CONCATENATED MODULE: ./lib/report/svg/phases.js


const BOX_W = 210;
const BOX_H = 74;
const COL = 280;
const ROW = 100;
const phases_LEFT = 24;
const TOP = 56;
const STATUS_COLORS = {
  completed: { fill: "#e3f4ea", stroke: COLORS.completed },
  failed: { fill: "#fbe5e4", stroke: COLORS.failed },
  blocked: { fill: "#eef1f4", stroke: COLORS.muted },
  waiting: { fill: COLORS.paper, stroke: COLORS.queued },
  smoke: { fill: "#e6effe", stroke: COLORS.running },
  gate: { fill: "#e6effe", stroke: COLORS.running },
  full: { fill: "#e6effe", stroke: COLORS.running }
};
function depths(plan) {
  const by = new Map(plan.phases.map((p) => [p.name, p]));
  const memo = /* @__PURE__ */ new Map();
  const depth = (name, seen) => {
    if (memo.has(name)) return memo.get(name);
    if (seen.has(name)) return 0;
    seen.add(name);
    const deps = by.get(name)?.dependsOn.filter((d2) => by.has(d2)) ?? [];
    const d = deps.length === 0 ? 0 : 1 + Math.max(...deps.map((x) => depth(x, seen)));
    memo.set(name, d);
    return d;
  };
  for (const p of plan.phases) depth(p.name, /* @__PURE__ */ new Set());
  return memo;
}
const phases_fit = (s, chars) => s.length > chars ? `${s.slice(0, chars - 1)}\u2026` : s;
function phasesSvg(plan, state) {
  const depth = depths(plan);
  const columns = [];
  for (const p of plan.phases) (columns[depth.get(p.name)] ??= []).push(p.name);
  const pos = /* @__PURE__ */ new Map();
  columns.forEach((names, column) => names.forEach((n, r) => pos.set(n, { x: phases_LEFT + column * COL, y: TOP + r * ROW })));
  const columnOf = (q) => Math.round((q.x - phases_LEFT) / COL);
  const counts = new Map(phase_counts_phaseCounts(plan, state).map((phaseCount) => [phaseCount.phase, phaseCount]));
  const width = phases_LEFT * 2 + (columns.length - 1) * COL + BOX_W;
  const height = TOP + Math.max(...columns.map((column) => column.length)) * ROW + 8;
  const body = [
    svg_text(16, 26, "Phases", { class: "heading" }),
    el("defs", {}, [
      el(
        "marker",
        { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto" },
        [el("path", { d: "M0,0L10,5L0,10z", fill: COLORS.muted })]
      )
    ])
  ];
  for (const p of plan.phases) {
    const to = pos.get(p.name);
    for (const d of p.dependsOn) {
      const from = pos.get(d);
      if (!from) continue;
      const x1 = from.x + BOX_W;
      const y1 = from.y + BOX_H / 2;
      const x2 = to.x - 2;
      const y2 = to.y + BOX_H / 2;
      const skipped = columnOf(to) - columnOf(from) - 1;
      const blocked = [...pos.values()].some(
        (q) => q.y === from.y && columnOf(q) > columnOf(from) && columnOf(q) < columnOf(to)
      );
      const level = skipped > 0 && blocked ? from.y + BOX_H + (ROW - BOX_H) / 2 : y1;
      const bend = x2 - (COL - BOX_W);
      const mx = (bend + x2) / 2;
      const run = skipped > 0 ? `M${x1},${y1}C${x1 + 20},${y1} ${x1 + 20},${level} ${x1 + 40},${level}H${bend}` : `M${x1},${y1}H${bend}`;
      body.push(
        el("path", {
          d: `${run}C${mx},${level} ${mx},${y2} ${x2},${y2}`,
          fill: "none",
          stroke: COLORS.muted,
          "stroke-width": 1.5,
          "marker-end": "url(#arrow)",
          class: "edge"
        })
      );
    }
  }
  for (const p of plan.phases) {
    const { x, y } = pos.get(p.name);
    const phaseCount = counts.get(p.name);
    const ps = state.phases[p.name];
    const status = ps?.status ?? "waiting";
    const colors = STATUS_COLORS[status] ?? STATUS_COLORS.waiting;
    const stage = status === "smoke" || status === "gate" ? " (smoke stage)" : "";
    const line = `${phaseCount.done}/${phaseCount.total} done${phaseCount.running ? `, ${phaseCount.running} running` : ""}${phaseCount.failed ? `, ${phaseCount.failed} failed` : ""}`;
    body.push(
      el("g", { class: `phase ${status}`, "data-phase": p.name }, [
        title(`${p.name}: ${status}${ps?.reason ? ` (${ps.reason})` : ""}`),
        el("rect", {
          x,
          y,
          width: BOX_W,
          height: BOX_H,
          rx: 8,
          fill: colors.fill,
          stroke: colors.stroke,
          "stroke-width": 2,
          ...status === "blocked" ? { "stroke-dasharray": "6 4" } : {}
        }),
        svg_text(x + 12, y + 22, phases_fit(p.name, 26), { style: "font-weight:600" }),
        svg_text(x + 12, y + 41, `${status}${stage}`, { fill: colors.stroke, class: "small status" }),
        svg_text(x + 12, y + 58, line, { class: "small muted" }),
        ...ps?.reason && (status === "blocked" || status === "failed") ? [svg_text(x + 12, y + BOX_H + 14, phases_fit(ps.reason, 40), { class: "small muted" })] : []
      ])
    );
  }
  return svgDocument(Math.max(width, 320), height, "Phases", body);
}


;// CONCATENATED MODULE: ./lib/report/svg/runtimes.js


const runtimes_WIDTH = 960;
const runtimes_LEFT = 220;
const RIGHT = 190;
const runtimes_TOP = 60;
const runtimes_ROW = 34;
const TOOLTIP_LIMIT = 2e3;
const DOT_LIMIT = 5e3;
function rows(plan, state) {
  const out = [];
  for (const p of plan.phases) {
    for (const a of p.arrays) {
      const label = `${p.name}${a.stage === "smoke" ? " \xB7 smoke" : ""}${a.stratum === "all" ? "" : ` \xB7 ${a.stratum}`}`;
      let row = out.find((r) => r.label === label && r.budget === a.budget.seconds);
      if (!row) {
        row = { label, budget: a.budget.seconds, points: [] };
        out.push(row);
      }
      for (const id of a.tasks) {
        for (const at of state.tasks[id]?.attempts ?? []) {
          if (!at.startedAt || !at.endedAt || at.class === void 0) continue;
          const seconds = (Date.parse(at.endedAt) - Date.parse(at.startedAt)) / 1e3;
          row.points.push({ task: id, seconds, walltime: at.walltimeSeconds ?? a.budget.seconds, cls: at.class });
        }
      }
    }
  }
  return out.filter((r) => r.points.length > 0);
}
function runtimesSvg(plan, state) {
  const rs = rows(plan, state);
  const heading = "Run time against walltime";
  const body = [svg_text(16, 26, heading, { class: "heading" })];
  if (rs.length === 0) {
    body.push(svg_text(16, runtimes_TOP, "No task has finished yet.", { class: "muted" }));
    return svgDocument(runtimes_WIDTH, runtimes_TOP + 30, heading, body);
  }
  body.push(
    svg_text(16, 44, "each dot one attempt, as a share of its walltime; box: fastest, median, slowest", {
      class: "small muted"
    })
  );
  const maxShare = Math.max(1.1, extent(rs.flatMap((r) => r.points.map((p) => p.seconds / p.walltime * 1.05)))[1]);
  const plotW = runtimes_WIDTH - runtimes_LEFT - RIGHT;
  const x = (share) => runtimes_LEFT + share / maxShare * plotW;
  const plotH = rs.length * runtimes_ROW;
  const step = niceStep(maxShare, 6);
  for (let s = 0; s <= maxShare + 1e-9; s += step) {
    body.push(
      el("line", { x1: x(s), y1: runtimes_TOP - 6, x2: x(s), y2: runtimes_TOP + plotH, stroke: COLORS.grid }),
      svg_text(x(s), runtimes_TOP + plotH + 16, `${Math.round(s * 100)}%`, { class: "small muted", "text-anchor": "middle" })
    );
  }
  const count = rs.reduce((n, r) => n + r.points.length, 0);
  const tooltips = count <= TOOLTIP_LIMIT;
  const merged = count > DOT_LIMIT;
  if (merged)
    body.push(
      svg_text(runtimes_WIDTH - 16, 26, `${count} attempts: one dot for all those of an outcome at the same pixel`, {
        class: "small muted",
        "text-anchor": "end"
      })
    );
  rs.forEach((r, i) => {
    const cy = runtimes_TOP + i * runtimes_ROW + runtimes_ROW / 2;
    const share = (p) => p.seconds / p.walltime;
    const shares = r.points.map(share).sort((a, b) => a - b);
    const slowestPoint = r.points.reduce((a, b) => share(b) > share(a) ? b : a);
    const mid = shares.length >> 1;
    const median = shares.length % 2 === 1 ? shares[mid] : (shares[mid - 1] + shares[mid]) / 2;
    const slowest = shares[shares.length - 1];
    const seconds = r.points.map((p) => p.seconds).sort((a, b) => a - b);
    const medianSeconds = seconds.length % 2 === 1 ? seconds[mid] : (seconds[mid - 1] + seconds[mid]) / 2;
    const parts = [
      el("rect", {
        x: 8,
        y: cy - runtimes_ROW / 2 + 2,
        width: runtimes_WIDTH - 16,
        height: runtimes_ROW - 4,
        fill: i % 2 === 0 ? "#f6f8fa" : COLORS.paper
      }),
      svg_text(runtimes_LEFT - 10, cy + 4, r.label, { "text-anchor": "end" }),
      el("rect", {
        x: x(shares[0]),
        y: cy - 7,
        width: Math.max(1.5, x(slowest) - x(shares[0])),
        height: 14,
        fill: "none",
        stroke: COLORS.muted,
        class: "range"
      }),
      el("line", { x1: x(median), y1: cy - 9, x2: x(median), y2: cy + 9, stroke: COLORS.ink, "stroke-width": 2 })
    ];
    const seen = /* @__PURE__ */ new Set();
    r.points.forEach((p, k) => {
      const at = `${Math.round(x(share(p)))} ${p.cls}`;
      if (merged && seen.has(at)) return;
      seen.add(at);
      const jitter = k * 7 % 9 - 4;
      parts.push(
        el(
          "circle",
          {
            cx: x(share(p)),
            cy: cy + jitter,
            r: 3.2,
            fill: classColor(p.cls),
            "fill-opacity": 0.85,
            class: `dot ${p.cls}`
          },
          tooltips ? [title(`${p.task}: ${(0,units/* formatDuration */.a3)(p.seconds)} of ${(0,units/* formatDuration */.a3)(p.walltime)} (${p.cls})`)] : []
        )
      );
    });
    const n = r.points.length;
    parts.push(
      svg_text(
        runtimes_WIDTH - RIGHT + 10,
        cy - 2,
        `slowest ${Math.round(slowest * 100)}% of ${(0,units/* formatDuration */.a3)(slowestPoint.walltime)}`,
        {
          class: "small",
          fill: slowest > 1 / 1.1 ? COLORS.failed : COLORS.ink
        }
      ),
      svg_text(runtimes_WIDTH - RIGHT + 10, cy + 11, `${n} attempt${n === 1 ? "" : "s"}, median ${(0,units/* formatDuration */.a3)(medianSeconds)}`, {
        class: "small muted"
      })
    );
    body.push(el("g", { class: "stratum", "data-label": r.label }, parts));
  });
  body.push(
    el("line", {
      x1: x(1),
      y1: runtimes_TOP - 12,
      x2: x(1),
      y2: runtimes_TOP + plotH + 4,
      stroke: COLORS.failed,
      "stroke-width": 2,
      "stroke-dasharray": "5 3",
      class: "walltime"
    }),
    svg_text(x(1), runtimes_TOP - 16, "walltime", { class: "small", fill: COLORS.failed, "text-anchor": "middle" }),
    svg_text(runtimes_LEFT + plotW / 2, runtimes_TOP + plotH + 34, "run time / walltime", { class: "small muted", "text-anchor": "middle" })
  );
  return svgDocument(runtimes_WIDTH, runtimes_TOP + plotH + 48, heading, body);
}


;// CONCATENATED MODULE: ./lib/report/svg/timeline.js


const timeline_LEFT = 190;
const timeline_RIGHT = 24;
const timeline_WIDTH = 960;
const timeline_TOP = 64;
const timeline_TOOLTIP_LIMIT = 2e3;
const BAR_LIMIT = 5e3;
const COLUMN = 3;
function timeline_pack(bars) {
  const lanes = [];
  for (const b of [...bars].sort((x, y) => x.submitted - y.submitted)) {
    const lane = lanes.find((l) => l[l.length - 1].end <= b.submitted);
    if (lane) lane.push(b);
    else lanes.push([b]);
  }
  return lanes;
}
function timelineSvg(plan, state) {
  const now = Date.parse(state.updated);
  const groups = [];
  for (const p of plan.phases) {
    for (const [stage, specs] of [
      ["smoke", p.smoke],
      ["full", p.tasks]
    ]) {
      const byStratum = /* @__PURE__ */ new Map();
      for (const t of specs) {
        const attempts = state.tasks[t.id]?.attempts ?? [];
        for (const a of attempts) {
          const submitted = Date.parse(a.submittedAt);
          const start = a.startedAt ? Date.parse(a.startedAt) : void 0;
          const end = a.endedAt ? Date.parse(a.endedAt) : Math.max(now, start ?? submitted);
          const cls = a.class ?? (start === void 0 ? "queued" : "running");
          const bars = byStratum.get(t.stratum) ?? [];
          bars.push({ task: t.id, attempt: a, submitted, ...start === void 0 ? {} : { start }, end, cls });
          byStratum.set(t.stratum, bars);
        }
      }
      for (const [stratum, bars] of byStratum) {
        const label = `${p.name}${stage === "smoke" ? " \xB7 smoke" : ""}${stratum === "all" ? "" : ` \xB7 ${stratum}`}`;
        groups.push({ label, bars });
      }
    }
  }
  const count = groups.reduce((n, g) => n + g.bars.length, 0);
  if (count === 0) {
    return svgDocument(timeline_WIDTH, timeline_TOP + 40, "Campaign timeline", [
      svg_text(16, 26, "Campaign timeline", { class: "heading" }),
      svg_text(16, timeline_TOP + 10, "No task has been submitted yet.", { class: "muted" })
    ]);
  }
  const [t0] = extent(groups.flatMap((g) => g.bars.map((b) => b.submitted)));
  const t1 = Math.max(t0 + 1e3, extent(groups.flatMap((g) => g.bars.map((b) => b.end)))[1]);
  const plotW = timeline_WIDTH - timeline_LEFT - timeline_RIGHT;
  const x = (ms) => timeline_LEFT + (ms - t0) / (t1 - t0) * plotW;
  const aggregated = count > BAR_LIMIT;
  const packed = aggregated ? [] : groups.map((g) => timeline_pack(g.bars));
  const lanes = packed.reduce((n, g) => n + g.length, 0);
  const laneH = Math.max(4, Math.min(18, Math.floor(640 / Math.max(1, lanes))));
  const groupH = Math.max(16, Math.min(64, Math.floor(640 / groups.length)));
  const heightOf = (i) => aggregated ? groupH : packed[i].length * laneH;
  const gap = 10;
  const plotH = groups.reduce((h, _, i) => h + heightOf(i) + gap, 0);
  const height = timeline_TOP + plotH + 48;
  const body = [
    svg_text(16, 26, "Campaign timeline", { class: "heading" }),
    ...aggregated ? [
      svg_text(
        timeline_LEFT + 440,
        26,
        `${count} attempts: each group shows how many ran at once, by how they ended, and how many waited (grey line)`,
        { class: "small muted", "text-anchor": "middle" }
      )
    ] : []
  ];
  const span = (t1 - t0) / 1e3;
  body.push(...legend());
  const step = timeStep(span, 8);
  for (let s = 0; s <= span + 1e-9; s += step) {
    const gx = x(t0 + s * 1e3);
    body.push(
      el("line", { x1: gx, y1: timeline_TOP - 4, x2: gx, y2: timeline_TOP + plotH, stroke: COLORS.grid }),
      svg_text(gx, timeline_TOP + plotH + 16, s === 0 ? "0" : (0,units/* formatDuration */.a3)(s), { class: "small muted", "text-anchor": "middle" })
    );
  }
  body.push(
    svg_text(timeline_LEFT + plotW / 2, timeline_TOP + plotH + 34, `time since the first submission (${new Date(t0).toISOString()})`, {
      class: "small muted",
      "text-anchor": "middle"
    })
  );
  let y = timeline_TOP;
  groups.forEach((g, i) => {
    const h = heightOf(i);
    body.push(
      el("rect", { x: 8, y, width: timeline_WIDTH - 16, height: h, fill: "#f6f8fa", class: "group" }),
      svg_text(timeline_LEFT - 8, y + Math.min(h, aggregated ? 16 : laneH) / 2 + 4, g.label, {
        "text-anchor": "end",
        class: "group-label"
      })
    );
    if (aggregated) body.push(...columns(g.bars, t0, t1, timeline_LEFT, plotW, y, h));
    else
      packed[i].forEach((lane, k) => {
        for (const b of lane) body.push(timeline_bar(b, x, y + k * laneH, laneH, count <= timeline_TOOLTIP_LIMIT));
      });
    y += h + gap;
  });
  return svgDocument(timeline_WIDTH, height, "Campaign timeline", body);
}
const STACK = ["completed", "failed", "timeout", "out_of_memory", "node_fail", "preempted", "running"];
function columns(bars, t0, t1, left, width, top, height) {
  const n = Math.max(1, Math.floor(width / COLUMN));
  const whole = /* @__PURE__ */ new Map();
  const edges = /* @__PURE__ */ new Map();
  const add = (cls, from, to) => {
    const [a, b] = [from, to].map((ms) => Math.min(n, Math.max(0, (ms - t0) / (t1 - t0) * n)));
    if (!(b > a)) return;
    let d = whole.get(cls);
    let e = edges.get(cls);
    if (!d || !e) {
      whole.set(cls, d = new Float64Array(n + 1));
      edges.set(cls, e = new Float64Array(n + 1));
    }
    const [fa, fb] = [Math.floor(a), Math.floor(b)];
    if (fa === fb) e[fa] += b - a;
    else {
      e[fa] += fa + 1 - a;
      e[fb] += b - fb;
      d[fa + 1]++;
      d[fb]--;
    }
  };
  for (const b of bars) {
    if (b.start === void 0) add("queued", b.submitted, b.end);
    else {
      if (b.start > b.submitted) add("queued", b.submitted, b.start);
      add(STACK.includes(b.cls) ? b.cls : "failed", b.start, b.end);
    }
  }
  const counts = /* @__PURE__ */ new Map();
  for (const [cls, d] of whole) {
    const e = edges.get(cls);
    const stacked = new Float64Array(n);
    for (let i = 0, run = 0; i < n; i++) stacked[i] = (run += d[i]) + e[i];
    counts.set(cls, stacked);
  }
  const queued = counts.get("queued") ?? new Float64Array(n);
  let ran = 0;
  let waited = 0;
  for (let i = 0; i < n; i++) {
    let sum = 0;
    for (const cls of STACK) sum += counts.get(cls)?.[i] ?? 0;
    ran = Math.max(ran, sum);
    waited = Math.max(waited, queued[i]);
  }
  const scale = (height - 4) / Math.max(1, ran);
  const out = [];
  for (let i = 0; i < n; i++) {
    let base = top + height;
    for (const cls of STACK) {
      const k = counts.get(cls)?.[i] ?? 0;
      if (k * scale < 0.05) continue;
      out.push(
        el("rect", {
          x: left + i * COLUMN,
          y: base - k * scale,
          width: COLUMN,
          height: k * scale,
          fill: classColor(cls)
        })
      );
      base -= k * scale;
    }
  }
  if (waited > 0.05) {
    const qy = (k) => top + height - k / waited * (height - 4);
    const d = Array.from(
      queued,
      (k, i) => `${i === 0 ? "M" : "L"}${left + i * COLUMN} ${Math.round(qy(k) * 10) / 10}h${COLUMN}`
    );
    out.push(el("path", { d: d.join(""), fill: "none", stroke: COLORS.queued, "stroke-width": 1.5, class: "queue" }));
  }
  const many = (v) => String(v >= 10 ? Math.round(v) : Math.round(v * 10) / 10);
  const said = `up to ${many(ran)} running${waited > 0 ? `, ${many(waited)} queued` : ""} at once`;
  return [
    el("g", { class: "columns" }, [title(`${bars.length} attempts; ${said}`), ...out]),
    svg_text(timeline_WIDTH - timeline_RIGHT, top + 12, said, { class: "small muted", "text-anchor": "end" })
  ];
}
function timeline_bar(b, x, top, laneH, tooltip) {
  const h = Math.max(2, laneH - 3);
  const y = top + (laneH - h) / 2;
  const runFrom = b.start ?? b.end;
  const parts = [];
  const tip = [
    `${b.task} attempt ${b.attempt.n}: ${b.cls}`,
    b.attempt.reason,
    b.attempt.node ? `on ${b.attempt.node}` : void 0,
    b.start !== void 0 ? `ran ${(0,units/* formatDuration */.a3)((b.end - b.start) / 1e3)}` : void 0,
    ...(b.attempt.adapted ?? []).map((a) => `ran with less: ${a}`)
  ].filter(Boolean).join("\n");
  if (runFrom > b.submitted)
    parts.push(
      el("rect", {
        x: x(b.submitted),
        y: y + h / 2 - 1,
        width: x(runFrom) - x(b.submitted),
        height: 2,
        fill: COLORS.queued
      })
    );
  if (b.start !== void 0) {
    const retry = b.attempt.n > 1;
    parts.push(
      el("rect", {
        x: x(b.start),
        y,
        width: Math.max(1.5, x(b.end) - x(b.start)),
        height: h,
        rx: Math.min(3, h / 3),
        fill: classColor(b.cls),
        ...retry ? { stroke: COLORS.ink, "stroke-width": 1.2 } : {}
      })
    );
    if (retry && h >= 9 && x(b.end) - x(b.start) > 16)
      parts.push(svg_text(x(b.start) + 3, y + h - 2.5, `\u21BB${b.attempt.n}`, { class: "small", fill: COLORS.paper }));
  }
  const failed = b.cls !== "completed" && b.cls !== "running" && b.cls !== "queued";
  if (failed) {
    const cx = x(b.end);
    const r = Math.max(2.5, Math.min(5, h / 2));
    const cy = y + h / 2;
    parts.push(
      el("path", {
        d: `M${cx - r},${cy - r}L${cx + r},${cy + r}M${cx - r},${cy + r}L${cx + r},${cy - r}`,
        stroke: COLORS.ink,
        "stroke-width": 1.6,
        class: "failure-mark"
      })
    );
  }
  return el("g", { class: `bar ${b.cls}${b.attempt.n > 1 ? " retry" : ""}`, "data-task": b.task }, [
    ...tooltip ? [title(tip)] : [],
    ...parts
  ]);
}
function legend() {
  const items = [
    ["completed", COLORS.completed],
    ["running", COLORS.running],
    ["failed", COLORS.failed],
    ["timeout", COLORS.timeout],
    ["out of memory", COLORS.out_of_memory],
    ["node failure", COLORS.node_fail],
    ["preempted", COLORS.preempted]
  ];
  const out = [];
  let lx = timeline_LEFT;
  for (const [label, color] of items) {
    out.push(
      el("rect", { x: lx, y: 36, width: 12, height: 10, rx: 2, fill: color }),
      svg_text(lx + 16, 45, label, { class: "small" })
    );
    lx += 28 + label.length * 6.4;
  }
  out.push(
    el("rect", {
      x: lx,
      y: 36,
      width: 12,
      height: 10,
      rx: 2,
      fill: COLORS.completed,
      stroke: COLORS.ink,
      "stroke-width": 1.2
    }),
    svg_text(lx + 16, 45, "retry (\u21BBn)", { class: "small" })
  );
  lx += 90;
  out.push(
    el("rect", { x: lx, y: 40, width: 14, height: 2, fill: COLORS.queued }),
    svg_text(lx + 18, 45, "queued", { class: "small" })
  );
  return out;
}


;// CONCATENATED MODULE: ./lib/report/pictures.js



function pictures(plan, state) {
  return [
    { file: "timeline.svg", caption: "Timeline: every attempt by phase and stratum", svg: timelineSvg(plan, state) },
    { file: "runtimes.svg", caption: "Run time against walltime, per stratum", svg: runtimesSvg(plan, state) },
    { file: "phases.svg", caption: "Phases and their state", svg: phasesSvg(plan, state) }
  ];
}


;// CONCATENATED MODULE: ./lib/app/pictures.js



async function writePictures(dir, plan, state) {
  await (0,promises_.mkdir)(dir, { recursive: true });
  const out = [];
  for (const p of pictures(plan, state)) {
    await (0,promises_.writeFile)((0,external_node_path_.join)(dir, p.file), p.svg);
    out.push({ file: p.file, caption: p.caption });
  }
  return out;
}


;// CONCATENATED MODULE: ./lib/report/results/aggregate.js
function stats(xs) {
  if (xs.length === 0) return void 0;
  const n = xs.length;
  const mean = xs.reduce((s, x) => s + x, 0) / n;
  let min = Infinity;
  let max = -Infinity;
  for (const x of xs) {
    min = Math.min(min, x);
    max = Math.max(max, x);
  }
  if (n < 2) return { mean, min, max };
  const std = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1));
  return { mean: Math.min(max, Math.max(min, mean)), std, sem: std / Math.sqrt(n), min, max };
}
const cellKey = (values, record) => JSON.stringify([Object.entries(values), record ?? null]);
function aggregate(tasks, metrics, replicates, perRecord) {
  const groups = /* @__PURE__ */ new Map();
  for (const t of tasks) {
    const values = without(t.values, replicates);
    const key = cellKey(values, void 0);
    const g = groups.get(key) ?? { values, tasks: [] };
    g.tasks.push(t);
    groups.set(key, g);
  }
  const out = [];
  for (const g of groups.values()) {
    const places = perRecord ? [...new Set(g.tasks.flatMap((t) => t.records.map((r) => r.index)))].sort((a, b) => a - b) : [void 0];
    for (const place of places.length > 0 ? places : [perRecord ? 1 : void 0]) {
      const present = [];
      const missing = [];
      for (const t of g.tasks) {
        const r = place === void 0 ? t.records[0] : t.records.find((x) => x.index === place);
        if (r !== void 0 && r.problem === void 0 && t.problem === void 0) present.push(r.values);
        else missing.push(`${replicateName(t, replicates)}: ${r?.problem ?? whyMissing(t, place)}`);
      }
      out.push({
        values: g.values,
        ...place === void 0 ? {} : { record: place },
        planned: g.tasks.length,
        n: present.length,
        missing,
        stats: Object.fromEntries(metrics.map((m) => [m, stats(present.map((v) => v[m]))]))
      });
    }
  }
  return out;
}
function without(values, axis) {
  if (axis === void 0) return values;
  const rest = {};
  for (const [k, v] of Object.entries(values)) if (k !== axis) rest[k] = v;
  return rest;
}
function replicateName(t, replicates) {
  return replicates !== void 0 && replicates in t.values ? `${replicates}=${String(t.values[replicates])}` : t.id;
}
function whyMissing(t, place) {
  if (t.status !== "completed") return t.problem ?? t.status;
  if (t.problem !== void 0) return t.problem;
  return place === void 0 ? "no result" : `no record ${place}`;
}


;// CONCATENATED MODULE: ./lib/report/results/table.js


const STATS = ["mean", "std", "sem", "min", "max"];
function cellTable(axes, cells, metrics, perRecord) {
  const result = [
    ...perRecord ? ["record"] : [],
    "status",
    "n",
    "planned",
    ...metrics.flatMap((m) => STATS.map((s) => `${m}_${s}`)),
    "missing"
  ];
  const rows = cells.map((cellResult) => [
    ...axes.map((a) => cellResult.values[a]),
    ...perRecord ? [cellResult.record] : [],
    cellResult.n === cellResult.planned ? "complete" : cellResult.n === 0 ? "missing" : "incomplete",
    cellResult.n,
    cellResult.planned,
    ...metrics.flatMap((m) => STATS.map((s) => cellResult.stats[m]?.[s])),
    cellResult.missing.length > 0 ? cellResult.missing.join("; ") : void 0
  ]);
  return { columns: [...axisColumns(axes, result), ...result], rows };
}
function taskTable(axes, tasks, metrics, perRecord) {
  const result = [
    ...perRecord ? ["record"] : [],
    "status",
    ...metrics,
    "attempt",
    "definition",
    "gpu_hours",
    "node",
    "problem"
  ];
  const rows = tasks.flatMap((t) => {
    const records = t.records.length > 0 ? t.records : [void 0];
    return records.map((r) => [
      ...axes.map((a) => t.values[a]),
      ...perRecord ? [r?.index] : [],
      t.status,
      ...metrics.map((m) => r?.values[m]),
      t.attempt,
      t.definition,
      t.gpuHours,
      t.node,
      r?.problem ?? t.problem
    ]);
  });
  return { columns: [...axisColumns(axes, result), ...result], rows };
}
function axisColumns(axes, result) {
  return axes.map((a) => result.includes(a) ? `grid.${a}` : a);
}
function renderTable(table, format) {
  switch (format) {
    case "csv":
      return writeCsv([table.columns, ...table.rows.map((r) => r.map((v) => v === void 0 ? "" : String(v)))]);
    case "jsonl":
      return table.rows.map((r) => JSON.stringify(Object.fromEntries(table.columns.map((column, i) => [column, r[i] ?? null]))) + "\n").join("");
    case "markdown": {
      const shown = (v) => v === void 0 ? "" : typeof v === "number" ? String(Number(v.toPrecision(6))) : (0,markdown/* tableCell */.xR)(String(v));
      return [
        `| ${table.columns.map(markdown/* tableCell */.xR).join(" | ")} |`,
        `| ${table.columns.map(() => "---").join(" | ")} |`,
        ...table.rows.map((r) => `| ${r.map(shown).join(" | ")} |`),
        ""
      ].join("\n");
    }
  }
}


;// CONCATENATED MODULE: ./lib/report/results/collect.js







const DECLARE = "results: { metrics: [loss], replicates: seed } in the phase (docs/RESULTS.md)";
function resultPhase(manifest, plan, name) {
  const declaring = manifest.phases.filter((p) => p.results !== void 0);
  let phase;
  if (name !== void 0) {
    phase = manifest.phases.find((p) => p.name === name);
    if (phase === void 0)
      throw new errors/* UserError */.yo({
        message: `${manifest.campaign} has no phase ${name}`,
        fix: `give one of ${manifest.phases.map((p) => p.name).join(", ")} to --phase`
      });
    if (phase.results === void 0)
      throw new errors/* UserError */.yo({
        message: `phase ${name} declares no results: campaign cannot tell which fields of its outputs are findings`,
        fix: `declare ${DECLARE}`
      });
  } else if (declaring.length === 0) {
    throw new errors/* UserError */.yo({
      message: `no phase of ${manifest.campaign} declares results: campaign cannot tell which fields of the outputs are findings`,
      fix: `declare ${DECLARE}`
    });
  } else if (declaring.length > 1) {
    throw new errors/* UserError */.yo({
      message: `phases ${declaring.map((p) => p.name).join(", ")} declare results`,
      fix: "name one with --phase"
    });
  } else phase = declaring[0];
  if (phase.output === void 0)
    throw new errors/* UserError */.yo({
      message: `phase ${phase.name} declares results but no output to read them from`,
      fix: "declare the output each task writes (output: results/${tag}.jsonl)"
    });
  return { phase, plan: plan.phases.find((p) => p.name === phase.name), results: phase.results };
}
function outputsToRead(manifest, r, state) {
  const paths = /* @__PURE__ */ new Map();
  for (const t of r.plan.tasks) {
    if (state.tasks[t.id]?.status !== "completed" || t.output === void 0 || staleResult(t, state)) continue;
    const inside = r.results.path === void 0 ? void 0 : (0,expand/* renderPath */.i7)(manifest, r.phase, r.results.path, t.values, t.tag);
    const path = inside === void 0 ? t.output : (0,expand/* containedPath */.fX)(`${t.output}/${inside}`);
    if (path !== void 0) paths.set(t.id, path);
  }
  return paths;
}
function staleResult(t, state) {
  const done = state.tasks[t.id]?.attempts.filter((a) => a.class === "completed").at(-1);
  const ranUnder = done === void 0 ? void 0 : (0,state_state/* definitionOf */.Fg)(done);
  return ranUnder !== void 0 && t.definition !== void 0 && ranUnder !== t.definition;
}
const STALE = "ran under an earlier definition: `campaign run` runs it again (--keep-changed keeps its result)";
function taskResults(r, state, paths, results) {
  const gpus = new Map(r.plan.arrays.flatMap((a) => a.tasks.map((id) => [id, a.resources.gpus])));
  return r.plan.tasks.map((t) => {
    const s = state.tasks[t.id];
    const done = s?.attempts.filter((a) => a.class === "completed").at(-1);
    const last = done ?? s?.attempts.at(-1);
    const base = {
      id: t.id,
      values: t.values,
      status: s?.status ?? "not run",
      records: [],
      ...last === void 0 ? {} : { attempt: last.n },
      ...last && (0,state_state/* definitionOf */.Fg)(last) !== void 0 ? { definition: (0,state_state/* definitionOf */.Fg)(last) } : {},
      ...last?.node === void 0 ? {} : { node: last.node },
      ...s === void 0 ? {} : { gpuHours: attemptsGpuHours(s.attempts, gpus.get(t.id) ?? 0) }
    };
    if (s?.status !== "completed") return s?.reason === void 0 ? base : { ...base, problem: s.reason };
    if (staleResult(t, state)) return { ...base, problem: STALE };
    const path = paths.get(t.id);
    if (path === void 0) return { ...base, problem: "its output path leaves the workdir" };
    const result = results.get(t.id);
    if (result === void 0) return { ...base, problem: `${path} is not there` };
    if ("problem" in result) {
      const hint = r.results.path === void 0 && /not a regular file/.test(result.problem);
      return {
        ...base,
        problem: `${path}: ${result.problem}${hint ? " (name the file inside with results.path)" : ""}`
      };
    }
    return { ...base, records: result.records };
  });
}
function resultsTable(r, tasks, perTask) {
  const perRecord = parseRecordRule(r.results.record).kind === "all";
  const axes = resultAxes(r);
  const cells = aggregate(tasks, r.results.metrics, r.results.replicates, perRecord);
  if (perTask) return { table: taskTable(axes, tasks, r.results.metrics, perRecord), cells };
  return { table: cellTable(cellAxes(r), cells, r.results.metrics, perRecord), cells };
}
function resultAxes(r) {
  return [...new Set(r.plan.tasks.flatMap((t) => Object.keys(t.values)))];
}
function cellAxes(r) {
  return resultAxes(r).filter((a) => a !== r.results.replicates);
}


;// CONCATENATED MODULE: ./lib/exec/store/kept-results.js



function keptResultsPath(stateDir, phase) {
  return (0,external_node_path_.join)(stateDir, "results", `${phase}.kept.json`);
}
async function loadKeptResults(stateDir, phase, warn) {
  const path = keptResultsPath(stateDir, phase);
  const text = await (0,promises_.readFile)(path, "utf8").catch((e) => {
    if (e.code !== "ENOENT") warn(`${path} cannot be read (${e.code ?? e.message}): every output is read again`);
    return void 0;
  });
  if (text === void 0) return void 0;
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    warn(`${path} is not JSON (cut short?): every output is read again`);
    return void 0;
  }
  const kept = KeptResults.safeParse(parsed);
  if (kept.success) return kept.data;
  warn(`${path} is not a kept gathering of this version: every output is read again`);
  return void 0;
}
async function saveKeptResults(stateDir, phase, kept, warn) {
  const path = keptResultsPath(stateDir, phase);
  const temp = `${path}.tmp-${process.pid}`;
  try {
    await (0,promises_.mkdir)((0,external_node_path_.join)(stateDir, "results"), { recursive: true });
    await (0,promises_.writeFile)(temp, JSON.stringify(kept));
    await (0,promises_.rename)(temp, path);
  } catch (e) {
    await (0,promises_.rm)(temp, { force: true }).catch(() => {
    });
    warn(
      `cannot keep the gathered results in ${path} (${e.message}): the next gathering reads every output again`
    );
  }
}


;// CONCATENATED MODULE: ./lib/app/gather-results.js






async function gatherResults(c, r, executor, paths, warn) {
  const rule = parseRecordRule(r.results.record);
  const { cluster, workdir } = c.manifest;
  const source = `${cluster.executor} ${(0,schema/* loginsOf */.Qm)(cluster).join(",")} ${workdir}`;
  const declaration = JSON.stringify({ metrics: r.results.metrics, record: r.results.record ?? "last" });
  const kept = await loadKeptResults(c.stateDir, r.phase.name, warn);
  const known = knownStamps(kept, source, declaration);
  const files = {};
  let read = 0;
  await executor.workdir.gather([...new Set(paths.values())], known, rule.kind === "last", (path, file) => {
    if (file.text === void 0 && file.problem === void 0) {
      const before = kept.files[path];
      files[path] = before;
      return;
    }
    read++;
    const result = file.problem !== void 0 ? { problem: file.problem } : outputResult(file.text, rule, r.results.metrics);
    files[path] = { stamp: file.stamp, result };
  });
  const unchanged = read === 0 && Object.keys(files).length === known.size;
  if (!unchanged) await saveKeptResults(c.stateDir, r.phase.name, { version: 1, source, declaration, files }, warn);
  return new Map([...paths].map(([id, path]) => [id, files[path]?.result]));
}
async function phaseResults(c, r, state, executor, warn) {
  const paths = outputsToRead(c.manifest, r, state);
  return taskResults(r, state, paths, await gatherResults(c, r, executor, paths, warn));
}


;// CONCATENATED MODULE: ./lib/app/write-summary.js













const TAILS = 50;
const TAIL_LINES = 20;
const PROVENANCE_INDEX = "provenance.jsonl";
const round2 = (hours) => Math.round(hours * 100) / 100;
async function campaignSummary(o) {
  return renderSummary(await gatherSummary(o));
}
async function gatherSummary(o) {
  const { plan, state, executor, beside } = o;
  const pictures = beside === void 0 ? [] : await writePictures(beside, plan, state);
  const provenance = beside === void 0 ? void 0 : await writeProvenanceIndex(beside, plan, state);
  const tails = executor ? await logTails(plan, executor, state) : /* @__PURE__ */ new Map();
  const results = executor ? await resultsSections(o, executor) : [];
  return { plan, state, tails, pictures, results, ...provenance === void 0 ? {} : { provenance } };
}
async function resultsSections(o, executor) {
  const { campaign: c, plan, state, beside } = o;
  const out = [];
  for (const phase of c.manifest.phases) {
    if (phase.results === void 0 || phase.output === void 0) continue;
    const r = resultPhase(c.manifest, plan, phase.name);
    if (!r.plan.tasks.some((t) => state.tasks[t.id]?.status === "completed")) continue;
    let tasks;
    try {
      tasks = await phaseResults(c, r, state, executor, o.warn);
    } catch (e) {
      if (!(e instanceof errors/* UserError */.yo || e instanceof transport/* LinkError */.R6)) throw e;
      out.push({ phase: phase.name, unavailable: e.message });
      continue;
    }
    const { table: cellTable, cells } = resultsTable(r, tasks, false);
    const axes = cellAxes(r);
    const section = {
      phase: phase.name,
      axes,
      metrics: r.results.metrics,
      ...r.results.replicates === void 0 ? {} : { replicates: r.results.replicates },
      cells
    };
    if (beside !== void 0) {
      const files = { cells: `results-${phase.name}.csv`, tasks: `results-${phase.name}-tasks.csv` };
      await (0,promises_.mkdir)(beside, { recursive: true });
      await (0,promises_.writeFile)((0,external_node_path_.join)(beside, files.cells), renderTable(cellTable, "csv"));
      await (0,promises_.writeFile)((0,external_node_path_.join)(beside, files.tasks), renderTable(resultsTable(r, tasks, true).table, "csv"));
      const metric = r.results.metrics[0];
      const plot = resultsPlot(axes, cells, metric, r.results.replicates);
      if (plot === void 0) section.files = files;
      else {
        const picture = { file: `results-${phase.name}.svg`, caption: `${metric} of ${phase.name}` };
        await (0,promises_.writeFile)((0,external_node_path_.join)(beside, picture.file), resultsSvg(plot, `${phase.name}: ${metric}`));
        section.files = { ...files, picture };
      }
    }
    out.push(section);
  }
  return out;
}
async function summaryRecord(plan, state, executor) {
  const tails = executor ? await logTails(plan, executor, state) : void 0;
  const stopped = Object.entries(state.tasks).filter(([, t]) => t.status === "failed" || t.status === "stuck").map(([id, t]) => ({
    id,
    status: t.status,
    ...t.reason ? { reason: t.reason } : {},
    attempts: t.attempts.length,
    ...tails?.has(id) ? { log: tails.get(id) } : {}
  }));
  const hours = phaseGpuHours(plan, state);
  const phases = phaseCounts(plan, state).map((counts, i) => ({
    ...counts,
    gpuHours: { used: round2(hours[i].used), budget: round2(hours[i].budget) }
  }));
  return { campaign: plan.campaign, complete: allCompleted(plan, state), phases, stopped };
}
async function logTails(plan, executor, state) {
  const tails = /* @__PURE__ */ new Map();
  for (const p of plan.phases) {
    for (const t of [...p.smoke, ...p.tasks]) {
      const s = state.tasks[t.id];
      const last = s?.attempts[s.attempts.length - 1];
      if (last && (s.status === "failed" || s.status === "stuck") && tails.size < TAILS) {
        const text = (await executor.readLog(t, last)).split("\n").slice(-TAIL_LINES).join("\n");
        const path = await executor.logPath(t, last);
        tails.set(t.id, { text, ...path === void 0 ? {} : { path } });
      }
    }
  }
  return tails;
}
const PIECE_CHARS = 4 * 2 ** 20;
async function writeProvenanceIndex(dir, plan, state) {
  const lines = (0,provenance/* provenanceIndex */.Kf)(plan, state);
  let next = lines.next();
  if (next.done) return void 0;
  await (0,promises_.mkdir)(dir, { recursive: true });
  const file = await (0,promises_.open)((0,external_node_path_.join)(dir, PROVENANCE_INDEX), "w");
  try {
    let piece = [];
    let chars = 0;
    for (; !next.done; next = lines.next()) {
      piece.push(next.value);
      chars += next.value.length;
      if (chars >= PIECE_CHARS) {
        await file.write(piece.join(""));
        [piece, chars] = [[], 0];
      }
    }
    if (piece.length > 0) await file.write(piece.join(""));
  } finally {
    await file.close();
  }
  return PROVENANCE_INDEX;
}


;// CONCATENATED MODULE: ./lib/report/job-summary.js




const JOB_SUMMARY_BYTES = 1024 * 1024 - 64 * 1024;
function jobSummary({ heading, summary, artifact, now }) {
  const where = artifact === void 0 ? "" : `State artifact: ${artifact.url === void 0 ? `\`${artifact.name}\`` : `[${artifact.name}](${artifact.url})`} (its summary.md is this summary, with its pictures and tables beside it)

`;
  const head = `${heading}

${where}`;
  const bytes = JOB_SUMMARY_BYTES - new TextEncoder().encode(head).length;
  const level = /^#*/.exec(heading)[0].length;
  const body = summary_renderSummary(summary, { ...artifact === void 0 ? {} : { artifact }, now, bytes });
  return head + underHeading(body, level);
}
function underHeading(markdown, level) {
  const lines = markdown.split("\n");
  if (/^# /.test(lines[0] ?? "")) lines.splice(0, lines[1] === "" ? 2 : 1);
  let fence;
  return lines.map((line) => {
    const opens = /^(`{3,}|~{3,})/.exec(line)?.[1];
    if (opens !== void 0 && (fence === void 0 || opens[0] === fence[0] && opens.length >= fence.length))
      fence = fence === void 0 ? opens : void 0;
    else if (fence === void 0 && /^#{1,5} /.test(line)) return "#".repeat(Math.max(0, level - 1)) + line;
    return line;
  }).join("\n");
}
function gateView(phase, state) {
  const ps = state.phases[phase.name];
  const gate = ps?.gate;
  if (gate && gate.definitions !== (0,plan_plan/* smokeDefinitions */.cN)(phase)) {
    return {
      conclusion: "pending",
      title: "The checklist has not judged this definition yet",
      text: `The smoke checklist of ${phase.name} was last evaluated (${gate.passed ? "passed" : "failed"}, ${gate.at}) for smoke tasks whose definition has changed since: a new smoke stage must run before it says anything of this one.`
    };
  }
  if (!gate) {
    const where = ps ? `the phase is ${ps.status}${ps.reason ? `: ${(0,markdown/* inlineCode */.ti)(ps.reason)}` : ""}` : "the phase has not started";
    const stopped = ps?.status === "blocked" || ps?.status === "failed";
    return {
      conclusion: stopped ? "failure" : "pending",
      title: stopped ? "The checklist cannot be evaluated" : "The checklist has not been evaluated yet",
      text: `The smoke checklist of ${phase.name} has not been evaluated: ${where}.`
    };
  }
  const passed = gate.results.filter((r) => r.passed).length;
  const rows = gate.results.map(
    (r) => `| ${r.check} | ${r.passed ? "pass" : "**FAIL**"} | ${(0,markdown/* tableCell */.xR)((0,markdown/* inlineCode */.ti)(r.detail))} | ${(0,markdown/* tableCell */.xR)(r.otherwise ?? "")} |`
  );
  return {
    conclusion: gate.passed ? "success" : "failure",
    title: `${passed} of ${gate.results.length} checks passed`,
    text: [
      gate.passed ? "The smoke checklist passed: the pipeline works, and the full arrays may be released. Smoke results are not findings." : "The smoke checklist failed: the full arrays are not released.",
      "",
      "| check | result | detail | if it fails |",
      "| --- | --- | --- | --- |",
      ...rows,
      ""
    ].join("\n")
  };
}
function jobOutcome(plan, state, phase) {
  const counts = phase_counts_phaseCounts(plan, state);
  const mine = counts.filter((x) => phase === void 0 || x.phase === phase);
  const bad = mine.filter((x) => x.status === "failed" || x.status === "blocked");
  return {
    counts,
    complete: summary_allCompleted(plan, state),
    mine,
    ...bad.length === 0 ? {} : { failure: bad.map((x) => `${x.phase} ${x.status}${x.reason ? `: ${x.reason}` : ""}`).join("; ") }
  };
}


// EXTERNAL MODULE: ./lib/action/report.js
var report = __webpack_require__(72674);
;// CONCATENATED MODULE: ./lib/action/state-commands.js
















async function runOnState(s, c, services, ctx) {
  const ssh = {
    ...sshSecretsFrom(process.env),
    ...s["ssh-key"] === void 0 ? {} : { key: s["ssh-key"] },
    ...s["ssh-passphrase"] === void 0 ? {} : { passphrase: s["ssh-passphrase"] }
  };
  switch (s.command) {
    case "check": {
      const items = await preflightCampaign(c, {
        ssh,
        since: () => (/* @__PURE__ */ new Date()).toISOString(),
        warn: (m) => toolkit/* core */.I.warning(m)
      });
      const text = renderPreflight(items, c.plan.phases);
      toolkit/* core */.I.info(text);
      await (0,report/* writeSummary */.Sy)(`## Pre-flight of ${c.manifest.campaign}

${(0,markdown/* codeBlock */.DV)(text.trimEnd()).join("\n")}
`);
      const failed = items.filter((i) => i.status === "fail");
      return failed.length === 0 ? void 0 : `the pre-flight found ${failed.length} ${failed.length === 1 ? "problem" : "problems"} (see the job summary)`;
    }
    case "advance":
      return advance(s, c, services, ctx, ssh);
    case "gate":
      return gate(s.phase, c, services);
    case "summary":
      return summary(c, services, ssh);
  }
}
async function restore(c, services) {
  const ref = await services.state.restoreNewest(c.manifest.campaign, c.stateDir);
  const merged = ref?.merged?.length ? `, merged with ${ref.merged.join(", ")} (jobs of that run that ran beside it)${ref.uncovered ? `; no job of it drove ${ref.uncovered.join(", ")}, kept as ${ref.name} holds them` : ""}` : "";
  toolkit/* core */.I.info(
    ref ? `restored the state from ${ref.name} (run ${ref.runId})${merged}` : "no earlier state: the campaign starts"
  );
  return { state: await storedState(c), ref };
}
async function advance(s, c, services, ctx, ssh) {
  const clock = ctx.clock ?? systemClock;
  const deadline = clock.now() + s.budget * 1e3;
  const scope = { ...s.phase === void 0 ? {} : { phase: s.phase }, stage: s.stage };
  const { state: restored } = await restore(c, services);
  await (0,merge_saves/* recordDrove */.Sn)(c.stateDir, s.phase);
  const scopes = s.resume ? restored.parked?.scopes ?? [] : [scope];
  if (scopes.length === 0) {
    toolkit/* core */.I.notice(`campaign ${c.manifest.campaign}: no job parked, so there is nothing to resume`);
    toolkit/* core */.I.setOutput("parked", "false");
    await switchResume(s, services, false);
    return void 0;
  }
  let passes = 0;
  let saved = false;
  const cancelling = new AbortController();
  const cancel = () => {
    if (!cancelling.signal.aborted) toolkit/* core */.I.warning("the job is being cancelled: saving the state after this pass");
    cancelling.abort();
  };
  process.on("SIGINT", cancel);
  process.on("SIGTERM", cancel);
  try {
    const options = {
      holder: `campaign action advance ${s.manifest}`,
      ssh,
      clock,
      deadline,
      signal: cancelling.signal,
      ...ctx.commit === void 0 ? {} : { commit: ctx.commit },
      retryFailed: s["retry-failed"],
      keepChanged: s["keep-changed"],
      job: { scopes, resume: s.resume, ...s.park === void 0 ? {} : { park: s.park } },
      retryFix: "run the workflow again with retry-failed: true",
      note: (m) => toolkit/* core */.I.notice(m),
      warn: (m) => toolkit/* core */.I.warning(m),
      onPass: () => passes++
    };
    return await runCampaign(c, options, async ({ plan, state, driven, continues, executor }) => {
      toolkit/* core */.I.setOutput("parked", String(driven.parked !== void 0 && !continues));
      if (driven.parked && !continues)
        toolkit/* core */.I.notice(
          `nothing is due for ${s.park / 60} min: the state is saved and this job ends; a scheduled resume goes on`
        );
      const summary2 = await summaryInput(c, plan, state, executor);
      await (0,promises_.writeFile)((0,external_node_path_.join)(c.stateDir, "summary.md"), summary_renderSummary(summary2));
      const artifact = await services.state.save(c.manifest.campaign, c.stateDir, ctx.job);
      saved = true;
      toolkit/* core */.I.setOutput("state-artifact", artifact.name);
      const handOver = s.handover === "dispatch" && !cancelling.signal.aborted && (continues || !driven.atRest && driven.parked === void 0);
      const refused = handOver ? await handOverRun(
        services,
        continues ? "a resumed stage came to rest: a new run of the workflow begins the next" : "the budget of this job ran out before its part of the campaign came to rest: a new run goes on",
        s["campaign-workflow"]
      ) : void 0;
      if (continues && !handOver)
        toolkit/* core */.I.notice('a resumed stage came to rest: the next one begins with the next push or "Run workflow"');
      toolkit/* core */.I.setOutput("handed-over", String(handOver && refused === void 0));
      let unscheduled;
      if (state.parked && !s.resume) unscheduled = await switchResume(s, services, true);
      else if (!state.parked && s.resume) unscheduled = await switchResume(s, services, false);
      await publishGates(c, plan, state, services, scope);
      const failure = await state_commands_report(c, scope, summary2, artifact);
      return refused ?? unscheduled ?? failure;
    });
  } catch (e) {
    if (passes > 0 && !saved) {
      await services.state.save(c.manifest.campaign, c.stateDir, ctx.job).catch((err) => toolkit/* core */.I.warning(`the state could not be saved either: ${err.message}`));
    }
    throw e;
  } finally {
    process.off("SIGINT", cancel);
    process.off("SIGTERM", cancel);
  }
}
async function switchResume(s, services, on) {
  const workflow = s["resume-workflow"];
  if (workflow === void 0 || s.handover !== "dispatch") return void 0;
  try {
    await services.schedule.set(workflow, on);
    toolkit/* core */.I.info(on ? `${workflow} enabled: its schedule resumes what parked` : `${workflow} disabled: nothing is parked`);
    return void 0;
  } catch (e) {
    if (!(e instanceof errors/* UserError */.yo)) throw e;
    if (!on) {
      toolkit/* core */.I.warning(`nothing is parked, and ${workflow} could not be disabled (${e.message}): its schedule runs on`);
      return void 0;
    }
    (0,report/* annotate */.fz)((0,report/* problemFindings */.Ek)(e));
    return `the job parked, and its scheduled resume could not be enabled: ${e.message}; the state is saved: enable ${workflow} in the repository's Actions tab, or run it by hand`;
  }
}
async function handOverRun(services, why, workflow) {
  try {
    await services.handover.dispatchAgain({}, workflow);
    toolkit/* core */.I.notice(why);
    return void 0;
  } catch (e) {
    if (!(e instanceof errors/* UserError */.yo)) throw e;
    (0,report/* annotate */.fz)((0,report/* problemFindings */.Ek)(e));
    return `the budget ran out and the next run could not be started: ${e.message}; the state is saved, and a run started by hand (or by a schedule) goes on from it`;
  }
}
async function publishGates(c, plan, state, services, scope) {
  if (scope.stage === "full") return;
  for (const p of plan.phases) {
    if (p.smoke.length === 0 || scope.phase !== void 0 && p.name !== scope.phase) continue;
    const ps = state.phases[p.name];
    if (!ps || ps.status === "waiting" && !ps.gate) continue;
    const view = gateView(p, state);
    await services.gate.publish({ campaign: c.manifest.campaign, phase: p.name, ...view });
  }
}
async function gate(phase, c, services) {
  const { state } = await restore(c, services);
  const p = c.plan.phases.find((x) => x.name === phase);
  if (p.smoke.length === 0) {
    toolkit/* core */.I.setOutput("passed", "true");
    return void 0;
  }
  const view = gateView(p, state);
  await services.gate.publish({ campaign: c.manifest.campaign, phase, ...view });
  toolkit/* core */.I.setOutput("passed", String(view.conclusion === "success"));
  await (0,report/* writeSummary */.Sy)(`## ${phase}: smoke gate

**${view.title}**

${view.text}
`);
  return view.conclusion === "success" ? void 0 : `the smoke gate of ${phase} did not pass: ${view.title}`;
}
async function summary(c, services, ssh) {
  const { state, ref } = await restore(c, services);
  let executor;
  try {
    executor = (await openExecutor(c, { ssh, since: () => state.created, warn: (m) => toolkit/* core */.I.warning(m), checkCluster: false })).executor;
  } catch (e) {
    toolkit/* core */.I.warning(`no log tails in the summary: the cluster could not be reached (${e.message})`);
  }
  try {
    return await state_commands_report(c, { stage: "all" }, await summaryInput(c, c.plan, state, executor), ref);
  } finally {
    await executor?.close();
  }
}
async function summaryInput(c, plan, state, executor) {
  return gatherSummary({ campaign: c, plan, state, executor, beside: c.stateDir, warn: (m) => toolkit/* core */.I.warning(m) });
}
function artifactPage(ref) {
  const repository = process.env.GITHUB_REPOSITORY;
  if (!repository) return void 0;
  const server = (process.env.GITHUB_SERVER_URL ?? "https://github.com").replace(/\/+$/, "");
  return `${server}/${repository}/actions/runs/${ref.runId}/artifacts/${ref.id}`;
}
async function state_commands_report(c, scope, summary2, artifact) {
  const { plan, state } = summary2;
  const outcome = jobOutcome(plan, state, scope.phase);
  const where = scope.phase ? ` (${scope.phase}, ${scope.stage === "all" ? "every stage" : `${scope.stage} stage`})` : "";
  const url = artifact === void 0 ? void 0 : artifactPage(artifact);
  await (0,report/* writeSummary */.Sy)(
    jobSummary({
      heading: `## campaign ${c.manifest.campaign}${where}`,
      summary: summary2,
      ...artifact === void 0 ? {} : { artifact: { name: artifact.name, ...url === void 0 ? {} : { url } } },
      now: (/* @__PURE__ */ new Date()).toISOString()
    })
  );
  toolkit/* core */.I.setOutput("complete", String(outcome.complete));
  toolkit/* core */.I.setOutput("counts", JSON.stringify(outcome.counts));
  if (scope.phase !== void 0) toolkit/* core */.I.setOutput("phase-status", outcome.mine[0]?.status ?? "waiting");
  return outcome.failure;
}



/***/ }),

/***/ 1915:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  T: () => (/* binding */ manifestFiles)
});

// UNUSED EXPORTS: lintManifests

// EXTERNAL MODULE: external "node:fs/promises"
var promises_ = __webpack_require__(51455);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(76760);
// EXTERNAL MODULE: ./lib/errors.js
var errors = __webpack_require__(96020);
// EXTERNAL MODULE: ./lib/app/code.js
var code = __webpack_require__(23546);
// EXTERNAL MODULE: ./lib/app/load.js
var load = __webpack_require__(46167);
// EXTERNAL MODULE: ./lib/lint/shared-outputs.js
var shared_outputs = __webpack_require__(27071);
// EXTERNAL MODULE: external "node:child_process"
var external_node_child_process_ = __webpack_require__(31421);
// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(73024);
// EXTERNAL MODULE: external "node:url"
var external_node_url_ = __webpack_require__(73136);
// EXTERNAL MODULE: ./node_modules/zod/v4/classic/schemas.js + 15 modules
var schemas = __webpack_require__(85584);
// EXTERNAL MODULE: ./lib/lint/rules/index.js + 52 modules
var rules = __webpack_require__(80456);
// EXTERNAL MODULE: ./lib/workflow/render.js
var render = __webpack_require__(71621);
;// CONCATENATED MODULE: ./lib/app/workflow-file.js








const releaseStamp = schemas/* object */.Ikc({
  commit: schemas/* string */.YjP().regex(/^[0-9a-f]{40}$/),
  tag: schemas/* string */.YjP().regex(/^v[0-9A-Za-z.+-]+$/)
});
function releaseUses() {
  let text;
  try {
    text = (0,external_node_fs_.readFileSync)((0,external_node_path_.join)((0,external_node_path_.dirname)((0,external_node_path_.dirname)((0,external_node_url_.fileURLToPath)(import.meta.url))), "release.json"), "utf8");
  } catch (e) {
    if (e.code === "ENOENT") return "campaign-tools/campaign@v0";
    throw e;
  }
  const { commit, tag } = releaseStamp.parse(JSON.parse(text));
  return `campaign-tools/campaign@${commit} # ${tag}`;
}
const DEFAULT_OPTIONS = {
  uses: releaseUses(),
  branch: "main",
  budget: "5h",
  runsOn: "ubuntu-latest"
};
async function defaultOptions(file) {
  return { ...DEFAULT_OPTIONS, uses: await defaultUses(repoRoot(file)) };
}
async function defaultUses(root) {
  if (root === void 0 || !existsSync(join(root, "action.yml")) || !existsSync(join(root, "lint", "action.yml")))
    return DEFAULT_OPTIONS.uses;
  const url = await new Promise((done) => {
    execFile(
      "git",
      ["--git-dir", join(root, ".git"), "remote", "get-url", "origin"],
      { timeout: 1e4 },
      (e, out) => done(e ? void 0 : out.trim())
    );
  });
  const repo = url === void 0 ? void 0 : githubRepo(url);
  return repo === void 0 ? DEFAULT_OPTIONS.uses : `${repo}@v1`;
}
function githubRepo(url) {
  const m = /^(?:(?:https?|ssh|git):\/\/)?(?:[^@/]+@)?github\.com[:/]([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+?)(?:\.git)?\/?$/.exec(
    url
  );
  return m ? `${m[1]}/${m[2]}` : void 0;
}
function repoRoot(file) {
  for (let dir = dirname(resolve(file)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return void 0;
  }
}
async function workflowTarget(file, campaign) {
  const root = repoRoot(file) ?? process.cwd();
  const path = join(root, workflowPath(campaign));
  const manifest = relative(root, resolve(file)).split(sep).join("/");
  const text = await readFile(path, "utf8").catch(() => void 0);
  if (text === void 0) return { root, path, manifest };
  const options = readOptions(text);
  return { root, path, manifest, existing: { text, ...options ? { options } : {} } };
}
async function workflow_file_staleWorkflowFinding(file, ctx) {
  if (repoRoot(file) === void 0) return void 0;
  const target = await workflowTarget(file, ctx.manifest.campaign);
  if (!target.existing) return void 0;
  const shown = relative(process.cwd(), target.path) || target.path;
  const finding = (message) => ({
    rule: "workflow-stale",
    severity: "error",
    message,
    position: ctx.source.at(["campaign"]),
    fix: `run campaign workflow ${file}`
  });
  if (!target.existing.options) return finding(`${shown} was not written by \`campaign workflow\``);
  for (const rule of WORKFLOW_RULES) {
    const [f] = rule.check(ctx, target.existing.options);
    if (f) return { rule: rule.id, ...f, severity: f.severity ?? rule.severity };
  }
  let expected;
  try {
    expected = renderWorkflows(ctx.plan, { ...target.existing.options, manifest: target.manifest });
  } catch (e) {
    return finding(`${shown} cannot be written again: ${e.message}`);
  }
  for (const { path, text } of expected) {
    const at = join(target.root, path);
    const committed = at === target.path ? target.existing.text : await readFile(at, "utf8").catch(() => void 0);
    const named = relative(process.cwd(), at) || at;
    if (committed === void 0) return finding(`${named}, the campaign's scheduled resume, is missing`);
    if (committed !== text)
      return finding(`${named} no longer matches this manifest (its phases, dependencies or path changed)`);
  }
  return void 0;
}


;// CONCATENATED MODULE: ./lib/app/lint-files.js







async function manifestFiles(paths, given) {
  const files = [];
  for (const p of paths) {
    const st = await (0,promises_.stat)(p).catch(() => void 0);
    if (!st) {
      throw new errors/* UserError */.yo({
        message: `${given}: ${p} does not exist`,
        fix: "give manifest files, or directories holding them"
      });
    }
    if (!st.isDirectory()) files.push(p);
    else for (const name of (await (0,promises_.readdir)(p)).sort()) if (/\.ya?ml$/.test(name)) files.push((0,external_node_path_.join)(p, name));
  }
  return files;
}
async function lintManifests(files, checkWorkflow) {
  const findings = [];
  const sound = [];
  for (const file of files) {
    const linted = await lintWithRepository(file, await readManifest(file)).catch((e) => {
      if (!(e instanceof UserError)) throw e;
      findings.push(
        ...e.problems.map((p) => ({
          rule: "code",
          severity: "error",
          message: p.message,
          position: p.position ?? { file, line: 1, column: 1 },
          ...p.fix ? { fix: p.fix } : {}
        }))
      );
      return void 0;
    });
    if (linted === void 0) continue;
    const { result } = linted;
    findings.push(...result.findings);
    if (result.context) sound.push(campaignOutputs(file, result.context));
    const stale = checkWorkflow && result.context && await staleWorkflowFinding(file, result.context);
    if (stale) findings.push(stale);
  }
  return [...findings, ...sharedOutputFindings(sound)];
}



/***/ }),

/***/ 31687:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   dO: () => (/* binding */ keptTasks),
/* harmony export */   el: () => (/* binding */ definitionChangeLine),
/* harmony export */   x6: () => (/* binding */ definitionChanges)
/* harmony export */ });
/* harmony import */ var _plan_code_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(42778);
/* harmony import */ var _plan_definition_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(1230);
/* harmony import */ var _state_state_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(95824);



const ENDED = /* @__PURE__ */ new Set(["completed", "failed", "stuck"]);
function stagesOf(phase) {
  const full = new Set(phase.tasks.map((t) => t.id));
  return [
    ["smoke", phase.smoke.filter((t) => !full.has(t.id))],
    ["full", phase.tasks]
  ];
}
function definitionChanges(state, plan) {
  const out = [];
  for (const phase of plan.phases) {
    for (const [stage, specs] of stagesOf(phase)) {
      const change = { phase: phase.name, stage, ended: [], running: [], parts: [] };
      const parts = /* @__PURE__ */ new Set();
      const codeFiles = /* @__PURE__ */ new Set();
      for (const spec of specs) {
        const t = state.tasks[spec.id];
        const last = t?.attempts.at(-1);
        const ranUnder = last === void 0 ? void 0 : (0,_state_state_js__WEBPACK_IMPORTED_MODULE_2__/* .definitionOf */ .Fg)(last);
        if (!t || !last || ranUnder === void 0 || ranUnder === spec.definition) continue;
        if (ENDED.has(t.status)) change.ended.push({ id: spec.id, completed: t.status === "completed" });
        else if (t.status === "submitted" || t.status === "running") change.running.push(spec.id);
        else continue;
        const before = (0,_state_state_js__WEBPACK_IMPORTED_MODULE_2__/* .stageDefinitionOf */ .Vk)(last);
        const recorded = before === void 0 ? void 0 : state.definitions?.[before];
        for (const p of (0,_plan_definition_js__WEBPACK_IMPORTED_MODULE_1__/* .changedParts */ .Ty)(recorded, phase.definitions[spec.stage].parts)) parts.add(p);
        const ran = last.code === void 0 ? void 0 : state.code?.[last.code];
        if (ran !== void 0 && phase.code !== void 0 && plan.code !== void 0)
          for (const f of (0,_plan_code_js__WEBPACK_IMPORTED_MODULE_0__/* .changedCodeFiles */ .he)(ran.files, plan.code.files, phase.code.paths)) codeFiles.add(f);
      }
      change.parts = [...parts];
      if (codeFiles.size > 0) change.codeFiles = [...codeFiles].sort();
      if (change.ended.length + change.running.length > 0) out.push(change);
    }
  }
  return out;
}
function definitionChangeLine(definitionChange, keep) {
  const where = `phase ${definitionChange.phase}${definitionChange.stage === "smoke" ? " (smoke stage)" : ""}`;
  const what = `${definitionChange.parts.join(", ")} changed${definitionChange.codeFiles ? ` (${fileList(definitionChange.codeFiles)})` : ""}`;
  const completed = definitionChange.ended.filter((e) => e.completed).length;
  const others = definitionChange.ended.length - completed;
  const lines = [];
  if (keep && completed > 0)
    lines.push(`${completed} completed task${s(completed)} kept as they are, by --keep-changed (recorded with them)`);
  else if (definitionChange.ended.length > 0)
    lines.push(
      `${definitionChange.ended.length} task${s(definitionChange.ended.length)} will run again` + (others > 0 && completed > 0 ? ` (${completed} completed, ${others} failed)` : "")
    );
  if (keep && others > 0) lines.push(`${others} failed task${s(others)} stay failed (--retry-failed runs them)`);
  if (definitionChange.running.length > 0)
    lines.push(
      `${definitionChange.running.length} running under the earlier definition; run again once they end to run them anew`
    );
  return `${where}: ${what}: ${lines.join("; ")}`;
}
const keptTasks = (changes) => changes.flatMap((ch) => ch.ended.filter((e) => e.completed).map((e) => e.id));
const s = (n) => n === 1 ? "" : "s";
function fileList(files) {
  const shown = files.slice(0, 5).join(", ");
  return files.length > 5 ? `${shown} and ${files.length - 5} more` : shown;
}



/***/ }),

/***/ 47884:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   FD: () => (/* binding */ renderGeneration),
/* harmony export */   sO: () => (/* binding */ staleGenerationError),
/* harmony export */   ux: () => (/* binding */ parseGeneration),
/* harmony export */   xu: () => (/* binding */ generationStep)
/* harmony export */ });
/* unused harmony export generationPath */
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(96020);

function generationPath(executor, campaign) {
  return `.campaign/${executor}/${campaign}/generation`;
}
function renderGeneration(generation) {
  return `${generation}
`;
}
function parseGeneration(text) {
  const line = text?.split("\n", 1)[0]?.trim();
  return line ? line : void 0;
}
function generationStep(followed, created, recorded) {
  if (recorded === void 0) return { do: "record", generation: followed ?? created };
  if (followed === void 0 || followed === recorded) return { do: "follow", generation: recorded };
  return { do: "stale", recorded };
}
function staleGenerationError(recorded, movedTo) {
  return new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .UserError */ .yo({
    message: `the campaign was started afresh by another controller at ${recorded}; the state here was of the old generation and is now in ${movedTo}, and nothing of it was sent again`,
    fix: "run again without --fresh to follow the new generation (its tasks are found where they run, never sent twice)"
  });
}



/***/ }),

/***/ 48792:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   WU: () => (/* binding */ scopeAtRest),
/* harmony export */   YC: () => (/* binding */ scopeActions),
/* harmony export */   qo: () => (/* binding */ startScopedRun)
/* harmony export */ });
/* unused harmony export WHOLE */
/* harmony import */ var _state_state_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(95824);
/* harmony import */ var _start_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(95860);


const WHOLE = { stage: "all" };
function covers(scope, phase, stage) {
  const one = (s) => (s.phase === void 0 || s.phase === phase) && (s.stage === "all" || s.stage === stage);
  return "stage" in scope ? one(scope) : scope.some(one);
}
function scopeActions(actions, scope) {
  const out = [];
  for (const a of actions) {
    if (a.type === "hold") {
      out.push(a);
      continue;
    }
    if (a.type !== "submit") {
      if (covers(scope, a.phase, "smoke")) out.push(a);
      continue;
    }
    const submissions = a.submissions.filter((s) => covers(scope, s.array.phase, s.array.stage));
    if (submissions.length > 0) out.push({ ...a, submissions });
  }
  return out;
}
function scopeAtRest(plan, state, scopedActions, scope) {
  if (scopedActions.length > 0) return false;
  for (const p of plan.phases) {
    for (const [stage, specs] of [
      ["smoke", p.smoke],
      ["full", p.tasks]
    ]) {
      if (!covers(scope, p.name, stage)) continue;
      for (const t of specs) {
        const s = state.tasks[t.id]?.status;
        if (s !== void 0 && (_state_state_js__WEBPACK_IMPORTED_MODULE_0__/* .ACTIVE */ .Hc.has(s) || s === "retrying")) return false;
      }
    }
  }
  return true;
}
function startScopedRun(state, plan, scope, opts) {
  const kept = (0,_start_js__WEBPACK_IMPORTED_MODULE_1__/* .startRun */ .AD)(state, plan, { ...opts, retryFailed: false });
  if (!opts.retryFailed) return kept;
  const retried = (0,_start_js__WEBPACK_IMPORTED_MODULE_1__/* .startRun */ .AD)(state, plan, { ...opts, retryFailed: true });
  const tasks = { ...kept.tasks };
  for (const p of plan.phases) {
    for (const t of p.smoke)
      if (covers(scope, p.name, "smoke") && retried.tasks[t.id]) tasks[t.id] = retried.tasks[t.id];
    for (const t of p.tasks)
      if (covers(scope, p.name, "full") && retried.tasks[t.id]) tasks[t.id] = retried.tasks[t.id];
  }
  return { ...kept, tasks };
}



/***/ }),

/***/ 95860:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   AD: () => (/* binding */ startRun),
/* harmony export */   AH: () => (/* binding */ checklistsChanged),
/* harmony export */   HU: () => (/* binding */ checklistChangedWarning)
/* harmony export */ });
/* harmony import */ var _plan_plan_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(12796);
/* harmony import */ var _judge_checklist_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(96631);
/* harmony import */ var _state_task_index_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(68505);
/* harmony import */ var _copies_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(3023);
/* harmony import */ var _definition_changes_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(31687);





function checklistsChanged(state, plan) {
  return plan.phases.filter((p) => {
    const gate = state.phases[p.name]?.gate;
    return gate && !gate.passed && gate.checklist !== void 0 && gate.checklist !== (0,_judge_checklist_js__WEBPACK_IMPORTED_MODULE_3__/* .checklistKey */ .AK)(p.checklist);
  }).map((p) => p.name);
}
const checklistChangedWarning = (phase) => `phase ${phase}: its checklist changed after it failed the smoke stage; the smoke stage runs again under the new one (a checklist is fixed before the smoke runs, never fitted to its results)`;
function startRun(state, plan, opts) {
  const phases = {};
  const tasks = (0,_state_task_index_js__WEBPACK_IMPORTED_MODULE_1__/* .copyTasks */ .QC)(state.tasks);
  let definitions = state.definitions;
  const reset = (id) => {
    const t = tasks[id];
    if (!t) return;
    const last = t.attempts[t.attempts.length - 1]?.n ?? 0;
    (0,_state_task_index_js__WEBPACK_IMPORTED_MODULE_1__/* .setTask */ .Ee)(tasks, id, { status: "pending", attempts: t.attempts, retryFrom: last });
  };
  const regated = /* @__PURE__ */ new Map();
  for (const change of (0,_definition_changes_js__WEBPACK_IMPORTED_MODULE_2__/* .definitionChanges */ .x6)(state, plan)) {
    const phase = plan.phases.find((p) => p.name === change.phase);
    const smokeIds = new Set(phase.smoke.map((t) => t.id));
    const specs = new Map([...phase.smoke, ...phase.tasks].map((t) => [t.id, t]));
    for (const { id, completed } of change.ended) {
      const touchesGate = smokeIds.has(id);
      if (!opts.keepChanged) {
        reset(id);
        if (touchesGate) regated.set(phase.name, "drop");
        continue;
      }
      if (!completed) continue;
      const spec = specs.get(id);
      const stage = phase.definitions[spec.stage];
      const t = tasks[id];
      const last = t.attempts.at(-1);
      const kept = { definition: spec.definition, stageDefinition: stage.id, at: opts.now ?? state.updated };
      const a = (0,_copies_js__WEBPACK_IMPORTED_MODULE_4__/* .amended */ .P3)(last, { kept: [...last.kept ?? [], { ...kept, changed: change.parts }] });
      (0,_state_task_index_js__WEBPACK_IMPORTED_MODULE_1__/* .setTask */ .Ee)(tasks, id, (0,_copies_js__WEBPACK_IMPORTED_MODULE_4__/* .amended */ .P3)(t, { attempts: (0,_copies_js__WEBPACK_IMPORTED_MODULE_4__/* .replaced */ .$3)(t.attempts, t.attempts.length - 1, a) }));
      if (definitions?.[stage.id] === void 0) definitions = { ...definitions, [stage.id]: stage.parts };
      if (touchesGate && regated.get(phase.name) !== "drop") regated.set(phase.name, "keep");
    }
  }
  const changed = new Set(checklistsChanged(state, plan));
  for (const [name, p] of Object.entries(state.phases)) {
    const { gate, preconditions, ...rest } = p;
    const again = regated.get(name);
    const planned = plan.phases.find((x) => x.name === name);
    let held = gate?.passed && again !== "drop" ? gate : void 0;
    if (held && again === "keep" && planned) held = { ...held, definitions: (0,_plan_plan_js__WEBPACK_IMPORTED_MODULE_0__/* .smokeDefinitions */ .cN)(planned) };
    phases[name] = {
      ...rest,
      ...held ? { gate: held } : {},
      ...preconditions && preconditions.missing.length === 0 ? { preconditions } : {}
    };
    if ((opts.retryFailed || changed.has(name)) && gate && !gate.passed)
      for (const t of planned?.smoke ?? []) reset(t.id);
  }
  for (const [id, t] of Object.entries(tasks)) {
    if (t.status === "blocked") {
      (0,_state_task_index_js__WEBPACK_IMPORTED_MODULE_1__/* .setTask */ .Ee)(tasks, id, {
        status: "pending",
        attempts: t.attempts,
        ...t.retryFrom === void 0 ? {} : { retryFrom: t.retryFrom }
      });
    } else if (opts.retryFailed && (t.status === "failed" || t.status === "stuck")) reset(id);
    else if (t.status === "failed" && t.attempts.at(-1)?.class === "disk_full") reset(id);
  }
  const code = state.code === void 0 ? void 0 : usedSnapshots(state.code, tasks);
  return {
    ...state,
    phases,
    tasks,
    ...definitions === void 0 ? {} : { definitions },
    ...code === void 0 ? {} : { code }
  };
}
function usedSnapshots(code, tasks) {
  const used = /* @__PURE__ */ new Set();
  for (const t of Object.values(tasks)) for (const a of t.attempts) if (a.code !== void 0) used.add(a.code);
  return Object.fromEntries(Object.entries(code).filter(([id]) => used.has(id)));
}



/***/ }),

/***/ 13388:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   $8: () => (/* binding */ activeJobs),
/* harmony export */   PM: () => (/* binding */ step),
/* harmony export */   Re: () => (/* binding */ diskFullTasks),
/* harmony export */   ev: () => (/* binding */ atRest)
/* harmony export */ });
/* harmony import */ var _plan_executor_kinds_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(89036);
/* harmony import */ var _plan_dependency_order_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(3527);
/* harmony import */ var _state_events_js__WEBPACK_IMPORTED_MODULE_6__ = __webpack_require__(98432);
/* harmony import */ var _state_placement_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(43490);
/* harmony import */ var _state_task_index_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(68505);
/* harmony import */ var _state_state_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(95824);
/* harmony import */ var _copies_js__WEBPACK_IMPORTED_MODULE_5__ = __webpack_require__(3023);







function step(state, plan, now, capacity, ended = /* @__PURE__ */ new Set()) {
  let tasks = state.tasks;
  const own = () => tasks === state.tasks ? tasks = (0,_state_task_index_js__WEBPACK_IMPORTED_MODULE_2__/* .copyTasks */ .QC)(tasks) : tasks;
  const set = (id, t) => (0,_state_task_index_js__WEBPACK_IMPORTED_MODULE_2__/* .setTask */ .Ee)(own(), id, t);
  const phases = { ...state.phases };
  let definitions = state.definitions ?? {};
  let code = state.code ?? {};
  const actions = [];
  let room = capacity;
  if ((0,_state_task_index_js__WEBPACK_IMPORTED_MODULE_2__/* .indexOf */ .qh)(tasks).completeFor !== plan) {
    for (const p of plan.phases) {
      for (const t of p.smoke) if (!tasks[t.id]) set(t.id, { status: "pending", attempts: [] });
      for (const t of p.tasks) if (!tasks[t.id]) set(t.id, { status: "pending", attempts: [] });
    }
    (0,_state_task_index_js__WEBPACK_IMPORTED_MODULE_2__/* .indexOf */ .qh)(tasks).completeFor = plan;
  }
  const hold = pauseOnFullDisk(tasks, set, _plan_executor_kinds_js__WEBPACK_IMPORTED_MODULE_0__/* .EXECUTOR_KINDS */ .q[plan.executor].queues);
  if (hold) actions.push({ type: "hold", ...hold });
  for (const phase of (0,_plan_dependency_order_js__WEBPACK_IMPORTED_MODULE_4__/* .dependenciesFirst */ .I)(plan.phases, (p) => p.dependsOn)) {
    const prev = phases[phase.name] ?? { status: "waiting" };
    const next = decidePhase(phase, prev, phases, tasks);
    if (next.submitFrom) {
      const perJob = tasksPerJob(phase);
      const jobs = phaseRoom(plan, phase, tasks, room, ended);
      const due = dueSubmissions(plan, next.submitFrom, tasks, now, jobs * perJob);
      const { submissions, taken } = perJob === 1 ? { submissions: due, taken: due.length } : withinJobs(due, jobs);
      room -= taken;
      if (submissions.length > 0) actions.push({ type: "submit", submissions });
      for (const s of submissions) {
        const d = phase.definitions[s.task.stage];
        if (definitions[d.id] === void 0) definitions = { ...definitions, [d.id]: d.parts };
      }
      if (submissions.length > 0 && plan.code !== void 0 && code[plan.code.id] === void 0) {
        const { id, ...record } = plan.code;
        code = { ...code, [id]: record };
      }
    }
    if (next.action) actions.push(next.action);
    if (next.block) {
      for (const stage of [phase.smoke, phase.tasks]) {
        for (const t of stage) {
          const ts = tasks[t.id];
          if (!_state_state_js__WEBPACK_IMPORTED_MODULE_3__/* .TERMINAL */ .ff.has(ts.status) && !_state_state_js__WEBPACK_IMPORTED_MODULE_3__/* .ACTIVE */ .Hc.has(ts.status))
            set(t.id, (0,_copies_js__WEBPACK_IMPORTED_MODULE_5__/* .amended */ .P3)(ts, { status: "blocked", reason: next.state.reason }));
        }
      }
    }
    phases[phase.name] = next.state;
  }
  const samePhases = JSON.stringify(phases) === JSON.stringify(state.phases);
  const sameDefinitions = definitions === (state.definitions ?? {});
  const sameCode = code === (state.code ?? {});
  if (tasks === state.tasks && samePhases && sameDefinitions && sameCode) return { state, actions };
  return {
    state: {
      ...state,
      tasks,
      phases: samePhases ? state.phases : phases,
      ...sameDefinitions ? {} : { definitions },
      ...sameCode ? {} : { code },
      updated: now > state.updated ? now : state.updated
    },
    actions
  };
}
function diskFullTasks(state) {
  return [...(0,_state_task_index_js__WEBPACK_IMPORTED_MODULE_2__/* .indexOf */ .qh)(state.tasks).diskFullIds()];
}
function pauseOnFullDisk(tasks, set, queued) {
  const index = (0,_state_task_index_js__WEBPACK_IMPORTED_MODULE_2__/* .indexOf */ .qh)(tasks);
  const full = [...index.diskFullIds()];
  if (full.length === 0) return void 0;
  const more = full.length > 1 ? ` and ${full.length - 1} more` : "";
  const reason = `paused: the disk is full (${full[0]}${more}); free space and run again`;
  for (const id of [...index.ids("pending"), ...index.ids("retrying")])
    set(id, (0,_copies_js__WEBPACK_IMPORTED_MODULE_5__/* .amended */ .P3)(tasks[id], { status: "blocked", reason }));
  const waiting = queued ? [...index.ids("submitted")] : [];
  if (waiting.length === 0) return void 0;
  return {
    tasks: waiting.map((id) => ({ task: id, attempt: tasks[id].attempts.at(-1).n })),
    reason: `held: taken out of the queue while the disk is full (${full[0]}${more}); sent again by the next run`
  };
}
function decidePhase(phase, prev, phases, tasks) {
  const keep = {
    ...prev.gate ? { gate: prev.gate } : {},
    ...prev.preconditions ? { preconditions: prev.preconditions } : {}
  };
  const at = (status, reason) => ({
    ...keep,
    status,
    ...reason ? { reason } : {}
  });
  for (const dep of phase.dependsOn) {
    const d = phases[dep];
    if (d?.status === "failed" || d?.status === "blocked") {
      return { state: at("blocked", `dependency ${dep} ${d.status}${d.reason ? `: ${d.reason}` : ""}`), block: true };
    }
  }
  const waitingOn = phase.dependsOn.filter((dep) => phases[dep]?.status !== "completed");
  if (waitingOn.length > 0) return { state: at("waiting", `waiting for ${waitingOn.join(", ")}`) };
  if (phase.preconditions.length > 0 && !prev.preconditions) {
    return {
      state: at("waiting", "checking preconditions"),
      action: { type: "check_preconditions", phase: phase.name }
    };
  }
  if (prev.preconditions && prev.preconditions.missing.length > 0) {
    const shown = prev.preconditions.missing.slice(0, 3).join(", ");
    const more = prev.preconditions.missing.length > 3 ? ` and ${prev.preconditions.missing.length - 3} more` : "";
    return { state: at("blocked", `precondition missing: ${shown}${more}`), block: true };
  }
  if (phase.smoke.length > 0 && !prev.gate?.passed) {
    if (!phase.smoke.every((t) => _state_state_js__WEBPACK_IMPORTED_MODULE_3__/* .TERMINAL */ .ff.has(tasks[t.id].status))) {
      return { state: at("smoke"), submitFrom: { phase, stage: "smoke" } };
    }
    if (!prev.gate) return { state: at("gate"), action: { type: "evaluate_gate", phase: phase.name } };
    const failed = prev.gate.results.filter((r) => !r.passed);
    const why = failed.map((r) => `${r.check}: ${r.detail}${r.otherwise ? ` \u2192 ${r.otherwise}` : ""}`).join("; ");
    return { state: at("blocked", `smoke checklist failed: ${why}`), block: true };
  }
  let bad = 0;
  for (const t of phase.tasks) {
    const s = tasks[t.id];
    if (!_state_state_js__WEBPACK_IMPORTED_MODULE_3__/* .TERMINAL */ .ff.has(s.status)) return { state: at("full"), submitFrom: { phase, stage: "full" } };
    if (s.status !== "completed") bad++;
  }
  if (bad === 0) return { state: at("completed") };
  return { state: at("failed", `${bad} of ${phase.tasks.length} tasks did not complete`) };
}
function dueSubmissions(plan, from, tasks, now, room) {
  if (room <= 0) return [];
  const index = (0,_state_task_index_js__WEBPACK_IMPORTED_MODULE_2__/* .indexOf */ .qh)(tasks);
  const due = [];
  for (const status of ["pending", "retrying"]) {
    for (const id of index.ids(status)) {
      const slot = (0,_state_placement_js__WEBPACK_IMPORTED_MODULE_1__/* .placement */ .o)(plan, id, from.stage);
      if (slot === void 0 || slot.array.phase !== from.phase.name) continue;
      const t = tasks[id];
      if (status === "pending" || t.notBefore === void 0 || t.notBefore <= now) due.push({ slot, t });
    }
  }
  due.sort((a, b) => a.slot.order - b.slot.order || a.slot.index - b.slot.index);
  return due.slice(0, room).map(({ slot: { spec, array, index: index2 }, t }) => {
    const last = t.attempts[t.attempts.length - 1];
    const mem = t.nextMemBytes ?? last?.memBytes ?? array.resources.memBytes;
    const wall = t.nextWalltime;
    const budget = wall && {
      ...array.budget,
      seconds: wall.seconds,
      partition: wall.partition ?? array.budget.partition,
      arithmetic: wall.why
    };
    return {
      task: spec,
      attempt: (last?.n ?? 0) + 1,
      // The array as this attempt is sent in it: with its own walltime where it has one.
      array: budget ? { ...array, budget } : array,
      index: index2,
      ...t.resume ? { resume: true } : {},
      stageDefinition: from.phase.definitions[spec.stage].id,
      ...plan.code === void 0 ? {} : { code: plan.code.id },
      ...mem === void 0 ? {} : { memBytes: mem },
      ...avoid(t)
    };
  });
}
function phaseRoom(plan, phase, tasks, room, ended) {
  if (phase.maxParallel === void 0) return room;
  const index = (0,_state_task_index_js__WEBPACK_IMPORTED_MODULE_2__/* .indexOf */ .qh)(tasks);
  const sent = /* @__PURE__ */ new Set();
  for (const status of _state_state_js__WEBPACK_IMPORTED_MODULE_3__/* .ACTIVE */ .Hc)
    for (const id of index.ids(status))
      if (!ended.has(id) && (0,_state_placement_js__WEBPACK_IMPORTED_MODULE_1__/* .placement */ .o)(plan, id)?.array.phase === phase.name) sent.add(jobOf(plan, tasks, id));
  return Math.min(room, phase.maxParallel - sent.size);
}
function withinJobs(due, jobs) {
  const held = /* @__PURE__ */ new Map();
  const submissions = [];
  let taken = 0;
  for (const s of due) {
    const per = s.array.packing?.tasks ?? 1;
    const group = (0,_state_events_js__WEBPACK_IMPORTED_MODULE_6__/* .submissionGroup */ .m)(s);
    const n = held.get(group) ?? 0;
    const more = n % per === 0 ? 1 : 0;
    if (taken + more > jobs) continue;
    taken += more;
    held.set(group, n + 1);
    submissions.push(s);
  }
  return { submissions, taken };
}
function tasksPerJob(phase) {
  return Math.max(1, ...phase.arrays.map((a) => a.packing?.tasks ?? 1));
}
function jobOf(plan, tasks, id) {
  const element = (0,_state_placement_js__WEBPACK_IMPORTED_MODULE_1__/* .packedElement */ .L)(plan, tasks[id], id);
  return element === void 0 ? id : `\0${element.handle}`;
}
function activeJobs(plan, tasks) {
  const index = (0,_state_task_index_js__WEBPACK_IMPORTED_MODULE_2__/* .indexOf */ .qh)(tasks);
  const jobs = /* @__PURE__ */ new Set();
  for (const status of _state_state_js__WEBPACK_IMPORTED_MODULE_3__/* .ACTIVE */ .Hc) for (const id of index.ids(status)) jobs.add(jobOf(plan, tasks, id));
  return jobs.size;
}
function avoid(t) {
  const nodes = [...new Set(t.attempts.flatMap((a) => a.class === "node_fail" && a.node ? [a.node] : []))];
  return nodes.length > 0 ? { avoidNodes: nodes } : {};
}
function atRest(state, actions) {
  if (actions.length > 0) return false;
  return (0,_state_task_index_js__WEBPACK_IMPORTED_MODULE_2__/* .indexOf */ .qh)(state.tasks).count([..._state_state_js__WEBPACK_IMPORTED_MODULE_3__/* .ACTIVE */ .Hc, "retrying"]) === 0;
}



/***/ }),

/***/ 88906:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  H: () => (/* binding */ CampaignController),
  checkedState: () => (/* binding */ checkedState),
  loadState: () => (/* binding */ loadState)
});

// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(76760);
// EXTERNAL MODULE: ./lib/errors.js
var errors = __webpack_require__(96020);
// EXTERNAL MODULE: ./lib/manifest/expand.js
var expand = __webpack_require__(73941);
// EXTERNAL MODULE: ./lib/manifest/template.js
var template = __webpack_require__(23775);
// EXTERNAL MODULE: ./lib/plan/plan.js
var plan = __webpack_require__(12796);
// EXTERNAL MODULE: ./lib/judge/checklist.js
var checklist = __webpack_require__(96631);
// EXTERNAL MODULE: ./lib/state/placement.js
var placement = __webpack_require__(43490);
// EXTERNAL MODULE: ./lib/state/provenance.js
var provenance = __webpack_require__(96642);
// EXTERNAL MODULE: ./lib/decide/policy.js
var policy = __webpack_require__(72540);
// EXTERNAL MODULE: ./lib/state/task-index.js
var task_index = __webpack_require__(68505);
;// CONCATENATED MODULE: ./lib/decide/reconcile.js

function completedOutputs(state, plan) {
  const completed = (0,task_index/* indexOf */.qh)(state.tasks).ids("completed");
  const out = /* @__PURE__ */ new Map();
  for (const phase of plan.phases)
    for (const t of phase.tasks) if (t.output !== void 0 && completed.has(t.id)) out.set(t.id, t.output);
  return out;
}
function outputsGone(state, gone) {
  if (gone.size === 0) return state;
  const tasks = (0,task_index/* copyTasks */.QC)(state.tasks);
  for (const [id, path] of gone) {
    const t = tasks[id];
    (0,task_index/* setTask */.Ee)(tasks, id, { ...t, status: "failed", reason: `its output ${path} was gone when the run resumed` });
  }
  return { ...state, tasks };
}
function outputsGoneWarning(gone, retryHow) {
  const [id, path] = [...gone][0];
  const more = gone.size > 1 ? ` and ${gone.size - 1} more` : "";
  return `${gone.size} completed task${gone.size === 1 ? "" : "s"} no longer ha${gone.size === 1 ? "s its output" : "ve their outputs"} (${id}: ${path}${more}): marked failed; ${retryHow} to run ${gone.size === 1 ? "it" : "them"} again`;
}


// EXTERNAL MODULE: ./lib/decide/scope.js
var scope = __webpack_require__(48792);
// EXTERNAL MODULE: ./lib/state/state.js
var state_state = __webpack_require__(95824);
// EXTERNAL MODULE: ./lib/decide/generation.js
var generation = __webpack_require__(47884);
// EXTERNAL MODULE: ./lib/decide/copies.js
var copies = __webpack_require__(3023);
// EXTERNAL MODULE: ./lib/decide/retry.js
var retry = __webpack_require__(23418);
;// CONCATENATED MODULE: ./lib/decide/apply.js



function definedBy(e) {
  return {
    ...e.definition === void 0 ? {} : { definition: e.definition },
    ...e.stageDefinition === void 0 ? {} : { stageDefinition: e.stageDefinition },
    ...e.commit === void 0 ? {} : { commit: e.commit },
    ...e.code === void 0 ? {} : { code: e.code }
  };
}
function applyEvents(state, events, policy, owned) {
  if (events.length === 0) return state;
  let tasks = state.tasks;
  let copy = tasks !== owned;
  const phases = { ...state.phases };
  let updated = state.updated;
  for (const e of events) {
    updated = e.at > updated ? e.at : updated;
    if (e.type === "gate" || e.type === "preconditions") {
      const prev2 = phases[e.phase] ?? { status: "waiting" };
      phases[e.phase] = e.type === "gate" ? {
        ...prev2,
        gate: {
          passed: e.results.every((r) => r.passed),
          at: e.at,
          results: e.results,
          checklist: e.checklist,
          definitions: e.definitions
        }
      } : { ...prev2, preconditions: { at: e.at, missing: e.missing } };
      continue;
    }
    const prev = tasks[e.task];
    if (!prev) continue;
    const next = applyTaskEvent(prev, e, policy);
    if (next === prev) continue;
    if (copy) {
      tasks = (0,task_index/* copyTasks */.QC)(tasks);
      copy = false;
    }
    (0,task_index/* setTask */.Ee)(tasks, e.task, next);
  }
  return { ...state, tasks, phases, updated };
}
function applyTaskEvent(t, e, policy) {
  const i = t.attempts.findIndex((a) => a.n === e.attempt);
  switch (e.type) {
    case "submitted": {
      if (i >= 0) return t;
      const attempts = (0,copies/* appended */.YP)(t.attempts, {
        n: e.attempt,
        submittedAt: e.at,
        handle: e.handle,
        ...e.memBytes === void 0 ? {} : { memBytes: e.memBytes },
        ...e.log === void 0 ? {} : { log: e.log },
        ...e.walltimeSeconds === void 0 ? {} : { walltimeSeconds: e.walltimeSeconds },
        ...e.gpus === void 0 ? {} : { gpus: e.gpus },
        ...t.resume ? { resumed: true } : {},
        ...t.nextWalltime ? { retimed: t.nextWalltime.why } : {},
        ...definedBy(e)
      });
      return (0,copies/* renewed */.Fv)(t, { status: "submitted", attempts });
    }
    case "submit_failed": {
      if (i >= 0) return t;
      const attempts = (0,copies/* appended */.YP)(t.attempts, {
        n: e.attempt,
        submittedAt: e.at,
        endedAt: e.at,
        class: "failed",
        reason: e.reason,
        ...definedBy(e)
      });
      return (0,copies/* renewed */.Fv)(t, { status: "failed", attempts, reason: `could not start: ${e.reason}` });
    }
    case "unstarted": {
      if (i < 0 || t.attempts[i].class !== void 0) return t;
      const a = (0,copies/* amended */.P3)(t.attempts[i], { endedAt: e.at, class: "cancelled", reason: e.reason, unstarted: true });
      return (0,copies/* renewed */.Fv)(t, { status: "pending", attempts: (0,copies/* replaced */.$3)(t.attempts, i, a) });
    }
    case "queued":
      return i < 0 || t.status !== "submitted" ? t : (0,copies/* amended */.P3)(t, { waiting: e.waiting });
    case "started": {
      if (i < 0 || t.status !== "submitted") return t;
      const a = (0,copies/* amended */.P3)(t.attempts[i], { startedAt: e.at, ...e.node === void 0 ? {} : { node: e.node } });
      return (0,copies/* amended */.P3)(t, { waiting: void 0, status: "running", attempts: (0,copies/* replaced */.$3)(t.attempts, i, a) });
    }
    case "finished": {
      if (i < 0 || t.attempts[i].class !== void 0) return t;
      const a = (0,copies/* amended */.P3)(t.attempts[i], {
        endedAt: e.at,
        class: e.class,
        ...e.exitCode === void 0 ? {} : { exitCode: e.exitCode },
        ...e.reason === void 0 ? {} : { reason: e.reason },
        ...e.node === void 0 ? {} : { node: e.node },
        ...e.adapted === void 0 || e.adapted.length === 0 ? {} : { adapted: e.adapted },
        ...e.startedAt === void 0 ? {} : { startedAt: e.startedAt },
        ...e.unitsFrom === void 0 ? {} : { unitsFrom: e.unitsFrom }
      });
      return (0,retry/* afterEnd */.y)(t, (0,copies/* replaced */.$3)(t.attempts, i, a), a, e, policy);
    }
  }
}


// EXTERNAL MODULE: ./lib/decide/start.js
var start = __webpack_require__(95860);
// EXTERNAL MODULE: ./lib/decide/step.js
var step = __webpack_require__(13388);
// EXTERNAL MODULE: ./lib/exec/transport/transport.js
var transport = __webpack_require__(31286);
// EXTERNAL MODULE: ./lib/manifest/pattern.js + 1 modules
var manifest_pattern = __webpack_require__(52195);
;// CONCATENATED MODULE: ./lib/calibrate/progress.js

function seconds(text) {
  if (text === void 0) return void 0;
  const n = Number(text);
  if (text.trim() !== "" && Number.isFinite(n)) return n;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms / 1e3 : void 0;
}
function logProgress(pattern, log) {
  const re = (0,manifest_pattern/* compilePattern */.Eb)(pattern);
  let count = 0;
  let best = 0;
  let named = false;
  const points = [];
  for (const m of re.matches(log)) {
    if (m.text === "") continue;
    count++;
    const u = m.groups.units === void 0 ? void 0 : Number(m.groups.units);
    if (u !== void 0 && Number.isFinite(u)) {
      named = true;
      best = Math.max(best, u);
    }
    const units = named ? u ?? best : count;
    const at = seconds(m.groups.at);
    if (at !== void 0) points.push({ units, at });
  }
  if (count === 0) return void 0;
  return { units: named ? best : count, points: points.sort((a, b) => a.units - b.units || a.at - b.at) };
}
function firstLogUnits(pattern, log) {
  for (const m of (0,manifest_pattern/* compilePattern */.Eb)(pattern).matches(log)) {
    const units = m.groups.units === void 0 ? void 0 : Number(m.groups.units);
    if (m.text !== "" && units !== void 0 && Number.isFinite(units)) return units;
  }
  return void 0;
}
function countRecords(text) {
  try {
    const whole = JSON.parse(text);
    return Array.isArray(whole) ? whole.length : 1;
  } catch {
    return text.split("\n").filter((l) => l.trim() !== "").length;
  }
}
function taskProgress(progress, facts) {
  if (progress.log !== void 0) return facts.log === void 0 ? void 0 : logProgress(progress.log, facts.log);
  if (facts.output === void 0) return void 0;
  const units = countRecords(facts.output);
  return units > 0 ? { units, points: [] } : void 0;
}


;// CONCATENATED MODULE: ./lib/exec/units-done.js

async function withUnitsDone(manifest, executor, active, events) {
  let byTask;
  if (!manifest.phases.some((p) => p.checkpoint)) return events;
  const out = [];
  for (const e of events) {
    const continued = e.type === "finished" && (e.class === "timeout" || e.class === "preempted");
    if (e.type !== "finished") {
      out.push(e);
      continue;
    }
    byTask ??= new Map(active.map((a2) => [a2.task.id, a2]));
    const a = byTask.get(e.task);
    const phase = manifest.phases.find((p) => p.name === a?.task.phase);
    const progress = phase?.checkpoint ? phase.cost?.progress : void 0;
    if (!a || !progress || !continued && progress.log === void 0) {
      out.push(e);
      continue;
    }
    const facts = progress.log !== void 0 ? { log: await executor.readLog(a.task, a.attempt) } : { output: (await executor.workdir.outputFacts(a.task, a.attempt, true)).text ?? "" };
    const found = continued ? taskProgress(progress, facts)?.units : void 0;
    const from = progress.log === void 0 || facts.log === void 0 ? void 0 : firstLogUnits(progress.log, facts.log);
    out.push({
      ...e,
      ...found === void 0 ? {} : { units: found },
      ...from === void 0 ? {} : { unitsFrom: from }
    });
  }
  return out;
}


;// CONCATENATED MODULE: ./lib/exec/controller.js



















const MAX_INTERRUPTED_MS = 10 * 6e4;
class CampaignController {
  constructor(options) {
    this.options = options;
    this.now = options.now ?? (() => (/* @__PURE__ */ new Date()).toISOString());
    this.policy = (0,policy/* retryPolicy */.J)(options.manifest, options.plan);
  }
  options;
  now;
  policy;
  /** When the passes began to be cut short (none has got through since). */
  interruptedSince;
  /** The code snapshot shipped by this controller, if any. */
  shipped;
  /** The active attempts of the tasks record last looked at (see activeAttempts). */
  active;
  /** The campaign's generation this controller follows, once its first pass has joined it. */
  generation;
  /** The stored state, checked; a new one when there is none. */
  load() {
    return loadState(this.options.store, this.options.manifest.campaign, this.now());
  }
  /**
   * One pass; returns the saved state and whether the campaign has come to rest. A pass cut
   * short by the link (a dropped connection, a command that timed out) saves nothing and
   * returns the state it was given: made again, it converges, because the executor finds what
   * the cut-short pass had already sent.
   */
  async pass(state) {
    try {
      const done = await this.passOnce(state);
      this.interruptedSince = void 0;
      return done;
    } catch (e) {
      if (!(e instanceof transport/* LinkError */.R6)) throw e;
      const now = Date.parse(this.now());
      this.interruptedSince ??= now;
      if (now - this.interruptedSince > MAX_INTERRUPTED_MS) {
        throw new errors/* UserError */.yo({
          message: `no pass has got through the link to the cluster for ${Math.round((now - this.interruptedSince) / 6e4)} minutes: ${e.message}`,
          fix: "check the connection to the cluster; the state is saved, and the same command resumes"
        });
      }
      this.options.warn?.(`pass cut short, it will be made again: ${e.message}`);
      return { state, atRest: false };
    }
  }
  async passOnce(given) {
    const joining = this.generation === void 0;
    const state = joining ? await this.followGeneration(given) : given;
    const looked = this.activeAttempts(state);
    const observed = await withUnitsDone(
      this.options.manifest,
      this.options.executor,
      looked,
      await this.options.executor.observe(looked)
    );
    let next = applyEvents(state, observed, this.policy);
    await this.recordProvenance(
      next,
      observed.flatMap((e) => e.type === "finished" && e.class === "completed" ? [e.task] : [])
    );
    const active = (0,step/* activeJobs */.$8)(this.options.plan, next.tasks);
    const decided = (0,step/* step */.PM)(
      next,
      this.options.plan,
      this.now(),
      this.options.executor.capacity(active),
      this.options.executor.ended?.()
    );
    next = decided.state;
    const actions = this.options.scope ? (0,scope/* scopeActions */.YC)(decided.actions, this.options.scope) : decided.actions;
    if (!joining && actions.some((a) => a.type === "submit")) next = await this.followGeneration(next);
    const acted = [];
    for (const action of actions) for (const e of await this.act(action, next)) acted.push(e);
    next = applyEvents(next, acted, this.policy, next.tasks === state.tasks ? void 0 : next.tasks);
    const settled = (0,step/* step */.PM)(next, this.options.plan, this.now(), 0).state;
    await this.options.store.append([...observed, ...acted]);
    await this.options.store.save(settled);
    this.trackActive(settled);
    const rest = this.options.scope ? (0,scope/* scopeAtRest */.WU)(this.options.plan, settled, actions, this.options.scope) : (0,step/* atRest */.ev)(settled, decided.actions);
    return { state: settled, atRest: acted.length === 0 && rest };
  }
  /**
   * The state following the campaign's generation as the workdir records it (decide/generation.ts),
   * looked at before tasks are sent: its own recorded where none is (of two controllers, the first
   * writer's stands), the one recorded adopted by a state that followed none. A state of an
   * older generation (another controller ran --fresh) is moved aside, and the controller stops
   * with the reason instead of sending its tasks again.
   */
  async followGeneration(state) {
    const executor = this.options.executor;
    const followed = this.generation ?? state.generation;
    let next = (0,generation/* generationStep */.xu)(followed, state.created, await executor.workdir.generation.read());
    if (next.do === "record")
      next = (0,generation/* generationStep */.xu)(followed, state.created, await executor.workdir.generation.record(next.generation));
    if (next.do === "stale") throw await this.stale(next.recorded);
    this.generation = next.generation;
    return state.generation === next.generation ? state : { ...state, generation: next.generation };
  }
  /** The stale state moved to the state directory's `previous/`, and the error that says why. */
  async stale(recorded) {
    const dest = (0,external_node_path_.join)(this.options.store.dir, "previous", this.now().replace(/[:.]/g, "-"));
    await this.options.store.setAside(dest);
    return (0,generation/* staleGenerationError */.sO)(recorded, dest);
  }
  /**
   * Stops every running attempt (the executor kills each one's whole process group, SIGKILL
   * after SIGTERM) and observes until each has ended, as `cancelled`, or `waitMs` has passed.
   * Returns the saved state and the attempts still running at the end.
   */
  async cancel(state, waitMs) {
    const executor = this.options.executor;
    if (!executor.cancel) {
      throw new errors/* UserError */.yo({
        message: `the ${this.options.manifest.cluster.executor} executor cannot cancel tasks`,
        fix: "stop them with the scheduler or on the machine they run on"
      });
    }
    await executor.cancel(this.activeAttempts(state));
    const end = Date.now() + waitMs;
    let next = state;
    for (; ; ) {
      const active = this.activeAttempts(next);
      if (active.length === 0 || Date.now() > end) {
        await this.options.store.save(next);
        return { state: next, running: active.map((a) => a.task.id) };
      }
      const observed = await executor.observe(active);
      next = applyEvents(next, observed, this.policy);
      await this.options.store.append(observed);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  /** Writes the provenance record beside each of these tasks' completed outputs (state/provenance.ts). */
  async recordProvenance(state, taskIds) {
    if (taskIds.length === 0) return;
    const files = (0,provenance/* provenanceFiles */.Zc)(this.options.plan, state, taskIds);
    const failed = await this.options.executor.workdir.writeFiles(files);
    if (failed.length > 0)
      this.options.warn?.(
        `could not write the provenance record of ${failed.length} output${failed.length === 1 ? "" : "s"} (${failed[0]}); the state keeps what it would say`
      );
  }
  /**
   * A loaded state checked before a run resumes it, with what the run is to say: phases whose
   * checklist changed since a failed gate, and completed tasks whose outputs are gone (one
   * batched query; the outputs, not the stored state, say what is done). `retryHow` names the
   * way to run those again.
   */
  async reconcile(state, retryHow) {
    const warnings = (0,start/* checklistsChanged */.AH)(state, this.options.plan).map(start/* checklistChangedWarning */.HU);
    const outputs = completedOutputs(state, this.options.plan);
    if (outputs.size === 0) return { state, warnings };
    const missing = new Set(await this.options.executor.workdir.missing([...outputs.values()]));
    const gone = new Map([...outputs].filter(([, path]) => missing.has(path)));
    if (gone.size > 0) warnings.push(outputsGoneWarning(gone, retryHow));
    return { state: outputsGone(state, gone), warnings };
  }
  /**
   * The active attempts the executor is to look at (of the tasks the plan has). Kept from pass to
   * pass and updated for the tasks that changed: looking up 100,000 scattered tasks each pass
   * cost a tenth of a second.
   */
  activeAttempts(state) {
    return [...this.trackActive(state).values()];
  }
  /** The active attempts of `state`, brought up to date from those of the record last looked at. */
  trackActive(state) {
    const index = (0,task_index/* indexOf */.qh)(state.tasks);
    const known = this.active;
    const changed = known && (0,task_index/* changedSince */.$A)(known.tasks, state.tasks);
    let attempts = known?.attempts;
    if (attempts === void 0 || changed === void 0) {
      attempts = /* @__PURE__ */ new Map();
      for (const s of state_state/* ACTIVE */.Hc) for (const id of index.ids(s)) this.putActive(attempts, id, state.tasks[id]);
    } else {
      for (const id of changed) this.putActive(attempts, id, state.tasks[id]);
    }
    this.active = { tasks: state.tasks, attempts };
    return attempts;
  }
  /** Puts task `id`'s active attempt in `attempts`, or takes it out where it has none. */
  putActive(attempts, id, t) {
    const where = (0,placement/* placement */.o)(this.options.plan, id);
    const attempt = t?.attempts.at(-1);
    if (!t || !state_state/* ACTIVE */.Hc.has(t.status) || !where || !attempt) {
      attempts.delete(id);
      return;
    }
    if (attempts.get(id)?.attempt === attempt) return;
    const { array } = where;
    attempts.set(id, {
      task: where.spec,
      attempt,
      walltimeSeconds: attempt.walltimeSeconds ?? array.budget.seconds,
      partition: array.budget.partition ?? array.resources.partition,
      gpus: array.resources.gpus
    });
  }
  /**
   * The code the submissions run, shipped once per controller before the first of them: a run
   * that submits nothing ships nothing, and one whose snapshot is there already costs one check.
   */
  async shipCode(submissions) {
    const id = submissions.find((s) => s.code !== void 0)?.code;
    if (id === void 0 || this.shipped === id) return;
    if (this.options.code?.facts.id !== id)
      throw new Error(
        `a submission runs code snapshot ${id}, and the controller was given ${this.options.code?.facts.id}`
      );
    await this.options.executor.workdir.shipCode(this.options.code);
    this.shipped = id;
  }
  async act(action, state) {
    const at = () => this.now();
    const phase = (name) => this.options.plan.phases.find((p) => p.name === name);
    switch (action.type) {
      case "submit": {
        const sent = new Map(action.submissions.map((s) => [`${s.task.id}:${s.attempt}`, s]));
        await this.shipCode(action.submissions);
        const events = await this.options.executor.submit(action.submissions);
        return events.map((e) => {
          const s = e.type === "submitted" || e.type === "submit_failed" ? sent.get(`${e.task}:${e.attempt}`) : void 0;
          if (!s || e.type !== "submitted" && e.type !== "submit_failed") return e;
          return Object.assign({}, e, {
            ...e.type === "submitted" ? { walltimeSeconds: s.array.budget.seconds } : {},
            ...s.task.definition === void 0 ? {} : { definition: s.task.definition },
            ...s.stageDefinition === void 0 ? {} : { stageDefinition: s.stageDefinition },
            ...this.options.commit === void 0 ? {} : { commit: this.options.commit },
            ...s.code === void 0 ? {} : { code: s.code }
          });
        });
      }
      case "check_preconditions": {
        const p = phase(action.phase);
        const manifestPhase = this.options.manifest.phases.find((m) => m.name === p.name);
        const paths = /* @__PURE__ */ new Set();
        for (const t of p.tasks) {
          for (const tpl of p.preconditions)
            paths.add((0,expand/* renderPath */.i7)(this.options.manifest, manifestPhase, tpl, t.values, t.tag));
        }
        return [
          {
            type: "preconditions",
            phase: p.name,
            at: at(),
            missing: await this.options.executor.workdir.missing([...paths])
          }
        ];
      }
      case "hold": {
        const held = new Set(action.tasks.map((t) => `${t.task}:${t.attempt}`));
        const attempts = this.activeAttempts(state).filter((a) => held.has(`${a.task.id}:${a.attempt.n}`));
        const withdrawn = await this.options.executor.withdraw?.(attempts) ?? [];
        return withdrawn.map((a) => ({
          type: "finished",
          task: a.task.id,
          attempt: a.attempt.n,
          at: at(),
          class: "disk_full",
          reason: action.reason
        }));
      }
      case "evaluate_gate": {
        const p = phase(action.phase);
        const withText = p.checklist.some((check) => check.check === "records");
        const facts = [];
        for (const spec of p.smoke) {
          const ts = state.tasks[spec.id];
          const last = ts.attempts[ts.attempts.length - 1];
          const commands = {};
          for (const [i, check] of p.checklist.entries()) {
            if (check.check === "command")
              commands[i] = await this.options.executor.workdir.runCheck(spec, (0,template/* toShell */.aB)(check.run));
          }
          facts.push({
            task: spec,
            state: ts,
            log: last ? await this.options.executor.readLog(spec, last) : "",
            ...last ? { output: await this.options.executor.workdir.outputFacts(spec, last, withText) } : {},
            commands
          });
        }
        return [
          {
            type: "gate",
            phase: p.name,
            at: at(),
            results: (0,checklist/* evaluateChecklist */.Wd)(p.checklist, facts),
            checklist: (0,checklist/* checklistKey */.AK)(p.checklist),
            definitions: (0,plan/* smokeDefinitions */.cN)(p)
          }
        ];
      }
    }
  }
}
async function loadState(store, campaign, now) {
  const raw = await store.load();
  return raw === void 0 ? (0,state_state/* emptyState */.p$)(campaign, now) : checkedState(raw, store, campaign);
}
function checkedState(raw, store, campaign) {
  const parsed = state_state/* campaignStateSchema */.NX.safeParse(raw);
  if (!parsed.success) {
    throw new errors/* UserError */.yo({
      message: `${store.statePath} is not a campaign state: ${parsed.error.issues[0]?.message ?? "invalid"}`,
      fix: "restore it from state.prev.json or an artifact, or move it away to start the campaign afresh"
    });
  }
  if (parsed.data.campaign !== campaign) {
    throw new errors/* UserError */.yo({
      message: `${store.statePath} belongs to campaign "${parsed.data.campaign}", not "${campaign}"`,
      fix: "use the state directory of this campaign (--state-dir)"
    });
  }
  return parsed.data;
}



/***/ }),

/***/ 17530:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   P: () => (/* binding */ formatTarget),
/* harmony export */   h: () => (/* binding */ parseTarget)
/* harmony export */ });
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(96020);

const TARGET = /^([^@\s:]+)@(\[[0-9A-Fa-f:.]+\]|[^@\s:[\]]+)(?::(\d+))?$/;
function parseTarget(text) {
  const m = TARGET.exec(text.trim());
  const port = m?.[3] === void 0 ? 22 : Number(m[3]);
  if (!m || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .UserError */ .yo({
      message: `SSH target '${text}' is not of the form user@host:port`,
      fix: "write it like alice@login.cluster.example:22 (the port may be left out for 22; an IPv6 address goes in brackets)"
    });
  }
  const host = m[2].startsWith("[") ? m[2].slice(1, -1) : m[2];
  return { user: m[1], host, port };
}
function formatTarget(t) {
  const host = t.host.includes(":") ? `[${t.host}]` : t.host;
  return `${t.user}@${host}:${t.port}`;
}



/***/ }),

/***/ 33525:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   w: () => (/* binding */ wildcardMatches)
/* harmony export */ });
function wildcardMatches(pattern, name) {
  let at = 0;
  let taken = 0;
  let star = -1;
  let starTaken = 0;
  while (taken < name.length) {
    const char = pattern[at];
    if (char === "*") {
      star = at++;
      starTaken = taken;
    } else if (char !== void 0 && (char === "?" || char === name[taken])) {
      at++;
      taken++;
    } else if (star >= 0) {
      at = star + 1;
      taken = ++starTaken;
    } else {
      return false;
    }
  }
  while (pattern[at] === "*") at++;
  return at === pattern.length;
}



/***/ }),

/***/ 73466:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   O: () => (/* binding */ plainCommand)
/* harmony export */ });
const PLAIN = /^[A-Za-z0-9_.,:=%@+/-]$/;
const GLOB = /^[*?]$/;
function plainCommand(words) {
  if (words.length === 0) throw new Error("a plain command needs at least one word");
  if (typeof words[0] !== "string") throw new Error("a plain command's first word (the program) cannot be a glob");
  return words.map((word, i) => {
    const glob = typeof word !== "string";
    const text = glob ? word.glob : word;
    if (text === "") throw new Error(`word ${i + 1} of a plain command is empty`);
    [...text].forEach((char, at) => {
      if (PLAIN.test(char) || glob && GLOB.test(char)) return;
      throw new Error(
        `word ${i + 1} of a plain command has ${JSON.stringify(char)} at character ${at + 1}, which the automation node's wrapper would not take literally`
      );
    });
    return text;
  }).join(" ");
}



/***/ }),

/***/ 27071:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   N: () => (/* binding */ campaignOutputs),
/* harmony export */   X: () => (/* binding */ sharedOutputFindings)
/* harmony export */ });
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(76760);
/* harmony import */ var _manifest_schema_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(26268);


function placesOf(manifest) {
  const logins = (0,_manifest_schema_js__WEBPACK_IMPORTED_MODULE_1__/* .loginsOf */ .Qm)(manifest.cluster);
  return logins.length === 0 ? [THIS_MACHINE] : logins;
}
const THIS_MACHINE = "this machine";
function workdirOn(place, outputs) {
  const workdir = outputs.manifest.workdir;
  if (place !== THIS_MACHINE) return node_path__WEBPACK_IMPORTED_MODULE_0__.posix.normalize(workdir.replace(/^~(\/|$)/, "") || ".");
  if (workdir.startsWith("/") || workdir === "~" || workdir.startsWith("~/")) return node_path__WEBPACK_IMPORTED_MODULE_0__.posix.normalize(workdir);
  return node_path__WEBPACK_IMPORTED_MODULE_0__.posix.join(node_path__WEBPACK_IMPORTED_MODULE_0__.posix.dirname(outputs.file), workdir);
}
function sharedOutputFindings(campaigns) {
  const claimed = /* @__PURE__ */ new Map();
  const pairs = /* @__PURE__ */ new Map();
  campaigns.forEach((outputs, index) => {
    for (const place of placesOf(outputs.manifest)) {
      const workdir = workdirOn(place, outputs);
      outputs.plan.phases.forEach((phase, phaseIndex) => {
        for (const task of [...phase.smoke, ...phase.tasks]) {
          if (task.output === void 0) continue;
          const path = node_path__WEBPACK_IMPORTED_MODULE_0__.posix.join(workdir, task.output);
          const key = `${place}\0${path}`;
          const owner = claimed.get(key);
          if (owner === void 0) {
            claimed.set(key, { campaign: index, phase: phaseIndex });
            continue;
          }
          if (owner.campaign === index) continue;
          const pair = `${owner.campaign} ${index}`;
          const seen = pairs.get(pair);
          if (seen) seen.count++;
          else
            pairs.set(pair, {
              first: [owner.campaign, owner.phase],
              second: [index, phaseIndex],
              path: place === THIS_MACHINE ? path : `${place}:${path}`,
              count: 1
            });
        }
      });
    }
  });
  const findings = [];
  const finding = (self, other, path, count) => {
    const me = campaigns[self[0]];
    const them = campaigns[other];
    const sameName = me.manifest.campaign === them.manifest.campaign ? " (under one campaign name, so neither is refused: each overwrites the other)" : "";
    return {
      rule: "shared-outputs",
      severity: "error",
      message: `campaigns ${me.manifest.campaign} and ${them.manifest.campaign} (${them.file}) both write ${path}${count > 1 ? ` and ${count - 1} more path${count > 2 ? "s" : ""}` : ""}${sameName}`,
      position: me.outputAt(self[1]),
      fix: `give each campaign its own workdir (e.g. workdir: runs/${me.manifest.campaign}), or output paths that name it`
    };
  };
  for (const { first, second, path, count } of pairs.values()) {
    findings.push(finding(first, second[0], path, count), finding(second, first[0], path, count));
  }
  return findings;
}
function campaignOutputs(file, context) {
  return {
    file,
    manifest: context.manifest,
    plan: context.plan,
    outputAt: (phase) => context.source.at(["phases", phase, "output"])
  };
}



/***/ }),

/***/ 52906:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Es: () => (/* binding */ exportLines),
/* harmony export */   HV: () => (/* binding */ NOT_PLAIN),
/* harmony export */   Lx: () => (/* binding */ NOW_MS_FUNCTION),
/* harmony export */   ZL: () => (/* binding */ shellQuote)
/* harmony export */ });
const PLAIN = "A-Za-z0-9_./:=+@%,-";
const SAFE = new RegExp(`^[${PLAIN}]+$`);
const NOT_PLAIN = new RegExp(`[^${PLAIN}]`, "gu");
function shellQuote(value) {
  if (value !== "" && SAFE.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
function exportLines(env) {
  return Object.entries(env).map(([k, v]) => `export ${k}=${shellQuote(v)}`).join("\n");
}
const NOW_MS_FUNCTION = [
  "campaign_now() {",
  '  if [ -n "${EPOCHREALTIME:-}" ]; then campaign_ms=${EPOCHREALTIME/[.,]/}; campaign_ms=${campaign_ms%???}',
  "  else campaign_ms=$(date +%s%3N); fi",
  "}"
];



/***/ }),

/***/ 92957:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   DV: () => (/* binding */ codeBlock),
/* harmony export */   ti: () => (/* binding */ inlineCode),
/* harmony export */   xR: () => (/* binding */ tableCell)
/* harmony export */ });
function tableCell(text) {
  return text.replace(/\|/g, "\\|").replace(/\r?\n|\r/g, " ");
}
function codeBlock(text) {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return [fence, text, fence];
}
function inlineCode(text) {
  const flat = text.replace(/\r?\n|\r/g, " ");
  if (flat === "") return "";
  let longest = 0;
  for (const run of flat.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  const fence = "`".repeat(longest + 1);
  const spaced = flat.startsWith(" ") && flat.endsWith(" ") && flat.trim() !== "";
  const pad = spaced || flat.startsWith("`") || flat.endsWith("`") ? " " : "";
  return `${fence}${pad}${flat}${pad}${fence}`;
}



/***/ }),

/***/ 52350:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   r: () => (/* binding */ continuations),
/* harmony export */   w: () => (/* binding */ continuation)
/* harmony export */ });
function continuation(attempts, i) {
  const a = attempts[i];
  const prior = attempts[i - 1];
  const before = prior?.reason === void 0 ? {} : { before: { n: prior.n, reason: prior.reason } };
  const baseline = attempts.find((x) => !x.resumed)?.unitsFrom;
  if (a.class === void 0) return { ...before, what: "sent to continue from its checkpoint" };
  if (a.unitsFrom === void 0 || baseline === void 0)
    return { ...before, what: "sent to continue from its checkpoint; its progress does not show where it started" };
  if (a.unitsFrom > baseline)
    return { ...before, what: `continued from its checkpoint (its progress started at ${a.unitsFrom})` };
  return {
    ...before,
    what: `sent to continue from its checkpoint, but started over (its progress began at ${a.unitsFrom}, as at first)`
  };
}
function continuations(attempts, i) {
  const out = [];
  for (let k = 1; k <= i; k++) {
    if (!attempts[k].resumed) continue;
    const continued = continuation(attempts, k);
    out.push(
      `${continued.before ? `attempt ${continued.before.n} ${continued.before.reason}; ` : ""}attempt ${attempts[k].n} ${continued.what}`
    );
  }
  return out;
}



/***/ }),

/***/ 98432:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   m: () => (/* binding */ submissionGroup)
/* harmony export */ });
function submissionGroup(s) {
  const retry = s.array.packing !== void 0 && s.attempt > 1 ? "\0retry" : "";
  return `${s.array.id}\0${s.array.budget.seconds}\0${s.memBytes ?? ""}\0${(s.avoidNodes ?? []).join(",")}${retry}`;
}



/***/ }),

/***/ 96642:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Kf: () => (/* binding */ provenanceIndex),
/* harmony export */   Zc: () => (/* binding */ provenanceFiles)
/* harmony export */ });
/* unused harmony exports PROVENANCE_VERSION, codeOfAttempts, provenancePath, provenanceRecord, provenanceSchema */
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(76760);
/* harmony import */ var zod__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(85584);
/* harmony import */ var _plan_code_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(42778);
/* harmony import */ var _placement_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(43490);
/* harmony import */ var _continuation_js__WEBPACK_IMPORTED_MODULE_5__ = __webpack_require__(52350);
/* harmony import */ var _state_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(95824);






const PROVENANCE_VERSION = 1;
const provenanceSchema = zod__WEBPACK_IMPORTED_MODULE_4__/* .object */ .Ikc({
  provenance: zod__WEBPACK_IMPORTED_MODULE_4__/* .literal */ .euz(PROVENANCE_VERSION),
  campaign: zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP(),
  phase: zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP(),
  task: zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP(),
  stage: zod__WEBPACK_IMPORTED_MODULE_4__/* ["enum"] */ .k5n(["smoke", "full"]),
  values: zod__WEBPACK_IMPORTED_MODULE_4__/* .record */ .g1P(zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP(), zod__WEBPACK_IMPORTED_MODULE_4__/* .union */ .KCZ([zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP(), zod__WEBPACK_IMPORTED_MODULE_4__/* .number */ .aig(), zod__WEBPACK_IMPORTED_MODULE_4__/* .boolean */ .zMY()])),
  output: zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP(),
  /** The digest of the definition the attempt ran under. */
  definition: zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP().nullable(),
  /** Later definitions the result was kept for by the user's choice, with what had changed. */
  kept: zod__WEBPACK_IMPORTED_MODULE_4__/* .array */ .YOg(zod__WEBPACK_IMPORTED_MODULE_4__/* .object */ .Ikc({ definition: zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP(), at: zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP(), changed: zod__WEBPACK_IMPORTED_MODULE_4__/* .array */ .YOg(zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP()) })),
  attempt: zod__WEBPACK_IMPORTED_MODULE_4__/* .number */ .aig().int(),
  /** The executor's handle: a Slurm job and array index (`1234_5`), or a process (`pid:…`). */
  handle: zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP().nullable(),
  node: zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP().nullable(),
  gpus: zod__WEBPACK_IMPORTED_MODULE_4__/* .array */ .YOg(zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP()),
  log: zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP().nullable(),
  submitted: zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP(),
  started: zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP().nullable(),
  ended: zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP().nullable(),
  exit_status: zod__WEBPACK_IMPORTED_MODULE_4__/* .number */ .aig().int().nullable(),
  /** Where the cluster granted less than asked, adapted to (DESIGN rule 9). */
  adapted: zod__WEBPACK_IMPORTED_MODULE_4__/* .array */ .YOg(zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP()),
  /** The manifest's git commit when the attempt was sent, where it was in a git checkout. */
  commit: zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP().nullable(),
  /** The code it ran, where the manifest declares code (plan/code.ts); absent in records from before. */
  code: zod__WEBPACK_IMPORTED_MODULE_4__/* .object */ .Ikc({
    /** The snapshot's id: its folder is `<workdir>/.campaign/code/<id>/`. */
    snapshot: zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP(),
    /** The digest of the files under the phase's code paths: a part of the task's definition. */
    digest: zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP().nullable(),
    /** The repository's commit the snapshot was taken at. */
    commit: zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP().nullable(),
    /** The phase's code files whose content differed from that commit (uncommitted edits). */
    dirty: zod__WEBPACK_IMPORTED_MODULE_4__/* .array */ .YOg(zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP())
  }).nullable().optional(),
  /**
   * Where the task was continued from a checkpoint: how each attempt before ended and what each
   * continuation did, as their records show it (state/continuation.ts); absent in records from before.
   */
  continued: zod__WEBPACK_IMPORTED_MODULE_4__/* .array */ .YOg(zod__WEBPACK_IMPORTED_MODULE_4__/* .string */ .YjP()).optional()
});
function provenancePath(output) {
  const norm = node_path__WEBPACK_IMPORTED_MODULE_0__.posix.normalize(output).replace(/\/+$/, "");
  return node_path__WEBPACK_IMPORTED_MODULE_0__.posix.join(node_path__WEBPACK_IMPORTED_MODULE_0__.posix.dirname(norm), `.${node_path__WEBPACK_IMPORTED_MODULE_0__.posix.basename(norm)}.provenance.json`);
}
function codeOfAttempts(plan, state) {
  const made = /* @__PURE__ */ new Map();
  return (task, attempt) => {
    if (attempt.code === void 0) return null;
    const key = `${attempt.code}\0${task.phase}`;
    let code = made.get(key);
    if (code === void 0) {
      const snapshot = state.code?.[attempt.code];
      const paths = plan.phases.find((p) => p.name === task.phase)?.code?.paths;
      code = {
        snapshot: attempt.code,
        digest: snapshot && paths ? (0,_plan_code_js__WEBPACK_IMPORTED_MODULE_1__/* .codeDigest */ .ao)(snapshot.files, paths) : null,
        commit: snapshot?.commit ?? null,
        dirty: snapshot && paths ? snapshot.dirty.filter((f) => (0,_plan_code_js__WEBPACK_IMPORTED_MODULE_1__/* .underPaths */ .De)(f, paths)) : []
      };
      made.set(key, code);
    }
    return code;
  };
}
function provenanceRecord(campaign, task, attempt, code = null, attempts = [attempt]) {
  const continued = (0,_continuation_js__WEBPACK_IMPORTED_MODULE_5__/* .continuations */ .r)(attempts, attempts.indexOf(attempt));
  return {
    provenance: PROVENANCE_VERSION,
    campaign,
    phase: task.phase,
    task: task.id,
    stage: task.stage,
    values: { ...task.values },
    output: task.output ?? "",
    definition: attempt.definition ?? null,
    kept: (attempt.kept ?? []).map(({ definition, at, changed }) => ({ definition, at, changed })),
    attempt: attempt.n,
    handle: attempt.handle ?? null,
    node: attempt.node ?? null,
    gpus: attempt.gpus ?? [],
    log: attempt.log ?? null,
    submitted: attempt.submittedAt,
    started: attempt.startedAt ?? null,
    ended: attempt.endedAt ?? null,
    exit_status: attempt.exitCode ?? null,
    adapted: attempt.adapted ?? [],
    commit: attempt.commit ?? null,
    code,
    ...continued.length > 0 ? { continued } : {}
  };
}
function provenanceFiles(plan, state, taskIds) {
  const out = [];
  const codeOf = codeOfAttempts(plan, state);
  for (const id of taskIds) {
    const spec = (0,_placement_js__WEBPACK_IMPORTED_MODULE_2__/* .placement */ .o)(plan, id)?.spec;
    const last = state.tasks[id]?.attempts.at(-1);
    if (!spec?.output || last?.class !== "completed") continue;
    out.push({
      path: provenancePath(spec.output),
      text: JSON.stringify(
        provenanceRecord(plan.campaign, spec, last, codeOf(spec, last), state.tasks[id].attempts),
        null,
        2
      ) + "\n"
    });
  }
  return out;
}
function* provenanceIndex(plan, state) {
  const codeOf = codeOfAttempts(plan, state);
  const line = (spec) => {
    const last = state.tasks[spec.id]?.attempts.at(-1);
    if (!spec.output || last?.class !== "completed" || (0,_state_js__WEBPACK_IMPORTED_MODULE_3__/* .definitionOf */ .Fg)(last) !== spec.definition) return void 0;
    const attempts = state.tasks[spec.id].attempts;
    return JSON.stringify(provenanceRecord(plan.campaign, spec, last, codeOf(spec, last), attempts)) + "\n";
  };
  for (const phase of plan.phases) {
    const smoke = new Set(phase.smoke.map((t) => t.id));
    for (const t of phase.smoke) {
      const text = line(t);
      if (text !== void 0) yield text;
    }
    for (const t of phase.tasks) {
      const text = smoke.has(t.id) ? void 0 : line(t);
      if (text !== void 0) yield text;
    }
  }
}



/***/ })

};
