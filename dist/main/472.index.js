export const id = 472;
export const ids = [472];
export const modules = {

/***/ 84472:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Sn: () => (/* binding */ recordDrove),
/* harmony export */   ZP: () => (/* binding */ mergeSaves),
/* harmony export */   oh: () => (/* binding */ readSave)
/* harmony export */ });
/* harmony import */ var node_fs_promises__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(51455);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(76760);
/* harmony import */ var _decide_parallel_states_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(75740);
/* harmony import */ var _exec_store_file_store_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(80448);
/* harmony import */ var _state_state_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(95824);





async function readSave(dir, campaign) {
  let raw;
  try {
    raw = await new _exec_store_file_store_js__WEBPACK_IMPORTED_MODULE_3__/* .FileStateStore */ .n(dir, { readOnly: true }).load();
  } catch (e) {
    return `its state does not load (${e.message})`;
  }
  if (raw === void 0) return "it holds no state.json";
  const parsed = _state_state_js__WEBPACK_IMPORTED_MODULE_4__/* .campaignStateSchema */ .NX.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `its state.json is not a campaign state (${issue ? `${issue.path.join(".") || "the whole"}: ${issue.message}` : "invalid"})`;
  }
  if (parsed.data.campaign !== campaign) return "its state.json is not this campaign\u2019s state";
  return { state: parsed.data, drove: await droveBy(dir) };
}
async function mergeSaves(dirs, campaign) {
  const saves = [];
  const events = [];
  const seen = /* @__PURE__ */ new Set();
  for (const dir of dirs) {
    const save = await readSave(dir, campaign);
    if (typeof save === "string") throw new Error(`the save in ${dir} cannot be merged: ${save}`);
    saves.push(save);
    const text = await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_0__.readFile)((0,node_path__WEBPACK_IMPORTED_MODULE_1__.join)(dir, "events.jsonl"), "utf8").catch(() => "");
    for (const line of text.split("\n")) {
      if (line.trim() === "" || seen.has(line)) continue;
      seen.add(line);
      events.push(line);
    }
  }
  const merged = (0,_decide_parallel_states_js__WEBPACK_IMPORTED_MODULE_2__/* .mergeParallelStates */ .O1)(saves);
  return {
    state: JSON.stringify(merged.state),
    events: events.map((l) => `${l}
`).join(""),
    uncovered: merged.uncovered
  };
}
async function recordDrove(dir, phase) {
  await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_0__.mkdir)(dir, { recursive: true });
  await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_0__.writeFile)((0,node_path__WEBPACK_IMPORTED_MODULE_1__.join)(dir, _decide_parallel_states_js__WEBPACK_IMPORTED_MODULE_2__/* .DROVE_FILE */ .sN), JSON.stringify({ drove: phase === void 0 ? "all" : [phase] }));
}
async function droveBy(dir) {
  try {
    const parsed = _decide_parallel_states_js__WEBPACK_IMPORTED_MODULE_2__/* .droveFile */ .lB.safeParse(JSON.parse(await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_0__.readFile)((0,node_path__WEBPACK_IMPORTED_MODULE_1__.join)(dir, _decide_parallel_states_js__WEBPACK_IMPORTED_MODULE_2__/* .DROVE_FILE */ .sN), "utf8")));
    return parsed.success ? parsed.data.drove : "all";
  } catch {
    return "all";
  }
}



/***/ }),

/***/ 3023:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   $3: () => (/* binding */ replaced),
/* harmony export */   Fv: () => (/* binding */ renewed),
/* harmony export */   P3: () => (/* binding */ amended),
/* harmony export */   YP: () => (/* binding */ appended)
/* harmony export */ });
function amended(from, fields) {
  return Object.assign({}, from, fields);
}
function renewed(t, fields) {
  return t.retryFrom === void 0 ? fields : Object.assign({ retryFrom: t.retryFrom }, fields);
}
const appended = (attempts, a) => attempts.concat([a]);
function replaced(attempts, i, a) {
  const out = attempts.slice();
  out[i] = a;
  return out;
}



/***/ }),

/***/ 75740:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   O1: () => (/* binding */ mergeParallelStates),
/* harmony export */   lB: () => (/* binding */ droveFile),
/* harmony export */   sN: () => (/* binding */ DROVE_FILE)
/* harmony export */ });
/* harmony import */ var zod__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(85584);
/* harmony import */ var _policy_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(72540);


const DROVE_FILE = "drove.json";
const droveFile = zod__WEBPACK_IMPORTED_MODULE_1__/* .object */ .Ikc({ drove: zod__WEBPACK_IMPORTED_MODULE_1__/* .union */ .KCZ([zod__WEBPACK_IMPORTED_MODULE_1__/* .literal */ .euz("all"), zod__WEBPACK_IMPORTED_MODULE_1__/* .array */ .YOg(zod__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP())]) });
function mergeParallelStates(saves) {
  const [base, ...older] = saves;
  if (base === void 0) throw new Error("mergeParallelStates needs at least one state");
  if (older.length === 0) return { state: base.state, uncovered: [] };
  const phases = new Set(
    saves.flatMap((s) => [...Object.keys(s.state.phases), ...Object.keys(s.state.tasks).map(_policy_js__WEBPACK_IMPORTED_MODULE_0__/* .phaseOfTask */ .E)])
  );
  const source = /* @__PURE__ */ new Map();
  const uncovered = [];
  for (const phase of phases) {
    const driver = saves.find((s) => s.drove !== "all" && s.drove.includes(phase)) ?? saves.find((s) => s.drove === "all");
    if (driver === void 0) uncovered.push(phase);
    source.set(phase, (driver ?? base).state);
  }
  const tasks = {};
  for (const [phase, from] of source) {
    for (const [id, t] of Object.entries(from.tasks)) if ((0,_policy_js__WEBPACK_IMPORTED_MODULE_0__/* .phaseOfTask */ .E)(id) === phase) tasks[id] = t;
  }
  const phaseStates = Object.fromEntries(
    [...phases].flatMap((p) => {
      const ps = source.get(p).phases[p];
      return ps === void 0 ? [] : [[p, ps]];
    })
  );
  const definitions = Object.assign({}, ...[...saves].reverse().map((s) => s.state.definitions ?? {}));
  const updated = saves.map((s) => s.state.updated).reduce((a, b) => b > a ? b : a);
  const parkedFrom = (s, phase) => (s.parked?.scopes ?? []).filter((sc) => sc.phase === phase).map((sc) => ({ sc, since: s.parked.since }));
  const parked = [...parkedFrom(base.state, void 0), ...[...phases].flatMap((p) => parkedFrom(source.get(p), p))];
  const rest = { ...base.state };
  delete rest.parked;
  const state = {
    ...rest,
    updated,
    phases: phaseStates,
    tasks,
    ...Object.keys(definitions).length > 0 ? { definitions } : {},
    ...parked.length > 0 ? {
      parked: {
        scopes: parked.map((x) => x.sc),
        since: parked.map((x) => x.since).reduce((a, b) => b > a ? b : a)
      }
    } : {}
  };
  return { state, uncovered };
}



/***/ }),

/***/ 72540:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   E: () => (/* binding */ phaseOfTask),
/* harmony export */   J: () => (/* binding */ retryPolicy)
/* harmony export */ });
/* harmony import */ var _manifest_units_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(34906);
/* harmony import */ var _plan_walltime_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(12874);
/* harmony import */ var _state_placement_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(43490);
/* harmony import */ var _retry_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(23418);




