/** `campaign workflow FILE`: the GitHub Actions workflows of a manifest. */
import { flag, oneOf, valued, type Command } from '../command.js';
import { writeWorkflows } from '../write-workflows.js';

export const command: Command = {
  synopsis: 'workflow FILE',
  help: `write the GitHub Actions workflows for a manifest: .github/workflows/campaign-NAME.yml, and
campaign-NAME-resume.yml beside it, the scheduled resume of what parked (on only while something is)
--uses OWNER/REPO@REF   --branch NAME   --budget DURATION   --environment NAME
--runs-on LABEL   --handover dispatch|none   --stdout`,
  options: {
    uses: valued('OWNER/REPO@REF'),
    branch: valued('NAME'),
    budget: valued('DURATION'),
    environment: valued('NAME'),
    'runs-on': valued('LABEL'),
    handover: oneOf('dispatch', 'none'),
    stdout: flag,
  },
  examples: [
    'campaign workflow campaigns/sweep.yml',
    'campaign workflow campaigns/sweep.yml --budget 5h --environment approve --stdout',
  ],
  run: writeWorkflows,
};
