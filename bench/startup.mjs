// Start-up of each action bundle (dist/lint, dist/main) from process start to exit on a small
// manifest, run the way the runner runs it: `node <bundle>` in GITHUB_WORKSPACE, every input
// as INPUT_<NAME> (the action.yml defaults where not given), GITHUB_OUTPUT and
// GITHUB_STEP_SUMMARY files. Also `node bin/campaign.js lint` and `plan`, and `status` of a
// small local campaign's state (run once first, in a temporary directory), a bare `node` for
// comparison, and the bundles' sizes; with GNU time (/usr/bin/time), each run's CPU time too
// (user + system), which a busy machine inflates less than the wall time. Run with
// `bench/startup` (builds lib/ first; the bundles are used as committed; BUNDLES=dir times
// those of `scripts/bundle dir` instead). Goal: every command that needs no network (lint, and
// the main bundle's plan, status) done in under 300 ms on a small manifest. Every command gets a clean
// environment (the runner's variables only): a NODE_EXTRA_CA_CERTS, say, costs ~90 ms of
// start-up by itself.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parse } from 'yaml';

const RUNS = 10;
const root = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const manifest = 'examples/quickstart.yml';
const bundles = resolve(root, process.env.BUNDLES ?? 'dist');
const temp = mkdtempSync(join(tmpdir(), 'campaign-bench-startup-'));
const clean = { PATH: process.env.PATH, HOME: process.env.HOME };

/** The environment the runner gives a step of this action. */
function actionEnv(actionYml, inputs) {
  const declared = parse(readFileSync(join(root, actionYml), 'utf8')).inputs ?? {};
  const env = {};
  for (const [name, spec] of Object.entries(declared)) {
    const given = inputs[name] ?? spec.default ?? '';
    // `${{ github.token }}` is the runner's to fill in; there is none here.
    env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = String(given).includes('${{') ? '' : String(given);
  }
  const output = join(temp, 'output');
  const summary = join(temp, 'summary');
  writeFileSync(output, '');
  writeFileSync(summary, '');
  return {
    ...clean,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: root,
    GITHUB_OUTPUT: output,
    GITHUB_STEP_SUMMARY: summary,
    GITHUB_JOB: 'bench',
    GITHUB_REPOSITORY: 'bench/bench',
    GITHUB_RUN_ID: '1',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_SHA: '0'.repeat(40),
    GITHUB_REF: 'refs/heads/main',
    GITHUB_WORKFLOW_REF: 'bench/bench/.github/workflows/campaign-quickstart.yml@refs/heads/main',
    // Unreachable on purpose: `plan` needs no API, and a bench must not reach the network.
    GITHUB_API_URL: 'http://127.0.0.1:9',
    RUNNER_TEMP: temp,
    ...env,
  };
}

/** GNU time, where there is one: the CPU time of each run too, which a busy machine inflates less than the wall time. */
const gnuTime = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const cpuFile = join(temp, 'cpu');

/** Wall time (and CPU time) of a command from spawn to exit, median of RUNS (after one warm-up run). */
function time(args, env) {
  const once = () => {
    const t0 = performance.now();
    const r = gnuTime
      ? spawnSync(gnuTime, ['-f', '%U %S', '-o', cpuFile, process.execPath, ...args], {
          cwd: root,
          env,
          encoding: 'utf8',
        })
      : spawnSync(process.execPath, args, { cwd: root, env, encoding: 'utf8' });
    const ms = performance.now() - t0;
    const cpu = gnuTime ? readFileSync(cpuFile, 'utf8').trim().split('\n').at(-1).split(' ') : [NaN, NaN];
    return { ms, cpu: (Number(cpu[0]) + Number(cpu[1])) * 1000, status: r.status, out: `${r.stdout}${r.stderr}` };
  };
  const first = once();
  const runs = Array.from({ length: RUNS }, once);
  const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
  const cpu = runs.map((r) => r.cpu).sort((a, b) => a - b);
  return {
    median: ms[Math.floor(ms.length / 2)],
    min: ms[0],
    max: ms.at(-1),
    cpu: cpu[Math.floor(cpu.length / 2)],
    status: first.status,
    out: first.out,
  };
}

/** A small local campaign, run once to its end, whose state `campaign status` reads. */
function localState() {
  const file = join(temp, 'local.yml');
  writeFileSync(
    file,
    `campaign: startup-bench
cluster: { executor: local, name: this-machine, max_parallel: 2 }
workdir: ./work
phases:
  - name: p
    grid: { seed: [1, 2] }
    command: echo '{}' > \${output}
    output: out_\${seed}.json
    walltime: 1m
`,
  );
  const stateDir = join(temp, 'state');
  const r = spawnSync(process.execPath, ['bin/campaign.js', 'run', file, '--state-dir', stateDir], {
    cwd: root,
    env: clean,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`campaign run of the local state failed:\n${r.stdout}${r.stderr}`);
  return ['bin/campaign.js', 'status', file, '--state-dir', stateDir];
}

try {
  const cases = [
    ['node (nothing)', ['-e', ''], clean],
    ['lint bundle', [join(bundles, 'lint/index.js')], actionEnv('lint/action.yml', { manifests: manifest })],
    ['main bundle (plan)', [join(bundles, 'main/index.js')], actionEnv('action.yml', { command: 'plan', manifest })],
    ['bin/campaign.js lint', ['bin/campaign.js', 'lint', manifest], clean],
    ['bin/campaign.js plan', ['bin/campaign.js', 'plan', manifest], clean],
    ['bin/campaign.js status', localState(), clean],
  ];
  console.log(`manifest: ${manifest}; bundles: ${bundles}; ${RUNS} runs each, after one warm-up`);
  for (const [name, args, env] of cases) {
    const r = time(args, env);
    const size = args[0].startsWith(bundles) ? `  (${statSync(args[0]).size.toLocaleString('en')} bytes)` : '';
    console.log(
      `${name.padEnd(22)} ${r.median.toFixed(0).padStart(5)} ms median  [${r.min.toFixed(0)}–${r.max.toFixed(0)}]  CPU ${r.cpu.toFixed(0)} ms  exit ${r.status}${size}`,
    );
    if (r.status !== 0) console.log(r.out.split('\n').slice(0, 12).join('\n'));
  }
  console.log(`node ${process.version}`);
} finally {
  rmSync(temp, { recursive: true, force: true });
}
