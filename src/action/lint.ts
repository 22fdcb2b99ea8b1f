/**
 * The lint action: every manifest given (files, or directories of `.yml`), each finding an
 * annotation on its line, the full list in the job summary, counts as outputs. It reads files
 * only: no secrets, no network, so it is safe on pull requests from forks.
 */
import { lintManifests, manifestFiles } from '../app/lint-files.js';
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

export async function runLint(settings: LintSettings): Promise<LintOutcome> {
  const files = await manifestFiles(settings.manifests, 'input "manifests"');
  const findings = await lintManifests(files, settings['check-workflow']);
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
