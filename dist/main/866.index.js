export const id = 866;
export const ids = [866];
export const modules = {

/***/ 4903:
/***/ ((module) => {

module.exports = eval("require")("supports-color");


/***/ }),

/***/ 91308:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  gateCheckName: () => (/* reexport */ gateCheckName),
  githubServices: () => (/* binding */ githubServices)
});

// EXTERNAL MODULE: ./node_modules/@actions/artifact/lib/artifact.js + 317 modules
var artifact = __webpack_require__(85167);
// EXTERNAL MODULE: external "node:fs/promises"
var promises_ = __webpack_require__(51455);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(76760);
// EXTERNAL MODULE: ./lib/app/merge-saves.js
var merge_saves = __webpack_require__(84472);
// EXTERNAL MODULE: ./lib/errors.js
var errors = __webpack_require__(96020);
// EXTERNAL MODULE: ./lib/github/state-artifacts.js + 1 modules
var state_artifacts = __webpack_require__(1115);
;// CONCATENATED MODULE: ./lib/action/services/artifacts.js







const NOT_STATE = /^(lock|lock\.takeover)$|\.tmp/;
const MAX_PAGES = 10;
class ArtifactStateStore {
  constructor(o) {
    this.o = o;
    this.client = o.client ?? new artifact/* DefaultArtifactClient */.t9();
  }
  o;
  client;
  /** Per earlier run: why its artifacts are not trusted, or undefined when they are. */
  untrusted = /* @__PURE__ */ new Map();
  async save(campaign, dir, job) {
    const files = (await (0,promises_.readdir)(dir, { withFileTypes: true })).filter((f) => f.isFile() && !NOT_STATE.test(f.name)).map((f) => (0,external_node_path_.join)(dir, f.name));
    if (!files.some((f) => (0,external_node_path_.basename)(f) === "state.json")) {
      throw new Error(`${dir} holds no state.json to save; the controller saves it on every pass`);
    }
    const { runId, runAttempt: attempt } = this.o.ctx;
    const mine = await this.thisRun(campaign);
    const seq = 1 + Math.max(0, ...mine.map((candidate) => (0,state_artifacts/* parseStateArtifactName */.YV)(candidate.name).seq));
    const name = (0,state_artifacts/* stateArtifactName */.LK)({ campaign, runId, attempt, job, seq });
    const { id } = await this.client.uploadArtifact(name, files, dir);
    if (id === void 0) throw new Error(`the artifact service did not confirm ${name}`);
    return { name, id, runId };
  }
  async restoreNewest(campaign, dir) {
    const tried = [];
    const unusable = (candidate, problem) => {
      tried.push(`${candidate.name} (id ${candidate.id}, run ${candidate.runId}): ${problem}`);
      this.o.warn(`state artifact ${candidate.name} is unusable (${problem}); trying the next newest`);
    };
    for (const source of [() => this.thisRun(campaign), () => this.earlierRuns(campaign)]) {
      const found = await source();
      const group = parallelGroup(found);
      const downloads = [];
      try {
        for (const candidate of group) {
          const d = await this.download(candidate, campaign, dir);
          if (typeof d === "string") unusable(candidate, d);
          else downloads.push(d);
        }
        if (downloads.length > 1) {
          const uncovered = await installMerged(downloads, campaign, dir);
          const [base, ...rest] = downloads;
          return {
            name: base.candidate.name,
            id: base.candidate.id,
            runId: base.candidate.runId,
            merged: rest.map((d) => d.candidate.name),
            ...uncovered.length > 0 ? { uncovered } : {}
          };
        }
        if (downloads.length === 1) {
          await install(downloads[0].tmp, dir);
          const { candidate } = downloads[0];
          return { name: candidate.name, id: candidate.id, runId: candidate.runId };
        }
        for (const candidate of found.filter((x) => !group.includes(x))) {
          const d = await this.download(candidate, campaign, dir);
          if (typeof d === "string") {
            unusable(candidate, d);
            continue;
          }
          downloads.push(d);
          await install(d.tmp, dir);
          return { name: candidate.name, id: candidate.id, runId: candidate.runId };
        }
      } finally {
        for (const d of downloads) await (0,promises_.rm)(d.tmp, { recursive: true, force: true });
      }
    }
    if (tried.length > 0) {
      throw new errors/* UserError */.yo({
        message: `no usable state artifact of campaign ${campaign}:
  ${tried.join("\n  ")}`,
        fix: "delete these artifacts (the run page, or `gh api -X DELETE repos/OWNER/REPO/actions/artifacts/ID`) and run again: with no state artifact the state is rebuilt from the cluster, where the jobs carry the campaign name"
      });
    }
    return void 0;
  }
  /** This run's state artifacts of the campaign, newest first (through the run's own token). */
  async thisRun(campaign) {
    const { artifacts } = await this.client.listArtifacts({ latest: true });
    return newestFirst(
      artifacts.filter((a) => (0,state_artifacts/* parseStateArtifactName */.YV)(a.name)?.campaign === campaign).map((a) => ({
        name: a.name,
        id: a.id,
        runId: this.o.ctx.runId,
        createdAt: a.createdAt?.getTime() ?? 0,
        ...a.digest ? { digest: a.digest } : {},
        size: a.size
      }))
    );
  }
  /** Earlier runs' state artifacts of the campaign, newest first (needs `actions: read`). */
  async earlierRuns(campaign) {
    const { owner, repo, runId } = this.o.ctx;
    const found = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const res = await this.o.rest.call(
        {
          method: "GET",
          path: `/repos/${owner}/${repo}/actions/artifacts?per_page=100&page=${page}`,
          permission: "actions: read"
        },
        state_artifacts/* artifactList */.vs
      );
      for (const a of res.artifacts) {
        const run = a.workflow_run?.id;
        if (a.expired || !run || run === runId || (0,state_artifacts/* parseStateArtifactName */.YV)(a.name)?.campaign !== campaign) continue;
        const why = await this.whyUntrusted(run);
        if (why !== void 0) {
          this.o.warn(`state artifact ${a.name} (run ${run}) is not restored: ${why}`);
          continue;
        }
        found.push({
          name: a.name,
          id: a.id,
          runId: run,
          createdAt: a.created_at ? Date.parse(a.created_at) : 0,
          ...a.digest ? { digest: a.digest } : {},
          ...a.size_in_bytes !== void 0 ? { size: a.size_in_bytes } : {}
        });
      }
      if (found.length > 0 || page * 100 >= res.total_count) break;
      if (page === MAX_PAGES) {
        this.o.warn(
          `no state artifact of ${campaign} among the newest ${MAX_PAGES * 100} of the repository's ${res.total_count} artifacts; the state is rebuilt from the cluster`
        );
      }
    }
    return newestFirst(found);
  }
  /**
   * Why an earlier run's artifacts are not to be trusted (see the module's comment), or
   * undefined when its run is this workflow's, in this repository, on this branch, from a
   * trusted event. Asked once per run.
   */
  whyUntrusted(runId) {
    let why = this.untrusted.get(runId);
    if (why === void 0) {
      why = this.readOrigin(runId);
      this.untrusted.set(runId, why);
    }
    return why;
  }
  async readOrigin(runId) {
    const { owner, repo, ref, workflowPath } = this.o.ctx;
    const branch = ref?.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : void 0;
    if (branch === void 0 || workflowPath === void 0)
      return "this run names no branch or workflow file (GITHUB_REF, GITHUB_WORKFLOW_REF) to check its origin against";
    try {
      const run = await this.o.rest.call(
        { method: "GET", path: `/repos/${owner}/${repo}/actions/runs/${runId}`, permission: "actions: read" },
        state_artifacts/* workflowRun */.tM
      );
      const workflowPaths = [workflowPath, ...(this.o.companions ?? []).map((f) => `.github/workflows/${f}`)];
      return (0,state_artifacts/* untrustedBecause */.XI)(run, { repository: `${owner}/${repo}`, branch, workflowPaths });
    } catch (e) {
      return `its run's origin cannot be read (${e.message})`;
    }
  }
  /** Downloads next to `dir`: the download once whole and this campaign's, else what is wrong with it. */
  async download(candidate, campaign, dir) {
    await (0,promises_.mkdir)((0,external_node_path_.dirname)(dir), { recursive: true });
    const tmp = await (0,promises_.mkdtemp)((0,external_node_path_.join)((0,external_node_path_.dirname)(dir), `.${(0,external_node_path_.basename)(dir)}.download-`));
    const problem = await this.fetchInto(candidate, campaign, tmp);
    if (problem === void 0) return { candidate, tmp };
    await (0,promises_.rm)(tmp, { recursive: true, force: true });
    return problem;
  }
  async fetchInto(candidate, campaign, tmp) {
    try {
      const { owner, repo, runId } = this.o.ctx;
      const cap = Math.min(candidate.size ?? state_artifacts/* MAX_SAVE_ZIP_BYTES */.LI, state_artifacts/* MAX_SAVE_ZIP_BYTES */.LI);
      if (candidate.size !== void 0 && candidate.size > state_artifacts/* MAX_SAVE_ZIP_BYTES */.LI)
        return `its zip of ${candidate.size} bytes is larger than a save's files can be (${state_artifacts/* MAX_SAVE_ZIP_BYTES */.LI})`;
      const options = {
        path: tmp,
        skipDecompress: true,
        ...candidate.digest ? { expectedHash: candidate.digest } : {}
      };
      const { digestMismatch } = candidate.runId === runId ? await this.client.downloadArtifact(candidate.id, options) : await this.client.downloadArtifact(candidate.id, {
        ...options,
        findBy: {
          token: this.o.token,
          workflowRunId: candidate.runId,
          repositoryOwner: owner,
          repositoryName: repo
        }
      });
      if (digestMismatch) return "its download does not match its digest";
      const problem = await inflateSave(tmp, cap);
      if (problem !== void 0) return problem;
      const save = await (0,merge_saves/* readSave */.oh)(tmp, campaign);
      return typeof save === "string" ? save : void 0;
    } catch (e) {
      const status = e.status;
      if (status === 401 || status === 403 || status === 404) {
        throw new errors/* UserError */.yo({
          message: `downloading ${candidate.name} from run ${candidate.runId} was refused (${status})`,
          fix: "the token lacks actions: read; add `actions: read` under the job's `permissions:`"
        });
      }
      return e.message;
    }
  }
}
async function inflateSave(dir, cap) {
  const [name, ...more] = await (0,promises_.readdir)(dir);
  if (name === void 0 || more.length > 0) return "its download is not one zip file";
  const zipPath = (0,external_node_path_.join)(dir, name);
  const { size } = await (0,promises_.stat)(zipPath);
  if (size > cap) return `its download of ${size} bytes is larger than its listing (${cap})`;
  let files;
  try {
    files = (0,state_artifacts/* unzipSave */.aY)(await (0,promises_.readFile)(zipPath));
  } catch (e) {
    return e.message;
  }
  await (0,promises_.rm)(zipPath);
  for (const [file, bytes] of files) await (0,promises_.writeFile)((0,external_node_path_.join)(dir, file), bytes);
  return void 0;
}
function parallelGroup(found) {
  const newest = found[0];
  if (newest === void 0) return [];
  const byJob = /* @__PURE__ */ new Map();
  for (const candidate of found) {
    const job = (0,state_artifacts/* parseStateArtifactName */.YV)(candidate.name)?.job;
    if (candidate.runId !== newest.runId || job === void 0 || byJob.has(job)) continue;
    byJob.set(job, candidate);
  }
  return [...byJob.values()];
}
async function install(from, dir) {
  await (0,promises_.mkdir)(dir, { recursive: true });
  for (const f of [...state_artifacts/* STATE_FILES */.mF.slice(1), state_artifacts/* STATE_FILES */.mF[0]]) {
    await (0,promises_.rename)((0,external_node_path_.join)(from, f), (0,external_node_path_.join)(dir, f)).catch(async (e) => {
      if (e.code !== "ENOENT") throw e;
      await (0,promises_.rm)((0,external_node_path_.join)(dir, f), { force: true });
    });
  }
}
async function installMerged(downloads, campaign, dir) {
  const merged = await (0,merge_saves/* mergeSaves */.ZP)(
    downloads.map((d) => d.tmp),
    campaign
  );
  const into = downloads[0].tmp;
  await (0,promises_.rm)((0,external_node_path_.join)(into, "state.journal.jsonl"), { force: true });
  await (0,promises_.rm)((0,external_node_path_.join)(into, "state.prev.json"), { force: true });
  await (0,promises_.writeFile)((0,external_node_path_.join)(into, "events.jsonl"), merged.events);
  await (0,promises_.writeFile)((0,external_node_path_.join)(into, "state.json"), merged.state);
  await install(into, dir);
  return merged.uncovered;
}
function newestFirst(cs) {
  return cs.sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
}