const phaseOfTask = (taskId) => taskId.slice(0, taskId.indexOf("/"));
function retryPolicy(manifest, plan) {
  const phases = new Map(manifest.phases.map((p) => [p.name, p]));
  const cluster = manifest.cluster;
  const oom = cluster.executor === "ssh-gpu" ? cluster.oom?.retry : void 0;
  return (taskId, cls) => {
    const phase = phases.get(phaseOfTask(taskId));
    const rule = (0,_retry_js__WEBPACK_IMPORTED_MODULE_3__/* .retryRule */ .b)(phase?.retry, manifest.defaults?.retry, cls);
    if (cls === "out_of_memory" && oom && rule.attempts === 0) {
      return { ...rule, attempts: oom.attempts, delaySeconds: oom.delay === void 0 ? 0 : (0,_manifest_units_js__WEBPACK_IMPORTED_MODULE_0__/* .parseDuration */ .E9)(oom.delay) };
    }
    if (cls !== "timeout" && cls !== "preempted") return rule;
    const at = plan && (0,_state_placement_js__WEBPACK_IMPORTED_MODULE_2__/* .placement */ .o)(plan, taskId);
    if (!phase || !at) return rule;
    if (phase.checkpoint) {
      return {
        ...rule,
        resume: true,
        walltime: ({ units }) => {
          const b = (0,_plan_walltime_js__WEBPACK_IMPORTED_MODULE_1__/* .remainingBudget */ .uj)(budgetInput(manifest, phase, at), units);
          const why = units === void 0 ? `as planned, ${(0,_manifest_units_js__WEBPACK_IMPORTED_MODULE_0__/* .formatDuration */ .a3)(b.seconds)} (no progress to go by)` : `after ${units} ${phase.cost?.unit ?? "unit"}s: ${b.arithmetic}`;
          return next(b, why);
        }
      };
    }
    const factor = (phase.retry?.timeout ?? manifest.defaults?.retry?.timeout)?.time_factor;
    if (cls !== "timeout" || factor === void 0 || factor <= 1) return rule;
    return {
      ...rule,
      walltime: ({ walltimeSeconds }) => {
        const b = (0,_plan_walltime_js__WEBPACK_IMPORTED_MODULE_1__/* .grownBudget */ .Ro)(
          cluster,
          walltimeSeconds ?? at.array.budget.seconds,
          factor,
          at.array.resources.partition
        );
        return next(b, `walltime grown after a timeout: ${b.arithmetic}`);
      }
    };
  };
}
const next = (b, why) => ({
  seconds: b.seconds,
  ...b.partition === void 0 ? {} : { partition: b.partition },
  why
});
function budgetInput(manifest, phase, at) {
  const overrides = at.spec.stage === "smoke" ? phase.smoke?.overrides : void 0;
  return {
    phase,
    cluster: manifest.cluster,
    cell: at.spec.values,
    ...at.spec.units === void 0 ? {} : { units: at.spec.units },
    ...overrides?.walltime === void 0 ? {} : { walltime: overrides.walltime },
    ...manifest.defaults?.walltime === void 0 ? {} : { defaultWalltime: manifest.defaults.walltime },
    ...at.array.resources.partition === void 0 ? {} : { partition: at.array.resources.partition }
  };
}



/***/ }),

/***/ 23418:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   b: () => (/* binding */ retryRule),
/* harmony export */   y: () => (/* binding */ afterEnd)
/* harmony export */ });
/* harmony import */ var _manifest_units_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(34906);
/* harmony import */ var _copies_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(3023);


const DEFAULT_ATTEMPTS = { lost: 2, node_fail: 2, preempted: 3, shortfall: 2 };
const ruleKey = (cls) => cls === "unverified" ? "failed" : cls;
function retryRule(phaseRetry, defaults, cls) {
  if (cls === "gate" || cls === "cancelled" || cls === "disk_full" || cls === "unschedulable")
    return { attempts: 0, delaySeconds: 0 };
  const key = cls === "unverified" ? "failed" : cls;
  const rule = phaseRetry?.[key] ?? defaults?.[key];
  const memFactor = key === "out_of_memory" ? rule?.mem_factor : void 0;
  return {
    attempts: rule?.attempts ?? DEFAULT_ATTEMPTS[cls] ?? 0,
    delaySeconds: rule?.delay === void 0 ? 0 : (0,_manifest_units_js__WEBPACK_IMPORTED_MODULE_0__/* .parseDuration */ .E9)(rule.delay),
    ...memFactor === void 0 ? {} : { memFactor }
  };
}
const addSeconds = (iso, s) => new Date(Date.parse(iso) + s * 1e3).toISOString();
function afterEnd(t, attempts, a, e, policy) {
  if (e.class === "completed") return (0,_copies_js__WEBPACK_IMPORTED_MODULE_1__/* .renewed */ .Fv)(t, { status: "completed", attempts });
  const rule = policy(e.task, e.class);
  const since = t.retryFrom ?? 0;
  const used = attempts.filter(
    (x) => x.n > since && x.class !== void 0 && !x.unstarted && ruleKey(x.class) === ruleKey(e.class)
  ).length - 1;
  const why = `${e.class}${e.reason ? `: ${e.reason}` : ""}`;
  if (used >= rule.attempts) {
    return (0,_copies_js__WEBPACK_IMPORTED_MODULE_1__/* .renewed */ .Fv)(t, {
      status: "failed",
      attempts,
      reason: rule.attempts > 0 ? `${why} (after ${rule.attempts} retries)` : why
    });
  }
  const mem = rule.memFactor && a.memBytes ? Math.ceil(a.memBytes * rule.memFactor) : void 0;
  const wall = rule.walltime?.({
    ...a.walltimeSeconds === void 0 ? {} : { walltimeSeconds: a.walltimeSeconds },
    ...e.units === void 0 ? {} : { units: e.units }
  });
  return (0,_copies_js__WEBPACK_IMPORTED_MODULE_1__/* .renewed */ .Fv)(t, {
    status: "retrying",
    attempts,
    reason: why,
    notBefore: addSeconds(e.at, rule.delaySeconds),
    ...mem === void 0 ? {} : { nextMemBytes: mem },
    ...wall === void 0 ? {} : { nextWalltime: wall },
    ...rule.resume ? { resume: true } : {}
  });
}



/***/ }),

/***/ 80448:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  n: () => (/* binding */ FileStateStore)
});

// EXTERNAL MODULE: external "node:fs/promises"
var promises_ = __webpack_require__(51455);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(76760);
// EXTERNAL MODULE: ./lib/errors.js
var errors = __webpack_require__(96020);
// EXTERNAL MODULE: ./lib/state/task-index.js
var task_index = __webpack_require__(68505);
;// CONCATENATED MODULE: ./lib/exec/store/journal.js


