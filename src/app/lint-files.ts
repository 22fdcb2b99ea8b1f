/** Linting as both front ends do it: files and directories of `.yml`, and each committed workflow's freshness. */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UserError } from '../errors.js';
import type { Finding } from '../lint/rule.js';
import { lintWithRepository } from './code.js';
import { readManifest } from './load.js';
import { campaignOutputs, sharedOutputFindings, type CampaignOutputs } from '../lint/shared-outputs.js';
import { staleWorkflowFinding } from './workflow-file.js';

/** The manifests `paths` name: each file, and the `.yml`/`.yaml` files of each directory, in order. */
export async function manifestFiles(paths: readonly string[], given: string): Promise<string[]> {
  const files: string[] = [];
  for (const p of paths) {
    const st = await stat(p).catch(() => undefined);
    if (!st) {
      throw new UserError({
        message: `${given}: ${p} does not exist`,
        fix: 'give manifest files, or directories holding them',
      });
    }
    if (!st.isDirectory()) files.push(p);
    else for (const name of (await readdir(p)).sort()) if (/\.ya?ml$/.test(name)) files.push(join(p, name));
  }
  return files;
}

/** Every finding of every file, with a stale generated workflow as an error when `checkWorkflow`. */
export async function lintManifests(files: readonly string[], checkWorkflow: boolean): Promise<Finding[]> {
  const findings: Finding[] = [];
  const sound: CampaignOutputs[] = [];
  for (const file of files) {
    const linted = await lintWithRepository(file, await readManifest(file)).catch((e: unknown) => {
      // What the repository says of the declared code (a path that matches nothing, a snapshot too large).
      if (!(e instanceof UserError)) throw e;
      findings.push(
        ...e.problems.map((p): Finding => ({
          rule: 'code',
          severity: 'error',
          message: p.message,
          position: p.position ?? { file, line: 1, column: 1 },
          ...(p.fix ? { fix: p.fix } : {}),
        })),
      );
      return undefined;
    });
    if (linted === undefined) continue;
    const { result } = linted;
    findings.push(...result.findings);
    if (result.context) sound.push(campaignOutputs(file, result.context));
    const stale = checkWorkflow && result.context && (await staleWorkflowFinding(file, result.context));
    if (stale) findings.push(stale);
  }
  // Each file sound alone, two campaigns may still claim the same outputs.
  return [...findings, ...sharedOutputFindings(sound)];
}
