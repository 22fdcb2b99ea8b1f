/**
 * The lint action: every manifest given (files, or directories of `.yml`), each finding an
 * annotation on its line, the full list in the job summary, counts as outputs. It reads files
 * only: no secrets, no network, so it is safe on pull requests from forks.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { readManifest } from '../cli/load.js';
import { staleWorkflowFinding } from '../cli/workflow-file.js';
import { UserError } from '../errors.js';
import { lintText } from '../lint/lint.js';
import type { Finding } from '../lint/rule.js';
import * as core from './commands.js';
import { annotate, findingsMarkdown, writeSummary } from './report.js';
import type { LintSettings } from './settings.js';

export interface LintOutcome {
  files: string[];
  findings: Finding[];
  /** True when the step should fail: errors, or warnings under `strict`. */
  failed: boolean;
}

async function manifests(paths: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const p of paths) {
    const st = await stat(p).catch(() => undefined);
    if (!st) {
      throw new UserError({
        message: `input "manifests": ${p} does not exist`,
        fix: 'give manifest files or directories holding them, relative to the repository root',
      });
    }
    if (!st.isDirectory()) files.push(p);
    else for (const name of (await readdir(p)).sort()) if (/\.ya?ml$/.test(name)) files.push(join(p, name));
  }
  return files;
}

export async function runLint(settings: LintSettings): Promise<LintOutcome> {
  const files = await manifests(settings.manifests);
  const findings: Finding[] = [];
  for (const file of files) {
    const result = lintText(file, await readManifest(file));
    findings.push(...result.findings);
    const stale = settings['check-workflow'] && result.context && (await staleWorkflowFinding(file, result.context));
    if (stale) findings.push(stale);
  }
  const errors = findings.filter((f) => f.severity === 'error').length;
  const warnings = findings.length - errors;
  annotate(findings);
  await writeSummary(
    `## campaign lint\n\n${files.length} manifest${files.length === 1 ? '' : 's'}: ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}\n\n${findingsMarkdown(findings)}`,
  );
  core.setOutput('errors', errors);
  core.setOutput('warnings', warnings);
  core.setOutput('files', files.join('\n'));
  return { files, findings, failed: errors > 0 || (settings.strict && warnings > 0) };
}
