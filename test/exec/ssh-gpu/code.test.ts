/**
 * The code a task runs (DESIGN rule 11) on ssh-gpu over real SSH to the test sshd and the
 * nvidia-smi stand-in: the scenarios of test/helpers/code-scenarios.ts, the snapshot shipped
 * once to the servers' shared workdir.
 */
import { join } from 'node:path';
import { beforeAll, beforeEach } from 'vitest';
import { useBuiltCliAndTemp } from '../../helpers/cli.js';
import { codeScenarios } from '../../helpers/code-scenarios.js';
import { cluster, fourGpus, sshdUp, StandIn, type Sshd } from './helpers.js';

const root = useBuiltCliAndTemp('ssh-gpu-code');
let sshd: Sshd | undefined;
let gpus: StandIn | undefined;

beforeAll(async () => {
  sshd = await sshdUp();
  // One stand-in for the file: its scenarios run one after another.
  if (sshd) gpus = await StandIn.install(join(root(), 'gpus'), fourGpus());
}, 180_000);

beforeEach((ctx) => {
  if (sshd) return;
  // sshdUp has said loudly why; in CI a missing sshd is a failure, not a skip.
  if (process.env.CI === 'true') throw new Error('CI=true and scripts/sshd/up could not start the test sshd');
  ctx.skip();
});

codeScenarios('the code a task runs, on GPU servers over SSH', {
  root,
  gc: 'removes',
  head: (campaign, workdir) => `campaign: ${campaign}\n${cluster(sshd!, gpus!)}workdir: ${workdir}\n`,
  campaign: (label) => `code-${label}`,
  env: () => ({ ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd!.keyFile }),
  poll: '0.3',
  timeoutMs: 90_000,
});
