// Packing short tasks (issue 37) on the test cluster: the floor (bench/load.d/floor: one sbatch
// array of one task per element, one sacct every 5 s) against campaign at `pack: 10` and at
// `pack: auto`, each at its default pacing (no --poll), on grids of short `sleep` tasks that
// each append their index to their own output. For each run: wall time, the RPCs slurmctld
// (sdiag, reset before the run) and slurmdbd (sacctmgr show stats, cleared before the run)
// served, the array elements (jobs) the run sent, and whether every output was written exactly
// once; then each packed run against the floor (the issue's goals: wall at most 0.5x, RPCs
// at most 0.3x).
// Run with `bench/pack` (it starts the cluster and sshd and builds first). It resets the
// scheduler's statistics before each run: run it alone on the cluster.
// Knobs: CASES=200x0.5,1000x1 (tasks x seconds), TOOLS=floor,pack10,auto, MIN_JOB=10s (the
// cluster.min_job that sizes `pack: auto`: the default 10 minutes would put a whole grid of
// short tasks in one element, which a 16-CPU test node runs one task at a time), OUT=file for
// the JSON, RUN_TIMEOUT=s per run, KEEP=1 keeps each run's folder (its log, and campaign's state).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clusterHead, shellLogin, slurmEnv } from './test-servers.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const CASES = (process.env.CASES ?? '200x0.5,1000x1').split(',').map((c) => {
  const [n, s] = c.split('x');
  if (!/^\d+$/.test(n ?? '') || !/^\d+(\.\d+)?$/.test(s ?? '')) throw new Error(`CASES: not TASKSxSECONDS: ${c}`);
  return { n: Number(n), seconds: s };
});
const TOOLS = (process.env.TOOLS ?? 'floor,pack10,auto').split(',');
for (const t of TOOLS) if (!['floor', 'pack10', 'auto'].includes(t)) throw new Error(`TOOLS: unknown tool ${t}`);
const MIN_JOB = process.env.MIN_JOB ?? '10s';
/** The floor's sacct interval (bench/load's). */
const FLOOR_POLL = 5;

const slurm = (cmd, args, env = {}) => execFileSync(cmd, args, { encoding: 'utf8', env: { ...slurmEnv, ...env } });

/** The sum of the RPC counts by message type in sdiag's or sacctmgr's statistics. */
function rpcCount(text) {
  const section = text.split('Remote Procedure Call statistics by message type')[1]?.split('by user')[0] ?? '';
  let total = 0;
  for (const m of section.matchAll(/count:\s*(\d+)/g)) total += Number(m[1]);
  return total;
}
const ctld = () => rpcCount(slurm('sdiag', []));
const dbd = () => rpcCount(slurm('sacctmgr', ['show', 'stats']));
// Each reading costs RPCs of its own that the next reading sees (bench/load's figures).
const CTLD_PER_READ = 1;
const DBD_PER_READ = 4;

const root = mkdtempSync(join(tmpdir(), 'campaign-pack-bench-'));
/** The run in progress, to stop on the harness's own exit: its process group and its jobs' names. */
let current;
function cancelJobs(match) {
  const ids = slurm('squeue', ['-h', '-o', '%i|%j'])
    .split('\n')
    .filter((l) => l && match(l.split('|')[1]))
    .map((l) => l.split('|')[0].split('_')[0]);
  if (ids.length > 0) slurm('scancel', [...new Set(ids)]);
}
process.on('exit', () => {
  if (!current) return;
  try {
    process.kill(-current.child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
  cancelJobs(current.match);
});
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => process.exit(130));

/** Runs a command in a process group of its own to its exit (or its timeout), its output to `log`. */
function runLogged(cmd, args, env, log, match, timeoutS) {
  return new Promise((resolve) => {
    const out = [];
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    current = { child, match };
    const timer = setTimeout(() => {
      out.push(Buffer.from(`\nbench/pack: stopped after ${timeoutS} s\n`));
      process.kill(-child.pid, 'SIGTERM');
    }, timeoutS * 1000);
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      current = undefined;
      writeFileSync(log, Buffer.concat(out));
      resolve(code ?? signal);
    });
  });
}

/** This run's jobs and array elements as accounting knows them. */
function elementsOf(match, since) {
  const out = slurm(
    'sacct',
    [
      '-X',
      '-n',
      '-P',
      '-a',
      '-S',
      `now-${Math.ceil((Date.now() / 1000 - since) / 60) + 2}minutes`,
      '-o',
      'JobID,JobName,Submit',
    ],
    {
      SLURM_TIME_FORMAT: '%s',
    },
  );
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('|'))
    .filter(([, name, submit]) => match(name) && Number(submit) >= since - 1).length;
}

/** How many of the n outputs hold their index once and nothing else. */
function writtenOnce(work, n) {
  let once = 0;
  for (let i = 0; i < n; i++) {
    const f = join(work, 'out', `${i}.txt`);
    if (existsSync(f) && readFileSync(f, 'utf8') === `${i}\n`) once++;
  }
  return once;
}

