/**
 * A local stand-in of the GitHub services the action reaches, on loopback, close enough to the
 * documented protocols that the real libraries talk to it unmodified:
 *
 * - the artifact service's Twirp JSON API (`/twirp/github.actions.results.api.v1.ArtifactService/*`),
 *   authorised by the job's runtime token, a JWT whose `scp` claim names the run's backend ids;
 * - the signed blob URLs it hands out, as Azure Blob Storage serves them (`PUT ?comp=block`,
 *   `PUT ?comp=blocklist`, a single `PUT`, `GET`), checked by their `sig`;
 * - the REST endpoints the action uses (list artifacts, download an artifact by redirect, create
 *   a check run, dispatch a workflow), with tokens that carry permissions: a wrong token gets
 *   401, a missing permission 403, as GitHub answers.
 *
 * It records every call (never a token) and keeps check runs and dispatches for assertions, and
 * can damage downloads on purpose. It holds no fake of our own code.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const TWIRP_PREFIX = '/twirp/github.actions.results.api.v1.ArtifactService/';
const BLOB_PREFIX = '/devstoreaccount1/actions-results/';

export type Permission = 'actions:read' | 'actions:write' | 'checks:write' | 'pull-requests:write';

export interface Run {
  id: number;
  /** The results service's id of the run, as the runtime token names it. */
  backendId: string;
  attempt: number;
  /** What started it (push, workflow_dispatch, schedule, pull_request, …). */
  event: string;
  /** The branch it ran on. */
  branch: string;
  /** The repository its head commit came from: another one for a fork's pull request. */
  headRepository: string;
  /** Its workflow file, under .github/workflows/. */
  workflowFile: string;
}

/** How a run differs from a push to main of this workflow in this repository. */
export type RunOrigin = Partial<Pick<Run, 'event' | 'branch' | 'headRepository' | 'workflowFile'>>;

export interface StoredArtifact {
  id: number;
  name: string;
  runId: number;
  runBackendId: string;
  jobBackendId: string;
  createdAt: Date;
  finalized: boolean;
  size: number;
  /** `sha256:<hex>` as the uploader declared it at finalize. */
  digest?: string;
  blocks: Map<string, Buffer>;
  bytes?: Buffer;
  expired: boolean;
}

export interface CheckRun {
  id: number;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  output?: { title?: string; summary?: string; text?: string };
}

/** A comment on an issue or pull request, as the issues comments API keeps it. */
export interface IssueComment {
  id: number;
  issue: number;
  body: string;
  user: { login: string; type: 'Bot' | 'User' };
}

export interface Dispatch {
  workflow: string;
  ref: string;
  inputs: Record<string, string>;
}

export interface RecordedCall {
  method: string;
  /** Path without the query (signatures stay out of the record). */
  path: string;
  status: number;
}

/** How the next downloads of an artifact's bytes are damaged. */
export interface DownloadFault {
  artifactId: number;
  /**
   * `flip`: one byte changed in place where extraction still succeeds (only the digest shows it);
   * `truncate`: the second half cut off, served with a matching length (extraction fails);
   * `pad`: 8 MiB of zeros after it, served with a matching length (longer than its listing says).
   */
  kind: 'flip' | 'truncate' | 'pad';
}

export interface JobEnvOptions {
  workspace: string;
  job: string;
  sha?: string;
  /** Extra variables (GITHUB_OUTPUT, INPUT_*, …). */
  extra?: Record<string, string>;
}