const JOURNAL_SEQ = "journalSeq";
class JournalMismatch extends Error {
}
function isRecord(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
function isJournalable(v) {
  return isRecord(v) && isRecord(v.tasks);
}
function snapshotSeq(v) {
  if (!isJournalable(v)) return void 0;
  const seq = v[JOURNAL_SEQ];
  return Number.isSafeInteger(seq) && seq >= 0 ? seq : void 0;
}
function present(v) {
  return v !== void 0 && typeof v !== "function" && typeof v !== "symbol";
}
function changes(was, wasCount, tasks) {
  const set = [];
  const del = [];
  if (tasks === was) return { set, del, count: wasCount };
  const told = (0,task_index/* changedSince */.$A)(was, tasks);
  if (told !== void 0) {
    let count2 = wasCount;
    for (const id of told) {
      const v = Object.hasOwn(tasks, id) ? tasks[id] : void 0;
      const old = Object.hasOwn(was, id) ? was[id] : void 0;
      if (!present(v)) {
        if (present(old)) {
          del.push(id);
          count2--;
        }
      } else if (!present(old)) {
        set.push(id);
        count2++;
      } else if (v !== old && !jsonEqual(old, v)) set.push(id);
    }
    return { set, del, count: count2 };
  }
  let count = 0;
  let kept = 0;
  for (const id of Object.keys(tasks)) {
    const v = tasks[id];
    if (!present(v)) continue;
    count++;
    const old = Object.hasOwn(was, id) ? was[id] : void 0;
    if (present(old)) kept++;
    if (v !== old && !jsonEqual(old, v)) set.push(id);
  }
  if (kept < wasCount) {
    for (const id of Object.keys(was)) {
      if (present(was[id]) && !(Object.hasOwn(tasks, id) && present(tasks[id]))) del.push(id);
    }
  }
  return { set, del, count };
}
function lineParts(seq, top, tasks, set, del) {
  const entries = {};
  for (const id of set) setOwn(entries, id, tasks[id]);
  return [`{"seq":${seq},"top":${top},"set":`, JSON.stringify(entries), `,"del":${JSON.stringify(del)}}
`];
}
function replay(path, snap, seq, text, warn) {
  const lines = text.split("\n");
  const tail = lines.pop();
  const later = [];
  let last = seq;
  let maxSeq = seq;
  for (const [i, text2] of lines.entries()) {
    const line = journalLine(text2);
    if (line instanceof Error) {
      throw new errors/* UserError */.yo({
        message: `campaign state journal line is corrupt: ${line.message}`,
        position: { file: path, line: i + 1, column: 1 },
        fix: `restore the state directory from a backup; or move ${path} aside to go back to the last whole save in state.json (the saves since are lost: the next run rebuilds what it can from the executor's records and the outputs)`
      });
    }
    maxSeq = Math.max(maxSeq, line.seq);
    if (line.seq <= seq) continue;
    if (line.seq !== last + 1) {
      throw new JournalMismatch(`its line ${i + 1} is save ${line.seq}, but the save before it is ${last}`);
    }
    later.push(line);
    last = line.seq;
  }
  if (tail !== "") warn(`${path} ends in a partial line from an interrupted save; left it out`);
  let state = snap;
  if (later.length > 0) {
    const { tasks } = snap;
    for (const line of later) {
      for (const id of Object.keys(line.set)) setOwn(tasks, id, line.set[id]);
      for (const id of line.del) Reflect.deleteProperty(tasks, id);
    }
    state = { ...later.at(-1).top, tasks };
  }
  return { state, seq: last, maxSeq, bytes: Buffer.byteLength(text) - Buffer.byteLength(tail) };
}
function journalLine(text) {
  let v;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return e;
  }
  if (!isRecord(v)) return new Error("not a journal entry");
  const { seq, top, set, del } = v;
  const ok = Number.isSafeInteger(seq) && seq > 0 && isRecord(top) && isRecord(set) && Array.isArray(del) && del.every((id) => typeof id === "string");
  return ok ? v : new Error("not a journal entry");
}
function jsonEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype) return false;
  const x = a;
  const y = b;
  let n = 0;
  for (const k of Object.keys(x)) {
    if (!present(x[k])) continue;
    n++;
    if (!Object.hasOwn(y, k) || !jsonEqual(x[k], y[k])) return false;
  }
  for (const k of Object.keys(y)) if (present(y[k])) n--;
  return n === 0;
}
function setOwn(obj, key, value) {
  if (key === "__proto__")
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}


;// CONCATENATED MODULE: ./lib/exec/store/json-pieces.js

function fieldsJson(state) {
  const parts = [];
  for (const k of Object.keys(state)) {
    const json = k === "tasks" ? void 0 : fieldJson(state, k);
    if (json !== void 0) parts.push(json);
  }
  return `{${parts.join(",")}}`;
}
function stateParts(state) {
  const before = [];
  const after = [];
  let into = before;
  for (const k of Object.keys(state)) {
    const json = k === "tasks" ? void 0 : fieldJson(state, k);
    if (k === "tasks") into = after;
    else if (json !== void 0) into.push(json);
  }
  return [`{${before.map((p) => `${p},`).join("")}"tasks":`, `${after.map((p) => `,${p}`).join("")}}`];
}
const PIECE_ENTRIES = 2e3;
function* recordPieces(tasks) {
  const ids = Object.keys(tasks);
  let sep = "{";
  for (let i = 0; i < ids.length; i += PIECE_ENTRIES) {
    const piece = {};
    for (const id of ids.slice(i, i + PIECE_ENTRIES)) setOwn(piece, id, tasks[id]);
    const json = toJson(piece);
    if (json === "{}") continue;
    yield sep + json.slice(1, -1);
    sep = ",";
  }
  yield sep === "{" ? "{}" : "}";
}
function* chain(...lists) {
  for (const list of lists) yield* list;
}
function fieldJson(state, k) {
  const json = JSON.stringify(state[k]);
  return json === void 0 ? void 0 : `${JSON.stringify(k)}:${json}`;
}
function byteLength(parts) {
  let n = 0;
  for (const part of parts) n += Buffer.byteLength(part);
  return n;
}
function toJson(value) {
  const json = JSON.stringify(value);
  if (json === void 0) throw new TypeError(`cannot save ${typeof value} as JSON`);
  return json;
}


// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(73024);
;// CONCATENATED MODULE: ./lib/exec/store/state-file.js