// EXTERNAL MODULE: ./node_modules/zod/v4/classic/schemas.js + 15 modules
var schemas = __webpack_require__(85584);
;// CONCATENATED MODULE: ./lib/action/services/checks.js

const OUTPUT_LIMIT = 65535;
const created = schemas/* object */.Ikc({ id: schemas/* number */.aig(), name: schemas/* string */.YjP() });
class CheckRunGate {
  constructor(ctx, rest) {
    this.ctx = ctx;
    this.rest = rest;
  }
  ctx;
  rest;
  async publish(r) {
    const { owner, repo, sha } = this.ctx;
    const status = r.conclusion === "pending" ? { status: "in_progress" } : { status: "completed", conclusion: r.conclusion };
    await this.rest.call(
      {
        method: "POST",
        path: `/repos/${owner}/${repo}/check-runs`,
        body: {
          name: gateCheckName(r.campaign, r.phase),
          head_sha: sha,
          ...status,
          output: { title: r.title, summary: clip(r.title), text: clip(r.text) }
        },
        permission: "checks: write"
      },
      created
    );
  }
}
function gateCheckName(campaign, phase) {
  return `campaign/${campaign}/${phase}/smoke-gate`;
}
function clip(s) {
  const note = "\n\n\u2026 (cut at GitHub\u2019s limit; the job summary has the rest)";
  return s.length <= OUTPUT_LIMIT ? s : s.slice(0, OUTPUT_LIMIT - note.length) + note;
}


