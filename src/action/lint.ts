/**
 * The lint action: every manifest given (files, or directories of `.yml`), each finding an
 * annotation on its line, the full list in the job summary, counts as outputs. It reads files
 * only: no secrets, no network, so it is safe on pull requests from forks.
 */
import { existsSync } from 'node:fs';
import { lintManifests, manifestFiles } from '../app/lint-files.js';
import type { Finding } from '../lint/rule.js';
import { core } from './toolkit.js';
import { entry } from './entry.js';
import { annotate, findingsMarkdown, writeSummary } from './report.js';
import { readLintSettings, type LintSettings } from './settings.js';

export interface LintOutcome {
  files: string[];
  findings: Finding[];
  /** True when the step should fail: errors, or warnings under `strict`. */
  failed: boolean;
}

export async function runLint(settings: LintSettings): Promise<LintOutcome> {
  // A required check runs on every pull request, also in a repository that has no manifests
  // yet: there it passes and says so. A path missing beside others that exist is still an error.
  if (!settings.manifests.some((p) => existsSync(p))) {
    const message = `nothing to lint: ${settings.manifests.join(', ')} ${settings.manifests.length === 1 ? 'does' : 'do'} not exist`;
    core.info(message);
    await writeSummary(`## campaign lint\n\n${message[0]!.toUpperCase()}${message.slice(1)}.\n`);
    core.setOutput('errors', 0);
    core.setOutput('warnings', 0);
    core.setOutput('files', '');
    return { files: [], findings: [], failed: false };
  }
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

/** The lint action's step: its inputs read, its manifests linted, the step failed if they fail. */
export async function lintStep(): Promise<void> {
  await entry(async () => {
    const outcome = await runLint(readLintSettings((name) => core.getInput(name)));
    return outcome.failed ? 'campaign lint found problems: see the annotations and the job summary' : undefined;
  });
}
