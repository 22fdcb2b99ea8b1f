import { hasNestedQuantifier } from '../../manifest/pattern.js';
import type { Path } from '../../manifest/source.js';
import type { Rule, RuleFinding } from '../rule.js';

/**
 * Campaign matches patterns in linear time, so `(a+)+` cannot stall it; the same pattern in
 * Python's `re`, `grep -P` or a dashboard that reads the same logs backtracks exponentially on
 * a line that almost matches, and patterns are copied between them.
 */
export const patternNestedQuantifier: Rule = {
  id: 'pattern-nested-quantifier',
  severity: 'warning',
  description: 'a pattern with a quantified group inside a quantified group, e.g. (a+)+',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    const check = (pattern: string | undefined, path: Path): void => {
      if (pattern === undefined || !hasNestedQuantifier(pattern)) return;
      findings.push({
        message: `/${pattern}/ repeats a group that repeats itself: harmless here (campaign matches in linear time), but it backtracks exponentially in Python's re or grep -P`,
        position: source.at(path),
        fix: 'repeat the inner part only once, e.g. (a+)+ as a+',
      });
    };
    if (manifest.cluster.executor === 'ssh-gpu')
      manifest.cluster.oom?.patterns?.forEach((p, j) => check(p, ['cluster', 'oom', 'patterns', j]));
    manifest.phases.forEach((phase, i) => {
      check(phase.cost?.progress?.log, ['phases', i, 'cost', 'progress', 'log']);
      phase.smoke?.trigger?.forEach((trigger, j) => {
        if (trigger.check === 'log_contains') check(trigger.pattern, ['phases', i, 'smoke', 'trigger', j, 'pattern']);
      });
    });
    return findings;
  },
};
