// Scheduler load and wall time of one grid (N tasks of `sleep 2`, each writing one output) run
// to completion three ways on the test cluster: campaign over SSH, Snakemake 7's --slurm
// executor, and the floor (bench/load.d/floor: one sbatch array, one sacct every 5 s).
// For each run: wall time, slurmctld RPCs (sdiag), slurmdbd RPCs (sacctmgr show stats), the
// Slurm commands run (counted by wrappers first on the PATH), and how long after its last
// task ended the run exited. Then a summary per size and the raw figures as JSON.
// Run with `bench/load` (it starts the cluster and sshd, installs Snakemake, and builds first).
// Knobs: SIZES=40,400 REPEAT=2 TOOLS=campaign,snakemake,floor (and campaign-default: campaign
// with no cost model and its default pacing, as a user runs it first, and campaign-restricted:
// the same through the automation node of scripts/automation-node/up, `cluster.restricted`,
// whose commands are counted from the node's log); SMOKE=1 adds a run of
// campaign with a smoke stage; SNAKEMAKE_DEFAULT=1 adds Snakemake at its default status throttle (slow);
// KEEP=1 keeps each run's log and counted calls; OUT=file for the JSON; RUN_TIMEOUT=s per run;
// NICE=-50000 puts the runs' jobs ahead of others' (only to develop while the queue is busy).
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { automationLogin, clusterHead, shellLogin, slurmEnv } from './test-servers.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const SIZES = (process.env.SIZES ?? '40,400').split(',').map(Number);
const REPEAT = Number(process.env.REPEAT ?? 2);
const TOOLS = (process.env.TOOLS ?? 'campaign,snakemake,floor').split(',');
const SMOKE = process.env.SMOKE === '1';
const SNAKEMAKE_DEFAULT = process.env.SNAKEMAKE_DEFAULT === '1';
const NICE = process.env.NICE;
const POLL = 5;
// The wrappers live in the sshd's hooks folder only while campaign runs; fault tests use it too.
const HOOKS = '/tmp/campaign-sshd/hooks';
const MARK = '# bench/load counting wrapper';
const COUNTED = ['sbatch', 'sacct', 'squeue', 'scontrol', 'srun', 'scancel', 'sinfo', 'sacctmgr'];
// bench/load starts the automation node there for campaign-restricted (as bench/slurm-load does).
const AUTOMATION_DIR = process.env.CAMPAIGN_AUTOMATION_DIR ?? '/tmp/campaign-automation-bench';

for (const t of TOOLS)
  if (!['campaign', 'campaign-default', 'campaign-restricted', 'snakemake', 'floor'].includes(t))
    throw new Error(`TOOLS: unknown tool ${t}`);
const variants = TOOLS.flatMap((t) => {
  if (t === 'campaign') return SMOKE ? ['campaign', 'campaign+smoke'] : ['campaign'];
  // campaign as a user runs it first: no cost model, the default pacing.
  if (t === 'campaign-default' || t === 'campaign-restricted') return [t];
  if (t === 'snakemake') return SNAKEMAKE_DEFAULT ? ['snakemake', 'snakemake-default'] : ['snakemake'];
  return [t];
});

const sh = (cmd) => execFileSync('bash', ['-c', cmd], { encoding: 'utf8', env: slurmEnv }).trim();
// The real binaries, by absolute path: the harness's own calls go around the wrappers.
const real = Object.fromEntries([...COUNTED, 'sdiag'].map((c) => [c, sh(`command -v ${c} || echo /usr/bin/${c}`)]));
const slurm = (cmd, args, env = {}) =>
  execFileSync(real[cmd], args, { encoding: 'utf8', env: { ...slurmEnv, ...env } });

const root = mkdtempSync(join(tmpdir(), 'campaign-load-'));
const localBin = join(root, 'bin');
const calls = join(root, 'calls.log');
mkdirSync(localBin);

