import { localOutputsLost as lost, type WorkflowOptions } from '../../workflow/render.js';
import type { WorkflowRule } from '../rule.js';

/**
 * What `campaign workflow` now refuses, said of a generated workflow committed before it did:
 * a local-executor campaign whose jobs cannot hand their outputs to the next one never finishes.
 */
export const localOutputsLost: WorkflowRule = {
  id: 'local-outputs-lost',
  severity: 'error',
  description:
    'a local-executor campaign whose committed workflow runs on a GitHub-hosted runner, or keeps its workdir in the checkout, so each job loses the outputs of the one before it',
  check({ plan, source }, workflow: WorkflowOptions) {
    const found = lost(plan, workflow.runsOn);
    if (!found) return [];
    return [
      {
        message: found.message,
        position: source.at(found.at === 'cluster' ? ['cluster', 'executor'] : ['workdir']),
        fix: found.fix,
      },
    ];
  },
};