async function snapshot(path) {
  const fh = await state_file_openIfExists(path);
  if (!fh) return void 0;
  try {
    const st = await fh.stat();
    if (st.size > MAX_STATE_BYTES)
      throw new errors/* UserError */.yo({
        message: `${path} is ${Math.round(st.size / 2 ** 20)} MiB, more than a state can be (${MAX_STATE_BYTES / 2 ** 20} MiB)`,
        fix: "it is not a campaign state: move it away, or restore it from state.prev.json or an artifact"
      });
    const buf = await fh.readFile();
    return { text: buf.toString("utf8"), size: buf.length, mtimeMs: st.mtimeMs, ino: st.ino };
  } finally {
    await fh.close();
  }
}
const MAX_STATE_BYTES = 500 * 2 ** 20;
function state_file_parse(text) {
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { error: e };
  }
}
async function state_file_openIfExists(path) {
  let fh;
  try {
    fh = await (0,promises_.open)(path, external_node_fs_.constants.O_RDONLY | external_node_fs_.constants.O_NONBLOCK);
  } catch (e) {
    if (errorCode(e) === "ENOENT") return void 0;
    throw e;
  }
  if ((await fh.stat()).isFile()) return fh;
  await fh.close();
  throw new errors/* UserError */.yo({
    message: `${path} is not a file`,
    fix: `move it away: the next run rebuilds the state from the executor's records and the outputs`
  });
}
async function readIfExists(path) {
  const fh = await state_file_openIfExists(path);
  if (!fh) return void 0;
  try {
    return await fh.readFile("utf8");
  } finally {
    await fh.close();
  }
}
async function syncDir(dir) {
  const fh = await (0,promises_.open)(dir, "r");
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
function tempPathIn(dir) {
  return (0,external_node_path_.join)(dir, `.state.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
}
function errorCode(e) {
  return e?.code;
}
function diskError(e, what, dir) {
  const code = errorCode(e);
  if (code !== "ENOSPC" && code !== "EDQUOT" && code !== "EROFS") return e;
  return new errors/* UserError */.yo({
    message: `cannot ${what} in ${dir}: ${e.message}; the state saved before is intact`,
    fix: "free space on that disk (or move the state with --state-dir) and run the same command again"
  });
}


;// CONCATENATED MODULE: ./lib/exec/store/event-log.js




class EventLog {
  constructor(path, dir, warn) {
    this.path = path;
    this.dir = dir;
    this.warn = warn;
  }
  path;
  dir;
  warn;
  /** Appends one line per event and syncs, so a returned append survives a crash. */
  async append(events) {
    if (events.length === 0) return;
    const text = events.map((e) => toJson(e) + "\n").join("");
    await (0,promises_.mkdir)(this.dir, { recursive: true });
    const fh = await (0,promises_.open)(this.path, "a+");
    try {
      await this.repairTail(fh);
      await fh.write(text);
      await fh.sync();
    } catch (e) {
      throw diskError(e, "append to the event log", this.dir);
    } finally {
      await fh.close();
    }
  }
  /**
   * A crash mid-append leaves a last line without its newline; appending after it would glue
   * two events into one corrupt line in the middle of the log. Keep it the way readEvents
   * reads it: finish it if it parses, drop it if not.
   */
  async repairTail(fh) {
    const { size } = await fh.stat();
    const start = await lastLineStart(fh, size);
    if (start === size) return;
    if (size - start > MAX_EVENT_BYTES) {
      await fh.truncate(start);
      this.warn(
        `${this.path} ended in ${Math.round((size - start) / 2 ** 20)} MiB without a line break, which is no event; dropped it`
      );
      return;
    }
    const tail = Buffer.alloc(size - start);
    await fh.read(tail, 0, tail.length, start);
    if ("value" in state_file_parse(tail.toString("utf8"))) {
      await fh.write("\n");
    } else {
      await fh.truncate(start);
      this.warn(`${this.path} ended in a partial line from an interrupted write; dropped it`);
    }
  }
}
async function readEvents(path) {
  const events = [];
  let bad;
  let n = 0;
  const take = (line) => {
    n++;
    if (bad) return false;
    const parsed = line instanceof Error ? { error: line } : parse(line);
    if ("value" in parsed) events.push(parsed.value);
    else bad = { line: n, error: parsed.error };
    return true;
  };
  const ended = await eachLine(path, take);
  if (ended === void 0) return [];
  if (bad && (n > bad.line || ended === "newline"))
    throw new UserError({
      message: `campaign event log line is corrupt: ${bad.error.message}`,
      position: { file: path, line: bad.line, column: 1 },
      fix: `repair or delete that line in ${path}`
    });
  return events;
}
async function eachLine(path, take) {
  const fh = await openIfExists(path);
  if (!fh) return void 0;
  try {
    const chunk = Buffer.alloc(1024 * 1024);
    let parts = [];
    let length = 0;
    let tooLong = false;
    let ended = "newline";
    for (; ; ) {
      const { bytesRead } = await fh.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      let from = 0;
      for (let nl = chunk.indexOf(10, 0); nl !== -1 && nl < bytesRead; nl = chunk.indexOf(10, from)) {
        if (!tooLong) parts.push(Buffer.from(chunk.subarray(from, nl)));
        const line = tooLong ? tooLongLine() : Buffer.concat(parts).toString("utf8");
        parts = [];
        length = 0;
        tooLong = false;
        from = nl + 1;
        if (!take(line)) return "newline";
      }
      ended = from < bytesRead ? "partial" : "newline";
      if (from < bytesRead && !tooLong) {
        length += bytesRead - from;
        if (length > MAX_EVENT_BYTES) {
          tooLong = true;
          parts = [];
        } else parts.push(Buffer.from(chunk.subarray(from, bytesRead)));
      }
    }
    if (ended === "partial") take(tooLong ? tooLongLine() : Buffer.concat(parts).toString("utf8"));
    return ended;
  } finally {
    await fh.close();
  }
}
const tooLongLine = () => new Error(`a line over ${MAX_EVENT_BYTES / 2 ** 20} MiB`);
const MAX_EVENT_BYTES = 16 * 2 ** 20;
async function lastLineStart(fh, size) {
  const chunk = Buffer.alloc(64 * 1024);
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - chunk.length);
    const { bytesRead } = await fh.read(chunk, 0, end - start, start);
    const newline = chunk.subarray(0, bytesRead).lastIndexOf(10);
    if (newline >= 0) return start + newline + 1;
    end = start;
  }
  return 0;
}


// EXTERNAL MODULE: external "node:os"
var external_node_os_ = __webpack_require__(48161);
;// CONCATENATED MODULE: ./lib/exec/store/lock.js





const HALF_WRITTEN_GRACE_MS = 1e4;
const TAKEOVER_RETRY_MS = 20;
class CampaignLock {
  constructor(dir, warn) {
    this.dir = dir;
    this.warn = warn;
    this.lockPath = (0,external_node_path_.join)(dir, "lock");
    this.takeoverPath = (0,external_node_path_.join)(dir, "lock.takeover");
  }
  dir;
  warn;
  lockPath;
  /** Held only while removing a stale lock; see clearStaleLock. */
  takeoverPath;
  /** Takes the campaign's lock, or throws a UserError naming the process that holds it. */
  async acquire(command) {
    await (0,promises_.mkdir)(this.dir, { recursive: true });
    const holder = {
      pid: process.pid,
      host: (0,external_node_os_.hostname)(),
      started: (/* @__PURE__ */ new Date()).toISOString(),
      command
    };
    const text = JSON.stringify(holder);
    const tmp = tempPathIn(this.dir);
    await (0,promises_.writeFile)(tmp, text);
    try {
      for (; ; ) {
        try {
          await (0,promises_.link)(tmp, this.lockPath);
          return { holder, release: () => this.release(text) };
        } catch (e) {
          if (errorCode(e) !== "EEXIST") throw e;
          await this.clearStaleLock();
        }
      }
    } finally {
      await (0,promises_.rm)(tmp, { force: true });
    }
  }
  /**
   * The lock exists: remove it if its holder is gone, else throw naming the holder. Two
   * processes may both find the same stale lock; the takeover file lets only one of them at a
   * time check-and-remove, so nobody removes a lock another process has just created.
   */
  async clearStaleLock() {
    const seen = await snapshot(this.lockPath);
    if (seen === void 0) return;
    const reason = await this.staleReason(seen);
    let guard;
    try {
      guard = await (0,promises_.open)(this.takeoverPath, "wx");
    } catch (e) {
      if (errorCode(e) !== "EEXIST") throw e;
      const other = await snapshot(this.takeoverPath);
      if (other !== void 0 && Date.now() - other.mtimeMs > HALF_WRITTEN_GRACE_MS) {
        await (0,promises_.rm)(this.takeoverPath, { force: true });
      }
      await new Promise((resolve) => setTimeout(resolve, TAKEOVER_RETRY_MS));
      return;
    }
    try {
      await guard.close();
      const now = await snapshot(this.lockPath);
      if (now?.text === seen.text && now.mtimeMs === seen.mtimeMs) {
        await (0,promises_.rm)(this.lockPath);
        this.warn(`took over the lock ${this.lockPath}: ${reason}`);
      }
    } finally {
      await (0,promises_.rm)(this.takeoverPath, { force: true });
    }
  }
  /** Why the lock is stale; throws a UserError if its holder may still be running. */
  async staleReason(seen) {
    const holder = parseHolder(seen.text);
    if (holder === void 0) {
      if (Date.now() - seen.mtimeMs > HALF_WRITTEN_GRACE_MS) {
        return "it was unreadable and had not been touched for over 10 seconds";
      }
      throw new errors/* UserError */.yo({
        message: `campaign state ${this.dir} is being locked by another process (${this.lockPath} is not yet complete)`,
        fix: `try again in a few seconds; if no other campaign process is running, remove ${this.lockPath}`
      });
    }
    const { pid, host, started, command } = holder;
    const sameHost = host === (0,external_node_os_.hostname)();
    if (sameHost && !await isRunning(pid)) {
      return `its holder, pid ${pid} (${command}, started ${started}), is no longer running`;
    }
    throw new errors/* UserError */.yo({
      message: `campaign state ${this.dir} is locked by pid ${pid} on ${host}${sameHost ? "" : " (another machine, so whether it still runs cannot be checked)"}, started ${started}: ${command}`,
      fix: `wait for that process to finish; if you are sure it is gone, remove ${this.lockPath}`
    });
  }
  async release(ours) {
    if (await readIfExists(this.lockPath) === ours) await (0,promises_.rm)(this.lockPath, { force: true });
  }
}
function parseHolder(text) {
  const parsed = state_file_parse(text);
  if (!("value" in parsed)) return void 0;
  const h = parsed.value;
  const valid = typeof h === "object" && h !== null && Number.isInteger(h.pid) && h.pid > 0 && // process.kill(0 or negative) would signal a process group
  typeof h.host === "string" && typeof h.started === "string" && typeof h.command === "string";
  return valid ? h : void 0;
}
async function isRunning(pid) {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return errorCode(e) !== "ESRCH";
  }
  try {
    const stat = await (0,promises_.readFile)(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return true;
  }
}


;// CONCATENATED MODULE: ./lib/exec/store/file-store.js








const JOURNAL_ABOVE = 4 * 1024 * 1024;
const COMPACT_ABOVE = 0.5;
const SAVE_COMPACTS_PAST = 4;
class FileStateStore {
  constructor(dir, opts = {}) {
    this.dir = dir;
    this.statePath = (0,external_node_path_.join)(dir, "state.json");
    this.prevPath = (0,external_node_path_.join)(dir, "state.prev.json");
    this.eventsPath = (0,external_node_path_.join)(dir, "events.jsonl");
    this.journalPath = (0,external_node_path_.join)(dir, "state.journal.jsonl");
    this.warn = opts.onWarning ?? (() => {
    });
    this.lock = new CampaignLock(dir, this.warn);
    this.eventLog = new EventLog(this.eventsPath, dir, this.warn);
    this.journalAbove = opts.journalAbove ?? JOURNAL_ABOVE;
    this.compactAbove = opts.compactAbove ?? COMPACT_ABOVE;
    this.readOnly = opts.readOnly ?? false;
  }
  dir;
  statePath;
  eventsPath;
  journalPath;
  prevPath;
  lock;
  eventLog;
  warn;
  /** What state.json holds, as this store last wrote or read it: an equal save writes nothing. */
  lastJson;
  journalAbove;
  compactAbove;
  readOnly;
  /** Set while state.json is a journal-mode snapshot that this store wrote or read. */
  journaled;
  /**
   * Whether a journal this store does not know may lie beside state.json (before the first load
   * or save, or one that load found out of date): a compaction removes it before its rename, so
   * none of its lines can ever be taken for later saves.
   */
  journalUnknown = true;
  /** The highest sequence number seen in this directory: numbers are never used twice. */
  maxSeq = 0;
  /** Takes the campaign's lock, or throws a UserError naming the process that holds it. */
  acquire(command) {
    return this.lock.acquire(command);
  }
  /**
   * Moves the saved state, its journal, previous copy and event log into `dest` (a campaign
   * started over keeps its earlier generation, never deletes it); the next save starts anew.
   * Returns the files moved.
   */
  async setAside(dest) {
    await (0,promises_.mkdir)(dest, { recursive: true });
    const moved = [];
    for (const path of [this.statePath, this.journalPath, this.prevPath, this.eventsPath]) {
      const to = (0,external_node_path_.join)(dest, (0,external_node_path_.basename)(path));
      try {
        await (0,promises_.rename)(path, to);
        moved.push(to);
      } catch (e) {
        if (errorCode(e) !== "ENOENT") throw e;
      }
    }
    this.lastJson = void 0;
    this.journaled = void 0;
    this.journalUnknown = true;
    return moved;
  }
  /** The saved state (state.json and the journal's later saves), or undefined before the first save. */
  async load() {
    for (let tries = 1; ; tries++) {
      const read = await snapshot(this.statePath);
      this.forget();
      this.journalUnknown = true;
      if (read === void 0) return void 0;
      const parsed = state_file_parse(read.text);
      if (!("value" in parsed)) {
        if (this.readOnly)
          throw new errors/* UserError */.yo({
            message: `campaign state file ${this.statePath} is corrupt: ${parsed.error.message}`,
            fix: "this command changes nothing: `campaign run` falls back to state.prev.json (keeping the corrupt file), or restore it yourself"
          });
        return this.recover(parsed.error);
      }
      const seq = snapshotSeq(parsed.value);
      if (seq === void 0) {
        this.lastJson = read.text;
        return parsed.value;
      }
      try {
        return await this.withJournal(parsed.value, seq, read.size);
      } catch (e) {
        if (!(e instanceof JournalMismatch)) throw e;
        if (tries < 3 && await inoOf(this.statePath) !== read.ino) continue;
        throw new errors/* UserError */.yo({
          message: `campaign state journal ${this.journalPath} does not follow ${this.statePath}: ${e.message}`,
          fix: `if ${this.statePath} was put back from a backup on purpose, move ${this.journalPath} aside; otherwise restore the two together`
        });
      }
    }
  }
  /**
   * Replaces the state atomically: after a crash state.json is either the old or the new state.
   * A state equal to what state.json holds (as this store last wrote or read it) is not written again.
   * A large state's save appends its changes to the journal instead (see the top of this file).
   */
  async save(state) {
    if (isRecord(state) && Object.hasOwn(state, JOURNAL_SEQ)) {
      throw new TypeError(`cannot save a state with a top-level "${JOURNAL_SEQ}": the store keeps that key for itself`);
    }
    const journalable = isJournalable(state);
    const j = this.journaled;
    if (journalable && j !== void 0 && j.snapshotBytes > this.journalAbove) return this.saveChanges(state, j);
    const json = toJson(state);
    if (journalable && json.length > this.journalAbove) return this.compact(state, this.maxSeq + 1);
    if (json === this.lastJson && await sizeOf(this.statePath) === Buffer.byteLength(json)) return;
    this.forget();
    await this.writeState([json]);
    this.lastJson = json;
  }
  /**
   * Compacts (writes state.json whole, holding the last save, and removes the journal) once the
   * journal has passed `compactAbove` of state.json; true if it did. Saves leave this to the
   * caller because at 100,000 tasks it costs as much as a pass: called between passes, it takes
   * time the caller waits anyway. When none is due it touches no file.
   */
  async compactIfDue() {
    const j = this.journaled;
    if (j === void 0 || j.journalBytes <= j.snapshotBytes * this.compactAbove) return false;
    await this.compact(j.state, this.maxSeq + 1);
    return true;
  }
  /** Appends the changes since the last save to the journal, or compacts if it would grow far too long. */
  async saveChanges(state, j) {
    const { tasks } = state;
    const top = fieldsJson(state);
    const { set, del, count } = changes(j.tasks, j.count, tasks);
    const intact = await sizeOf(this.statePath) === j.snapshotBytes;
    if (set.length === 0 && del.length === 0 && top === j.topJson && intact) return;
    const seq = j.seq + 1;
    const line = lineParts(seq, top, tasks, set, del);
    const bytes = byteLength(line);
    const next = Math.max(seq, this.maxSeq + 1);
    const tooLong = j.journalBytes + bytes > j.snapshotBytes * this.compactAbove * SAVE_COMPACTS_PAST;
    if (!intact || tooLong) return this.compact(state, next);
    let appended;
    try {
      appended = await this.appendLine(line, j.journalBytes);
    } catch (e) {
      throw diskError(e, "save the campaign state", this.dir);
    }
    if (!appended) return this.compact(state, next);
    this.maxSeq = Math.max(this.maxSeq, seq);
    this.journaled = { ...j, state, tasks, topJson: top, seq, count, journalBytes: j.journalBytes + bytes };
  }
  /**
   * Appends one line after the `valid` bytes of the journal that this store knows, and syncs.
   * Bytes after those are a line a crash or a failed save cut short: dropped. A journal shorter
   * than that is not the one this store wrote: false, and nothing is written.
   */
  async appendLine(line, valid) {
    await (0,promises_.mkdir)(this.dir, { recursive: true });
    const fh = await (0,promises_.open)(this.journalPath, "a");
    try {
      const { size } = await fh.stat();
      if (size < valid) return false;
      if (size > valid) {
        await fh.truncate(valid);
        this.warn(`${this.journalPath} ended in a partial line from an interrupted save; dropped it`);
      }
      for (const part of line) await fh.writeFile(part);
      await fh.sync();
    } finally {
      await fh.close();
    }
    if (valid === 0) await syncDir(this.dir);
    return true;
  }
  /** Writes the state whole as state.json, numbered `seq` if it is still large, and drops the journal. */
  async compact(state, seq) {
    let count = 0;
    for (const id of Object.keys(state.tasks)) if (present(state.tasks[id])) count++;
    const [before, after] = stateParts(state);
    const pieces = recordPieces(state.tasks);
    const head = [before];
    let bytes = byteLength([before, after]);
    let next = pieces.next();
    for (; !next.done && bytes <= this.journalAbove; next = pieces.next()) {
      head.push(next.value);
      bytes += Buffer.byteLength(next.value);
    }
    this.forget();
    if (next.done && bytes <= this.journalAbove) {
      const whole = head.join("") + after;
      await this.writeState([whole]);
      this.lastJson = whole;
      return;
    }
    this.maxSeq = Math.max(this.maxSeq, seq);
    const rest = next.done ? [] : [next.value];
    const numbered = `${after.slice(0, -1)},"${JOURNAL_SEQ}":${seq}}`;
    const snapshotBytes = await this.writeState(chain(head, rest, pieces, [numbered]));
    const topJson = fieldsJson(state);
    const { tasks } = state;
    this.journaled = { state, tasks, topJson, seq, count, snapshotBytes, journalBytes: 0 };
  }
  /**
   * Puts `parts`, one after another, in place as state.json (temp file, fsync, rename, directory
   * fsync), keeping the one it replaces as state.prev.json; then removes the journal, whose saves
   * it holds. Returns the bytes written.
   */
  async writeState(parts) {
    let bytes = 0;
    await (0,promises_.mkdir)(this.dir, { recursive: true });
    const tmp = tempPathIn(this.dir);
    try {
      const fh = await (0,promises_.open)(tmp, "wx");
      try {
        for (const part of parts) {
          await fh.writeFile(part);
          bytes += Buffer.byteLength(part);
        }
        await fh.sync();
      } finally {
        await fh.close();
      }
      await (0,promises_.rm)(this.prevPath, { force: true });
      await (0,promises_.link)(this.statePath, this.prevPath).catch(ignore("ENOENT"));
      if (this.journalUnknown) await (0,promises_.rm)(this.journalPath, { force: true });
      await (0,promises_.rename)(tmp, this.statePath);
    } catch (e) {
      await (0,promises_.rm)(tmp, { force: true });
      throw diskError(e, "save the campaign state", this.dir);
    }
    await syncDir(this.dir);
    await (0,promises_.rm)(this.journalPath, { force: true });
    this.journalUnknown = false;
    return bytes;
  }
  /** state.json is a journal-mode snapshot numbered `seq`: the state with the journal's later saves. */
  async withJournal(snap, seq, snapshotBytes) {
    Reflect.deleteProperty(snap, JOURNAL_SEQ);
    const text = await readIfExists(this.journalPath) ?? "";
    const r = replay(this.journalPath, snap, seq, text, this.warn);
    this.forget();
    this.journaled = {
      state: r.state,
      tasks: r.state.tasks,
      topJson: fieldsJson(r.state),
      seq: r.seq,
      count: Object.keys(r.state.tasks).length,
      snapshotBytes,
      journalBytes: r.bytes
    };
    this.journalUnknown = false;
    this.maxSeq = Math.max(this.maxSeq, r.maxSeq);
    return r.state;
  }
  /** Nothing known about what state.json holds (until a save is through, say). */
  forget() {
    this.lastJson = void 0;
    this.journaled = void 0;
  }
  /** Appends one line per event and syncs, so a returned append survives a crash. */
  append(events) {
    return this.eventLog.append(events);
  }
  /**
   * state.json is corrupt: fall back to state.prev.json if it is good, keeping the corrupt file,
   * with the journal's saves if they follow it (else the journal is kept aside too).
   */
  async recover(cause) {
    const prevText = await readIfExists(this.prevPath);
    const prev = prevText === void 0 ? void 0 : state_file_parse(prevText);
    if (prev === void 0 || !("value" in prev)) {
      const alsoPrev = prev === void 0 ? "" : ` (and ${this.prevPath} is corrupt too)`;
      throw new errors/* UserError */.yo({
        message: `campaign state file ${this.statePath} is corrupt: ${cause.message}${alsoPrev}`,
        fix: `restore ${this.statePath} from a backup, or move it aside: the next run rebuilds the state from the executor's records and the outputs, and sends no finished attempt again`
      });
    }
    const stamp = (/* @__PURE__ */ new Date()).toISOString().replace(/:/g, "-");
    const kept = (0,external_node_path_.join)(this.dir, `state.corrupt-${stamp}.json`);
    await (0,promises_.link)(this.statePath, kept);
    const tmp = tempPathIn(this.dir);
    await (0,promises_.link)(this.prevPath, tmp);
    await (0,promises_.rename)(tmp, this.statePath);
    await syncDir(this.dir);
    let journal = "";
    const seq = snapshotSeq(prev.value);
    let value = prev.value;
    if (seq === void 0) {
      this.lastJson = prevText;
    } else {
      try {
        value = await this.withJournal(prev.value, seq, Buffer.byteLength(prevText));
      } catch (e) {
        if (!(e instanceof JournalMismatch || e instanceof errors/* UserError */.yo)) throw e;
        const keptJournal = (0,external_node_path_.join)(this.dir, `state.corrupt-${stamp}.journal.jsonl`);
        await (0,promises_.link)(this.journalPath, keptJournal);
        await (0,promises_.rm)(this.journalPath);
        await syncDir(this.dir);
        journal = `; ${this.journalPath} did not follow it (${e.message}), kept it as ${keptJournal}`;
        value = await this.withJournal(prev.value, seq, Buffer.byteLength(prevText));
      }
    }
    this.warn(
      `campaign state file ${this.statePath} was corrupt (${cause.message}); kept it as ${kept} and went back to the state before the last save${journal}`
    );
    return value;
  }
}
async function inoOf(path) {
  try {
    return (await (0,promises_.stat)(path)).ino;
  } catch (e) {
    if (errorCode(e) === "ENOENT") return void 0;
    throw e;
  }
}
async function sizeOf(path) {
  try {
    return (await (0,promises_.stat)(path)).size;
  } catch (e) {
    if (errorCode(e) === "ENOENT") return void 0;
    throw e;
  }
}
function ignore(code) {
  return (e) => {
    if (errorCode(e) !== code) throw e;
  };
}



