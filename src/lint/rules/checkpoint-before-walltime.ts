import { formatDuration, parseDuration } from '../../manifest/units.js';
import type { Rule, RuleFinding } from '../rule.js';

/**
 * A checkpoint signal sent `before` the end of a walltime no longer than that comes at once:
 * the command is told to save before it has done anything worth saving.
 */
export const checkpointBeforeWalltime: Rule = {
  id: 'checkpoint-before-walltime',
  severity: 'warning',
  description: "a checkpoint's `before` not shorter than the phase's walltime",
  needs: 'plan',
  check({ manifest, plan, source }) {
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      if (!phase.checkpoint) return;
      const before = parseDuration(phase.checkpoint.before)!;
      // The full stage's: a smoke task is short by design, and signalled early does no harm.
      const arrays = (plan.phases.find((p) => p.name === phase.name)?.arrays ?? []).filter((a) => a.stage === 'full');
      const shortest = Math.min(...arrays.map((a) => a.budget.seconds));
      if (arrays.length === 0 || before < shortest) return;
      findings.push({
        message: `phase "${phase.name}" asks its checkpoint signal ${formatDuration(before)} before the end of a walltime of ${formatDuration(shortest)}: it comes as the task starts`,
        position: source.at(['phases', i, 'checkpoint', 'before']),
        fix: `make checkpoint.before shorter than the walltime (a few minutes, what the command needs to write its checkpoint)`,
      });
    });
    return findings;
  },
};
