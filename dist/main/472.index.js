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
/**
 * The saves of jobs that ran at once, read from the directories they were downloaded to and
 * merged into one state (decide/parallel-states.ts), for both front ends: the Action's restore
 * and `--from-github`. Each directory holds a save's files as the Action uploaded them.
 */





/**
 * The save in a downloaded directory, checked as the controller would load it (state.json with
 * its journal, against the state's schema), or what is wrong with it: a save that fails here is
 * passed over for the next newest, as a damaged download is, never merged.
 */
async function readSave(dir, campaign) {
    let raw;
    try {
        raw = await new _exec_store_file_store_js__WEBPACK_IMPORTED_MODULE_3__/* .FileStateStore */ .n(dir, { readOnly: true }).load();
    }
    catch (e) {
        return `its state does not load (${e.message})`;
    }
    if (raw === undefined)
        return 'it holds no state.json';
    const parsed = _state_state_js__WEBPACK_IMPORTED_MODULE_4__/* .campaignStateSchema */ .NX.safeParse(raw);
    if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return `its state.json is not a campaign state (${issue ? `${issue.path.join('.') || 'the whole'}: ${issue.message}` : 'invalid'})`;
    }
    if (parsed.data.campaign !== campaign)
        return 'its state.json is not this campaign’s state';
    return { state: parsed.data, drove: await droveBy(dir) };
}
/**
 * Merges the saves in `dirs` (newest first, each passed by readSave): state.json's text,
 * events.jsonl's (every event once) and the phases no save drove.
 */
async function mergeSaves(dirs, campaign) {
    const saves = [];
    const events = [];
    const seen = new Set();
    for (const dir of dirs) {
        const save = await readSave(dir, campaign);
        if (typeof save === 'string')
            throw new Error(`the save in ${dir} cannot be merged: ${save}`);
        saves.push(save);
        const text = await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_0__.readFile)((0,node_path__WEBPACK_IMPORTED_MODULE_1__.join)(dir, 'events.jsonl'), 'utf8').catch(() => '');
        for (const line of text.split('\n')) {
            if (line.trim() === '' || seen.has(line))
                continue;
            seen.add(line);
            events.push(line);
        }
    }
    const merged = (0,_decide_parallel_states_js__WEBPACK_IMPORTED_MODULE_2__/* .mergeParallelStates */ .O1)(saves);
    return {
        state: JSON.stringify(merged.state),
        events: events.map((l) => `${l}\n`).join(''),
        uncovered: merged.uncovered,
    };
}
/**
 * Records in the state directory `dir` the phases its job drives (every one without `phase`),
 * saved with every copy of the state: a phase's records are taken from the newest job that drove it.
 */