/***/ }),

/***/ 43490:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   L: () => (/* binding */ packedElement),
/* harmony export */   o: () => (/* binding */ placement)
/* harmony export */ });
const placementsOf = /* @__PURE__ */ new WeakMap();
function placements(plan) {
  let out = placementsOf.get(plan);
  if (out === void 0) {
    out = { smoke: /* @__PURE__ */ new Map(), full: /* @__PURE__ */ new Map() };
    for (const phase of plan.phases) {
      const specs = {
        smoke: new Map(phase.smoke.map((t) => [t.id, t])),
        full: new Map(phase.tasks.map((t) => [t.id, t]))
      };
      phase.arrays.forEach((array, order) => {
        const specsOfStage = specs[array.stage];
        const into = out[array.stage];
        array.tasks.forEach((id, index) => into.set(id, { spec: specsOfStage.get(id), array, order, index }));
      });
    }
    placementsOf.set(plan, out);
  }
  return out;
}
function placement(plan, id, stage) {
  const p = placements(plan);
  return stage === void 0 ? p.full.get(id) ?? p.smoke.get(id) : p[stage].get(id);
}
function packedElement(plan, task, id) {
  const packing = placement(plan, id)?.array.packing;
  const handle = task.attempts.at(-1)?.handle;
  return packing === void 0 || handle === void 0 ? void 0 : { handle, packing };
}



