export const id = 633;
export const ids = [633];
export const modules = {

/***/ 54633:
/***/ ((__unused_webpack___webpack_module__, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  planComment: () => (/* binding */ planComment),
  restComments: () => (/* binding */ restComments)
});

// EXTERNAL MODULE: ./lib/action/toolkit.js + 1 modules
var toolkit = __webpack_require__(25632);
// EXTERNAL MODULE: external "node:child_process"
var external_node_child_process_ = __webpack_require__(31421);
// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(73024);
// EXTERNAL MODULE: external "node:fs/promises"
var promises_ = __webpack_require__(51455);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(76760);
// EXTERNAL MODULE: external "node:util"
var external_node_util_ = __webpack_require__(57975);
// EXTERNAL MODULE: ./node_modules/zod/v4/classic/schemas.js + 15 modules
var schemas = __webpack_require__(85584);
// EXTERNAL MODULE: ./lib/app/lint-files.js + 1 modules
var lint_files = __webpack_require__(1915);
// EXTERNAL MODULE: ./lib/app/load.js
var load = __webpack_require__(46167);
// EXTERNAL MODULE: ./lib/errors.js
var errors = __webpack_require__(96020);
// EXTERNAL MODULE: ./lib/lint/lint.js
var lint = __webpack_require__(73844);
// EXTERNAL MODULE: ./lib/plan/definition.js
var definition = __webpack_require__(1230);
// EXTERNAL MODULE: ./lib/report/markdown.js
var markdown = __webpack_require__(92957);
;// CONCATENATED MODULE: ./lib/report/plan-diff.js


function tasksOf(phase) {
  return [...phase.tasks, ...phase.smoke.filter((t) => t.stage === "smoke")];
}
function costOf(phase) {
  return {
    tasks: phase.tasks.length + phase.smoke.filter((t) => t.stage === "smoke").length,
    walltimeHours: phase.arrays.reduce((h, a) => h + a.budget.seconds * a.tasks.length / 3600, 0),
    gpuHours: phase.gpuHours + phase.smokeGpuHours
  };
}
const sum = (costs) => ({
  tasks: costs.reduce((n, planCost) => n + planCost.tasks, 0),
  walltimeHours: costs.reduce((n, planCost) => n + planCost.walltimeHours, 0),
  gpuHours: costs.reduce((n, planCost) => n + planCost.gpuHours, 0)
});
function diffPlans(base, head) {
  const baseByName = new Map((base?.phases ?? []).map((p) => [p.name, p]));
  const headNames = new Set(head.phases.map((p) => p.name));
  const phases = head.phases.map((h) => {
    const b = baseByName.get(h.name);
    const d = {
      phase: h.name,
      added: [],
      removed: [],
      changed: [],
      unchanged: 0,
      parts: [],
      after: costOf(h)
    };
    if (b) d.before = costOf(b);
    const was = new Map((b ? tasksOf(b) : []).map((t) => [t.id, t]));
    const stages = /* @__PURE__ */ new Set();
    for (const t of tasksOf(h)) {
      const old = was.get(t.id);
      if (old === void 0) d.added.push(t.id);
      else if (old.definition === t.definition) d.unchanged++;
      else {
        d.changed.push(t.id);
        stages.add(t.stage);
      }
      was.delete(t.id);
    }
    d.removed = [...was.keys()];
    const parts = /* @__PURE__ */ new Set();
    for (const stage of stages)
      for (const p of (0,definition/* changedParts */.Ty)(b.definitions[stage].parts, h.definitions[stage].parts)) parts.add(p);
    d.parts = [...parts];
    return d;
  });
  for (const b of base?.phases ?? []) {
    if (headNames.has(b.name)) continue;
    phases.push({
      phase: b.name,
      added: [],
      removed: tasksOf(b).map((t) => t.id),
      changed: [],
      unchanged: 0,
      parts: [],
      before: costOf(b)
    });
  }
  return {
    campaign: head.campaign,
    phases,
    ...base === void 0 ? {} : { before: sum(base.phases.map(costOf)) },
    after: sum(head.phases.map(costOf))
  };
}
function unchangedPlan(d) {
  return d.before !== void 0 && d.phases.every((p) => p.added.length + p.removed.length + p.changed.length === 0) && d.before.walltimeHours === d.after.walltimeHours && d.before.gpuHours === d.after.gpuHours;
}
const COMMENT_LIMIT = 65536;
const commentMarker = (campaign) => `<!-- campaign-plan: ${campaign} -->`;
const MISSING = {
  new: "is new in this pull request: every task is counted as added",
  deleted: "is deleted in this pull request: every task is counted as removed",
  "base does not load": "does not load at the base commit: every task is counted as added"
};
function code(text) {
  const flat = text.replace(/\r?\n|\r/g, " ");
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${longest > 0 ? ` ${flat} ` : flat}${fence}`;
}
const hours = (h) => h.toFixed(1);
function beforeAfter(before, after) {
  if (before === void 0) return after === void 0 ? "-" : `- \u2192 ${hours(after)}`;
  if (after === void 0) return `${hours(before)} \u2192 -`;
  const delta = after - before;
  if (Math.abs(delta) < 0.05) return hours(after);
  return `${hours(before)} \u2192 ${hours(after)} (${delta > 0 ? "+" : ""}${hours(delta)})`;
}
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
function renderPlanComment(d, o) {
  const limit = o.limit ?? COMMENT_LIMIT;
  const total = (k) => d.phases.reduce((n, p) => n + p[k].length, 0);
  const unchanged = d.phases.reduce((n, p) => n + p.unchanged, 0);
  const head = [commentMarker(d.campaign), `### campaign plan: ${code(d.campaign)} (${code(o.file)})`, ""];
  if (o.missing !== void 0) head.push(`${code(o.file)} ${MISSING[o.missing]}.`, "");
  if (unchangedPlan(d)) {
    head.push(
      `This pull request changes nothing of the plan: ${plural(d.after.tasks, "task")}, ${hours(d.after.gpuHours)} GPU-hours.`
    );
    return cut(head.join("\n") + "\n", limit);
  }
  head.push(
    `**${total("added")} added, ${total("removed")} removed, ${total("changed")} run again** (their definition changed), ${unchanged} unchanged. GPU-hours ${beforeAfter(d.before?.gpuHours, d.after.gpuHours)}; walltime ${beforeAfter(d.before?.walltimeHours, d.after.walltimeHours)} task-hours (budgeted: an upper bound).`,
    "",
    "| phase | added | removed | run again | unchanged | what changed | walltime (task-hours) | GPU-hours |",
    "| --- | ---: | ---: | ---: | ---: | --- | --- | --- |"
  );
  const rows = d.phases.map(
    (p) => `| ${code(p.phase)} | ${p.added.length} | ${p.removed.length} | ${p.changed.length} | ${p.unchanged} | ${(0,markdown/* tableCell */.xR)(p.parts.join(", ") || "-")} | ${beforeAfter(p.before?.walltimeHours, p.after?.walltimeHours)} | ${beforeAfter(p.before?.gpuHours, p.after?.gpuHours)} |`
  );
  const totalRow = `| **all** | ${total("added")} | ${total("removed")} | ${total("changed")} | ${unchanged} | | ${beforeAfter(d.before?.walltimeHours, d.after.walltimeHours)} | ${beforeAfter(d.before?.gpuHours, d.after.gpuHours)} |`;
  const foot = "\n<sub>Updated by the campaign action on each push to this pull request.</sub>\n";
  let budget = limit - head.join("\n").length - totalRow.length - foot.length - 200;
  const body = [];
  let shownRows = 0;
  for (const r of rows) {
    if (r.length + 1 > budget) break;
    body.push(r);
    budget -= r.length + 1;
    shownRows++;
  }
  body.push(totalRow);
  if (shownRows < rows.length)
    body.push("", `\u2026 and ${plural(rows.length - shownRows, "phase")} more, cut to fit GitHub's comment limit.`);
  const lists = [
    ["run again", (p) => p.changed],
    ["added", (p) => p.added],
    ["removed", (p) => p.removed]
  ];
  let full = false;
  for (const [what, ids] of lists) {
    for (const p of d.phases) {
      const all = ids(p);
      if (all.length === 0 || full) continue;
      const open = `
<details><summary><code>${p.phase}</code>: ${plural(all.length, "task")} ${what}</summary>
`;
      const close = "</details>";
      budget -= open.length + close.length + 80;
      if (budget <= 0) {
        full = true;
        body.push("", "\u2026 the other lists of tasks are left out, to fit GitHub's comment limit.");
        continue;
      }
      const shown = [];
      let fence = 3;
      for (const id of all) {
        const line = id.replace(/\r?\n|\r/g, " ");
        const run = Math.max(0, ...[...line.matchAll(/`+/g)].map((m) => m[0].length));
        const grown = Math.max(fence, run + 1);
        if (line.length + 1 + 2 * (grown - fence) + 2 * (fence + 1) > budget) break;
        budget -= line.length + 1 + 2 * (grown - fence);
        fence = grown;
        shown.push(line);
      }
      budget -= 2 * (fence + 1);
      const left = all.length - shown.length;
      body.push(open, ...(0,markdown/* codeBlock */.DV)(shown.join("\n")));
      if (left > 0) body.push(`\u2026 and ${left} more, cut to fit GitHub's comment limit.`);
      body.push(close);
    }
  }
  return cut([...head, ...body].join("\n") + "\n" + foot, limit);
}
function cut(text, limit) {
  if (text.length <= limit) return text;
  throw new Error(`the plan comment is ${text.length} characters, over its limit of ${limit}`);
}


;// CONCATENATED MODULE: ./lib/action/services/comments.js

const comment = schemas/* object */.Ikc({
  id: schemas/* number */.aig(),
  body: schemas/* string */.YjP().nullish(),
  user: schemas/* object */.Ikc({ login: schemas/* string */.YjP() }).nullish()
});
const PER_PAGE = 100;
const PERMISSION = "pull-requests: write";
class IssueComments {
  constructor(ctx, rest, pullRequest) {
    this.ctx = ctx;
    this.rest = rest;
    this.pullRequest = pullRequest;
  }
  ctx;
  rest;
  pullRequest;
  login;
  get repoPath() {
    return `/repos/${this.ctx.owner}/${this.ctx.repo}`;
  }
  async find(marker) {
    this.login ??= this.rest.viewerLogin();
    const mine = await this.login;
    for (let page = 1; ; page++) {
      const list = await this.rest.call(
        {
          method: "GET",
          path: `${this.repoPath}/issues/${this.pullRequest}/comments?per_page=${PER_PAGE}&page=${page}`,
          permission: "pull-requests: read"
        },
        schemas/* array */.YOg(comment)
      );
      const hit = list.find((existing) => existing.user?.login === mine && existing.body?.split("\n", 1)[0] === marker);
      if (hit) return { id: hit.id, body: hit.body ?? "" };
      if (list.length < PER_PAGE) return void 0;
    }
  }
  async create(body) {
    const existing = await this.rest.call(
      {
        method: "POST",
        path: `${this.repoPath}/issues/${this.pullRequest}/comments`,
        body: { body },
        permission: PERMISSION
      },
      comment
    );
    return { id: existing.id, body: existing.body ?? "" };
  }
  async update(id, body) {
    await this.rest.call(
      { method: "PATCH", path: `${this.repoPath}/issues/comments/${id}`, body: { body }, permission: PERMISSION },
      comment
    );
  }
}


// EXTERNAL MODULE: ./lib/action/services/rest.js + 1 modules
var rest = __webpack_require__(17763);
// EXTERNAL MODULE: ./lib/action/report.js
var report = __webpack_require__(72674);
;// CONCATENATED MODULE: ./lib/action/plan-comment.js















const run = (0,external_node_util_.promisify)(external_node_child_process_.execFile);
const pullRequestEvent = schemas/* object */.Ikc({
  pull_request: schemas/* object */.Ikc({
    number: schemas/* number */.aig(),
    base: schemas/* object */.Ikc({ sha: schemas/* string */.YjP().regex(/^[0-9a-f]{40}$/), repo: schemas/* object */.Ikc({ full_name: schemas/* string */.YjP() }) }),
    // Null where the fork's repository was deleted.
    head: schemas/* object */.Ikc({ repo: schemas/* object */.Ikc({ full_name: schemas/* string */.YjP() }).nullable() })
  })
});
function restComments(env, token) {
  return (n) => {
    const ctx = (0,rest/* runContext */.p)(env);
    return new IssueComments(ctx, new rest/* GitHubRest */.y(ctx, token, { warn: (m) => toolkit/* core */.I.warning(m) }), n);
  };
}
async function planComment(o) {
  const event = await pullRequestOf(o.eventPath);
  const pr = event.pull_request;
  await requireCommit(pr.base.sha);
  const head = (0,external_node_fs_.existsSync)(o.manifest) ? await (0,lint_files/* manifestFiles */.T)([o.manifest], 'input "manifest"') : [];
  const base = await baseFiles(o.manifest, pr.base.sha);
  if (head.length + base.length === 0) {
    toolkit/* core */.I.info(`no plan comment: ${o.manifest} holds no manifest, here or at the base commit`);
    return void 0;
  }
  const fork = pr.head.repo?.full_name !== pr.base.repo.full_name;
  if (fork)
    toolkit/* core */.I.notice(
      "a pull request from a fork gets a read-only token: the plan's difference is in the job summary only, not a comment"
    );
  const headFiles = new Set(head.map((f) => (0,external_node_path_.normalize)(f)));
  const deleted = base.filter((f) => !headFiles.has(f));
  let comments;
  for (const file of [...head, ...deleted]) {
    const compared = await comparison(file, pr.base.sha, headFiles.has((0,external_node_path_.normalize)(file)));
    if (compared === void 0) continue;
    const diff = diffPlans(compared.base, compared.head);
    const body = renderPlanComment(diff, { file, ...compared.missing ? { missing: compared.missing } : {} });
    await (0,report/* writeSummary */.Sy)(body);
    if (fork) continue;
    comments ??= o.comments(pr.number);
    const found = await comments.find(commentMarker(diff.campaign));
    if (found) {
      if (found.body !== body) await comments.update(found.id, body);
      toolkit/* core */.I.info(`${diff.campaign}: the plan comment is updated`);
    } else if (!unchangedPlan(diff)) {
      await comments.create(body);
      toolkit/* core */.I.info(`${diff.campaign}: the plan comment is written`);
    } else toolkit/* core */.I.info(`${diff.campaign}: the plan is unchanged; no comment`);
  }
  return void 0;
}
async function pullRequestOf(eventPath) {
  const refuse = () => {
    throw new errors/* UserError */.yo({
      message: "command plan-comment needs the event of a pull request",
      fix: "run it in a job of a workflow `on: pull_request`"
    });
  };
  if (eventPath === void 0) return refuse();
  const parsed = pullRequestEvent.safeParse(JSON.parse(await (0,promises_.readFile)(eventPath, "utf8")));
  return parsed.success ? parsed.data : refuse();
}
async function requireCommit(sha) {
  try {
    await run("git", ["cat-file", "-e", `${sha}^{commit}`]);
  } catch {
    throw new errors/* UserError */.yo({
      message: `the pull request's base commit ${sha} is not in the checkout`,
      fix: "check out with `fetch-depth: 0` (actions/checkout), so that the base manifest can be read"
    });
  }
}
async function comparison(file, sha, inHead) {
  const before = await basePlan(file, sha);
  if (!inHead) {
    if (before.plan) return { base: before.plan, head: { ...before.plan, phases: [] }, missing: "deleted" };
    toolkit/* core */.I.info(`no plan comment for ${file}: deleted, and it did not load at the base commit either`);
    return void 0;
  }
  const result = (0,lint/* lintText */.D)(file, await (0,load/* readManifest */.WI)(file));
  if (!result.context || result.findings.some((f) => f.severity === "error")) {
    toolkit/* core */.I.warning(`no plan comment for ${file}: it does not load (the lint check says why)`);
    return void 0;
  }
  const head = result.context.plan;
  return before.plan ? { base: before.plan, head } : { head, missing: before.missing };
}
async function baseFiles(path, sha) {
  const blobs = async (p) => (await run("git", ["ls-tree", "-z", sha, "--", p])).stdout.split("\0").map((entry) => /^\d+ blob \S+\t(.+)$/s.exec(entry)?.[1]).filter((f) => f !== void 0);
  const inside = (await blobs(`${path.replace(/\/+$/, "")}/`)).filter((f) => /\.ya?ml$/.test(f));
  return (inside.length > 0 ? inside : await blobs(path)).map((f) => (0,external_node_path_.normalize)(f));
}
async function basePlan(file, sha) {
  const object = `${sha}:./${(0,external_node_path_.normalize)(file)}`;
  const present = await run("git", ["cat-file", "-e", object]).then(
    () => true,
    () => false
  );
  if (!present) return { missing: "new" };
  const { stdout } = await run("git", ["show", object], { maxBuffer: 64 * 2 ** 20 });
  const result = (0,lint/* lintText */.D)(file, stdout);
  try {
    if (result.context) return { plan: result.context.plan };
  } catch (e) {
    if (!(e instanceof errors/* UserError */.yo)) throw e;
  }
  return { missing: "base does not load" };
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



/***/ })

};
