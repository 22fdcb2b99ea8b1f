/** The code a task runs (DESIGN rule 11) on the local executor: test/helpers/code-scenarios.ts. */
import { useBuiltCliAndTemp } from '../helpers/cli.js';
import { codeScenarios } from '../helpers/code-scenarios.js';

const root = useBuiltCliAndTemp('code');

codeScenarios('the code a task runs, on this machine', {
  root,
  gc: 'removes',
  head: (campaign, workdir) =>
    `campaign: ${campaign}\ncluster: { executor: local, name: here, max_parallel: 4 }\nworkdir: ${workdir}\n`,
  campaign: (label) => `coded-${label}`,
  poll: '0.2',
  timeoutMs: 90_000,
});