/***/ }),

/***/ 95824:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Fg: () => (/* binding */ definitionOf),
/* harmony export */   Hc: () => (/* binding */ ACTIVE),
/* harmony export */   Hi: () => (/* binding */ TASK_STATUSES),
/* harmony export */   NX: () => (/* binding */ campaignStateSchema),
/* harmony export */   Vk: () => (/* binding */ stageDefinitionOf),
/* harmony export */   ff: () => (/* binding */ TERMINAL),
/* harmony export */   p$: () => (/* binding */ emptyState)
/* harmony export */ });
/* unused harmony exports FAILURE_CLASSES, PHASE_STATUSES, STATE_VERSION, attemptSchema, checkResultSchema, failureClass, phaseStateSchema, taskStateSchema, taskStatus */
/* harmony import */ var zod__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(85584);
/* harmony import */ var _manifest_expand_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(73941);
/* harmony import */ var _plan_code_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(42778);



const FAILURE_CLASSES = [
  "failed",
  "timeout",
  "out_of_memory",
  "node_fail",
  "preempted",
  "gate",
  "unverified",
  "lost",
  "cancelled",
  "disk_full",
  "unschedulable",
  "shortfall"
];
const failureClass = zod__WEBPACK_IMPORTED_MODULE_2__/* ["enum"] */ .k5n(FAILURE_CLASSES);
const attemptSchema = zod__WEBPACK_IMPORTED_MODULE_2__/* .object */ .Ikc({
  n: zod__WEBPACK_IMPORTED_MODULE_2__/* .number */ .aig().int().positive(),
  /** Taken before launch: outputs older than this are not this attempt's. */
  submittedAt: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(),
  handle: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(),
  startedAt: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(),
  endedAt: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(),
  exitCode: zod__WEBPACK_IMPORTED_MODULE_2__/* .number */ .aig().int().optional(),
  class: zod__WEBPACK_IMPORTED_MODULE_2__/* .union */ .KCZ([zod__WEBPACK_IMPORTED_MODULE_2__/* .literal */ .euz("completed"), failureClass]).optional(),
  reason: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(),
  memBytes: zod__WEBPACK_IMPORTED_MODULE_2__/* .number */ .aig().optional(),
  log: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(),
  /** The node it ran on, where the executor knows it. */
  node: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(),
  /** The GPUs (UUIDs) it ran on, where the executor chose them. */
  gpus: zod__WEBPACK_IMPORTED_MODULE_2__/* .array */ .YOg(zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP()).optional(),
  /** The walltime it was submitted with, in seconds. */
  walltimeSeconds: zod__WEBPACK_IMPORTED_MODULE_2__/* .number */ .aig().optional(),
  /** Where the scheduler granted less than asked (time, GPUs, partition), in plain words. */
  adapted: zod__WEBPACK_IMPORTED_MODULE_2__/* .array */ .YOg(zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP()).optional(),
  /** It continued from the checkpoint of the attempt before (sent with CAMPAIGN_RESUME=1). */
  resumed: zod__WEBPACK_IMPORTED_MODULE_2__/* .boolean */ .zMY().optional(),
  /** How its walltime was chosen where it is not the plan's (a continuation's remaining work, a grown retry). */
  retimed: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(),
  /**
   * The units its log's first progress line said, in a checkpointing phase whose progress lines
   * carry them: past the first attempt's, a continuation started from a checkpoint.
   */
  unitsFrom: zod__WEBPACK_IMPORTED_MODULE_2__/* .number */ .aig().optional(),
  /**
   * It never started: the element it was packed in ended before its turn. Recorded (as
   * `cancelled`) so that its number is never sent again, but no retry is counted for it.
   */
  unstarted: zod__WEBPACK_IMPORTED_MODULE_2__/* .literal */ .euz(true).optional(),
  /** The digest of the task's definition it ran under (plan/definition.ts). */
  definition: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(),
  /** Its stage's definition (an id of the state's `definitions`): which parts a later change touched. */
  stageDefinition: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(),
  /** Later definitions its result was kept for by the user's choice (`run --keep-changed`), oldest first. */
  kept: zod__WEBPACK_IMPORTED_MODULE_2__/* .array */ .YOg(
    zod__WEBPACK_IMPORTED_MODULE_2__/* .object */ .Ikc({
      definition: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(),
      stageDefinition: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(),
      at: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(),
      changed: zod__WEBPACK_IMPORTED_MODULE_2__/* .array */ .YOg(zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP())
    })
  ).optional(),
  /** The git commit of the manifest when the attempt was sent, where it is in a git checkout. */
  commit: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(),
  /** The code snapshot it ran (plan/code.ts), where the manifest declares code. */
  code: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional()
});
const TASK_STATUSES = [
  "pending",
  "submitted",
  "running",
  "completed",
  "failed",
  "retrying",
  "blocked",
  "stuck"
];
const taskStatus = zod__WEBPACK_IMPORTED_MODULE_2__/* ["enum"] */ .k5n(TASK_STATUSES);
const taskStateSchema = zod__WEBPACK_IMPORTED_MODULE_2__/* .object */ .Ikc({
  status: taskStatus,
  attempts: zod__WEBPACK_IMPORTED_MODULE_2__/* .array */ .YOg(attemptSchema),
  /** For a retry: not before this time. */
  notBefore: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(),
  /** Memory for the next attempt after an out-of-memory failure. */
  nextMemBytes: zod__WEBPACK_IMPORTED_MODULE_2__/* .number */ .aig().optional(),
  /** The walltime of the next attempt after a timeout or preemption, with how it was chosen. */
  nextWalltime: zod__WEBPACK_IMPORTED_MODULE_2__/* .object */ .Ikc({ seconds: zod__WEBPACK_IMPORTED_MODULE_2__/* .number */ .aig(), partition: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(), why: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP() }).optional(),
  /** The next attempt continues from the task's checkpoint. */
  resume: zod__WEBPACK_IMPORTED_MODULE_2__/* .boolean */ .zMY().optional(),
  reason: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(),
  /** Why a submitted task is not running yet, in plain words. */
  waiting: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(),
  /** Attempts up to this number were before a `--retry-failed` reset: retries count after it. */
  retryFrom: zod__WEBPACK_IMPORTED_MODULE_2__/* .number */ .aig().int().optional()
});
const checkResultSchema = zod__WEBPACK_IMPORTED_MODULE_2__/* .object */ .Ikc({
  check: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(),
  passed: zod__WEBPACK_IMPORTED_MODULE_2__/* .boolean */ .zMY(),
  detail: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(),
  otherwise: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional()
});
const PHASE_STATUSES = ["waiting", "smoke", "gate", "full", "completed", "failed", "blocked"];
const phaseStateSchema = zod__WEBPACK_IMPORTED_MODULE_2__/* .object */ .Ikc({
  status: zod__WEBPACK_IMPORTED_MODULE_2__/* ["enum"] */ .k5n(PHASE_STATUSES),
  reason: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(),
  gate: zod__WEBPACK_IMPORTED_MODULE_2__/* .object */ .Ikc({
    passed: zod__WEBPACK_IMPORTED_MODULE_2__/* .boolean */ .zMY(),
    at: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(),
    results: zod__WEBPACK_IMPORTED_MODULE_2__/* .array */ .YOg(checkResultSchema),
    /** The checklist it was judged by (checklistKey); absent in states from before it was kept. */
    checklist: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(),
    /** The definitions of the smoke tasks it judged (definitionsDigest): it holds for those only. */
    definitions: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional()
  }).optional(),
  preconditions: zod__WEBPACK_IMPORTED_MODULE_2__/* .object */ .Ikc({ at: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(), missing: zod__WEBPACK_IMPORTED_MODULE_2__/* .array */ .YOg(zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP()) }).optional()
});
const STATE_VERSION = 1;
const campaignStateSchema = zod__WEBPACK_IMPORTED_MODULE_2__/* .object */ .Ikc({
  version: zod__WEBPACK_IMPORTED_MODULE_2__/* .literal */ .euz(STATE_VERSION),
  campaign: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(),
  created: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(),
  updated: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(),
  /**
   * The campaign's generation this state follows, as the workdir records it (decide/generation.ts);
   * absent in a state that has not run since generations were recorded.
   */
  generation: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(),
  phases: zod__WEBPACK_IMPORTED_MODULE_2__/* .record */ .g1P(zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(), phaseStateSchema),
  tasks: zod__WEBPACK_IMPORTED_MODULE_2__/* .record */ .g1P(zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(), taskStateSchema),
  /** Stage definitions attempts ran under, by id: each part's hash (plan/definition.ts). */
  definitions: zod__WEBPACK_IMPORTED_MODULE_2__/* .record */ .g1P(zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(), zod__WEBPACK_IMPORTED_MODULE_2__/* .record */ .g1P(zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(), zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP())).optional(),
  /** The code snapshots attempts ran, by id (plan/code.ts): which files a later change touched. */
  code: zod__WEBPACK_IMPORTED_MODULE_2__/* .record */ .g1P(zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(), _plan_code_js__WEBPACK_IMPORTED_MODULE_1__/* .codeSnapshotSchema */ .PS).optional(),
  /**
   * The scopes whose jobs ended with tasks still out and nothing due for a while (parked), for
   * a scheduled resume to drive; `since`: the last change they saw.
   */
  parked: zod__WEBPACK_IMPORTED_MODULE_2__/* .object */ .Ikc({
    scopes: zod__WEBPACK_IMPORTED_MODULE_2__/* .array */ .YOg(zod__WEBPACK_IMPORTED_MODULE_2__/* .object */ .Ikc({ phase: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(), stage: zod__WEBPACK_IMPORTED_MODULE_2__/* ["enum"] */ .k5n(_manifest_expand_js__WEBPACK_IMPORTED_MODULE_0__/* .JOB_STAGES */ .Cr) })),
    since: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP()
  }).optional()
});
function emptyState(campaign, now) {
  return { version: STATE_VERSION, campaign, created: now, updated: now, phases: {}, tasks: {} };
}
function definitionOf(a) {
  return a.kept?.at(-1)?.definition ?? a.definition;
}
function stageDefinitionOf(a) {
  return a.kept?.at(-1)?.stageDefinition ?? a.stageDefinition;
}
const ACTIVE = /* @__PURE__ */ new Set(["submitted", "running"]);
const TERMINAL = /* @__PURE__ */ new Set(["completed", "failed", "blocked", "stuck"]);