export class GitHubStandin {
  readonly owner = 'octo-lab';
  readonly repo = 'experiments';
  readonly sha = 'c0ffee0000000000000000000000000000000042';
  /** The file of the workflow the runs belong to; a dispatch of any other is refused (404). */
  workflowFile = 'campaign.yml';
  readonly calls: RecordedCall[] = [];
  readonly artifacts: StoredArtifact[] = [];
  readonly checkRuns: CheckRun[] = [];
  readonly dispatches: Dispatch[] = [];
  /** Comments on pull requests, each by the identity of the token that wrote it. */
  readonly comments: IssueComment[] = [];
  readonly faults: DownloadFault[] = [];
  /**
   * The repository's other workflow files (a campaign's scheduled resume), each enabled (true)
   * or disabled, as `PUT …/workflows/{file}/enable|disable` leaves it; GitHub runs a disabled
   * workflow's schedule never. Unknown files are refused (404).
   */
  readonly workflows = new Map<string, boolean>();
  /** The workflow's `workflow_dispatch` inputs; when set, a dispatch with any other is refused (422) as GitHub does. */
  dispatchInputs: ReadonlySet<string> | undefined;
  /** False: the workflow has no `workflow_dispatch` trigger, and a dispatch is refused (422) as GitHub does. */
  dispatchable = true;
  /** True: every REST call is refused as GitHub does once a token's rate limit is spent (403, remaining 0). */
  rateLimited = false;
  /** How many of the next REST calls GitHub fails with a server error (502), as it sometimes does. */
  serverErrors = 0;
  /** How many of the next REST calls hit GitHub's secondary rate limit (403 with retry-after). */
  secondaryLimits = 0;
  /** The repository's default branch, as `GET /repos/{owner}/{repo}` says it. */
  defaultBranch = 'main';
  private readonly secret = randomBytes(32);
  private readonly tokens = new Map<string, Set<Permission>>();
  /** Whom each token acts as: the login its comments carry and GraphQL's `viewer` names. */
  private readonly identities = new Map<string, string>();
  private readonly runs: Run[] = [];
  private nextId = 1000;

