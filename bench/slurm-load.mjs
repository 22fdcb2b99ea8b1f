// Scheduler load of one campaign on the test cluster: an N-task array (smoke stage, then the
// full arrays) driven to completion over SSH. MODE=normal (the default, 1,000 tasks) drives it
// through the login node with a shell; MODE=restricted through the automation node with
// `cluster.restricted` (plain commands and SFTP, no sacct); MODE=both runs the same grid
// (200 tasks) normal then restricted, one after the other. For each run it prints the commands
// sent over SSH and slurmctld's RPCs per pass (sdiag, reset before the run), then one table of
// the runs: wall time, passes, SSH commands, SFTP operations, the RPCs slurmctld (sdiag) and
// slurmdbd (sacctmgr show stats, cleared before the run) served, in all and per task, and
// their message types. TASKS=n and MAX_PARALLEL=n change the grid.
// Run with `bench/slurm-load` (it starts the cluster, sshd and, unless MODE=normal, the
// automation node, and builds first). It resets the scheduler's statistics before each run:
// run it alone on the cluster.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CampaignController } from '../lib/exec/controller.js';
import { SlurmExecutor } from '../lib/exec/slurm/slurm-executor.js';
import { FileStateStore } from '../lib/exec/store/file-store.js';
import { SshTransport } from '../lib/exec/transport/ssh.js';
import { parseManifest } from '../lib/manifest/load.js';
import { planCampaign } from '../lib/plan/plan.js';
import { emptyState } from '../lib/state/state.js';
import { automationLogin, clusterHead, shellLogin, slurmEnv } from './test-servers.mjs';

const MODE = process.env.MODE ?? 'normal';
const MODES = { normal: ['normal'], restricted: ['restricted'], both: ['normal', 'restricted'] }[MODE];
if (!MODES) throw new Error(`MODE=${MODE}: normal, restricted or both`);
const TASKS = Number(process.env.TASKS ?? (MODE === 'both' ? 200 : 1000));
const MAX_PARALLEL = Number(process.env.MAX_PARALLEL ?? 50);
// bench/slurm-load starts the automation node there (its own, so that its log is this bench's).
const AUTOMATION_DIR = process.env.CAMPAIGN_AUTOMATION_DIR ?? '/tmp/campaign-automation-bench';
const PAUSE_MS = 2000;
// slurmctld hands job records to slurmdbd in batches, and a node's last messages of a job
// (its epilog's) may come after the queue shows it ended: both counted after this wait.
const SETTLE_MS = 5000;
const TOP_TYPES = 8;

const slurm = (cmd, args) => execFileSync(cmd, args, { encoding: 'utf8', env: slurmEnv });

/** The RPC counts by message type of sdiag's or sacctmgr's statistics, and when they began. */
function readStats(text) {
  const section = text.split('Remote Procedure Call statistics by message type')[1]?.split('by user')[0] ?? '';
  const byType = new Map();
  for (const m of section.matchAll(/^\s*(\w+)\s+\(\s*\d+\)\s+count:\s*(\d+)/gm)) byType.set(m[1], Number(m[2]));
  return { byType, since: /^Data since\s+.*\((\d+)\)/m.exec(text)?.[1] };
}
// Each reading costs RPCs of its own that the next one sees: sdiag REQUEST_STATS_INFO, which
// campaign never sends (left out whole); sacctmgr SLURM_PERSIST_INIT, DBD_GET_STATS and
// DBD_FINI twice, as sacct's own connection also opens and closes (left out once per reading).
const ctldStats = () => {
  const s = readStats(slurm('sdiag', []));
  s.byType.delete('REQUEST_STATS_INFO');
  return s;
};
const dbdStats = () => readStats(slurm('sacctmgr', ['show', 'stats']));
const DBD_READING = { SLURM_PERSIST_INIT: 1, DBD_GET_STATS: 1, DBD_FINI: 2 };