async function runOnce(tool, { n, seconds }) {
  const id = `pk${tool.replace(/\W/g, '')}-${Date.now().toString(36)}`;
  const dir = join(root, id);
  const work = join(dir, 'work');
  mkdirSync(join(work, 'out'), { recursive: true });
  const log = join(dir, 'run.log');
  const timeoutS = Number(process.env.RUN_TIMEOUT ?? 300 + 2 * n * Number(seconds));
  let match;
  let launch;
  if (tool === 'floor') {
    const name = `${id}-floor`;
    match = (j) => j === name;
    launch = () =>
      runLogged(
        join(here, 'load.d', 'floor'),
        [String(n), work, String(FLOOR_POLL), name, seconds],
        slurmEnv,
        log,
        match,
        timeoutS,
      );
  } else {
    const manifest = join(dir, 'pack.yml');
    const head = clusterHead(id, work, n, shellLogin).replace(
      '  max_parallel:',
      `  min_job: ${MIN_JOB}\n  max_parallel:`,
    );
    writeFileSync(
      manifest,
      `${head}phases:
  - name: sweep
    grid: { i: [${Array.from({ length: n }, (_, i) => i).join(', ')}] }
    command: sleep ${seconds}; echo \${i} >> \${output}
    output: out/\${i}.txt
    cost: { unit: step, units: 1, per_unit: ${seconds}s, measured_on: campaign-test }
    pack: ${tool === 'auto' ? 'auto' : 10}
`,
    );
    match = (name) => name.startsWith(`${id}~`);
    launch = () =>
      runLogged(
        process.execPath,
        ['bin/campaign.js', 'run', manifest, '--state-dir', join(dir, 'state')],
        { ...process.env, CAMPAIGN_SSH_KEY_FILE: shellLogin.keyFile },
        log,
        match,
        timeoutS,
      );
  }
  const others = slurm('squeue', ['-h', '-o', '%j'])
    .split('\n')
    .filter((l) => l && !match(l)).length;
  slurm('sdiag', ['--reset']);
  slurm('sacctmgr', ['-i', 'clear', 'stats']);
  const c0 = ctld();
  const d0 = dbd();
  const t0 = Date.now();
  const code = await launch();
  const t1 = Date.now();
  const ctldRpcs = ctld() - c0 - CTLD_PER_READ;
  const dbdRpcs = dbd() - d0 - DBD_PER_READ;
  if (code !== 0) cancelJobs(match);
  // slurmctld forwards job records to slurmdbd in batches: let them land before the next reset.
  await new Promise((res) => setTimeout(res, 5000));
  const r = {
    tool,
    tasks: n,
    seconds: Number(seconds),
    exit: code,
    wall: (t1 - t0) / 1000,
    ctld: ctldRpcs,
    dbd: dbdRpcs,
    rpcs: ctldRpcs + dbdRpcs,
    elements: elementsOf(match, Math.floor(t0 / 1000)),
    once: writtenOnce(work, n),
    outputs: readdirSync(join(work, 'out')).length,
    otherJobs: others,
  };
  if (others > 0) console.log(`  ! ${others} other job(s) in the queue: their RPCs count in this run's`);
  if (code !== 0 || r.once !== n) {
    console.log(`  ! ${tool} N=${n}: exit ${code}, ${r.once}/${n} outputs written once; log ${log}`);
    console.log(readFileSync(log, 'utf8').split('\n').slice(-15).join('\n'));
  } else if (process.env.KEEP !== '1') rmSync(dir, { recursive: true, force: true });
  else console.log(`  kept ${dir}`);
  return r;
}

const pad = (s, w) => String(s).padStart(w);
const runs = [];
console.log(
  `min_job ${MIN_JOB} for pack: auto; the floor polls sacct every ${FLOOR_POLL} s; campaign at its default pacing`,
);
console.log(
  `${pad('case', 10)} ${pad('tool', 7)} ${pad('wall', 8)} ${pad('ctld', 6)} ${pad('dbd', 6)} ${pad('rpcs', 6)} ${pad('jobs', 5)} ${pad('once', 10)} ${pad('wall×', 6)} ${pad('rpcs×', 6)}`,
);
for (const c of CASES) {
  let floor;
  for (const tool of TOOLS) {
    const r = await runOnce(tool, c);
    runs.push(r);
    if (tool === 'floor') floor = r;
    const x = (a, b) => (b ? (a / b).toFixed(2) : '-');
    console.log(
      `${pad(`${c.n}x${c.seconds}s`, 10)} ${pad(tool, 7)} ${pad(`${r.wall.toFixed(1)} s`, 8)} ${pad(r.ctld, 6)} ${pad(r.dbd, 6)} ${pad(r.rpcs, 6)} ${pad(r.elements, 5)} ${pad(`${r.once}/${r.tasks}`, 10)} ${pad(tool === 'floor' ? '' : x(r.wall, floor?.wall), 6)} ${pad(tool === 'floor' ? '' : x(r.rpcs, floor?.rpcs), 6)}`,
    );
  }
}
if (process.env.OUT) writeFileSync(process.env.OUT, JSON.stringify(runs, null, 2));
if (process.env.KEEP !== '1') rmSync(root, { recursive: true, force: true });