/**
 * A wrapper that logs `<command> @<from> <args> @@<epoch seconds>` (the arguments cut at 400
 * characters, one write) then execs the real one; <from> is the SSH client's port (each
 * connection its own), or `local`.
 */
function wrapper(cmd) {
  const extra = cmd === 'sbatch' && NICE ? ` --nice=${NICE}` : '';
  return `#!/bin/bash
${MARK}
a="$*" c=($SSH_CONNECTION)
printf '%s\\n' "${cmd} @\${c[1]:-local} \${a:0:400} @@\${EPOCHREALTIME:-}" >>${calls}
exec ${real[cmd]}${extra} "$@"
`;
}
function writeWrappers(dir) {
  for (const c of COUNTED) {
    writeFileSync(join(dir, c), wrapper(c));
    chmodSync(join(dir, c), 0o755);
  }
}
/** Removes from the hooks folder the wrappers this harness wrote, and nothing else. */
function removeHooks() {
  for (const c of COUNTED) {
    const f = join(HOOKS, c);
    try {
      if (readFileSync(f, 'utf8').includes(MARK)) rmSync(f, { force: true });
    } catch {
      // not there
    }
  }
}
writeWrappers(localBin);
removeHooks();
process.on('exit', () => {
  abandon();
  removeHooks();
});
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => process.exit(130));

const localPath = `${localBin}:${process.env.PATH}`;
// Snakemake asks for $USER; jobs inherit this environment (sbatch --export=ALL), PATH included.
const childEnv = { ...slurmEnv, PATH: localPath, USER: process.env.USER ?? 'root' };

/** The sum of the RPC counts by message type in sdiag's or sacctmgr's statistics. */
function rpcCount(text) {
  const section = text.split('Remote Procedure Call statistics by message type')[1]?.split('by user')[0] ?? '';
  let total = 0;
  for (const m of section.matchAll(/count:\s*(\d+)/g)) total += Number(m[1]);
  return total;
}
const ctld = () => rpcCount(slurm('sdiag', []));
const dbd = () => rpcCount(slurm('sacctmgr', ['show', 'stats']));
// Each reading costs RPCs of its own that the next reading sees: sdiag 1 (REQUEST_STATS_INFO);
// sacctmgr 4 (SLURM_PERSIST_INIT, DBD_GET_STATS, DBD_FINI twice). Measured on this cluster.
const CTLD_PER_READ = 1;
const DBD_PER_READ = 4;

/** This run's jobs as sacct knows them: [{ id, name, submit, end }] (epoch seconds). */
function jobsOf(match, since) {
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
      'JobID,JobName,Submit,End,State',
    ],
    { SLURM_TIME_FORMAT: '%s' },
  );
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [id, name, submit, end, state] = l.split('|');
      return { id, name, submit: Number(submit), end: Number(end), state };
    })
    .filter((j) => match(j.name) && j.submit >= since - 1);
}
/** Waits until none of this run's jobs is left in the queue, cancelling stragglers (ours) after 2 min. */
async function drain(match) {
  for (let waited = 0; ; waited += 2) {
    const left = slurm('squeue', ['-h', '-o', '%i|%j'])
      .split('\n')
      .filter((l) => l && match(l.split('|')[1]));
    if (left.length === 0) return 0;
    if (waited === 120) cancelJobs(match);
    if (waited > 180) throw new Error(`jobs left in the queue: ${left.slice(0, 5).join(', ')}`);
    await new Promise((r) => setTimeout(r, 2000));
  }
}