;// CONCATENATED MODULE: ./lib/action/services/dispatch.js


class WorkflowDispatch {
  constructor(ctx, rest) {
    this.ctx = ctx;
    this.rest = rest;
  }
  ctx;
  rest;
  async dispatchAgain(inputs, other) {
    const { owner, repo, ref } = this.ctx;
    const workflow = other ?? this.ctx.workflow;
    if (!workflow || !ref) {
      throw new errors/* UserError */.yo({
        message: "cannot tell which workflow and ref to dispatch again: GITHUB_WORKFLOW_REF or GITHUB_REF is not set",
        fix: "hand over from a job of a workflow run, or leave resuming to a `schedule:` trigger"
      });
    }
    await this.rest.call(
      {
        method: "POST",
        path: `/repos/${owner}/${repo}/actions/workflows/${encodeURIComponent(workflow)}/dispatches`,
        body: { ref, inputs },
        permission: "actions: write",
        fixes: {
          422: `add \`workflow_dispatch:\` to the \`on:\` of ${workflow} (\`campaign workflow\` writes it), or give the action \`handover: none\` and resume the campaign from a \`schedule:\``
        }
      },
      schemas/* unknown */.L5J()
    );
  }
}
class WorkflowSwitch {
  constructor(ctx, rest) {
    this.ctx = ctx;
    this.rest = rest;
  }
  ctx;
  rest;
  async set(workflow, enabled) {
    const { owner, repo } = this.ctx;
    await this.rest.call(
      {
        method: "PUT",
        path: `/repos/${owner}/${repo}/actions/workflows/${encodeURIComponent(workflow)}/${enabled ? "enable" : "disable"}`,
        permission: "actions: write",
        fixes: {
          404: `commit ${workflow} beside the campaign's workflow (\`campaign workflow\` writes both)`
        }
      },
      schemas/* unknown */.L5J()
    );
  }
}


