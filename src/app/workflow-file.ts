/**
 * The committed workflow of a manifest: where it lives, writing it, and the lint check that it
 * still matches what `campaign workflow` would write (file I/O, so not in the pure lint rules).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { LintContext } from '../lint/rule.js';
import type { Finding } from '../lint/rule.js';
import { WORKFLOW_RULES } from '../lint/rules/index.js';
import { readOptions, renderWorkflow, workflowPath, type WorkflowOptions } from '../workflow/render.js';

/** The options `campaign workflow` uses when neither a flag nor an earlier workflow says otherwise. */
export const DEFAULT_OPTIONS: Omit<WorkflowOptions, 'manifest'> = {
  uses: 'campaign-tools/campaign@v0',
  branch: 'main',
  budget: '5h',
  runsOn: 'ubuntu-latest',
};

/** The repository a file is in: the nearest directory above it holding `.git`; undefined outside one. */
export function repoRoot(file: string): string | undefined {
  for (let dir = dirname(resolve(file)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

export interface WorkflowTarget {
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
  if (text === undefined) return { path, manifest };
  const options = readOptions(text);
  return { path, manifest, existing: { text, ...(options ? { options } : {}) } };
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
  let expected: string;
  try {
    expected = renderWorkflow(ctx.plan, { ...target.existing.options, manifest: target.manifest });
  } catch (e) {
    return finding(`${shown} cannot be written again: ${(e as Error).message}`);
  }
  return expected === target.existing.text
    ? undefined
    : finding(`${shown} no longer matches this manifest (its phases, dependencies or path changed)`);
}
