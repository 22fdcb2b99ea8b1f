/** What a lint rule is and what it reports. */
import type { Position } from '../errors.js';
import type { TaskSpec } from '../manifest/expand.js';
import type { LoadedManifest } from '../manifest/load.js';
import type { CodeFacts } from '../plan/code.js';
import type { Plan } from '../plan/plan.js';
import type { WorkflowOptions } from '../workflow/render.js';

export type Severity = 'error' | 'warning';

export interface Finding {
  rule: string;
  severity: Severity;
  message: string;
  position: Position;
  fix?: string;
}

/** What a rule reports; the runner adds the rule id and severity. */
export type RuleFinding = Omit<Finding, 'rule' | 'severity'> & { severity?: Severity };

/** What the manifest's git repository holds, as its caller read it. */
export interface RepositoryFacts {
  /** The repository's tracked files, relative to its root. */
  tracked: ReadonlySet<string>;
  /** The snapshot of the manifest's declared code; absent where it declares none. */
  code?: CodeFacts;
}

export interface LintContext extends LoadedManifest {
  /** Absent where the manifest is not in a git repository, or its caller read none (a text alone). */
  readonly repository?: RepositoryFacts;
  /** Tasks per phase name (full stage). Only for rules with `needs: 'tasks'` or `'plan'`. */
  readonly tasks: ReadonlyMap<string, TaskSpec[]>;
  /** Only for rules with `needs: 'plan'`. */
  readonly plan: Plan;
}

export interface Rule {
  id: string;
  severity: Severity;
  /** What the rule guards against, for `campaign lint --rules`. */
  description: string;
  /**
   * What the rule reads: rules on the raw manifest run first; rules on expanded tasks or
   * the plan run only when no earlier rule found an error (expansion needs a sound grid).
   */
  needs: 'manifest' | 'tasks' | 'plan';
  check(ctx: LintContext): RuleFinding[];
}

/**
 * A rule on a sound manifest and the options of its committed generated workflow: lint over
 * files (src/app/workflow-file.ts) runs these where the manifest has one, before its staleness.
 */
export interface WorkflowRule extends Omit<Rule, 'needs' | 'check'> {
  check(ctx: LintContext, workflow: WorkflowOptions): RuleFinding[];
}