// EXTERNAL MODULE: ./lib/action/services/rest.js + 1 modules
var services_rest = __webpack_require__(17763);
;// CONCATENATED MODULE: ./lib/action/services/index.js





function githubServices(env, token, warn = () => {
}, waits = {}, companions = []) {
  const ctx = (0,services_rest/* runContext */.p)(env);
  const rest = new services_rest/* GitHubRest */.y(ctx, token, { warn, ...waits });
  return {
    state: new ArtifactStateStore({ ctx, rest, token, warn, companions }),
    gate: new CheckRunGate(ctx, rest),
    handover: new WorkflowDispatch(ctx, rest),
    schedule: new WorkflowSwitch(ctx, rest)
  };
}



/***/ }),

/***/ 17763:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  y: () => (/* binding */ GitHubRest),
  p: () => (/* binding */ runContext)
});

// EXTERNAL MODULE: ./node_modules/@actions/github/lib/github.js
var github = __webpack_require__(43703);
// EXTERNAL MODULE: ./node_modules/@octokit/plugin-retry/dist-bundle/index.js
var dist_bundle = __webpack_require__(44855);
// EXTERNAL MODULE: ./node_modules/@octokit/plugin-throttling/dist-bundle/index.js
var plugin_throttling_dist_bundle = __webpack_require__(77720);
// EXTERNAL MODULE: ./node_modules/zod/v4/classic/schemas.js + 15 modules
var schemas = __webpack_require__(85584);
// EXTERNAL MODULE: ./lib/errors.js
var errors = __webpack_require__(96020);
;// CONCATENATED MODULE: ./lib/github/rate-limit.js
function spentRateLimit(status, said, header) {
  if (status !== 403 && status !== 429) return void 0;
  if (header("x-ratelimit-remaining") !== "0" && !/rate limit/i.test(said)) return void 0;
  const reset = Number(header("x-ratelimit-reset"));
  const when = Number.isFinite(reset) && reset > 0 ? ` (it resets at ${new Date(reset * 1e3).toISOString()})` : "";
  return { secondary: /secondary rate limit/i.test(said), when };
}