async function recordDrove(dir, phase) {
    await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_0__.mkdir)(dir, { recursive: true });
    await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_0__.writeFile)((0,node_path__WEBPACK_IMPORTED_MODULE_1__.join)(dir, _decide_parallel_states_js__WEBPACK_IMPORTED_MODULE_2__/* .DROVE_FILE */ .sN), JSON.stringify({ drove: phase === undefined ? 'all' : [phase] }));
}
/** The phases the job that saved a state directory drove (DROVE_FILE); all for a save that does not say. */
async function droveBy(dir) {
    try {
        const parsed = _decide_parallel_states_js__WEBPACK_IMPORTED_MODULE_2__/* .droveFile */ .lB.safeParse(JSON.parse(await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_0__.readFile)((0,node_path__WEBPACK_IMPORTED_MODULE_1__.join)(dir, _decide_parallel_states_js__WEBPACK_IMPORTED_MODULE_2__/* .DROVE_FILE */ .sN), 'utf8')));
        return parsed.success ? parsed.data.drove : 'all';
    }
    catch {
        return 'all';
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
/**
 * A copy of a task's record or attempt with some fields changed: the keys of `{ ...from,
 * ...fields }`, in its order (the saved JSON's). Object.assign, not a spread: this V8 gives
 * every object spread from one of the many shapes a pass meets a hidden class of its own (a V8
 * map and its descriptors, about 25 MiB at 100,000 tasks), where these copies share theirs.
 */
function amended(from, fields) {
    return Object.assign({}, from, fields);
}
/** A task's record made afresh: a `--retry-failed` reset lasts for the task's life (retries are counted after it). */
function renewed(t, fields) {
    return t.retryFrom === undefined ? fields : Object.assign({ retryFrom: t.retryFrom }, fields);
}
/**
 * The attempts with `a` added, in an array of their number: one copied and then pushed to keeps
 * room for 16 more, over 100 bytes a task.
 */
const appended = (attempts, a) => attempts.concat([a]);
/** The attempts with the `i`th replaced by `a`. */
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
/**
 * One state from the saves of jobs that ran at once. The generated workflow runs independent
 * phases in parallel jobs, each starting from the same state and saving its own copy with its
 * phase's progress in it; the newest copy alone would lose every other job's records. Each save
 * says which phases its job drove (a scoped job one, a whole-campaign job all), and a phase's
 * record, its phase state and its tasks, is taken from one save only: the newest that drove it
 * by name, else the newest whole-campaign save. A job that did not drive a phase holds only the
 * copy it began from, so none of its records of that phase is taken, not even one the driving
 * save lacks (the next pass plans such a task afresh and finds on the cluster what it sent). A
 * phase no save drove keeps the newest save's record, which every job began from, and is named
 * among the merge's `uncovered`.
 */


/**
 * Saved beside the state: the phases the saving job drove (`{"drove": ["train"]}`, or "all"),
 * so that saves of jobs that ran at once can be merged.
 */
const DROVE_FILE = 'drove.json';
const droveFile = zod__WEBPACK_IMPORTED_MODULE_1__/* .object */ .Ikc({ drove: zod__WEBPACK_IMPORTED_MODULE_1__/* .union */ .KCZ([zod__WEBPACK_IMPORTED_MODULE_1__/* .literal */ .euz('all'), zod__WEBPACK_IMPORTED_MODULE_1__/* .array */ .YOg(zod__WEBPACK_IMPORTED_MODULE_1__/* .string */ .YjP())]) });
/** `saves` newest first; the first is the base. */
function mergeParallelStates(saves) {
    const [base, ...older] = saves;
    if (base === undefined)
        throw new Error('mergeParallelStates needs at least one state');
    if (older.length === 0)
        return { state: base.state, uncovered: [] };
    const phases = new Set(saves.flatMap((s) => [...Object.keys(s.state.phases), ...Object.keys(s.state.tasks).map(_policy_js__WEBPACK_IMPORTED_MODULE_0__/* .phaseOfTask */ .E)]));
    const source = new Map();
    const uncovered = [];
    for (const phase of phases) {
        const driver = saves.find((s) => s.drove !== 'all' && s.drove.includes(phase)) ?? saves.find((s) => s.drove === 'all');
        if (driver === undefined)
            uncovered.push(phase);
        source.set(phase, (driver ?? base).state);
    }
    const tasks = {};
    for (const [phase, from] of source) {
        for (const [id, t] of Object.entries(from.tasks))
            if ((0,_policy_js__WEBPACK_IMPORTED_MODULE_0__/* .phaseOfTask */ .E)(id) === phase)
                tasks[id] = t;
    }
    const phaseStates = Object.fromEntries([...phases].flatMap((p) => {
        const ps = source.get(p).phases[p];
        return ps === undefined ? [] : [[p, ps]];
    }));
    const definitions = Object.assign({}, ...[...saves].reverse().map((s) => s.state.definitions ?? {}));
    const updated = saves.map((s) => s.state.updated).reduce((a, b) => (b > a ? b : a));
    // A phase's parked scopes come with its records; a whole-campaign one with the base.
    const parkedFrom = (s, phase) => (s.parked?.scopes ?? []).filter((sc) => sc.phase === phase).map((sc) => ({ sc, since: s.parked.since }));
    const parked = [...parkedFrom(base.state, undefined), ...[...phases].flatMap((p) => parkedFrom(source.get(p), p))];
    const rest = { ...base.state };
    delete rest.parked;
    const state = {
        ...rest,
        updated,
        phases: phaseStates,
        tasks,
        ...(Object.keys(definitions).length > 0 ? { definitions } : {}),
        ...(parked.length > 0
            ? {
                parked: {
                    scopes: parked.map((x) => x.sc),
                    since: parked.map((x) => x.since).reduce((a, b) => (b > a ? b : a)),
                },
            }
            : {}),
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




/** The phase a task id belongs to (`<phase>/...`). */
const phaseOfTask = (taskId) => taskId.slice(0, taskId.indexOf('/'));
/**
 * The policy of a manifest. With its plan, a timeout or a preemption also says the next
 * attempt's walltime: a continuation's remaining work where the phase declares `checkpoint`,
 * else, after a timeout, the last walltime times `retry.timeout.time_factor`.
 */
function retryPolicy(manifest, plan) {
    const phases = new Map(manifest.phases.map((p) => [p.name, p]));
    const cluster = manifest.cluster;
    const oom = cluster.executor === 'ssh-gpu' ? cluster.oom?.retry : undefined;
    return (taskId, cls) => {
        const phase = phases.get(phaseOfTask(taskId));
        const rule = (0,_retry_js__WEBPACK_IMPORTED_MODULE_3__/* .retryRule */ .b)(phase?.retry, manifest.defaults?.retry, cls);
        if (cls === 'out_of_memory' && oom && rule.attempts === 0) {
            return { ...rule, attempts: oom.attempts, delaySeconds: oom.delay === undefined ? 0 : (0,_manifest_units_js__WEBPACK_IMPORTED_MODULE_0__/* .parseDuration */ .E9)(oom.delay) };
        }
        if (cls !== 'timeout' && cls !== 'preempted')
            return rule;
        const at = plan && (0,_state_placement_js__WEBPACK_IMPORTED_MODULE_2__/* .placement */ .o)(plan, taskId);
        if (!phase || !at)
            return rule;
        if (phase.checkpoint) {
            return {
                ...rule,
                resume: true,
                walltime: ({ units }) => {
                    const b = (0,_plan_walltime_js__WEBPACK_IMPORTED_MODULE_1__/* .remainingBudget */ .uj)(budgetInput(manifest, phase, at), units);
                    const why = units === undefined
                        ? `as planned, ${(0,_manifest_units_js__WEBPACK_IMPORTED_MODULE_0__/* .formatDuration */ .a3)(b.seconds)} (no progress to go by)`
                        : `after ${units} ${phase.cost?.unit ?? 'unit'}s: ${b.arithmetic}`;
                    return next(b, why);
                },
            };
        }
        const factor = (phase.retry?.timeout ?? manifest.defaults?.retry?.timeout)?.time_factor;
        if (cls !== 'timeout' || factor === undefined || factor <= 1)
            return rule;
        return {
            ...rule,
            walltime: ({ walltimeSeconds }) => {
                const b = (0,_plan_walltime_js__WEBPACK_IMPORTED_MODULE_1__/* .grownBudget */ .Ro)(cluster, walltimeSeconds ?? at.array.budget.seconds, factor, at.array.resources.partition);
                return next(b, `walltime grown after a timeout: ${b.arithmetic}`);
            },
        };
    };
}
const next = (b, why) => ({
    seconds: b.seconds,
    ...(b.partition === undefined ? {} : { partition: b.partition }),
    why,
});
/** What the plan budgets a task's array from (plan/plan.ts), for the task alone. */
function budgetInput(manifest, phase, at) {
    const overrides = at.spec.stage === 'smoke' ? phase.smoke?.overrides : undefined;
    return {
        phase,
        cluster: manifest.cluster,
        cell: at.spec.values,
        ...(at.spec.units === undefined ? {} : { units: at.spec.units }),
        ...(overrides?.walltime === undefined ? {} : { walltime: overrides.walltime }),
        ...(manifest.defaults?.walltime === undefined ? {} : { defaultWalltime: manifest.defaults.walltime }),
        ...(at.array.resources.partition === undefined ? {} : { partition: at.array.resources.partition }),
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


/**
 * Retries per class when the manifest says nothing: a vanished task, a failed node or a
 * preemption is not the task's fault.
 */
const DEFAULT_ATTEMPTS = { lost: 2, node_fail: 2, preempted: 3, shortfall: 2 };
/** The manifest retry entry a class is governed by. */
const ruleKey = (cls) => (cls === 'unverified' ? 'failed' : cls);
/** The retry rule for a class, phase settings over defaults over built-in defaults. */
function retryRule(phaseRetry, defaults, cls) {
    // Sent again as it is, an unschedulable task would only wait for ever again.
    if (cls === 'gate' || cls === 'cancelled' || cls === 'disk_full' || cls === 'unschedulable')
        return { attempts: 0, delaySeconds: 0 };
    const key = cls === 'unverified' ? 'failed' : cls;
    const rule = phaseRetry?.[key] ?? defaults?.[key];
    const memFactor = key === 'out_of_memory' ? rule?.mem_factor : undefined;
    return {
        attempts: rule?.attempts ?? DEFAULT_ATTEMPTS[cls] ?? 0,
        delaySeconds: rule?.delay === undefined ? 0 : (0,_manifest_units_js__WEBPACK_IMPORTED_MODULE_0__/* .parseDuration */ .E9)(rule.delay),
        ...(memFactor === undefined ? {} : { memFactor }),
    };
}
const addSeconds = (iso, s) => new Date(Date.parse(iso) + s * 1000).toISOString();
/**
 * A task's record once an attempt has ended (`a`, as `e` ended it, already in `attempts`):
 * completed, or after a failure retrying, with the next attempt's delay, memory and walltime,
 * while the rule of its class allows another, else failed.
 */
function afterEnd(t, attempts, a, e, policy) {
    if (e.class === 'completed')
        return (0,_copies_js__WEBPACK_IMPORTED_MODULE_1__/* .renewed */ .Fv)(t, { status: 'completed', attempts });
    const rule = policy(e.task, e.class);
    // Classes that share a rule share its allowance (`unverified` is counted with `failed`).
    const since = t.retryFrom ?? 0;
    const used = attempts.filter((x) => x.n > since && x.class !== undefined && !x.unstarted && ruleKey(x.class) === ruleKey(e.class)).length - 1;
    const why = `${e.class}${e.reason ? `: ${e.reason}` : ''}`;
    if (used >= rule.attempts) {
        return (0,_copies_js__WEBPACK_IMPORTED_MODULE_1__/* .renewed */ .Fv)(t, {
            status: 'failed',
            attempts,
            reason: rule.attempts > 0 ? `${why} (after ${rule.attempts} retries)` : why,
        });
    }
    const mem = rule.memFactor && a.memBytes ? Math.ceil(a.memBytes * rule.memFactor) : undefined;
    const wall = rule.walltime?.({
        ...(a.walltimeSeconds === undefined ? {} : { walltimeSeconds: a.walltimeSeconds }),
        ...(e.units === undefined ? {} : { units: e.units }),
    });
    return (0,_copies_js__WEBPACK_IMPORTED_MODULE_1__/* .renewed */ .Fv)(t, {
        status: 'retrying',
        attempts,
        reason: why,
        notBefore: addSeconds(e.at, rule.delaySeconds),
        ...(mem === undefined ? {} : { nextMemBytes: mem }),
        ...(wall === undefined ? {} : { nextWalltime: wall }),
        ...(rule.resume ? { resume: true } : {}),
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
/**
 * The lines of state.journal.jsonl (see FileStateStore): what one holds, how it is written, and
 * how the lines are read back onto the state.json they follow. One line is one save of a large
 * state: its sequence number, its fields other than `tasks`, the task entries it set and the
 * ones it removed. The store decides when to write them, and keeps them safe on disk.
 */


/** The top-level key of a state.json written in journal mode: the sequence number it holds. */
const JOURNAL_SEQ = 'journalSeq';
/** A journal that does not follow state.json; load throws it as a UserError, recover moves it aside. */
class JournalMismatch extends Error {
}
function isRecord(v) {
    return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function isJournalable(v) {
    return isRecord(v) && isRecord(v.tasks);
}
/** The sequence number of a journal-mode state.json, or undefined for one that holds everything. */
function snapshotSeq(v) {
    if (!isJournalable(v))
        return undefined;
    const seq = v[JOURNAL_SEQ];
    return Number.isSafeInteger(seq) && seq >= 0 ? seq : undefined;
}
/** Whether JSON.stringify writes this property (it leaves out undefined, functions and symbols). */
function present(v) {
    return v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';
}
/**
 * What changed from the tasks record `was` (holding `wasCount` entries) to `tasks`: the ids of
 * the entries set (new, or not equal) and of those removed, and how many entries `tasks` holds.
 */
function changes(was, wasCount, tasks) {
    const set = [];
    const del = [];
    if (tasks === was)
        return { set, del, count: wasCount };
    // A record the controller's core made from `was` says which tasks it set: only those are compared.
    const told = (0,task_index/* changedSince */.$A)(was, tasks);
    if (told !== undefined) {
        let count = wasCount;
        for (const id of told) {
            const v = Object.hasOwn(tasks, id) ? tasks[id] : undefined;
            const old = Object.hasOwn(was, id) ? was[id] : undefined;
            if (!present(v)) {
                if (present(old)) {
                    del.push(id);
                    count--;
                }
            }
            else if (!present(old)) {
                set.push(id);
                count++;
            }
            else if (v !== old && !jsonEqual(old, v))
                set.push(id);
        }
        return { set, del, count };
    }
    let count = 0;
    let kept = 0; // entries `was` has too
    for (const id of Object.keys(tasks)) {
        const v = tasks[id];
        if (!present(v))
            continue;
        count++;
        const old = Object.hasOwn(was, id) ? was[id] : undefined;
        if (present(old))
            kept++;
        // An entry that is not the same object may still be equal: after a load, the caller's
        // copies of every entry are new objects.
        if (v !== old && !jsonEqual(old, v))
            set.push(id);
    }
    if (kept < wasCount) {
        for (const id of Object.keys(was)) {
            if (present(was[id]) && !(Object.hasOwn(tasks, id) && present(tasks[id])))
                del.push(id);
        }
    }
    return { set, del, count };
}
/**
 * The line of save `seq`, in parts to be written one after another: `top` is its fields other
 * than `tasks` as JSON, `set` the ids of the entries of `tasks` it sets. Their JSON is made by one
 * JSON.stringify of an object of them, and never joined to the rest: a string per entry, their
 * join, and the flattening of the line before its bytes are written were 11 MiB of garbage a
 * pass at 100,000 tasks. The object lists them in the order of `set`, but for keys that are
 * integers (never a task's id, which holds its phase's name and a slash), which it lists first:
 * the line sets the same.
 */
function lineParts(seq, top, tasks, set, del) {
    const entries = {};
    for (const id of set)
        setOwn(entries, id, tasks[id]);
    return [`{"seq":${seq},"top":${top},"set":`, JSON.stringify(entries), `,"del":${JSON.stringify(del)}}\n`];
}
/**
 * `snap` (state.json, numbered `seq`) with the journal's later saves applied in place. Lines
 * numbered `seq` or less are already in state.json; each later one must follow the one before
 * (else JournalMismatch, and `snap` is as it was). An unparseable last line without its newline
 * is a save a crash cut short, never acknowledged: left out, with a warning. An unparseable
 * line anywhere else means the journal is damaged: a UserError.
 */
function replay(path, snap, seq, text, warn) {
    const lines = text.split('\n');
    const tail = lines.pop(); // '' when the journal ends with a newline
    const later = [];
    let last = seq;
    let maxSeq = seq;
    for (const [i, text] of lines.entries()) {
        const line = journalLine(text);
        if (line instanceof Error) {
            throw new errors/* UserError */.yo({
                message: `campaign state journal line is corrupt: ${line.message}`,
                position: { file: path, line: i + 1, column: 1 },
                fix: `restore the state directory from a backup; or move ${path} aside to go back to the last whole save in state.json (the saves since are lost: the next run rebuilds what it can from the executor's records and the outputs)`,
            });
        }
        maxSeq = Math.max(maxSeq, line.seq);
        if (line.seq <= seq)
            continue; // a compaction was cut short before it removed the journal
        if (line.seq !== last + 1) {
            throw new JournalMismatch(`its line ${i + 1} is save ${line.seq}, but the save before it is ${last}`);
        }
        later.push(line);
        last = line.seq;
    }
    if (tail !== '')
        warn(`${path} ends in a partial line from an interrupted save; left it out`);
    let state = snap;
    if (later.length > 0) {
        const { tasks } = snap;
        for (const line of later) {
            for (const id of Object.keys(line.set))
                setOwn(tasks, id, line.set[id]);
            for (const id of line.del)
                Reflect.deleteProperty(tasks, id);
        }
        state = { ...later.at(-1).top, tasks };
    }
    return { state, seq: last, maxSeq, bytes: Buffer.byteLength(text) - Buffer.byteLength(tail) };
}
/** One line parsed and checked, or why it is not a journal line. */
function journalLine(text) {
    let v;
    try {
        v = JSON.parse(text);
    }
    catch (e) {
        return e;
    }
    if (!isRecord(v))
        return new Error('not a journal entry');
    const { seq, top, set, del } = v;
    const ok = Number.isSafeInteger(seq) &&
        seq > 0 &&
        isRecord(top) &&
        isRecord(set) &&
        Array.isArray(del) &&
        del.every((id) => typeof id === 'string');
    return ok ? v : new Error('not a journal entry');
}
/**
 * Whether two values are written as the same JSON, up to the order of keys. It may say no to
 * some that are (a Date, say, unless the same object): that only writes an entry again.
 */
function jsonEqual(a, b) {
    if (a === b)
        return true;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
        return false;
    if (Array.isArray(a) || Array.isArray(b)) {
        if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length)
            return false;
        for (let i = 0; i < a.length; i++)
            if (!jsonEqual(a[i], b[i]))
                return false;
        return true;
    }
    if (Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype)
        return false;
    const x = a;
    const y = b;
    let n = 0;
    for (const k of Object.keys(x)) {
        if (!present(x[k]))
            continue;
        n++;
        if (!Object.hasOwn(y, k) || !jsonEqual(x[k], y[k]))
            return false;
    }
    for (const k of Object.keys(y))
        if (present(y[k]))
            n--;
    return n === 0;
}
/** obj[key] = value, also for a key such as __proto__. */
function setOwn(obj, key, value) {
    if (key === '__proto__')
        Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
    else
        obj[key] = value;
}

;// CONCATENATED MODULE: ./lib/exec/store/json-pieces.js
/**
 * The state as JSON.stringify writes it, made in pieces: the fields around the tasks record, the
 * record a few thousand entries at a time, and one field at a time. Apart from the store because
 * how the JSON is cut is its own matter, and a compaction writes a large state without ever
 * holding its JSON as one string.
 */

/** The fields of the state other than `tasks`, as JSON.stringify writes them. */
function fieldsJson(state) {
    const parts = [];
    for (const k of Object.keys(state)) {
        const json = k === 'tasks' ? undefined : fieldJson(state, k);
        if (json !== undefined)
            parts.push(json);
    }
    return `{${parts.join(',')}}`;
}
/**
 * The state as JSON.stringify writes it, but for its tasks record: the JSON before the record's
 * and the JSON after it.
 */
function stateParts(state) {
    const before = [];
    const after = [];
    let into = before;
    for (const k of Object.keys(state)) {
        const json = k === 'tasks' ? undefined : fieldJson(state, k);
        if (k === 'tasks')
            into = after;
        else if (json !== undefined)
            into.push(json);
    }
    return [`{${before.map((p) => `${p},`).join('')}"tasks":`, `${after.map((p) => `,${p}`).join('')}}`];
}
/** How many entries of a tasks record one JSON.stringify of a compaction holds. */
const PIECE_ENTRIES = 2_000;
/**
 * A tasks record as JSON.stringify writes it, in pieces to be written one after another, each
 * made by one JSON.stringify of PIECE_ENTRIES entries: as cheap an entry as one call for the
 * whole record, but the record's JSON is never one string. At 100,000 tasks that string was 27
 * MiB, made while the pass's garbage was still uncollected, and the compaction was the
 * process's peak of memory.
 */
function* recordPieces(tasks) {
    const ids = Object.keys(tasks);
    let sep = '{';
    for (let i = 0; i < ids.length; i += PIECE_ENTRIES) {
        const piece = {};
        for (const id of ids.slice(i, i + PIECE_ENTRIES))
            setOwn(piece, id, tasks[id]);
        const json = toJson(piece);
        if (json === '{}')
            continue; // every entry one that JSON leaves out
        yield sep + json.slice(1, -1);
        sep = ',';
    }
    yield sep === '{' ? '{}' : '}';
}
function* chain(...lists) {
    for (const list of lists)
        yield* list;
}
/** Field `k` of the state as JSON.stringify writes it (`"k":value`); undefined where it leaves it out. */
function fieldJson(state, k) {
    const json = JSON.stringify(state[k]);
    return json === undefined ? undefined : `${JSON.stringify(k)}:${json}`;
}
/** The UTF-8 length of parts written one after another. */
function byteLength(parts) {
    let n = 0;
    for (const part of parts)
        n += Buffer.byteLength(part);
    return n;
}
function toJson(value) {
    const json = JSON.stringify(value);
    // JSON.stringify(undefined) (or a function) gives undefined, which would be written as "undefined".
    if (json === undefined)
        throw new TypeError(`cannot save ${typeof value} as JSON`);
    return json;
}

// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(73024);
;// CONCATENATED MODULE: ./lib/exec/store/state-file.js
/**
 * How the store reads the files of a state directory and makes what it writes there durable: a
 * file read whole through one handle (never a FIFO, a directory or more than a string can hold),
 * a directory synced after a rename, a temporary name beside the file it will replace, and a
 * full disk said as the user's to fix. Apart from the store because the lock and the event log
 * read and fail the same way as the state file does.
 */




/** A file's text and what stat says of it, read through one handle; undefined if it does not exist. */
async function snapshot(path) {
    const fh = await state_file_openIfExists(path);
    if (!fh)
        return undefined;
    try {
        const st = await fh.stat();
        if (st.size > MAX_STATE_BYTES)
            throw new errors/* UserError */.yo({
                message: `${path} is ${Math.round(st.size / 2 ** 20)} MiB, more than a state can be (${MAX_STATE_BYTES / 2 ** 20} MiB)`,
                fix: 'it is not a campaign state: move it away, or restore it from state.prev.json or an artifact',
            });
        const buf = await fh.readFile();
        return { text: buf.toString('utf8'), size: buf.length, mtimeMs: st.mtimeMs, ino: st.ino };
    }
    finally {
        await fh.close();
    }
}
/** Above this, a file cannot be read into one string (V8's limit is just under 512 MiB). */
const MAX_STATE_BYTES = 500 * 2 ** 20;
function state_file_parse(text) {
    try {
        return { value: JSON.parse(text) };
    }
    catch (e) {
        return { error: e };
    }
}
/**
 * A handle to read the regular file `path`; undefined when there is no such file. Opened without
 * blocking, then checked: a FIFO planted as a state file would hang a plain open until a writer
 * came, and a directory or a device is no state either. Said as what it is, with the way out.
 */
async function state_file_openIfExists(path) {
    let fh;
    try {
        fh = await (0,promises_.open)(path, external_node_fs_.constants.O_RDONLY | external_node_fs_.constants.O_NONBLOCK);
    }
    catch (e) {
        if (errorCode(e) === 'ENOENT')
            return undefined;
        throw e;
    }
    if ((await fh.stat()).isFile())
        return fh;
    await fh.close();
    throw new errors/* UserError */.yo({
        message: `${path} is not a file`,
        fix: `move it away: the next run rebuilds the state from the executor's records and the outputs`,
    });
}
async function readIfExists(path) {
    const fh = await state_file_openIfExists(path);
    if (!fh)
        return undefined;
    try {
        return await fh.readFile('utf8');
    }
    finally {
        await fh.close();
    }
}
async function syncDir(dir) {
    const fh = await (0,promises_.open)(dir, 'r');
    try {
        await fh.sync();
    }
    finally {
        await fh.close();
    }
}
/** A unique name in the same directory, so that rename is atomic. */
function tempPathIn(dir) {
    return (0,external_node_path_.join)(dir, `.state.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
}
function errorCode(e) {
    return e?.code;
}
/** A full or read-only disk is the user's to fix, not a bug: say where, and that nothing saved is lost. */
function diskError(e, what, dir) {
    const code = errorCode(e);
    if (code !== 'ENOSPC' && code !== 'EDQUOT' && code !== 'EROFS')
        return e;
    return new errors/* UserError */.yo({
        message: `cannot ${what} in ${dir}: ${e.message}; the state saved before is intact`,
        fix: 'free space on that disk (or move the state with --state-dir) and run the same command again',
    });
}

;// CONCATENATED MODULE: ./lib/exec/store/event-log.js
/**
 * The campaign's append-only event log (events.jsonl): one line per event, synced before an
 * append returns, a line cut short by a crash finished or dropped before the next, and read back
 * in chunks however long it grows. Apart from the store because the log is only ever appended
 * to and read line by line, never replaced as the state is.
 */




/** The event log at `path`, in the state directory `dir`. */
class EventLog {
    path;
    dir;
    warn;
    constructor(path, dir, warn) {
        this.path = path;
        this.dir = dir;
        this.warn = warn;
    }
    /** Appends one line per event and syncs, so a returned append survives a crash. */
    async append(events) {
        if (events.length === 0)
            return;
        const text = events.map((e) => toJson(e) + '\n').join('');
        await (0,promises_.mkdir)(this.dir, { recursive: true });
        const fh = await (0,promises_.open)(this.path, 'a+');
        try {
            await this.repairTail(fh);
            await fh.write(text);
            await fh.sync();
        }
        catch (e) {
            throw diskError(e, 'append to the event log', this.dir);
        }
        finally {
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
        if (start === size)
            return;
        if (size - start > MAX_EVENT_BYTES) {
            // No event is this long: the last line is not one, and reading it whole could exhaust memory.
            await fh.truncate(start);
            this.warn(`${this.path} ended in ${Math.round((size - start) / 2 ** 20)} MiB without a line break, which is no event; dropped it`);
            return;
        }
        const tail = Buffer.alloc(size - start);
        await fh.read(tail, 0, tail.length, start);
        if ('value' in state_file_parse(tail.toString('utf8'))) {
            await fh.write('\n');
        }
        else {
            await fh.truncate(start);
            this.warn(`${this.path} ended in a partial line from an interrupted write; dropped it`);
        }
    }
}
/**
 * The events in an events.jsonl file ([] if there is none). An unparseable last line is an
 * append that a crash interrupted, never acknowledged, so it is skipped; an unparseable line
 * anywhere else means the log is damaged.
 */
async function readEvents(path) {
    const events = [];
    let bad;
    let n = 0;
    const take = (line) => {
        n++;
        if (bad)
            return false;
        const parsed = line instanceof Error ? { error: line } : parse(line);
        if ('value' in parsed)
            events.push(parsed.value);
        else
            bad = { line: n, error: parsed.error };
        return true;
    };
    const ended = await eachLine(path, take);
    if (ended === undefined)
        return [];
    // Only a last line without its newline is an interrupted append; any other is damage.
    if (bad && (n > bad.line || ended === 'newline'))
        throw new UserError({
            message: `campaign event log line is corrupt: ${bad.error.message}`,
            position: { file: path, line: bad.line, column: 1 },
            fix: `repair or delete that line in ${path}`,
        });
    return events;
}
/**
 * Feeds `take` each line of a file, read in chunks: an event log may outgrow the longest string
 * V8 can hold (512 MiB). A line over MAX_EVENT_BYTES is passed as an error, unread. Stops when
 * `take` returns false. Says how the file ended; undefined when there is no file.
 */
async function eachLine(path, take) {
    const fh = await openIfExists(path);
    if (!fh)
        return undefined;
    try {
        const chunk = Buffer.alloc(1024 * 1024);
        let parts = [];
        let length = 0;
        let tooLong = false;
        let ended = 'newline';
        for (;;) {
            const { bytesRead } = await fh.read(chunk, 0, chunk.length, null);
            if (bytesRead === 0)
                break;
            let from = 0;
            for (let nl = chunk.indexOf(0x0a, 0); nl !== -1 && nl < bytesRead; nl = chunk.indexOf(0x0a, from)) {
                if (!tooLong)
                    parts.push(Buffer.from(chunk.subarray(from, nl)));
                const line = tooLong ? tooLongLine() : Buffer.concat(parts).toString('utf8');
                parts = [];
                length = 0;
                tooLong = false;
                from = nl + 1;
                if (!take(line))
                    return 'newline';
            }
            ended = from < bytesRead ? 'partial' : 'newline';
            if (from < bytesRead && !tooLong) {
                length += bytesRead - from;
                if (length > MAX_EVENT_BYTES) {
                    tooLong = true;
                    parts = [];
                }
                else
                    parts.push(Buffer.from(chunk.subarray(from, bytesRead)));
            }
        }
        if (ended === 'partial')
            take(tooLong ? tooLongLine() : Buffer.concat(parts).toString('utf8'));
        return ended;
    }
    finally {
        await fh.close();
    }
}
const tooLongLine = () => new Error(`a line over ${MAX_EVENT_BYTES / 2 ** 20} MiB`);
/** Far more than any one event (an attempt's record is a few hundred bytes). */
const MAX_EVENT_BYTES = 16 * 2 ** 20;
/** Where the last line of the file starts; equal to size when it ends with a newline. */
async function lastLineStart(fh, size) {
    const chunk = Buffer.alloc(64 * 1024);
    for (let end = size; end > 0;) {
        const start = Math.max(0, end - chunk.length);
        const { bytesRead } = await fh.read(chunk, 0, end - start, start);
        const newline = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
        if (newline >= 0)
            return start + newline + 1;
        end = start;
    }
    return 0;
}

// EXTERNAL MODULE: external "node:os"
var external_node_os_ = __webpack_require__(48161);
;// CONCATENATED MODULE: ./lib/exec/store/lock.js
/**
 * The lock file of a state directory, so that only one controller drives a campaign: taken by
 * linking a whole file into place, and taken over only from a holder that is gone. Apart from
 * the store because who holds a campaign is another question than what its state is.
 */





/** An unparseable lock younger than this is most likely still being written by its creator. */
const HALF_WRITTEN_GRACE_MS = 10_000;
/** How long to wait while another process is clearing a stale lock. */
const TAKEOVER_RETRY_MS = 20;
/** The lock of one state directory (`lock`, and `lock.takeover` while a stale one is removed). */
class CampaignLock {
    dir;
    warn;
    lockPath;
    /** Held only while removing a stale lock; see clearStaleLock. */
    takeoverPath;
    constructor(dir, warn) {
        this.dir = dir;
        this.warn = warn;
        this.lockPath = (0,external_node_path_.join)(dir, 'lock');
        this.takeoverPath = (0,external_node_path_.join)(dir, 'lock.takeover');
    }
    /** Takes the campaign's lock, or throws a UserError naming the process that holds it. */
    async acquire(command) {
        await (0,promises_.mkdir)(this.dir, { recursive: true });
        const holder = {
            pid: process.pid,
            host: (0,external_node_os_.hostname)(),
            started: new Date().toISOString(),
            command,
        };
        const text = JSON.stringify(holder);
        // Written whole to a temp file, then linked into place: link() fails if the lock exists,
        // and a controller killed at any point never leaves a half-written lock behind.
        const tmp = tempPathIn(this.dir);
        await (0,promises_.writeFile)(tmp, text);
        try {
            for (;;) {
                try {
                    await (0,promises_.link)(tmp, this.lockPath);
                    return { holder, release: () => this.release(text) };
                }
                catch (e) {
                    if (errorCode(e) !== 'EEXIST')
                        throw e;
                    await this.clearStaleLock();
                }
            }
        }
        finally {
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
        if (seen === undefined)
            return; // released meanwhile: try again
        const reason = await this.staleReason(seen);
        let guard;
        try {
            guard = await (0,promises_.open)(this.takeoverPath, 'wx');
        }
        catch (e) {
            if (errorCode(e) !== 'EEXIST')
                throw e;
            // Someone else is taking over. A takeover file this old was left by a crash mid-takeover.
            const other = await snapshot(this.takeoverPath);
            if (other !== undefined && Date.now() - other.mtimeMs > HALF_WRITTEN_GRACE_MS) {
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
        }
        finally {
            await (0,promises_.rm)(this.takeoverPath, { force: true });
        }
    }
    /** Why the lock is stale; throws a UserError if its holder may still be running. */
    async staleReason(seen) {
        const holder = parseHolder(seen.text);
        if (holder === undefined) {
            if (Date.now() - seen.mtimeMs > HALF_WRITTEN_GRACE_MS) {
                return 'it was unreadable and had not been touched for over 10 seconds';
            }
            throw new errors/* UserError */.yo({
                message: `campaign state ${this.dir} is being locked by another process (${this.lockPath} is not yet complete)`,
                fix: `try again in a few seconds; if no other campaign process is running, remove ${this.lockPath}`,
            });
        }
        const { pid, host, started, command } = holder;
        const sameHost = host === (0,external_node_os_.hostname)();
        if (sameHost && !(await isRunning(pid))) {
            return `its holder, pid ${pid} (${command}, started ${started}), is no longer running`;
        }
        throw new errors/* UserError */.yo({
            message: `campaign state ${this.dir} is locked by pid ${pid} on ${host}` +
                `${sameHost ? '' : ' (another machine, so whether it still runs cannot be checked)'}, ` +
                `started ${started}: ${command}`,
            fix: `wait for that process to finish; if you are sure it is gone, remove ${this.lockPath}`,
        });
    }
    async release(ours) {
        // After a takeover (which needs us dead) or a manual removal the file is not ours to remove.
        if ((await readIfExists(this.lockPath)) === ours)
            await (0,promises_.rm)(this.lockPath, { force: true });
    }
}
function parseHolder(text) {
    const parsed = state_file_parse(text);
    if (!('value' in parsed))
        return undefined;
    const h = parsed.value;
    const valid = typeof h === 'object' &&
        h !== null &&
        Number.isInteger(h.pid) &&
        h.pid > 0 && // process.kill(0 or negative) would signal a process group
        typeof h.host === 'string' &&
        typeof h.started === 'string' &&
        typeof h.command === 'string';
    return valid ? h : undefined;
}
async function isRunning(pid) {
    try {
        process.kill(pid, 0);
    }
    catch (e) {
        return errorCode(e) !== 'ESRCH'; // EPERM: it exists, it just isn't ours
    }
    // A zombie has exited and only waits for its parent to reap it: it will never run again.
    try {
        const stat = await (0,promises_.readFile)(`/proc/${pid}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'; // the name in parentheses may hold anything
    }
    catch {
        return true; // no /proc (not Linux): kill's answer is all there is
    }
}

;// CONCATENATED MODULE: ./lib/exec/store/file-store.js
/**
 * The controller's durable state on local disk: one JSON state file replaced atomically on
 * every save, an append-only event log, and a lock file so that only one controller drives a
 * campaign. The caller validates what it loads; this module only keeps bytes safe. The lock
 * (lock.ts), the event log (event-log.ts), how its files are read and synced (state-file.ts)
 * and the state's JSON in pieces (json-pieces.ts) each live beside it.
 *
 * A large state (state.json above `journalAbove` bytes, an object with a `tasks` record) is not
 * rewritten on every save: a save appends one line to state.journal.jsonl holding the task
 * entries that changed since the last save (told by identity: the caller never changes a saved
 * or loaded value in place, it builds a new one, keeping the entries it did not change) and the
 * other top-level fields, stamped with a sequence number (the lines themselves: journal.ts).
 * Writing state.json whole again and removing the journal (compaction) costs about as much as
 * the rest of a controller pass, so it is left to compactIfDue, which the controller calls
 * between passes while it waits anyway; a save compacts on its own only once the journal is
 * several times past due, so that a caller that never calls it still has a bounded journal.
 *
 * Which journal lines state.json already holds: a state.json written in journal mode carries the
 * sequence number of the save it holds as one more top-level key, JOURNAL_SEQ (the campaign
 * state's schema is not strict, and load takes the key off again); load applies only the lines
 * with a greater number, and each must follow the one before. So a crash between the rename of
 * a compacted state.json and the removal of the journal leaves lines that are simply skipped. A
 * state.json without the key holds everything: any journal beside it is from before it.
 */








const JOURNAL_ABOVE = 4 * 1024 * 1024;
const COMPACT_ABOVE = 0.5;
/**
 * A save compacts on its own once the journal would pass this many times `compactAbove` of
 * state.json: bounded, for a caller that never calls compactIfDue.
 */
const SAVE_COMPACTS_PAST = 4;
class FileStateStore {
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
    constructor(dir, opts = {}) {
        this.dir = dir;
        this.statePath = (0,external_node_path_.join)(dir, 'state.json');
        this.prevPath = (0,external_node_path_.join)(dir, 'state.prev.json');
        this.eventsPath = (0,external_node_path_.join)(dir, 'events.jsonl');
        this.journalPath = (0,external_node_path_.join)(dir, 'state.journal.jsonl');
        this.warn = opts.onWarning ?? (() => { });
        this.lock = new CampaignLock(dir, this.warn);
        this.eventLog = new EventLog(this.eventsPath, dir, this.warn);
        this.journalAbove = opts.journalAbove ?? JOURNAL_ABOVE;
        this.compactAbove = opts.compactAbove ?? COMPACT_ABOVE;
        this.readOnly = opts.readOnly ?? false;
    }
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
            }
            catch (e) {
                if (errorCode(e) !== 'ENOENT')
                    throw e;
            }
        }
        this.lastJson = undefined;
        this.journaled = undefined;
        this.journalUnknown = true;
        return moved;
    }
    /** The saved state (state.json and the journal's later saves), or undefined before the first save. */
    async load() {
        for (let tries = 1;; tries++) {
            const read = await snapshot(this.statePath);
            this.forget();
            this.journalUnknown = true; // until a journal-mode state.json says which lines follow it
            if (read === undefined)
                return undefined;
            const parsed = state_file_parse(read.text);
            if (!('value' in parsed)) {
                if (this.readOnly)
                    throw new errors/* UserError */.yo({
                        message: `campaign state file ${this.statePath} is corrupt: ${parsed.error.message}`,
                        fix: 'this command changes nothing: `campaign run` falls back to state.prev.json (keeping the corrupt file), or restore it yourself',
                    });
                return this.recover(parsed.error);
            }
            const seq = snapshotSeq(parsed.value);
            if (seq === undefined) {
                this.lastJson = read.text;
                return parsed.value;
            }
            try {
                return await this.withJournal(parsed.value, seq, read.size);
            }
            catch (e) {
                if (!(e instanceof JournalMismatch))
                    throw e;
                // A reader without the lock may read state.json just before a compaction replaces it and
                // the journal just after: read both again.
                if (tries < 3 && (await inoOf(this.statePath)) !== read.ino)
                    continue;
                throw new errors/* UserError */.yo({
                    message: `campaign state journal ${this.journalPath} does not follow ${this.statePath}: ${e.message}`,
                    fix: `if ${this.statePath} was put back from a backup on purpose, move ${this.journalPath} aside; otherwise restore the two together`,
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
        if (journalable && j !== undefined && j.snapshotBytes > this.journalAbove)
            return this.saveChanges(state, j);
        const json = toJson(state); // before touching the disk, so a value that can't be saved changes nothing
        if (journalable && json.length > this.journalAbove)
            return this.compact(state, this.maxSeq + 1);
        if (json === this.lastJson && (await sizeOf(this.statePath)) === Buffer.byteLength(json))
            return;
        this.forget(); // until this save is through
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
        if (j === undefined || j.journalBytes <= j.snapshotBytes * this.compactAbove)
            return false;
        await this.compact(j.state, this.maxSeq + 1);
        return true;
    }
    /** Appends the changes since the last save to the journal, or compacts if it would grow far too long. */
    async saveChanges(state, j) {
        const { tasks } = state;
        const top = fieldsJson(state);
        const { set, del, count } = changes(j.tasks, j.count, tasks);
        // state.json gone or replaced behind this store's back: the journal would extend nothing.
        const intact = (await sizeOf(this.statePath)) === j.snapshotBytes;
        if (set.length === 0 && del.length === 0 && top === j.topJson && intact)
            return;
        const seq = j.seq + 1;
        const line = lineParts(seq, top, tasks, set, del);
        const bytes = byteLength(line);
        const next = Math.max(seq, this.maxSeq + 1);
        const tooLong = j.journalBytes + bytes > j.snapshotBytes * this.compactAbove * SAVE_COMPACTS_PAST;
        if (!intact || tooLong)
            return this.compact(state, next);
        let appended;
        try {
            appended = await this.appendLine(line, j.journalBytes);
        }
        catch (e) {
            throw diskError(e, 'save the campaign state', this.dir);
        }
        if (!appended)
            return this.compact(state, next);
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
        const fh = await (0,promises_.open)(this.journalPath, 'a');
        try {
            const { size } = await fh.stat();
            if (size < valid)
                return false;
            if (size > valid) {
                await fh.truncate(valid);
                this.warn(`${this.journalPath} ended in a partial line from an interrupted save; dropped it`);
            }
            for (const part of line)
                await fh.writeFile(part); // the file is open for appending: at its end
            await fh.sync();
        }
        finally {
            await fh.close();
        }
        if (valid === 0)
            await syncDir(this.dir); // a new file is durable only once its directory is
        return true;
    }
    /** Writes the state whole as state.json, numbered `seq` if it is still large, and drops the journal. */
    async compact(state, seq) {
        let count = 0;
        for (const id of Object.keys(state.tasks))
            if (present(state.tasks[id]))
                count++;
        const [before, after] = stateParts(state);
        const pieces = recordPieces(state.tasks);
        // A state that turns out small is written whole, as a save writes one: its pieces are read
        // only while they stay within journalAbove, so a large one is never held whole.
        const head = [before];
        let bytes = byteLength([before, after]);
        let next = pieces.next();
        for (; !next.done && bytes <= this.journalAbove; next = pieces.next()) {
            head.push(next.value);
            bytes += Buffer.byteLength(next.value);
        }
        this.forget(); // until this save is through
        if (next.done && bytes <= this.journalAbove) {
            const whole = head.join('') + after;
            await this.writeState([whole]);
            this.lastJson = whole;
            return;
        }
        // Never numbered again, even if this save fails after its rename.
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
            const fh = await (0,promises_.open)(tmp, 'wx');
            try {
                for (const part of parts) {
                    await fh.writeFile(part);
                    bytes += Buffer.byteLength(part);
                }
                await fh.sync();
            }
            finally {
                await fh.close();
            }
            // A hard link, not a copy: free, and it can't be half-written. A crash between the rm and
            // the link loses only the fallback, while state.json is still the good old state.
            await (0,promises_.rm)(this.prevPath, { force: true });
            await (0,promises_.link)(this.statePath, this.prevPath).catch(ignore('ENOENT'));
            // A journal this store does not know may hold numbers above the new state.json's: it must
            // go first. One it knows holds only lower numbers, and saves the old state.json lacks: it
            // goes after the rename, when a crash can only leave lines that load skips.
            if (this.journalUnknown)
                await (0,promises_.rm)(this.journalPath, { force: true });
            await (0,promises_.rename)(tmp, this.statePath);
        }
        catch (e) {
            await (0,promises_.rm)(tmp, { force: true });
            throw diskError(e, 'save the campaign state', this.dir);
        }
        await syncDir(this.dir); // the rename itself is durable only once the directory is
        await (0,promises_.rm)(this.journalPath, { force: true });
        this.journalUnknown = false;
        return bytes;
    }
    /** state.json is a journal-mode snapshot numbered `seq`: the state with the journal's later saves. */
    async withJournal(snap, seq, snapshotBytes) {
        Reflect.deleteProperty(snap, JOURNAL_SEQ);
        const text = (await readIfExists(this.journalPath)) ?? '';
        const r = replay(this.journalPath, snap, seq, text, this.warn);
        this.forget();
        this.journaled = {
            state: r.state,
            tasks: r.state.tasks,
            topJson: fieldsJson(r.state),
            seq: r.seq,
            count: Object.keys(r.state.tasks).length,
            snapshotBytes,
            journalBytes: r.bytes,
        };
        this.journalUnknown = false;
        this.maxSeq = Math.max(this.maxSeq, r.maxSeq);
        return r.state;
    }
    /** Nothing known about what state.json holds (until a save is through, say). */
    forget() {
        this.lastJson = undefined;
        this.journaled = undefined;
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
        const prev = prevText === undefined ? undefined : state_file_parse(prevText);
        if (prev === undefined || !('value' in prev)) {
            // state.json stays where it is: moving it aside would make the next pass start afresh.
            const alsoPrev = prev === undefined ? '' : ` (and ${this.prevPath} is corrupt too)`;
            throw new errors/* UserError */.yo({
                message: `campaign state file ${this.statePath} is corrupt: ${cause.message}${alsoPrev}`,
                fix: `restore ${this.statePath} from a backup, or move it aside: the next run rebuilds the state from the executor's records and the outputs, and sends no finished attempt again`,
            });
        }
        const stamp = new Date().toISOString().replace(/:/g, '-');
        const kept = (0,external_node_path_.join)(this.dir, `state.corrupt-${stamp}.json`);
        await (0,promises_.link)(this.statePath, kept);
        // Put the previous state in place with one rename, so state.json is never missing.
        const tmp = tempPathIn(this.dir);
        await (0,promises_.link)(this.prevPath, tmp);
        await (0,promises_.rename)(tmp, this.statePath);
        await syncDir(this.dir);
        let journal = '';
        const seq = snapshotSeq(prev.value);
        let value = prev.value;
        if (seq === undefined) {
            this.lastJson = prevText;
        }
        else {
            try {
                value = await this.withJournal(prev.value, seq, Buffer.byteLength(prevText));
            }
            catch (e) {
                if (!(e instanceof JournalMismatch || e instanceof errors/* UserError */.yo))
                    throw e;
                const keptJournal = (0,external_node_path_.join)(this.dir, `state.corrupt-${stamp}.journal.jsonl`);
                await (0,promises_.link)(this.journalPath, keptJournal);
                await (0,promises_.rm)(this.journalPath);
                await syncDir(this.dir);
                journal = `; ${this.journalPath} did not follow it (${e.message}), kept it as ${keptJournal}`;
                value = await this.withJournal(prev.value, seq, Buffer.byteLength(prevText));
            }
        }
        this.warn(`campaign state file ${this.statePath} was corrupt (${cause.message}); kept it as ${kept} ` +
            `and went back to the state before the last save${journal}`);
        return value;
    }
}
async function inoOf(path) {
    try {
        return (await (0,promises_.stat)(path)).ino;
    }
    catch (e) {
        if (errorCode(e) === 'ENOENT')
            return undefined;
        throw e;
    }
}
async function sizeOf(path) {
    try {
        return (await (0,promises_.stat)(path)).size;
    }
    catch (e) {
        if (errorCode(e) === 'ENOENT')
            return undefined;
        throw e;
    }
}
function ignore(code) {
    return (e) => {
        if (errorCode(e) !== code)
            throw e;
    };
}


/***/ }),

/***/ 43490:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   o: () => (/* binding */ placement)
/* harmony export */ });
const placementsOf = new WeakMap();
function placements(plan) {
    let out = placementsOf.get(plan);
    if (out === undefined) {
        out = { smoke: new Map(), full: new Map() };
        for (const phase of plan.phases) {
            const specs = {
                smoke: new Map(phase.smoke.map((t) => [t.id, t])),
                full: new Map(phase.tasks.map((t) => [t.id, t])),
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
/**
 * Where task `id` is sent in `stage`; without a stage, where it is sent at all (a task of both
 * stages, a full run that is also a smoke task, is found in its full array).
 */
function placement(plan, id, stage) {
    const p = placements(plan);
    return stage === undefined ? (p.full.get(id) ?? p.smoke.get(id)) : p[stage].get(id);
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
/* unused harmony exports FAILURE_CLASSES, failureClass, attemptSchema, taskStatus, taskStateSchema, checkResultSchema, PHASE_STATUSES, phaseStateSchema, STATE_VERSION */
/* harmony import */ var zod__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(85584);
/* harmony import */ var _manifest_expand_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(73941);
/* harmony import */ var _plan_code_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(42778);
/** The campaign's tracked state: every task and every attempt, and what each phase decided. */



const FAILURE_CLASSES = [
    'failed',
    'timeout',
    'out_of_memory',
    'node_fail',
    'preempted',
    'gate',
    'unverified',
    'lost',
    'cancelled',
    'disk_full',
    'unschedulable',
    'shortfall',
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
    class: zod__WEBPACK_IMPORTED_MODULE_2__/* .union */ .KCZ([zod__WEBPACK_IMPORTED_MODULE_2__/* .literal */ .euz('completed'), failureClass]).optional(),
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
    kept: zod__WEBPACK_IMPORTED_MODULE_2__/* .array */ .YOg(zod__WEBPACK_IMPORTED_MODULE_2__/* .object */ .Ikc({
        definition: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(),
        stageDefinition: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(),
        at: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(),
        changed: zod__WEBPACK_IMPORTED_MODULE_2__/* .array */ .YOg(zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP()),
    }))
        .optional(),
    /** The git commit of the manifest when the attempt was sent, where it is in a git checkout. */
    commit: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(),
    /** The code snapshot it ran (plan/code.ts), where the manifest declares code. */
    code: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(),
});
const TASK_STATUSES = [
    'pending',
    'submitted',
    'running',
    'completed',
    'failed',
    'retrying',
    'blocked',
    'stuck',
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
    retryFrom: zod__WEBPACK_IMPORTED_MODULE_2__/* .number */ .aig().int().optional(),
});
const checkResultSchema = zod__WEBPACK_IMPORTED_MODULE_2__/* .object */ .Ikc({
    check: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(),
    passed: zod__WEBPACK_IMPORTED_MODULE_2__/* .boolean */ .zMY(),
    detail: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(),
    otherwise: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(),
});
const PHASE_STATUSES = ['waiting', 'smoke', 'gate', 'full', 'completed', 'failed', 'blocked'];
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
        definitions: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP().optional(),
    })
        .optional(),
    preconditions: zod__WEBPACK_IMPORTED_MODULE_2__/* .object */ .Ikc({ at: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(), missing: zod__WEBPACK_IMPORTED_MODULE_2__/* .array */ .YOg(zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP()) }).optional(),
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
        since: zod__WEBPACK_IMPORTED_MODULE_2__/* .string */ .YjP(),
    })
        .optional(),
});
function emptyState(campaign, now) {
    return { version: STATE_VERSION, campaign, created: now, updated: now, phases: {}, tasks: {} };
}
/** The definition a task's attempt counts for now: the last it was kept for, else the one it ran under. */
function definitionOf(a) {
    return a.kept?.at(-1)?.definition ?? a.definition;
}
/** Its stage definition, likewise. */
function stageDefinitionOf(a) {
    return a.kept?.at(-1)?.stageDefinition ?? a.stageDefinition;
}
const ACTIVE = new Set(['submitted', 'running']);
const TERMINAL = new Set(['completed', 'failed', 'blocked', 'stuck']);


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
    byStatus = new Map(_state_js__WEBPACK_IMPORTED_MODULE_0__/* .TASK_STATUSES */ .Hi.map((s) => [s, new Set()]));
    diskFull = new Set();
    /** The plan whose every task the record holds, once a step has added them. */
    completeFor;
    /** The ids of the tasks with this status, in the order they came to it. */
    ids(status) {
        return this.byStatus.get(status);
    }
    /** How many tasks have any of these statuses. */
    count(statuses) {
        let n = 0;
        for (const s of statuses)
            n += this.ids(s).size;
        return n;
    }
    /** The tasks that ended on a full disk, in the order they did. */
    diskFullIds() {
        return this.diskFull;
    }
    /** Records that task `id` went from `was` (undefined: new) to `is`. */
    change(id, was, is) {
        if (was?.status !== is.status) {
            if (was)
                this.byStatus.get(was.status).delete(id);
            this.byStatus.get(is.status).add(id);
        }
        if (isDiskFull(is))
            this.diskFull.add(id);
        else
            this.diskFull.delete(id);
    }
    static build(tasks) {
        const index = new TaskIndex();
        for (const id of Object.keys(tasks))
            index.change(id, undefined, tasks[id]);
        return index;
    }
}
const isDiskFull = (t) => t.status === 'failed' && t.attempts.at(-1)?.class === 'disk_full';
/** The records made by the decisions of a pass (decide/), and the index each one holds. */
const made = new WeakSet();
const indexes = new WeakMap();
const lineage = new WeakMap();
/** The place of a record, made where it has none (a record from elsewhere is a lineage's start). */
function placeOf(tasks) {
    let place = lineage.get(tasks);
    if (place === undefined)
        lineage.set(tasks, (place = { changed: new Set(), from: undefined }));
    return place;
}
/** The index of a record: its own, or one built now (kept only for a record made here). */
function indexOf(tasks) {
    let index = indexes.get(tasks);
    if (index === undefined) {
        index = TaskIndex.build(tasks);
        if (made.has(tasks))
            indexes.set(tasks, index);
    }
    return index;
}
/**
 * A copy of a record, key order kept, that takes over the original's index (the caller tells it
 * each change it makes). At 100,000 tasks a loop over the keys costs a third of what a spread
 * does (the record is a dictionary to V8, and the spread takes its slow path).
 */
