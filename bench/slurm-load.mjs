// Scheduler load of one campaign on the test cluster: a 1,000-task array (smoke stage, then
// the full arrays) driven to completion over SSH. Prints, per pass and in all, the commands
// sent over SSH and slurmctld's RPCs (sdiag, reset before the run).
// Run with `bench/slurm-load` (it starts the cluster and sshd, and builds first).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CampaignController } from '../lib/exec/controller.js';
import { SlurmExecutor } from '../lib/exec/slurm/slurm-executor.js';
import { FileStateStore } from '../lib/exec/store/file-store.js';
import { SshTransport } from '../lib/exec/transport/ssh.js';
import { parseManifest } from '../lib/manifest/load.js';
import { planCampaign } from '../lib/plan/plan.js';
import { emptyState } from '../lib/state/state.js';
import { clusterHead, slurmEnv, sshd } from './test-servers.mjs';

const TASKS = Number(process.env.TASKS ?? 1000);
const MAX_PARALLEL = Number(process.env.MAX_PARALLEL ?? 50);

/** slurmctld's total RPC count by message type, from sdiag. */
function rpcs() {
  const out = execFileSync('sdiag', [], { encoding: 'utf8', env: slurmEnv });
  const section =
    out
      .split('Remote Procedure Call statistics by message type')[1]
      ?.split('Remote Procedure Call statistics by user')[0] ?? '';
  let total = 0;
  for (const m of section.matchAll(/count:(\d+)/g)) total += Number(m[1]);
  return total;
}

const root = mkdtempSync(join(tmpdir(), 'campaign-bench-'));
const name = `bench-${Date.now().toString(36)}`;
const text = `${clusterHead(name, root, MAX_PARALLEL)}phases:
  - name: sweep
    grid: { i: [${Array.from({ length: TASKS }, (_, i) => i).join(', ')}] }
    command: echo \${i} > \${output}
    output: out/\${i}.txt
    walltime: 5m
    smoke:
      tasks: 2
      trigger: [{ check: distinct_outputs }]
`;
const { manifest } = parseManifest('bench.yml', text);
const transport = new SshTransport({
  target: sshd.CAMPAIGN_SSH_TARGET,
  hostKeyFingerprint: sshd.CAMPAIGN_SSH_FINGERPRINT,
  keyFile: sshd.CAMPAIGN_SSH_KEY_FILE,
});
let state = emptyState(manifest.campaign, new Date().toISOString());
const executor = new SlurmExecutor({ manifest, transport, since: state.created });
const limits = await executor.limits();
const plan = planCampaign(manifest, undefined, limits.maxArraySize);
const store = new FileStateStore(join(root, 'state'));
const controller = new CampaignController({ manifest, plan, executor, store });

execFileSync('sdiag', ['-r'], { env: slurmEnv });
const rpc0 = rpcs();
const start = Date.now();
const passes = [];
for (;;) {
  const c0 = transport.commandsSent;
  const r0 = rpcs();
  const r = await controller.pass(state);
  state = r.state;
  passes.push({ commands: transport.commandsSent - c0, rpcs: rpcs() - r0 - 1 });
  if (r.atRest) break;
  await new Promise((res) => setTimeout(res, 2000));
}
const wall = (Date.now() - start) / 1000;
const completed = Object.values(state.tasks).filter((t) => t.status === 'completed').length;
const total = rpcs() - rpc0 - passes.length - 1;
await executor.close();
rmSync(root, { recursive: true, force: true });

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => sorted(xs)[Math.floor(xs.length / 2)];
const cmds = passes.map((p) => p.commands);
const perPass = passes.map((p) => p.rpcs);
console.log(`tasks                      ${TASKS} (+2 smoke), ${completed} completed`);
console.log(`passes                     ${passes.length}, wall ${wall.toFixed(0)} s`);
console.log(
  `ssh commands per pass      median ${median(cmds)}, max ${Math.max(...cmds)}, total ${cmds.reduce((a, b) => a + b, 0)}`,
);
console.log(`slurmctld RPCs per pass    median ${median(perPass)}, max ${Math.max(...perPass)}`);
console.log(`slurmctld RPCs in all      ${total} (sdiag, less the bench's own sdiag calls)`);
console.log(`arrays (one sbatch each)   ${plan.phases[0].arrays.length}`);