// EXTERNAL MODULE: ./lib/github/state-artifacts.js + 1 modules
var state_artifacts = __webpack_require__(1115);
;// CONCATENATED MODULE: ./lib/action/services/rest.js







const envSchema = schemas/* object */.Ikc({
  GITHUB_API_URL: schemas/* string */.YjP().url().default("https://api.github.com"),
  GITHUB_REPOSITORY: schemas/* string */.YjP().regex(/^[^/\s]+\/[^/\s]+$/, "owner/name"),
  GITHUB_RUN_ID: schemas/* string */.YjP().regex(/^\d+$/, "a number"),
  GITHUB_RUN_ATTEMPT: schemas/* string */.YjP().regex(/^\d+$/, "a number").default("1"),
  GITHUB_SHA: schemas/* string */.YjP().regex(/^[0-9a-f]{40}$/, "a commit id"),
  // owner/repo/.github/workflows/file.yml@ref: the workflow this run came from.
  GITHUB_WORKFLOW_REF: schemas/* string */.YjP().optional(),
  GITHUB_REF: schemas/* string */.YjP().optional()
});
function runContext(env) {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new errors/* UserError */.yo({
      message: `${String(issue.path[0])} is ${env[String(issue.path[0])] === void 0 ? "not set" : `not ${issue.message}`}`,
      fix: "run this inside a GitHub Actions job, where the runner sets GITHUB_* variables"
    });
  }
  const e = parsed.data;
  const [owner, repo] = e.GITHUB_REPOSITORY.split("/");
  const workflowPath = e.GITHUB_WORKFLOW_REF === void 0 ? void 0 : (0,state_artifacts/* workflowFilePath */.FW)(e.GITHUB_WORKFLOW_REF);
  const workflow = workflowPath?.slice(".github/workflows/".length);
  return {
    apiUrl: e.GITHUB_API_URL.replace(/\/+$/, ""),
    owner,
    repo,
    runId: Number(e.GITHUB_RUN_ID),
    runAttempt: Number(e.GITHUB_RUN_ATTEMPT),
    sha: e.GITHUB_SHA,
    ...workflow ? { workflow, workflowPath } : {},
    ...e.GITHUB_REF ? { ref: e.GITHUB_REF } : {}
  };
}
const requestError = schemas/* object */.Ikc({
  status: schemas/* number */.aig(),
  response: schemas/* object */.Ikc({ data: schemas/* unknown */.L5J(), headers: schemas/* record */.g1P(schemas/* string */.YjP(), schemas/* unknown */.L5J()) }).optional()
});
class GitHubRest {
  octokit;
  constructor(ctx, token, o) {
    const unit = o.waitUnitMs ?? 1e3;
    this.octokit = (0,github/* getOctokit */.Q)(
      token,
      {
        // Given, not taken from the environment @actions/github read when it was first imported.
        baseUrl: ctx.apiUrl,
        userAgent: "campaign-action",
        retry: { retryAfterBaseValue: unit },
        throttle: {
          retryAfterBaseValue: unit,
          onSecondaryRateLimit: (after, options, _, n) => {
            if (n > 0) return false;
            o.warn(`GitHub's secondary rate limit: waiting ${after} s before ${options.method} ${options.url} again`);
            return true;
          },
          onRateLimit: () => false
        }
      },
      dist_bundle/* retry */.L,
      plugin_throttling_dist_bundle/* throttling */.A
    );
  }
  /** Sends the call and parses the answer with `schema`; refusals become errors with the fix. */
  async call(call, schema) {
    let data;
    try {
      ({ data } = await this.octokit.request({
        method: call.method,
        url: call.path,
        headers: { "x-github-api-version": "2022-11-28" },
        ...call.body === void 0 ? {} : { data: call.body }
      }));
    } catch (e) {
      throw refusalOf(call, e);
    }
    const parsed = schema.safeParse(data === void 0 || data === "" ? {} : data);
    if (!parsed.success) {
      throw new Error(`${call.method} ${call.path}: unexpected answer from GitHub: ${parsed.error.issues[0]?.message}`);
    }
    return parsed.data;
  }
  /**
   * The login the token acts as: `github-actions[bot]` for a job's own token, `<app>[bot]` for
   * an app's installation token, a person's login for theirs. From GraphQL's `viewer`, which
   * every token may ask; REST's `GET /user` refuses an app's token.
   */
  async viewerLogin() {
    const call = { method: "POST", path: "/graphql", permission: "pull-requests: read" };
    let answer;
    try {
      answer = await this.octokit.graphql("query { viewer { login } }");
    } catch (e) {
      throw refusalOf(call, e);
    }
    const parsed = schemas/* object */.Ikc({ viewer: schemas/* object */.Ikc({ login: schemas/* string */.YjP().min(1) }) }).safeParse(answer);
    if (!parsed.success) throw new Error(`${call.path}: GitHub did not say whom the token acts as`);
    return parsed.data.viewer.login;
  }
}
function refusalOf(call, e) {
  const refused = requestError.safeParse(e);
  if (!refused.success) return e;
  const { status, response } = refused.data;
  return refusal(call, status, response?.data, (h) => {
    const v = response?.headers[h];
    return v === void 0 ? void 0 : String(v);
  });
}
function refusal(call, status, data, header) {
  const message = schemas/* object */.Ikc({ message: schemas/* string */.YjP() }).safeParse(data);
  const said = message.success ? message.data.message : typeof data === "string" ? data.slice(0, 200) : "";
  const what = `${call.method} ${call.path} was refused (${status}${said ? `: ${said}` : ""})`;
  const limit = spentRateLimit(status, said, header);
  if (limit?.secondary)
    return new errors/* UserError */.yo({
      message: `GitHub's secondary rate limit stopped this again after a wait: ${what}`,
      fix: "run again in a few minutes"
    });
  if (limit)
    return new errors/* UserError */.yo({
      message: `GitHub's API rate limit is spent: ${what}${limit.when}`,
      fix: "run again after the reset, or give the `token` input a token with a limit of its own"
    });
  const fix = call.fixes?.[status];
  if (fix !== void 0) return new errors/* UserError */.yo({ message: what, fix });
  if (status === 401)
    return new errors/* UserError */.yo({
      message: what,
      fix: "the token is invalid or expired: give the `token` input a valid one (by default it is the job's own token)"
    });
  if (status === 403 || status === 404)
    return new errors/* UserError */.yo({
      message: what,
      fix: `the token lacks ${call.permission}; add \`${call.permission}\` under the job's \`permissions:\` (a token given as the \`token\` input needs it granted)`
    });
  return new Error(what);
}



