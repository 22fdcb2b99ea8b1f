// The soak behind bench/soak. Each task's fate follows its index i (i mod 20): 0 fails once
// then succeeds, 1 always fails, 2 runs out of memory once, 3 outlives its walltime once, the
// rest succeed; meanwhile the node is set DOWN for a few seconds every FLAP_EVERY seconds.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cluster, clusterHead, slurmEnv, sshd } from './test-servers.mjs';

const TASKS = Number(process.env.TASKS ?? 1000);
const FLAP_EVERY = Number(process.env.FLAP_EVERY ?? 240);
const slurm = (cmd, args) => execFileSync(cmd, args, { encoding: 'utf8', env: slurmEnv });

const root = mkdtempSync(join(tmpdir(), 'campaign-soak-'));
const name = `soak-${Date.now().toString(36)}`;
const manifest = join(root, 'soak.yml');
writeFileSync(
  manifest,
  `${clusterHead(name, `${root}/work`, 40)}phases:
  - name: soak
    grid: { i: [${Array.from({ length: TASKS }, (_, i) => i).join(', ')}] }
    command: |
      case $(( \${i} % 20 )):\${attempt} in
        0:1) echo "failing once"; exit 3 ;;
        1:*) echo "failing always"; exit 4 ;;
        2:1) python3 -c "x = bytearray(400 * 1024 * 1024); print(len(x))" ;;
        3:1) sleep 600 ;;
      esac
      echo \${i} > \${output}
    output: out/\${i}.txt
    walltime: 1m
    retry:
      failed: { attempts: 2 }
      out_of_memory: { attempts: 2, mem_factor: 6 }
      timeout: { attempts: 2 }
      node_fail: { attempts: 3 }
    smoke:
      tasks: { i: [4, 5] }
      trigger: [{ check: all_completed }, { check: distinct_outputs }]
`,
);

const node = cluster.CAMPAIGN_CLUSTER_NODE;
let flaps = 0;
const flapper = setInterval(() => {
  slurm('scontrol', ['update', `nodename=${node}`, 'state=down', 'reason=soak-flap']);
  flaps++;
  setTimeout(() => slurm('scontrol', ['update', `nodename=${node}`, 'state=resume']), 5000);
}, FLAP_EVERY * 1000);

const start = Date.now();
const run = spawn(process.execPath, ['bin/campaign.js', 'run', manifest, '--poll', '5'], {
  env: { ...process.env, CAMPAIGN_SSH_KEY_FILE: sshd.CAMPAIGN_SSH_KEY_FILE },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const code = await new Promise((r) => run.on('close', r));
clearInterval(flapper);
await new Promise((r) => setTimeout(r, 6000));
const wall = (Date.now() - start) / 1000;

const state = JSON.parse(readFileSync(join(root, '.campaign', name, 'state.json'), 'utf8'));
const tasks = Object.entries(state.tasks);
const byStatus = {};
const byClass = {};
let attempts = 0;
for (const [, t] of tasks) {
  byStatus[t.status] = (byStatus[t.status] ?? 0) + 1;
  for (const a of t.attempts) {
    attempts++;
    byClass[a.class ?? 'none'] = (byClass[a.class ?? 'none'] ?? 0) + 1;
  }
}
const unexplained = tasks.filter(([, t]) => t.status !== 'completed' && !t.reason).map(([id]) => id);
const sacct = slurm('sacct', ['-X', '-n', '-P', '-S', 'now-1day', '-o', 'JobID,JobName'])
  .split('\n')
  .filter((l) => l.split('|')[1]?.startsWith(`${name}~`));
const perArrayTask = new Map();
for (const l of sacct) perArrayTask.set(l.split('|')[0], (perArrayTask.get(l.split('|')[0]) ?? 0) + 1);
const jobs = new Set(sacct.map((l) => l.split('|')[0].split('_')[0]));

const expectedStuck = Array.from({ length: TASKS }, (_, i) => i).filter((i) => i % 20 === 1).length;
console.log(`tasks                ${tasks.length} (${TASKS} + 2 smoke); exit ${code}; wall ${wall.toFixed(0)} s`);
console.log(`by status            ${JSON.stringify(byStatus)}`);
console.log(`attempts by class    ${JSON.stringify(byClass)} (${attempts} attempts)`);
console.log(`node flaps           ${flaps}`);
console.log(`sbatch jobs          ${jobs.size}; array tasks in sacct ${perArrayTask.size}`);
const checks = [
  ['every task completed or stuck with a reason', unexplained.length === 0],
  ['stuck = the always-failing share', (byStatus.failed ?? 0) === expectedStuck],
  ['counts add up', (byStatus.completed ?? 0) + (byStatus.failed ?? 0) === tasks.length],
  [
    'one array task per attempt, none twice',
    perArrayTask.size === attempts && [...perArrayTask.values()].every((n) => n === 1),
  ],
];
for (const [what, ok] of checks) console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
process.exit(checks.every(([, ok]) => ok) ? 0 : 1);