/** The run in progress: its process (a group of its own) and which jobs are its. */
let current;
/** Cancels a run's jobs still in the queue (only those: others' jobs are not ours to end). */
function cancelJobs(match) {
  const ids = slurm('squeue', ['-h', '-o', '%i|%j'])
    .split('\n')
    .filter((l) => l && match(l.split('|')[1]))
    .map((l) => l.split('|')[0].split('_')[0]);
  if (ids.length > 0) slurm('scancel', [...new Set(ids)]);
}
/** Cancels the run in progress, on the harness's own exit: its process, then its jobs. */
function abandon() {
  if (!current) return;
  try {
    process.kill(-current.child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
  cancelJobs(current.match);
}

/** Runs a command to its exit (or its timeout); stdout and stderr go to a log file. */
function runLogged(cmd, args, opts, log, match, timeoutS) {
  return new Promise((resolve) => {
    const out = [];
    // A process group of its own, so that a timeout or the harness's end stops all of it.
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    current = { child, match };
    const timer = setTimeout(() => {
      out.push(Buffer.from(`\nbench/load: stopped after ${timeoutS} s\n`));
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

/** The grid in campaign's manifest: the same N tasks, walltime from a cost model or (`costed` false) fixed. */
function manifestText(name, workdir, n, smoke, costed, login = shellLogin) {
  return `${clusterHead(name, workdir, n, login)}phases:
  - name: sweep
    grid: { i: [${Array.from({ length: n }, (_, i) => i).join(', ')}] }
    command: sleep 2; echo \${i} > \${output}
    output: out/\${i}.txt
${costed ? '    cost: { unit: step, units: 1, per_unit: 2s, measured_on: campaign-test }' : '    walltime: 5m'}
${
  smoke
    ? `    smoke:
      tasks: 2
      trigger: [{ check: all_completed }, { check: distinct_outputs }]
`
    : ''
}`;
}

/** One run of one tool at one size: what it asked of Slurm and how long it took. */
async function runOnce(variant, n, k) {
  const id = `load-${Date.now().toString(36)}`;
  const dir = join(root, id);
  const work = join(dir, 'work');
  mkdirSync(work, { recursive: true });
  const log = join(dir, 'run.log');
  // Generous: 1,400 s was seen for 40 tasks at Snakemake's default throttle.
  const timeoutS = Number(process.env.RUN_TIMEOUT ?? (variant === 'snakemake-default' ? 3600 + 60 * n : 600 + 10 * n));
  let match;
  let launch;
  const restricted = variant === 'campaign-restricted';
  const login = restricted ? automationLogin(AUTOMATION_DIR) : shellLogin;
  if (variant.startsWith('campaign')) {
    const manifest = join(dir, 'load.yml');
    const costed = variant === 'campaign' || variant === 'campaign+smoke';
    writeFileSync(manifest, manifestText(id, work, n, variant === 'campaign+smoke', costed, login));
    match = (name) => name.startsWith(`${id}~`);
    launch = () =>
      runLogged(
        process.execPath,
        ['bin/campaign.js', 'run', manifest, ...(costed ? ['--poll', String(POLL)] : [])],
        { env: { ...process.env, CAMPAIGN_SSH_KEY_FILE: login.keyFile } },
        log,
        match,
        timeoutS,
      );
  } else if (variant.startsWith('snakemake')) {
    // Snakemake names its jobs snakejob_<rule>_<n>; the rule's name is the bench's own.
    match = (name) => name.startsWith('snakejob_loadtask');
    const args = [
      '--slurm',
      '--snakefile',
      join(here, 'load.d', 'Snakefile'),
      '--directory',
      work,
      '--config',
      `n=${n}`,
      '--jobs',
      String(n),
    ];
    if (variant === 'snakemake') args.push('--max-status-checks-per-second', '1');
    launch = () => runLogged('snakemake', args, { env: childEnv, cwd: work }, log, match, timeoutS);
  } else {
    const name = `${id}-floor`;
    match = (j) => j === name;
    launch = () =>
      runLogged(
        join(here, 'load.d', 'floor'),
        [String(n), work, String(POLL), name],
        { env: childEnv },
        log,
        match,
        timeoutS,
      );
  }

  rmSync(calls, { force: true });
  // Others' jobs in the queue load the servers too: their RPCs land in this run's figures.
  const others = slurm('squeue', ['-h', '-o', '%j'])
    .split('\n')
    .filter((l) => l && !match(l)).length;
  if (others > 0) console.log(`  ! ${others} other job(s) in the queue: their RPCs count in this run's`);
  // The automation node's own log says what it ran (its PATH has no hooks).
  const gateFrom = restricted && existsSync(login.log) ? readFileSync(login.log, 'utf8').length : 0;
  if (variant.startsWith('campaign') && !restricted) {
    for (const c of COUNTED)
      if (existsSync(join(HOOKS, c))) throw new Error(`${HOOKS}/${c} exists: is a fault test using the hooks?`);
    mkdirSync(HOOKS, { recursive: true });
    writeWrappers(HOOKS);
  }
  let code;
  let t0;
  let t1;
  let c0;
  let d0;
  let hooksIntact = true;
  try {
    slurm('sdiag', ['--reset']);
    slurm('sacctmgr', ['-i', 'clear', 'stats']);
    c0 = ctld();
    d0 = dbd();
    t0 = Date.now();
    code = await launch();
    t1 = Date.now();
  } finally {
    if (variant.startsWith('campaign') && !restricted) {
      hooksIntact = COUNTED.every((c) => existsSync(join(HOOKS, c)));
      removeHooks();
    }
  }
  // Read the servers' counters at once, before the harness's own sacct and squeue below.
  const ctldRpcs = ctld() - c0 - CTLD_PER_READ;
  const dbdRpcs = dbd() - d0 - DBD_PER_READ;
  if (code !== 0) cancelJobs(match);
  await drain(match);
  // slurmctld forwards job records to slurmdbd in batches: let them land before the next reset.
  await new Promise((res) => setTimeout(res, 5000));
  const jobs = jobsOf(match, Math.floor(t0 / 1000));
  const lastEnd = Math.max(...jobs.map((j) => j.end).filter((e) => e > 0));

  // The automation node's log as the wrappers' lines: `<command> @gate <args>`.
  const gated = restricted
    ? readFileSync(login.log, 'utf8')
        .slice(gateFrom)
        .split('\n')
        .map((l) => l.split('\t'))
        .filter((f) => f[1] === 'run')
        .map((f) => f[4].replace(/^(\S+)/, '$1 @gate'))
    : [];
  const logged = restricted ? gated : existsSync(calls) ? readFileSync(calls, 'utf8').split('\n').filter(Boolean) : [];
  if (existsSync(calls)) renameSync(calls, join(dir, 'calls.log'));
  // Every client of the login node runs through the hooks, another campaign's too: keep the
  // SSH connections that ran something naming this run's folder (the sbatch), and local calls.
  const from = (l) => l.split(' ')[1];
  const ours = new Set(logged.filter((l) => l.includes(dir)).map(from));
  const lines = ours.size > 0 ? logged.filter((l) => from(l) === '@local' || ours.has(from(l))) : logged;
  const count = Object.fromEntries(COUNTED.map((c) => [c, lines.filter((l) => l.startsWith(`${c} `)).length]));
  const outDir = join(work, 'out');
  const outputs = existsSync(outDir)
    ? readdirSync(outDir).filter((f) => readFileSync(join(outDir, f), 'utf8').trim() === f.replace(/\.txt$/, '')).length
    : 0;
  const r = {
    tool: variant,
    size: n,
    repeat: k,
    exit: code,
    outputs,
    wall: (t1 - t0) / 1000,
    start: t0 / 1000,
    ctld: ctldRpcs,
    dbd: dbdRpcs,
    rpcs: ctldRpcs + dbdRpcs,
    calls: count,
    jobs: jobs.length,
    otherJobs: others,
    lastEnd,
    doneDelay: t1 / 1000 - lastEnd,
  };
  if (variant.startsWith('campaign')) {
    // campaign's status queries: `sacct -j ... --format=...` and `squeue -h -r -t all ...`,
    // only for what the markers cannot say; its start-up lookup: `sacct ... --name=` and
    // `squeue ... --name=`. A pass reads the markers (restricted: a `cat` the node's log shows).
    r.queries =
      lines.filter((l) => l.startsWith('sacct ') && l.includes('--format=')).length +
      lines.filter((l) => l.startsWith('squeue ') && / -r /.test(l)).length;
    if (restricted) r.passes = lines.filter((l) => l.startsWith('cat ') && l.includes('/markers/')).length;
    r.startupLookups = lines.filter((l) => /^(sacct|squeue) /.test(l) && l.includes('--name=')).length;
    r.hooksIntact = hooksIntact;
    r.sshConnections = new Set(lines.map(from).filter((f) => f !== '@local')).size;
    r.othersCalls = logged.length - lines.length;
    if (r.othersCalls > 0) console.log(`  ! left out ${r.othersCalls} commands from other SSH clients`);
    const state = join(dir, '.campaign', id, 'state.json');
    if (existsSync(state)) {
      const tasks = Object.values(JSON.parse(readFileSync(state, 'utf8')).tasks);
      r.completed = tasks.filter((t) => t.status === 'completed').length;
      r.tasks = tasks.length;
    }
  }
  // Snakemake runs `srun` inside each job: the wrappers see it only if the job has our PATH.
  if (variant.startsWith('snakemake') && count.srun < jobs.length)
    console.log(`  ! ${count.srun} srun counted for ${jobs.length} jobs: the jobs miss the wrappers`);
  if (code !== 0 || outputs !== n) {
    console.log(`  ! ${variant} N=${n}: exit ${code}, ${outputs}/${n} outputs; log ${log}`);
    console.log(readFileSync(log, 'utf8').split('\n').slice(-15).join('\n'));
  } else if (process.env.KEEP !== '1') {
    rmSync(work, { recursive: true, force: true });
  }
  return r;
}

const f1 = (x) => (x === undefined || Number.isNaN(x) ? '-' : x.toFixed(1));
const f0 = (x) => (x === undefined || Number.isNaN(x) ? '-' : x.toFixed(0));
const cols = [
  ['tool', 16, (r) => r.tool],
  ['N', 5, (r) => String(r.size)],
  ['wall s', 8, (r) => f1(r.wall)],
  ['s/task', 7, (r) => (r.wall / r.size).toFixed(2)],
  ['ctld', 7, (r) => f0(r.ctld)],
  ['dbd', 7, (r) => f0(r.dbd)],
  ['rpcs', 7, (r) => f0(r.rpcs)],
  ['sbatch', 7, (r) => f0(r.calls.sbatch)],
  ['sacct', 7, (r) => f0(r.calls.sacct)],
  ['squeue', 7, (r) => f0(r.calls.squeue)],
  ['scontrol', 9, (r) => f0(r.calls.scontrol)],
  ['srun', 6, (r) => f0(r.calls.srun)],
  ['other', 6, (r) => f0(r.calls.scancel + r.calls.sinfo + r.calls.sacctmgr)],
  ['done+s', 7, (r) => f1(r.doneDelay)],
  ['queries', 8, (r) => f0(r.queries)],
  ['passes', 7, (r) => f0(r.passes)],
];
const row = (cells) => cells.map((c, i) => String(c).padStart(cols[i][1])).join(' ');
const header = () => console.log(row(cols.map((c) => c[0])));

console.log(`runs: sizes ${SIZES.join(', ')} x ${REPEAT}; ${variants.join(', ')}; work under ${root}`);
console.log(
  'ctld/dbd: RPCs to slurmctld (sdiag) and slurmdbd (sacctmgr show stats); commands counted by wrappers; ' +
    'done+s: exit minus the last task end',
);
header();
const results = [];
for (const n of SIZES)
  for (let k = 0; k < REPEAT; k++)
    for (const v of variants) {
      const r = await runOnce(v, n, k);
      results.push(r);
      console.log(row(cols.map((c) => c[2](r))));
    }

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const summary = [];
console.log('\nsummary: means per size');
header();
for (const n of SIZES) {
  const means = {};
  for (const v of variants) {
    const rs = results.filter((r) => r.size === n && r.tool === v);
    const m = { tool: v, size: n, calls: {} };
    for (const key of ['wall', 'ctld', 'dbd', 'rpcs', 'doneDelay', 'queries', 'passes'])
      m[key] = rs[0][key] === undefined ? undefined : mean(rs.map((r) => r[key]));
    for (const c of COUNTED) m.calls[c] = mean(rs.map((r) => r.calls[c]));
    means[v] = m;
    console.log(row(cols.map((c) => c[2](m))));
  }
  const s = { size: n, means };
  const [tool, floor] = [means.campaign, means.floor];
  // The load above the floor's: what driving the grid costs beyond submitting and watching it.
  const over = (a, b, key) => (a[key] - floor[key]) / (b[key] - floor[key]);
  for (const sm of ['snakemake', 'snakemake-default'].filter((v) => means[v]))
    if (tool && floor) {
      const x = {
        rpcs: over(tool, means[sm], 'rpcs'),
        ctld: over(tool, means[sm], 'ctld'),
        dbd: over(tool, means[sm], 'dbd'),
      };
      if (sm === 'snakemake') [s.rpcRatio, s.ctldRatio, s.dbdRatio] = [x.rpcs, x.ctld, x.dbd];
      else s.overDefault = x;
      console.log(
        `N=${n}: (campaign - floor) / (${sm} - floor) RPCs ${x.rpcs.toFixed(3)} ` +
          `(ctld ${x.ctld.toFixed(3)}, dbd ${x.dbd.toFixed(3)}; goal <= 0.1)`,
      );
    }
  const smoked = means['campaign+smoke'];
  if (tool && smoked) {
    s.smokeAdds = { wall: smoked.wall - tool.wall, rpcs: smoked.rpcs - tool.rpcs };
    console.log(
      `N=${n}: the smoke stage adds ${s.smokeAdds.wall.toFixed(1)} s and ${s.smokeAdds.rpcs.toFixed(0)} RPCs`,
    );
  }
  if (tool && floor) {
    s.wallRatio = tool.wall / floor.wall;
    console.log(`N=${n}: campaign wall / floor wall ${s.wallRatio.toFixed(2)} (goal <= 1.2)`);
  }
  // With no cost model and the default pacing, markers first (issue 23): against the floor itself.
  for (const v of ['campaign-default', 'campaign-restricted'].filter((x) => means[x] && floor)) {
    const m = means[v];
    s[v] = { wallRatio: m.wall / floor.wall, rpcs: m.rpcs, floorRpcs: floor.rpcs, doneDelay: m.doneDelay };
    console.log(
      `N=${n}: ${v} wall / floor wall ${s[v].wallRatio.toFixed(2)} (goal <= 1.1); RPCs ${m.rpcs.toFixed(0)}, ` +
        `the floor's ${floor.rpcs.toFixed(0)} (goal: at most); exited ${m.doneDelay.toFixed(1)} s after the last end (goal < 5)`,
    );
  }
  summary.push(s);
}

const file = process.env.OUT ?? join(tmpdir(), `campaign-load-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, `${JSON.stringify({ sizes: SIZES, repeat: REPEAT, poll: POLL, results, summary }, null, 2)}\n`);
console.log(`\nraw figures: ${file}`);
const bad = results.filter((r) => r.exit !== 0 || r.outputs !== r.size || r.hooksIntact === false);
if (bad.length > 0) {
  console.log(`${bad.length} run(s) failed or lost their wrappers; logs under ${root}`);
  process.exit(1);
}
if (process.env.KEEP === '1') console.log(`logs and counted calls kept under ${root}`);
else rmSync(root, { recursive: true, force: true });