/***/ }),

/***/ 1115:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  LI: () => (/* binding */ MAX_SAVE_ZIP_BYTES),
  mF: () => (/* binding */ STATE_FILES),
  vs: () => (/* binding */ artifactList),
  YV: () => (/* binding */ parseStateArtifactName),
  LK: () => (/* binding */ stateArtifactName),
  XI: () => (/* binding */ untrustedBecause),
  aY: () => (/* binding */ unzipSave),
  FW: () => (/* binding */ workflowFilePath),
  tM: () => (/* binding */ workflowRun)
});

// UNUSED EXPORTS: MAX_STATE_FILE_BYTES, SAVE_FILES, TRUSTED_EVENTS

// EXTERNAL MODULE: ./node_modules/zod/v4/classic/schemas.js + 15 modules
var schemas = __webpack_require__(85584);
// EXTERNAL MODULE: ./lib/decide/parallel-states.js
var parallel_states = __webpack_require__(75740);
// EXTERNAL MODULE: external "node:zlib"
var external_node_zlib_ = __webpack_require__(38522);
;// CONCATENATED MODULE: ./lib/github/unzip.js

const EOCD = 101010256;
const CENTRAL = 33639248;
const LOCAL = 67324752;
function unzip(zip, o) {
  let end = -1;
  for (let at2 = zip.length - 22; at2 >= Math.max(0, zip.length - 22 - 65535); at2--) {
    if (zip.readUInt32LE(at2) === EOCD) {
      end = at2;
      break;
    }
  }
  if (end < 0) throw new Error("not a zip archive (no end of central directory)");
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const files = /* @__PURE__ */ new Map();
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL) throw new Error("damaged zip central directory");
    const method = zip.readUInt16LE(at + 10);
    const crc = zip.readUInt32LE(at + 16);
    const packed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString("utf8");
    at += 46 + nameLength + extraLength + commentLength;
    if (!o.names.has(name)) continue;
    if (files.has(name)) throw new Error(`the zip holds ${name} twice`);
    if (size > o.limit)
      throw new Error(`zip entry ${name} declares ${size} bytes, more than the ${o.limit} a state file may hold`);
    if (local + 30 > zip.length || zip.readUInt32LE(local) !== LOCAL) throw new Error(`damaged zip entry ${name}`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    if (start + packed > zip.length) throw new Error(`zip entry ${name} is cut short`);
    const data = zip.subarray(start, start + packed);
    let bytes;
    if (method === 0) bytes = Buffer.from(data);
    else if (method === 8) bytes = inflateWithin(data, size, name);
    else throw new Error(`zip entry ${name} uses compression method ${method}, which is not read`);
    if (bytes.length !== size) throw new Error(`zip entry ${name} is ${bytes.length} bytes, not ${size}`);
    if (crc32(bytes) !== crc) throw new Error(`zip entry ${name} does not match its CRC-32`);
    files.set(name, bytes);
  }
  return files;
}
function inflateWithin(data, size, name) {
  try {
    return external_node_zlib_.inflateRawSync(data, { maxOutputLength: size + 1 });
  } catch (e) {
    if (e.code === "ERR_BUFFER_TOO_LARGE")
      throw new Error(`zip entry ${name} inflates past the ${size} bytes it declares`, { cause: e });
    throw new Error(`zip entry ${name} does not inflate: ${e.message}`, { cause: e });
  }
}
function crc32(bytes) {
  const native = external_node_zlib_.crc32;
  if (native) return native(bytes);
  let crc = 4294967295;
  for (const b of bytes) crc = CRC_TABLE[(crc ^ b) & 255] ^ crc >>> 8;
  return (crc ^ 4294967295) >>> 0;
}
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let crc = n;
  for (let k = 0; k < 8; k++) crc = crc & 1 ? 3988292384 ^ crc >>> 1 : crc >>> 1;
  return crc >>> 0;
});