  private readonly server: Server = createServer((req, res) => {
    this.handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) reply(res, 500, { message: String(e) });
      else res.destroy();
    });
  });
  private base = '';
  /** Where the REST API is under the root: empty as on github.com, `/api/v3` as on GitHub Enterprise Server. */
  private apiPrefix = '';

  /** The stand-in's root, e.g. http://127.0.0.1:PORT: the API, the results service and the blobs. */
  get url(): string {
    return this.base;
  }

  /** The REST API's root (GITHUB_API_URL): the root itself, or under `apiPrefix` as on GitHub Enterprise Server. */
  get apiUrl(): string {
    return this.base + this.apiPrefix;
  }

  static async start(o: { apiPrefix?: string } = {}): Promise<GitHubStandin> {
    const standin = new GitHubStandin();
    standin.apiPrefix = o.apiPrefix ?? '';
    await new Promise<void>((resolve) => standin.server.listen(0, '127.0.0.1', resolve));
    standin.base = `http://127.0.0.1:${(standin.server.address() as AddressInfo).port}`;
    return standin;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /**
   * A token for the REST API holding these permissions, acting as `login`: by default the job's
   * GITHUB_TOKEN, whose identity is the github-actions app's bot; another app's installation
   * token is `<slug>[bot]`, a person's token their login.
   */
  issueToken(permissions: Permission[], login = 'github-actions[bot]'): string {
    const token = `ghs_${randomBytes(18).toString('hex')}`;
    this.tokens.set(token, new Set(permissions));
    this.identities.set(token, login);
    return token;
  }

  newRun(origin: RunOrigin = {}): Run {
    const run: Run = {
      id: 7_000_000 + this.runs.length + 1,
      backendId: randomUUID(),
      attempt: 1,
      event: 'push',
      branch: 'main',
      headRepository: `${this.owner}/${this.repo}`,
      workflowFile: this.workflowFile,
      ...origin,
    };
    this.runs.push(run);
    return run;
  }

  /** The runtime token the runner gives a job: a JWT whose `scp` claim names the run and job backend ids. */
  runtimeToken(run: Run, jobBackendId: string = randomUUID()): string {
    const b64 = (o: object): string => Buffer.from(JSON.stringify(o)).toString('base64url');
    const head = b64({ alg: 'HS256', typ: 'JWT' });
    const body = b64({
      scp: `Actions.GenericRead:00000000-0000-0000-0000-000000000000 Actions.Results:${run.backendId}:${jobBackendId}`,
      exp: Math.floor(Date.now() / 1000) + 6 * 3600,
    });
    return `${head}.${body}.${this.sign(`${head}.${body}`)}`;
  }

  /** The variables the runner sets for an action's process in `job` of `run`. */
  jobEnv(run: Run, o: JobEnvOptions): Record<string, string> {
    return {
      ACTIONS_RUNTIME_TOKEN: this.runtimeToken(run),
      ACTIONS_RESULTS_URL: `${this.url}/`,
      // Not the stand-in: the artifact library refuses GitHub Enterprise Server hosts.
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_API_URL: this.apiUrl,
      GITHUB_REPOSITORY: `${this.owner}/${this.repo}`,
      GITHUB_REPOSITORY_OWNER: this.owner,
      GITHUB_RUN_ID: String(run.id),
      GITHUB_RUN_ATTEMPT: String(run.attempt),
      GITHUB_RUN_NUMBER: String(this.runs.indexOf(run) + 1),
      GITHUB_SHA: o.sha ?? this.sha,
      GITHUB_REF: `refs/heads/${run.branch}`,
      GITHUB_REF_NAME: run.branch,
      GITHUB_WORKFLOW: 'campaign',
      GITHUB_WORKFLOW_REF: `${this.owner}/${this.repo}/.github/workflows/${run.workflowFile}@refs/heads/${run.branch}`,
      GITHUB_JOB: o.job,
      GITHUB_EVENT_NAME: run.event,
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: o.workspace,
      RUNNER_TEMP: o.workspace,
      ...o.extra,
    };
  }

  /** Other workflows' artifacts, newer than anything stored so far (a busy repository). */
  addUnrelatedArtifacts(run: Run, count: number): void {
    for (let i = 0; i < count; i++) {
      const id = this.nextId++;
      this.artifacts.push({
        id,
        name: `coverage-report-${id}`,
        runId: run.id,
        runBackendId: run.backendId,
        jobBackendId: randomUUID(),
        createdAt: new Date(),
        finalized: true,
        size: 1,
        blocks: new Map(),
        bytes: Buffer.from('x'),
        expired: false,
      });
    }
  }

  /** The check runs published under `name`, oldest first (GitHub shows the newest). */
  checkRunsNamed(name: string): CheckRun[] {
    return this.checkRuns.filter((c) => c.name === name);
  }

  private sign(text: string): string {
    return createHmac('sha256', this.secret).update(text).digest('base64url');
  }

  private blobUrl(a: StoredArtifact, op: 'upload' | 'download'): string {
    const se = new Date(Date.now() + 3600_000).toISOString();
    const path = `${BLOB_PREFIX}${a.id}/${encodeURIComponent(a.name)}.zip`;
    const sp = op === 'upload' ? 'cw' : 'r';
    return `${this.url}${path}?sv=2023-11-03&sp=${sp}&se=${encodeURIComponent(se)}&sig=${encodeURIComponent(this.sign(`${path}|${sp}|${se}`))}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const body = await readBody(req);
    const record = (status: number): void => {
      this.calls.push({ method: req.method ?? '', path: url.pathname, status });
    };
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}): void => {
      record(status);
      reply(res, status, payload, headers);
    };
    if (url.pathname.startsWith(TWIRP_PREFIX)) return this.twirp(req, url, body, send);
    if (url.pathname.startsWith(BLOB_PREFIX)) return this.blob(req, url, body, res, record);
    // GraphQL beside the REST API: /graphql on github.com, /api/graphql on a GitHub Enterprise Server.
    if (url.pathname === `${this.apiPrefix.replace(/\/v3$/, '')}/graphql`) return this.graphql(req, body, send);
    // Only under the API's prefix, as a GitHub Enterprise Server serves it (recorded with it).
    if (url.pathname.startsWith(`${this.apiPrefix}/repos/`))
      return this.rest(req, new URL(url.pathname.slice(this.apiPrefix.length) + url.search, this.url), body, send);
    send(404, { message: 'Not Found' });
  }

  // ---- the artifact service (Twirp, JSON with proto field names)

  private twirp(req: IncomingMessage, url: URL, body: Buffer, send: Send): void {
    const scope = this.runtimeScope(req.headers.authorization);
    if (!scope) return send(401, { code: 'unauthenticated', msg: 'invalid or missing runtime token' });
    if (req.method !== 'POST') return send(404, { code: 'bad_route', msg: 'Twirp routes take POST' });
    let m: Record<string, unknown>;
    try {
      m = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      return send(400, { code: 'malformed', msg: 'the body is not JSON' });
    }
    // Any job of a run may read its artifacts; only the job itself may create and finalize its own.
    const method = url.pathname.slice(TWIRP_PREFIX.length);
    const writes = method === 'CreateArtifact' || method === 'FinalizeArtifact';
    if (m.workflow_run_backend_id !== scope.run || (writes && m.workflow_job_run_backend_id !== scope.job)) {
      return send(403, { code: 'permission_denied', msg: 'the backend ids are not those of the runtime token' });
    }
    const run = this.runs.find((r) => r.backendId === scope.run);
    if (!run) return send(404, { code: 'not_found', msg: 'no such workflow run' });
    const inRun = (name: unknown): StoredArtifact | undefined =>
      this.artifacts.find((a) => a.runBackendId === scope.run && a.name === name);
    switch (method) {
      case 'CreateArtifact': {
        if (typeof m.name !== 'string' || m.name === '') return send(400, { code: 'invalid_argument', msg: 'name' });
        if (m.version !== 7) return send(400, { code: 'invalid_argument', msg: 'unsupported artifact version' });
        if (inRun(m.name)?.finalized) {
          return send(409, { code: 'already_exists', msg: `an artifact named ${m.name} already exists in this run` });
        }
        const a: StoredArtifact = {
          id: this.nextId++,
          name: m.name,
          runId: run.id,
          runBackendId: scope.run,
          jobBackendId: scope.job,
          createdAt: new Date(),
          finalized: false,
          size: 0,
          blocks: new Map(),
          expired: false,
        };
        this.artifacts.push(a);
        return send(200, { ok: true, signed_upload_url: this.blobUrl(a, 'upload') });
      }
      case 'FinalizeArtifact': {
        const a = this.artifacts.find(
          (x) => x.runBackendId === scope.run && x.name === m.name && !x.finalized && x.jobBackendId === scope.job,
        );
        if (!a || !a.bytes) return send(404, { code: 'not_found', msg: 'no uploaded artifact of that name' });
        if (String(a.bytes.length) !== String(m.size)) {
          return send(400, {
            code: 'invalid_argument',
            msg: `size ${String(m.size)} but ${a.bytes.length} bytes uploaded`,
          });
        }
        a.finalized = true;
        a.size = a.bytes.length;
        if (typeof m.hash === 'string') a.digest = m.hash;
        return send(200, { ok: true, artifact_id: String(a.id) });
      }
      case 'ListArtifacts': {
        const list = this.artifacts.filter(
          (a) =>
            a.finalized &&
            !a.expired &&
            a.runBackendId === scope.run &&
            (m.name_filter === undefined || a.name === m.name_filter) &&
            (m.id_filter === undefined || String(a.id) === String(m.id_filter)),
        );
        return send(200, {
          artifacts: list.map((a) => ({
            workflow_run_backend_id: a.runBackendId,
            workflow_job_run_backend_id: a.jobBackendId,
            database_id: String(a.id),
            name: a.name,
            size: String(a.size),
            created_at: a.createdAt.toISOString(),
            ...(a.digest ? { digest: a.digest } : {}),
          })),
        });
      }
      case 'GetSignedArtifactURL': {
        const a = inRun(m.name);
        if (!a?.finalized || a.expired) return send(404, { code: 'not_found', msg: 'no such artifact' });
        return send(200, { signed_url: this.blobUrl(a, 'download') });
      }
      default:
        return send(404, { code: 'bad_route', msg: `no method ${url.pathname}` });
    }
  }

  /** The run and job backend ids of a valid runtime token, from `Authorization: Bearer <jwt>`. */
  private runtimeScope(auth: string | undefined): { run: string; job: string } | undefined {
    const jwt = /^Bearer (.+)$/.exec(auth ?? '')?.[1];
    const [head, body, sig] = jwt?.split('.') ?? [];
    if (!head || !body || !sig || sig !== this.sign(`${head}.${body}`)) return undefined;
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { scp?: string; exp?: number };
    if (!claims.exp || claims.exp * 1000 < Date.now()) return undefined;
    const scope = claims.scp?.split(' ').find((s) => s.startsWith('Actions.Results:'));
    const [, run, job] = scope?.split(':') ?? [];
    return run && job ? { run, job } : undefined;
  }

  // ---- blob storage behind the signed URLs

  private blob(req: IncomingMessage, url: URL, body: Buffer, res: ServerResponse, record: (s: number) => void): void {
    const fail = (status: number, code: string): void => {
      record(status);
      res.writeHead(status, { 'content-type': 'application/xml', 'x-ms-error-code': code });
      res.end(`<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code></Error>`);
    };
    const q = url.searchParams;
    const sp = q.get('sp') ?? '';
    const se = q.get('se') ?? '';
    if (q.get('sig') !== this.sign(`${url.pathname}|${sp}|${se}`) || Date.parse(se) < Date.now()) {
      return fail(403, 'AuthenticationFailed');
    }
    const id = Number(url.pathname.slice(BLOB_PREFIX.length).split('/')[0]);
    const a = this.artifacts.find((x) => x.id === id);
    if (!a) return fail(404, 'BlobNotFound');
    const ok = (status: number, headers: Record<string, string> = {}): void => {
      record(status);
      res.writeHead(status, {
        'x-ms-request-id': randomUUID(),
        'x-ms-version': '2023-11-03',
        etag: `"0x${a.id.toString(16)}"`,
        'last-modified': new Date().toUTCString(),
        ...headers,
      });
    };
    if (req.method === 'PUT') {
      if (!sp.includes('w') || a.finalized) return fail(403, 'AuthorizationPermissionMismatch');
      const comp = q.get('comp');
      if (comp === 'block') {
        const blockId = q.get('blockid');
        if (!blockId) return fail(400, 'InvalidQueryParameterValue');
        a.blocks.set(blockId, body);
      } else if (comp === 'blocklist') {
        // <BlockList><Latest>id</Latest>…</BlockList>: the blob is the listed blocks in order.
        const ids = [...body.toString('utf8').matchAll(/<(?:Latest|Uncommitted|Committed)>([^<]*)<\//g)].map(
          (m) => m[1]!,
        );
        const parts = ids.map((b) => a.blocks.get(b));
        if (parts.some((p) => p === undefined)) return fail(400, 'InvalidBlockList');
        a.bytes = Buffer.concat(parts as Buffer[]);
        a.blocks.clear();
      } else if (comp === null && req.headers['x-ms-blob-type'] === 'BlockBlob') {
        a.bytes = body;
      } else {
        return fail(400, 'UnsupportedQueryParameter');
      }
      ok(201, { 'content-length': '0' });
      res.end();
      return;
    }
    if (req.method === 'GET') {
      if (!sp.includes('r') || !a.bytes) return fail(404, 'BlobNotFound');
      let bytes = a.bytes;
      const fault = this.faults.find((f) => f.artifactId === a.id);
      if (fault?.kind === 'flip') {
        bytes = Buffer.from(bytes);
        // In the end-of-central-directory record (the central directory's offset): a stream
        // extractor never reads it, so the damage shows only in the digest.
        const at = bytes.length - 6;
        bytes[at] = bytes[at]! ^ 0xff;
      } else if (fault?.kind === 'truncate') {
        bytes = bytes.subarray(0, Math.floor(bytes.length / 2));
      } else if (fault?.kind === 'pad') {
        bytes = Buffer.concat([bytes, Buffer.alloc(8 * 2 ** 20)]);
      }
      ok(200, {
        'content-type': 'application/zip',
        'content-length': String(bytes.length),
        'content-disposition': `attachment; filename="${a.name}.zip"`,
      });
      res.end(bytes);
      return;
    }
    fail(405, 'UnsupportedHttpVerb');
  }

  // ---- GraphQL: only `viewer { login }`, which any valid token may ask

  private graphql(req: IncomingMessage, body: Buffer, send: Send): void {
    const token = /^(?:Bearer|token) (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const login = token === undefined ? undefined : this.identities.get(token);
    if (login === undefined) return send(401, { message: 'Bad credentials' });
    if (req.method !== 'POST') return send(404, { message: 'Not Found' });
    const { query } = JSON.parse(body.toString('utf8')) as { query?: string };
    if (!/^\s*(?:query\s*)?\{\s*viewer\s*\{\s*login\s*\}\s*\}\s*$/.test(query ?? ''))
      return send(200, { errors: [{ message: 'the stand-in answers only { viewer { login } }' }] });
    send(200, { data: { viewer: { login } } });
  }

  // ---- REST

  private rest(req: IncomingMessage, url: URL, body: Buffer, send: Send): void {
    const token = /^(?:Bearer|token) (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const perms = token === undefined ? undefined : this.tokens.get(token);
    if (!perms) return send(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
    if (this.rateLimited)
      return send(
        403,
        {
          message: 'API rate limit exceeded for installation ID 1.',
          documentation_url: 'https://docs.github.com/rest',
        },
        { 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1798761600' },
      );
    if (this.serverErrors > 0) {
      this.serverErrors--;
      return send(502, { message: 'Server Error' });
    }
    if (this.secondaryLimits > 0) {
      this.secondaryLimits--;
      return send(
        403,
        {
          message:
            'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.',
          documentation_url: 'https://docs.github.com/rest',
        },
        { 'retry-after': '1', 'x-ratelimit-remaining': '4000' },
      );
    }
    const need = (p: Permission): boolean => {
      if (perms.has(p) || (p === 'actions:read' && perms.has('actions:write'))) return true;
      send(403, {
        message: 'Resource not accessible by integration',
        documentation_url: 'https://docs.github.com/rest',
      });
      return false;
    };
    const repoPath = `/repos/${this.owner}/${this.repo}`;
    if (url.pathname !== repoPath && !url.pathname.startsWith(`${repoPath}/`))
      return send(404, { message: 'Not Found' });
    const path = url.pathname.slice(repoPath.length);
    const get = req.method === 'GET';
    const post = req.method === 'POST';
    const patch = req.method === 'PATCH';
    const put = req.method === 'PUT';
    const paged = (list: StoredArtifact[]): void => {
      const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30));
      const page = Number(url.searchParams.get('page') ?? 1);
      const name = url.searchParams.get('name');
      // Newest first, as GitHub lists them.
      const all = list.filter((a) => a.finalized && (name === null || a.name === name)).sort((x, y) => y.id - x.id);
      send(200, {
        total_count: all.length,
        artifacts: all.slice((page - 1) * perPage, page * perPage).map((a) => this.restArtifact(a)),
      });
    };
    let m: RegExpExecArray | null;
    if (get && path === '') {
      return send(200, {
        full_name: `${this.owner}/${this.repo}`,
        default_branch: this.defaultBranch,
        private: true,
      });
    }
    if (get && path === '/actions/artifacts') {
      if (need('actions:read')) paged(this.artifacts);
      return;
    }
    if (get && (m = /^\/actions\/runs\/(\d+)$/.exec(path))) {
      if (!need('actions:read')) return;
      const run = this.runs.find((r) => r.id === Number(m![1]));
      if (!run) return send(404, { message: 'Not Found' });
      // The fields of GitHub's workflow run object that say where a run came from.
      return send(200, {
        id: run.id,
        run_attempt: run.attempt,
        event: run.event,
        head_branch: run.branch,
        head_sha: this.sha,
        path: `.github/workflows/${run.workflowFile}`,
        repository: { full_name: `${this.owner}/${this.repo}` },
        head_repository: { full_name: run.headRepository },
      });
    }
    if (get && (m = /^\/actions\/runs\/(\d+)\/artifacts$/.exec(path))) {
      if (need('actions:read')) paged(this.artifacts.filter((a) => a.runId === Number(m![1])));
      return;
    }
    if (get && (m = /^\/actions\/artifacts\/(\d+)(\/zip)?$/.exec(path))) {
      if (!need('actions:read')) return;
      const a = this.artifacts.find((x) => x.id === Number(m![1]) && x.finalized);
      if (!a) return send(404, { message: 'Not Found' });
      if (!m[2]) return send(200, this.restArtifact(a));
      if (a.expired) return send(410, { message: 'Artifact has expired' });
      return send(302, '', { location: this.blobUrl(a, 'download') });
    }
    if (post && path === '/check-runs') {
      if (!need('checks:write')) return;
      const c = JSON.parse(body.toString('utf8')) as Partial<CheckRun>;
      const conclusions = [
        'action_required',
        'cancelled',
        'failure',
        'neutral',
        'success',
        'skipped',
        'stale',
        'timed_out',
      ];
      const statuses = ['queued', 'in_progress', 'completed', 'waiting', 'requested', 'pending'];
      const invalid =
        typeof c.name !== 'string' ||
        typeof c.head_sha !== 'string' ||
        (c.status !== undefined && !statuses.includes(c.status)) ||
        (c.conclusion !== undefined && !conclusions.includes(c.conclusion ?? '')) ||
        (c.status === 'completed' && c.conclusion === undefined);
      if (invalid) return send(422, { message: 'Invalid request.', documentation_url: 'https://docs.github.com/rest' });
      const run: CheckRun = {
        id: this.nextId++,
        name: c.name!,
        head_sha: c.head_sha!,
        status: c.conclusion !== undefined ? 'completed' : (c.status ?? 'queued'),
        conclusion: c.conclusion ?? null,
        ...(c.output ? { output: c.output } : {}),
      };
      this.checkRuns.push(run);
      return send(201, run);
    }
    if (post && (m = /^\/actions\/workflows\/([^/]+)\/dispatches$/.exec(path))) {
      if (!need('actions:write')) return;
      const workflow = decodeURIComponent(m[1]!);
      if (workflow !== this.workflowFile && !this.workflows.has(workflow)) return send(404, { message: 'Not Found' });
      if (!this.dispatchable) return send(422, { message: "Workflow does not have 'workflow_dispatch' trigger" });
      const d = JSON.parse(body.toString('utf8')) as { ref?: unknown; inputs?: Record<string, unknown> };
      const inputs = d.inputs ?? {};
      if (typeof d.ref !== 'string' || Object.values(inputs).some((v) => typeof v !== 'string')) {
        return send(422, { message: 'Invalid request. For "properties/inputs", values must be strings.' });
      }
      const unexpected = Object.keys(inputs).filter((k) => this.dispatchInputs && !this.dispatchInputs.has(k));
      if (unexpected.length > 0)
        return send(422, { message: `Unexpected inputs provided: ${JSON.stringify(unexpected)}` });
      this.dispatches.push({ workflow, ref: d.ref, inputs: inputs as Record<string, string> });
      return send(204, '');
    }
    if (put && (m = /^\/actions\/workflows\/([^/]+)\/(enable|disable)$/.exec(path))) {
      if (!need('actions:write')) return;
      const workflow = decodeURIComponent(m[1]!);
      if (!this.workflows.has(workflow)) return send(404, { message: 'Not Found' });
      this.workflows.set(workflow, m[2] === 'enable');
      return send(204, '');
    }
    if (get && (m = /^\/issues\/(\d+)\/comments$/.exec(path))) {
      const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30));
      const page = Number(url.searchParams.get('page') ?? 1);
      // Oldest first, as GitHub lists an issue's comments.
      const all = this.comments.filter((c) => c.issue === Number(m![1]));
      return send(
        200,
        all.slice((page - 1) * perPage, page * perPage).map((c) => this.restComment(c)),
      );
    }
    if (
      (post && (m = /^\/issues\/(\d+)\/comments$/.exec(path))) ||
      (patch && (m = /^\/issues\/comments\/(\d+)$/.exec(path)))
    ) {
      if (!need('pull-requests:write')) return;
      const { body: text } = JSON.parse(body.toString('utf8')) as { body?: unknown };
      if (typeof text !== 'string' || text.length > 65_536)
        return send(422, {
          message: 'Validation Failed',
          errors: [{ resource: 'IssueComment', field: 'body', code: 'invalid' }],
        });
      const login = this.identities.get(token!)!;
      if (post) {
        const c: IssueComment = {
          id: this.nextId++,
          issue: Number(m[1]),
          body: text,
          user: { login, type: login.endsWith('[bot]') ? 'Bot' : 'User' },
        };
        this.comments.push(c);
        return send(201, this.restComment(c));
      }
      const c = this.comments.find((x) => x.id === Number(m![1]));
      if (!c) return send(404, { message: 'Not Found' });
      // A token that may write pull requests may edit any comment on them, as GitHub lets a
      // repository's writers do: which comment is its own is the Action's to tell.
      c.body = text;
      return send(200, this.restComment(c));
    }
    send(404, { message: 'Not Found' });
  }

  private restComment(c: IssueComment): object {
    return {
      id: c.id,
      body: c.body,
      user: c.user,
      html_url: `https://github.com/${this.owner}/${this.repo}/pull/${c.issue}#issuecomment-${c.id}`,
    };
  }

  private restArtifact(a: StoredArtifact): object {
    return {
      id: a.id,
      node_id: `MDg6QXJ0aWZhY3Q${a.id}`,
      name: a.name,
      size_in_bytes: a.size,
      url: `${this.apiUrl}/repos/${this.owner}/${this.repo}/actions/artifacts/${a.id}`,
      archive_download_url: `${this.apiUrl}/repos/${this.owner}/${this.repo}/actions/artifacts/${a.id}/zip`,
      expired: a.expired,
      digest: a.digest ?? null,
      created_at: a.createdAt.toISOString(),
      updated_at: a.createdAt.toISOString(),
      expires_at: new Date(a.createdAt.getTime() + 90 * 86_400_000).toISOString(),
      workflow_run: { id: a.runId, head_sha: this.sha },
    };
  }
}

type Send = (status: number, payload: unknown, headers?: Record<string, string>) => void;

function reply(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  res.writeHead(status, {
    ...(text === '' ? {} : { 'content-type': 'application/json; charset=utf-8' }),
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}