/***/ }),

/***/ 68505:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   $A: () => (/* binding */ changedSince),
/* harmony export */   Ee: () => (/* binding */ setTask),
/* harmony export */   QC: () => (/* binding */ copyTasks),
/* harmony export */   qh: () => (/* binding */ indexOf)
/* harmony export */ });
/* unused harmony export TaskIndex */
/* harmony import */ var _state_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(95824);

class TaskIndex {
  byStatus = new Map(_state_js__WEBPACK_IMPORTED_MODULE_0__/* .TASK_STATUSES */ .Hi.map((s) => [s, /* @__PURE__ */ new Set()]));
  diskFull = /* @__PURE__ */ new Set();
  /** The plan whose every task the record holds, once a step has added them. */
  completeFor;
  /** The ids of the tasks with this status, in the order they came to it. */
  ids(status) {
    return this.byStatus.get(status);
  }
  /** How many tasks have any of these statuses. */
  count(statuses) {
    let n = 0;
    for (const s of statuses) n += this.ids(s).size;
    return n;
  }
  /** The tasks that ended on a full disk, in the order they did. */
  diskFullIds() {
    return this.diskFull;
  }
  /** Records that task `id` went from `was` (undefined: new) to `is`. */
  change(id, was, is) {
    if (was?.status !== is.status) {
      if (was) this.byStatus.get(was.status).delete(id);
      this.byStatus.get(is.status).add(id);
    }
    if (isDiskFull(is)) this.diskFull.add(id);
    else this.diskFull.delete(id);
  }
  static build(tasks) {
    const index = new TaskIndex();
    for (const id of Object.keys(tasks)) index.change(id, void 0, tasks[id]);
    return index;
  }
}
const isDiskFull = (t) => t.status === "failed" && t.attempts.at(-1)?.class === "disk_full";
const made = /* @__PURE__ */ new WeakSet();
const indexes = /* @__PURE__ */ new WeakMap();
const lineage = /* @__PURE__ */ new WeakMap();
function placeOf(tasks) {
  let place = lineage.get(tasks);
  if (place === void 0) lineage.set(tasks, place = { changed: /* @__PURE__ */ new Set(), from: void 0 });
  return place;
}
function indexOf(tasks) {
  let index = indexes.get(tasks);
  if (index === void 0) {
    index = TaskIndex.build(tasks);
    if (made.has(tasks)) indexes.set(tasks, index);
  }
  return index;
}
function copyTasks(tasks) {
  const out = {};
  for (const k of Object.keys(tasks)) out[k] = tasks[k];
  const index = indexes.get(tasks) ?? TaskIndex.build(tasks);
  indexes.delete(tasks);
  made.add(out);
  indexes.set(out, index);
  lineage.set(out, { changed: /* @__PURE__ */ new Set(), from: new WeakRef(placeOf(tasks)) });
  return out;
}
function setTask(tasks, id, t) {
  indexOf(tasks).change(id, tasks[id], t);
  lineage.get(tasks)?.changed.add(id);
  tasks[id] = t;
}
function changedSince(older, newer) {
  const ids = /* @__PURE__ */ new Set();
  if (older === newer) return ids;
  const start = lineage.get(older);
  if (start === void 0) return void 0;
  for (let place = lineage.get(newer), hops = 0; place !== start; hops++) {
    if (place === void 0 || hops >= MAX_HOPS) return void 0;
    for (const id of place.changed) ids.add(id);
    place = place.from?.deref();
  }
  return ids;
}
const MAX_HOPS = 8;



/***/ })

};
