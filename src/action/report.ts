/**
 * What a workflow run shows: findings as annotations on the manifest's lines (within GitHub's
 * per-step limits, the rest in the log), and the job summary (within its size limit).
 */
import { appendFile } from 'node:fs/promises';
import { EOL } from 'node:os';
import { isAbsolute, relative } from 'node:path';
import { UserError } from '../errors.js';
import { formatFinding } from '../lint/lint.js';
import type { Finding } from '../lint/rule.js';
import { tableCell } from '../report/markdown.js';
import { core } from './toolkit.js';

/** GitHub shows 10 error and 10 warning annotations per step; more are dropped silently. */
export const ANNOTATIONS_PER_SEVERITY = 10;
/** A step's job summary may hold 1 MiB; the library does not check. */
const SUMMARY_LIMIT_BYTES = 1024 * 1024 - 4096;

export function annotate(findings: readonly Finding[]): void {
  const shown = { error: 0, warning: 0 };
  for (const f of findings) {
    if (shown[f.severity] >= ANNOTATIONS_PER_SEVERITY) {
      core.info(formatFinding(f));
      continue;
    }
    shown[f.severity]++;
    const message = `${f.message}${f.fix ? ` (fix: ${f.fix})` : ''}`;
    const p = { ...f.position, file: workspacePath(f.position.file) };
    const props =
      p.line > 0 ? { title: f.rule, file: p.file, startLine: p.line, startColumn: p.column } : { title: f.rule };
    if (f.severity === 'error') core.error(message, props);
    else core.warning(message, props);
  }
  const hidden = findings.length - shown.error - shown.warning;
  if (hidden > 0)
    core.info(`${hidden} more findings than GitHub shows as annotations: the job summary lists all of them`);
}

/** GitHub places an annotation by its path from the workspace root. */
function workspacePath(file: string): string {
  return isAbsolute(file) ? relative(process.env.GITHUB_WORKSPACE ?? process.cwd(), file) : file;
}

/** A user error's problems as findings, so a bad manifest met by any command is annotated on its line. */
export function problemFindings(e: UserError, rule = 'campaign'): Finding[] {
  return e.problems.map((p) => ({
    rule,
    severity: 'error',
    message: p.message,
    ...(p.fix ? { fix: p.fix } : {}),
    position: p.position ?? { file: '', line: 0, column: 0 },
  }));
}

export function findingsMarkdown(findings: readonly Finding[]): string {
  if (findings.length === 0) return 'No findings.\n';
  const rows = findings.map((f) => {
    const where = f.position.line > 0 ? `${f.position.file}:${f.position.line}:${f.position.column}` : '';
    return `| ${tableCell(where)} | ${f.severity} | ${f.rule} | ${tableCell(f.message)} | ${tableCell(f.fix ?? '')} |`;
  });
  return ['| where | severity | rule | finding | fix |', '| --- | --- | --- | --- | --- |', ...rows, ''].join('\n');
}

/** Appends to the job summary, cut at GitHub's limit with a note saying so. */
export async function writeSummary(markdown: string): Promise<void> {
  if (!process.env.GITHUB_STEP_SUMMARY) {
    core.info(markdown);
    return;
  }
  let text = markdown;
  if (Buffer.byteLength(text) > SUMMARY_LIMIT_BYTES) {
    text =
      Buffer.from(text)
        .subarray(0, SUMMARY_LIMIT_BYTES)
        .toString('utf8')
        .replace(/\uFFFD$/, '') +
      '\n\n… cut at GitHub’s 1 MiB job summary limit: the summary artifact and `campaign summary` have it all.\n';
  }
  // The file itself, named anew for each write: @actions/core's summary keeps the first file it
  // saw for the life of the process, and a process that runs several steps (tests) has several.
  await appendFile(process.env.GITHUB_STEP_SUMMARY, text + EOL, 'utf8');
}
