/**
 * The committed workflow of a manifest: where it lives, writing it, and the lint check that it
 * still matches what `campaign workflow` would write (file I/O, so not in the pure lint rules).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { LintContext } from '../lint/rule.js';
import type { Finding } from '../lint/rule.js';
import { WORKFLOW_RULES } from '../lint/rules/index.js';
import { readOptions, renderWorkflows, workflowPath, type WorkflowOptions } from '../workflow/render.js';

/** What scripts/release-stamp writes into the package as it is packed. */
const releaseStamp = z.object({
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  tag: z.string().regex(/^v[0-9A-Za-z.+-]+$/),
});

/**
 * The campaign action at the commit this package was packed from, its tag as a comment: a tag
 * can be moved to other code, a commit cannot. A checkout of the sources has no such commit,
 * and names the major version's tag.
 */
function releaseUses(): string {
  let text: string;
  try {
    // lib/release.json, beside lib/app/. A path rather than `new URL(…, import.meta.url)`, which
    // the bundler would take for an asset of the Action's bundle (that has no stamp: the tag).
    text = readFileSync(join(dirname(dirname(fileURLToPath(import.meta.url))), 'release.json'), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'campaign-tools/campaign@v0';
    throw e;
  }
  const { commit, tag } = releaseStamp.parse(JSON.parse(text));
  return `campaign-tools/campaign@${commit} # ${tag}`;
}

/** The options `campaign workflow` uses when neither a flag nor an earlier workflow says otherwise. */
export const DEFAULT_OPTIONS: Omit<WorkflowOptions, 'manifest'> = {
  uses: releaseUses(),
  branch: 'main',
  budget: '5h',
  runsOn: 'ubuntu-latest',
};

/** The defaults for a manifest's first workflow: DEFAULT_OPTIONS, with the action its repository names. */
export async function defaultOptions(file: string): Promise<Omit<WorkflowOptions, 'manifest'>> {
  return { ...DEFAULT_OPTIONS, uses: await defaultUses(repoRoot(file)) };
}

/**
 * The action a repository's workflow should use: its own `OWNER/REPO@v1` where it holds the
 * actions (a fork of campaign with its campaigns in it runs its own copy) and origin is on
 * github.com, else the default. A repository without the actions would name one that has none.
 */
async function defaultUses(root: string | undefined): Promise<string> {
  if (root === undefined || !existsSync(join(root, 'action.yml')) || !existsSync(join(root, 'lint', 'action.yml')))
    return DEFAULT_OPTIONS.uses;
  // --git-dir, not discovery: a directory that only looks like a repository must not make git
  // read the remote of one above it.
  const url = await new Promise<string | undefined>((done) => {
    execFile('git', ['--git-dir', join(root, '.git'), 'remote', 'get-url', 'origin'], { timeout: 10_000 }, (e, out) =>
      done(e ? undefined : out.trim()),
    );
  });
  const repo = url === undefined ? undefined : githubRepo(url);
  return repo === undefined ? DEFAULT_OPTIONS.uses : `${repo}@v1`;
}

/**
 * `OWNER/REPO` of a github.com remote URL (https, ssh or scp-like), undefined for any other.
 * Only the characters GitHub allows in names pass, so nothing else of the URL (a token in
 * it, say) reaches the workflow file.
 */
export function githubRepo(url: string): string | undefined {
  const m =
    /^(?:(?:https?|ssh|git):\/\/)?(?:[^@/]+@)?github\.com[:/]([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+?)(?:\.git)?\/?$/.exec(
      url,
    );
  return m ? `${m[1]!}/${m[2]!}` : undefined;
}

/** The repository a file is in: the nearest directory above it holding `.git`; undefined outside one. */
export function repoRoot(file: string): string | undefined {
  for (let dir = dirname(resolve(file)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

export interface WorkflowTarget {
  /** The repository's root (the working directory outside a repository). */
  root: string;
  /** Absolute path of the workflow file. */
  path: string;
  /** The manifest's path from the repository root, with `/`. */
  manifest: string;
  /** The options of the workflow already there, if one is. */
  existing?: { text: string; options?: WorkflowOptions };
}

/** Where the workflow for a manifest goes (the repository root, or the working directory outside a repository). */
export async function workflowTarget(file: string, campaign: string): Promise<WorkflowTarget> {
  const root = repoRoot(file) ?? process.cwd();
  const path = join(root, workflowPath(campaign));
  const manifest = relative(root, resolve(file)).split(sep).join('/');
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined) return { root, path, manifest };
  const options = readOptions(text);
  return { root, path, manifest, existing: { text, ...(options ? { options } : {}) } };
}

/**
 * An error finding when the manifest's committed workflow cannot work (a `WORKFLOW_RULES` rule)
 * or no longer matches it; nothing when the manifest is not in a repository or has no generated
 * workflow (the reusable one serves it).
 */
export async function staleWorkflowFinding(file: string, ctx: LintContext): Promise<Finding | undefined> {
  if (repoRoot(file) === undefined) return undefined;
  const target = await workflowTarget(file, ctx.manifest.campaign);
  if (!target.existing) return undefined;
  const shown = relative(process.cwd(), target.path) || target.path;
  const finding = (message: string): Finding => ({
    rule: 'workflow-stale',
    severity: 'error',
    message,
    position: ctx.source.at(['campaign']),
    fix: `run campaign workflow ${file}`,
  });
  if (!target.existing.options) return finding(`${shown} was not written by \`campaign workflow\``);
  for (const rule of WORKFLOW_RULES) {
    const [f] = rule.check(ctx, target.existing.options);
    if (f) return { rule: rule.id, ...f, severity: f.severity ?? rule.severity };
  }
  let expected: { path: string; text: string }[];
  try {
    expected = renderWorkflows(ctx.plan, { ...target.existing.options, manifest: target.manifest });
  } catch (e) {
    return finding(`${shown} cannot be written again: ${(e as Error).message}`);
  }
  for (const { path, text } of expected) {
    const at = join(target.root, path);
    const committed = at === target.path ? target.existing.text : await readFile(at, 'utf8').catch(() => undefined);
    const named = relative(process.cwd(), at) || at;
    if (committed === undefined) return finding(`${named}, the campaign's scheduled resume, is missing`);
    if (committed !== text)
      return finding(`${named} no longer matches this manifest (its phases, dependencies or path changed)`);
  }
  return undefined;
}