/** What `after` counts above `before`, by type, less `less` (one reading's own cost). */
function delta(before, after, less = {}) {
  const d = new Map();
  for (const [type, n] of after.byType) {
    const v = n - (before.byType.get(type) ?? 0) - (less[type] ?? 0);
    if (v > 0) d.set(type, v);
  }
  return d;
}
const sum = (m) => [...m.values()].reduce((a, b) => a + b, 0);

/** Jobs in the queue that are not this run's: their RPCs would count in its figures. */
const othersInQueue = (name) =>
  slurm('squeue', ['-h', '-o', '%j'])
    .split('\n')
    .filter((j) => j && !j.startsWith(`${name}~`)).length;

/** The gate's log lines since `from` (bytes), split into their tab-separated fields. */
const gateLines = (log, from) =>
  readFileSync(log)
    .subarray(from)
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t'));

/** One run of the grid to its end in one mode: what it cost the scheduler. */
async function bench(mode) {
  const login = mode === 'restricted' ? automationLogin(AUTOMATION_DIR) : shellLogin;
  const root = mkdtempSync(join(tmpdir(), 'campaign-bench-'));
  const name = `bench-${mode}-${Date.now().toString(36)}`;
  const text = `${clusterHead(name, root, MAX_PARALLEL, login)}phases:
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
    target: login.target,
    hostKeyFingerprint: login.fingerprint,
    keyFile: login.keyFile,
  });
  // SFTP operations are not commands: counted here, by wrapping the transport's file methods.
  let sftp = 0;
  for (const op of ['writeFile', 'readFile', 'stat', 'realpath', 'mkdirp']) {
    const real = transport[op].bind(transport);
    transport[op] = (...args) => {
      sftp++;
      return real(...args);
    };
  }
  let state = emptyState(manifest.campaign, new Date().toISOString());
  const executor = new SlurmExecutor({ manifest, transport, since: state.created });
  const limits = await executor.limits();
  const plan = planCampaign(manifest, undefined, limits.maxArraySize);
  const store = new FileStateStore(join(root, 'state'));
  const controller = new CampaignController({ manifest, plan, executor, store });

  const others = othersInQueue(name);
  const gateFrom = login.log ? statSync(login.log).size : 0;
  slurm('sdiag', ['-r']);
  slurm('sacctmgr', ['-i', 'clear', 'stats']);
  const ctld0 = ctldStats();
  const dbd0 = dbdStats();
  const commands0 = transport.commandsSent;
  const sftp0 = sftp;
  const start = Date.now();
  const passes = [];
  for (;;) {
    const c0 = transport.commandsSent;
    const r0 = sum(ctldStats().byType);
    const r = await controller.pass(state);
    state = r.state;
    passes.push({ commands: transport.commandsSent - c0, rpcs: sum(ctldStats().byType) - r0 });
    if (r.atRest) break;
    await new Promise((res) => setTimeout(res, PAUSE_MS));
  }
  const wall = (Date.now() - start) / 1000;
  const commands = transport.commandsSent - commands0;
  const sftpOps = sftp - sftp0;
  await new Promise((res) => setTimeout(res, SETTLE_MS));
  const ctld1 = ctldStats();
  const dbd1 = dbdStats();
  const othersAfter = othersInQueue(name);
  await executor.close();
  rmSync(root, { recursive: true, force: true });

  const tasks = Object.values(state.tasks);
  const gate = login.log ? gateLines(login.log, gateFrom) : [];
  return {
    mode,
    tasks: tasks.length,
    completed: tasks.filter((t) => t.status === 'completed').length,
    arrays: plan.phases.reduce((n, p) => n + p.arrays.length, 0),
    wall,
    passes,
    commands,
    sftpOps,
    ctld: delta(ctld0, ctld1),
    dbd: delta(dbd0, dbd1, DBD_READING),
    // Someone else's reset in the middle of the run would make its figures too small.
    reset: ctld1.since !== ctld0.since || dbd1.since !== dbd0.since,
    others: Math.max(others, othersAfter),
    gateRun: gate.filter((f) => f[1] === 'run').length,
    gateRefused: gate.filter((f) => f[1] === 'refused').map((f) => f.slice(3).join(' ')),
  };
}

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => sorted(xs)[Math.floor(xs.length / 2)];

const runs = [];
for (const mode of MODES) {
  const r = await bench(mode);
  runs.push(r);
  const cmds = r.passes.map((p) => p.commands);
  const perPass = r.passes.map((p) => p.rpcs);
  console.log(`${mode}:`);
  console.log(`  tasks                      ${r.tasks} (${TASKS} and 2 smoke), ${r.completed} completed`);
  console.log(`  passes                     ${r.passes.length}, wall ${r.wall.toFixed(0)} s`);
  console.log(`  ssh commands per pass      median ${median(cmds)}, max ${Math.max(...cmds)}, total ${r.commands}`);
  console.log(`  slurmctld RPCs per pass    median ${median(perPass)}, max ${Math.max(...perPass)}`);
  console.log(`  slurmctld RPCs in all      ${sum(r.ctld)} (sdiag, less the bench's own sdiag calls)`);
  console.log(`  arrays (one sbatch each)   ${r.arrays}`);
  if (mode === 'restricted')
    console.log(`  automation node's log      ${r.gateRun} sessions run, ${r.gateRefused.length} refused`);
  for (const c of r.gateRefused) console.log(`  ! refused: ${c}`);
  if (r.others > 0) console.log(`  ! ${r.others} other job(s) in the queue: their RPCs count in this run's`);
  if (r.reset)
    console.log('  ! the statistics were reset by someone else during the run: its RPC figures are too small');
}

const pad = (s, n) => String(s).padStart(n);
const perTask = (n, r) => (n / r.tasks).toFixed(2);
const columns = [
  ['mode', 10, (r) => r.mode],
  ['wall', 7, (r) => `${r.wall.toFixed(0)} s`],
  ['passes', 6, (r) => r.passes.length],
  ['ssh cmds', 8, (r) => r.commands],
  ['sftp ops', 8, (r) => r.sftpOps],
  ['ctld RPCs', 9, (r) => sum(r.ctld)],
  ['/task', 6, (r) => perTask(sum(r.ctld), r)],
  ['dbd RPCs', 8, (r) => sum(r.dbd)],
  ['/task', 6, (r) => perTask(sum(r.dbd), r)],
  ['sacct', 5, (r) => r.dbd.get('DBD_GET_JOBS_COND') ?? 0],
  ['done', 9, (r) => `${r.completed}/${r.tasks}`],
];
console.log();
console.log(columns.map(([h, w]) => pad(h, w)).join('  '));
for (const r of runs) console.log(columns.map(([, w, f]) => pad(f(r), w)).join('  '));

// The message types that count most in any run, with each run's count beside.
for (const [server, key] of [
  ['slurmctld', 'ctld'],
  ['slurmdbd', 'dbd'],
]) {
  const types = [
    ...new Set(
      runs.flatMap((r) =>
        [...r[key]]
          .sort((a, b) => b[1] - a[1])
          .slice(0, TOP_TYPES)
          .map(([t]) => t),
      ),
    ),
  ];
  console.log();
  console.log(`${server} RPCs by type`.padEnd(32) + runs.map((r) => pad(r.mode, 12)).join(''));
  for (const t of types) console.log(`  ${t}`.padEnd(32) + runs.map((r) => pad(r[key].get(t) ?? 0, 12)).join(''));
}
console.log();
console.log(
  'ctld: slurmctld (sdiag); dbd: slurmdbd (sacctmgr show stats; sacct: its job queries, DBD_GET_JOBS_COND); ' +
    `per task: of the ${runs[0].tasks} tasks; counted from the reset to ${SETTLE_MS / 1000} s after the last pass.`,
);
