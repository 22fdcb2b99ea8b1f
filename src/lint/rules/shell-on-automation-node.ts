import { restriction } from '../../manifest/schema.js';
import type { Rule, RuleFinding } from '../rule.js';

/**
 * A checklist command runs in a shell on the login node; an automation node's forced command
 * runs no shell, so the gate could never pass there. Said before the smoke stage spends its time.
 */
export const shellOnAutomationNode: Rule = {
  id: 'shell-on-automation-node',
  severity: 'error',
  description: 'a `check: command` item on a restricted (automation node) cluster, which runs no shell',
  needs: 'manifest',
  check({ manifest, source }) {
    if (!restriction(manifest.cluster)) return [];
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) =>
      phase.smoke?.trigger?.forEach((item, j) => {
        if (item.check !== 'command') return;
        findings.push({
          message: `phase ${phase.name}: a command check needs a shell on the login node, and cluster.restricted says it is an automation node, which runs none`,
          position: source.at(['phases', i, 'smoke', 'trigger', j, 'check']),
          fix: 'check the outputs with output_exists, records or log_contains items, or run the check in the task itself',
        });
      }),
    );
    return findings;
  },
};
