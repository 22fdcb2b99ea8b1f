/** Runs every rule over a manifest and returns the findings in file order. */
import { UserError } from '../errors.js';
import { expandPhase, type TaskSpec } from '../manifest/expand.js';
import { parseManifest, type LoadedManifest } from '../manifest/load.js';
import { planCampaign, type Plan, type PlanOptions } from '../plan/plan.js';
import type { Finding, LintContext, RepositoryFacts, Rule } from './rule.js';
import { RULES } from './rules/index.js';

export interface LintResult {
  findings: Finding[];
  /** Set when the manifest is sound enough to plan. */
  context?: LintContext;
}

/**
 * `repository`: what the manifest's git repository holds (read by the caller, which may touch
 * files): its tracked files, and the snapshot of the declared code, planned into the definitions.
 * `parsed`: the text parsed already (parseManifest), by a caller that read the manifest before;
 * `taskDefinitions: false`: the plan is made without its tasks' definitions (defineTasks).
 */
export function lintText(
  file: string,
  text: string,
  rules: readonly Rule[] = RULES,
  repository?: RepositoryFacts,
  { parsed, ...options }: { parsed?: LoadedManifest } & PlanOptions = {},
): LintResult {
  let loaded: LoadedManifest;
  try {
    loaded = parsed ?? parseManifest(file, text);
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    const findings = e.problems.map((p): Finding => ({
      rule: 'schema',
      severity: 'error',
      message: p.message,
      position: p.position ?? { file, line: 1, column: 1 },
      ...(p.fix ? { fix: p.fix } : {}),
    }));
    return { findings: sortFindings(findings) };
  }
  let tasks: Map<string, TaskSpec[]> | undefined;
  let plan: Plan | undefined;
  const ctx: LintContext = {
    ...loaded,
    ...(repository === undefined ? {} : { repository }),
    get tasks() {
      tasks ??= new Map(loaded.manifest.phases.map((p) => [p.name, expandPhase(loaded.manifest, p)]));
      return tasks;
    },
    get plan() {
      plan ??= planCampaign(loaded.manifest, this.tasks, undefined, repository?.code, options);
      return plan;
    },
  };
  const findings: Finding[] = [];
  for (const stage of ['manifest', 'tasks', 'plan'] as const) {
    if (stage !== 'manifest' && findings.some((f) => f.severity === 'error')) break;
    for (const rule of rules.filter((r) => r.needs === stage)) {
      for (const f of rule.check(ctx)) findings.push({ rule: rule.id, ...f, severity: f.severity ?? rule.severity });
    }
  }
  const sound = !findings.some((f) => f.severity === 'error');
  return { findings: sortFindings(findings), ...(sound ? { context: ctx } : {}) };
}

function sortFindings(findings: Finding[]): Finding[] {
  return findings.sort((a, b) => a.position.line - b.position.line || a.position.column - b.position.column);
}

export function formatFinding(f: Finding): string {
  const p = f.position;
  return `${p.file}:${p.line}:${p.column}: ${f.severity} ${f.rule}: ${f.message}${f.fix ? ` (fix: ${f.fix})` : ''}`;
}