;// CONCATENATED MODULE: ./lib/github/state-artifacts.js



const PREFIX = "campaign-state";
const STATE_FILES = ["state.json", "state.prev.json", "state.journal.jsonl", "events.jsonl"];
const MAX_STATE_FILE_BYTES = 500 * 2 ** 20;
const SAVE_FILES = /* @__PURE__ */ new Set([...STATE_FILES, parallel_states/* DROVE_FILE */.sN]);
const MAX_SAVE_ZIP_BYTES = SAVE_FILES.size * MAX_STATE_FILE_BYTES + 2 ** 20;
function unzipSave(zip) {
  return unzip(zip, { names: SAVE_FILES, limit: MAX_STATE_FILE_BYTES });
}
const TRUSTED_EVENTS = /* @__PURE__ */ new Set(["push", "workflow_dispatch", "schedule"]);
function stateArtifactName(p) {
  return `${PREFIX}.${p.campaign}.${p.runId}-${p.attempt}.${p.job}.${p.seq}`;
}
function parseStateArtifactName(name) {
  const m = /^campaign-state\.(.+)\.(\d+)-(\d+)\.([^.]+)\.(\d+)$/.exec(name);
  if (!m) return void 0;
  return { campaign: m[1], runId: Number(m[2]), attempt: Number(m[3]), job: m[4], seq: Number(m[5]) };
}
function workflowFilePath(ref) {
  return /(?:^|\/)(\.github\/workflows\/[^@/]+)(?:@|$)/.exec(ref)?.[1];
}
const artifactList = schemas/* object */.Ikc({
  total_count: schemas/* number */.aig(),
  artifacts: schemas/* array */.YOg(
    schemas/* object */.Ikc({
      id: schemas/* number */.aig(),
      name: schemas/* string */.YjP(),
      expired: schemas/* boolean */.zMY(),
      /** The zip's size: its download is read no further. */
      size_in_bytes: schemas/* number */.aig().optional(),
      created_at: schemas/* string */.YjP().nullable(),
      digest: schemas/* string */.YjP().nullable().optional(),
      workflow_run: schemas/* object */.Ikc({ id: schemas/* number */.aig().nullable().optional() }).nullable().optional()
    })
  )
});
const workflowRun = schemas/* object */.Ikc({
  event: schemas/* string */.YjP(),
  head_branch: schemas/* string */.YjP().nullable(),
  path: schemas/* string */.YjP(),
  repository: schemas/* object */.Ikc({ full_name: schemas/* string */.YjP() }),
  head_repository: schemas/* object */.Ikc({ full_name: schemas/* string */.YjP() }).nullable()
});
function untrustedBecause(run, want) {
  const here = want.repository.toLowerCase();
  if (run.repository.full_name.toLowerCase() !== here || run.head_repository?.full_name.toLowerCase() !== here)
    return `it was made by a run from ${run.head_repository?.full_name ?? "an unknown repository"} (a fork), not from ${want.repository}`;
  if (!TRUSTED_EVENTS.has(run.event))
    return `it was made by a ${run.event} run; only push, workflow_dispatch and schedule runs are trusted`;
  if (run.head_branch !== want.branch)
    return `it was made on branch ${run.head_branch ?? "(none)"}, not ${want.branch}`;
  const file = workflowFilePath(run.path);
  if (want.workflowPaths !== void 0 && (file === void 0 || !want.workflowPaths.includes(file)))
    return `it was made by workflow ${file ?? run.path}, not ${want.workflowPaths.join(" or ")}`;
  if (file === void 0) return `it was made by ${run.path}, not by a workflow file in .github/workflows`;
  return void 0;
}



/***/ })

};