function copyTasks(tasks) {
    const out = {};
    for (const k of Object.keys(tasks))
        out[k] = tasks[k];
    const index = indexes.get(tasks) ?? TaskIndex.build(tasks);
    indexes.delete(tasks);
    made.add(out);
    indexes.set(out, index);
    lineage.set(out, { changed: new Set(), from: new WeakRef(placeOf(tasks)) });
    return out;
}
/** Sets task `id` in a record made here (by copyTasks), keeping its index up to date. */
function setTask(tasks, id, t) {
    indexOf(tasks).change(id, tasks[id], t);
    lineage.get(tasks)?.changed.add(id);
    tasks[id] = t;
}
/**
 * The ids of the tasks that may differ between `older` and `newer` (set or added: none is ever
 * removed), where `newer` was made from `older` here by a few copies; undefined where that is not
 * known (a record from elsewhere, or one whose ancestor is gone): the caller compares every task.
 */
function changedSince(older, newer) {
    const ids = new Set();
    if (older === newer)
        return ids;
    const start = lineage.get(older);
    if (start === undefined)
        return undefined;
    for (let place = lineage.get(newer), hops = 0; place !== start; hops++) {
        if (place === undefined || hops >= MAX_HOPS)
            return undefined;
        for (const id of place.changed)
            ids.add(id);
        place = place.from?.deref();
    }
    return ids;
}
/** A pass makes one to three records: a save that finds more between its two states compares every task. */
const MAX_HOPS = 8;


/***/ })

};
