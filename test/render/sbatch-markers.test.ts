/**
 * The start and end markers of the Slurm batch script (render/task-script.ts), read back with
 * exec/slurm/markers.ts: the script run by real bash with Slurm's variables set by hand (a task
 * that completes, fails, stops at a gate, is not in the table, is sent SIGTERM, or cannot write
 * its markers), shellcheck on it, and one array sbatched on the real test cluster.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { markersGlob, parseMarkers, type TaskMarkers } from '../../src/exec/slurm/markers.js';
import { manifest as manifestSchema, type Manifest } from '../../src/manifest/schema.js';
import { planCampaign } from '../../src/plan/plan.js';
import { renderSbatch, slurmRoot, submissionFiles, type SbatchRow } from '../../src/render/sbatch.js';
import { GATE_EXIT, renderTaskScript } from '../../src/render/task-script.js';
import { waitUntil } from '../helpers/cli.js';
import { clusterEnv, clusterIsUp } from '../helpers/slurm-cluster.js';

const clusterUp = clusterIsUp('Slurm batch-script markers on the cluster');

const root = mkdtempSync(join(tmpdir(), 'campaign-sbatch-markers-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const JOB = '4242';
const SUBMISSION = 'f00dfeed1234';

/**
 * One task per way to end: `ok` completes, `three` exits 3, `gate` lacks its input, `term`
 * sleeps until it is signalled (after saying so in `running`), and says it heard SIGTERM in `heard`.
 */
function manifestFor(workdir: string, ks: readonly string[], setup?: string): Manifest {
  return manifestSchema.parse({
    campaign: 'marks',
    cluster: { executor: 'slurm', name: 'test', partitions: [{ name: 'debug', max_time: '30m' }] },
    workdir,
    phases: [
      {
        name: 'p',
        ...(setup ? { setup } : {}),
        grid: { k: ks },
        preconditions: [{ exists: 'in/${k}' }],
        command:
          'case ${k} in three) exit 3 ;; term) trap "touch heard; exit 1" TERM; touch running; sleep 60 & wait ;; esac; echo finished',
        walltime: '5m',
        resources: { cpus: 1, mem: '200M' },
      },
    ],
  });
}

/** The batch script and table of one submission of every task of the phase, written in `dir`. */
function rendered(workdir: string, ks: readonly string[], opts: { markerDir?: string; setup?: string } = {}) {
  const m = manifestFor(workdir, ks, opts.setup);
  const plan = planCampaign(m);
  const array = plan.phases[0]!.arrays.find((a) => a.stage === 'full')!;
  const rows: SbatchRow[] = plan.phases[0]!.tasks.map((task, index) => ({ index, task, attempt: 1 }));
  const tablePath = join(workdir, 'table.tsv');
  const out = renderSbatch({
    manifest: m,
    array,
    jobName: 'campaign-marks',
    key: array.id,
    submission: SUBMISSION,
    rows,
    workdir,
    tablePath,
    logDir: join(workdir, 'logs'),
    markerDir: opts.markerDir ?? join(workdir, 'markers'),
  });
  writeFileSync(tablePath, out.table);
  const script = join(workdir, 'job.sh');
  writeFileSync(script, out.script);
  mkdirSync(join(workdir, 'in'), { recursive: true });
  for (const k of ks) if (k !== 'gate') writeFileSync(join(workdir, 'in', k), '');
  const indexOf = (k: string): number => rows.find((r) => r.task.values.k === k)!.index;
  return { script: out.script, file: script, indexOf };
}

function slurmEnv(index: number | string, node = true): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    SLURM_ARRAY_JOB_ID: JOB,
    SLURM_ARRAY_TASK_ID: String(index),
    ...(node ? { SLURMD_NODENAME: 'node7' } : {}),
  };
}

function runIndex(file: string, workdir: string, index: number, node = true) {
  const r = spawnSync('bash', [file], { cwd: workdir, encoding: 'utf8', env: slurmEnv(index, node) });
  return { status: r.status, log: r.stdout + r.stderr };
}

/** The markers as the controller reads them: one `cat` of the glob, by the shell. */
function catMarkers(glob: string): Map<string, TaskMarkers> {
  const r = spawnSync('bash', ['-c', `cat ${glob}`], { encoding: 'utf8' });
  return parseMarkers(r.stdout);
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('the batch script writes start and end markers', () => {
  const workdir = mkdtempSync(join(root, 'run-'));
  const ks = ['ok', 'three', 'gate', 'term'];
  const { script, file, indexOf } = rendered(workdir, ks);
  const markersOf = () => catMarkers(`${workdir}/markers/*`);

  it('passes shellcheck', () => {
    const r = spawnSync('shellcheck', ['-s', 'bash', '-S', 'warning', file], { encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(script).not.toMatch(/\beval\b/);
  });

  it('records a task that completes: s, then e with status 0 and neither signal nor gate, each file one terminated line', () => {
    const i = indexOf('ok');
    const r = runIndex(file, workdir, i);
    expect(r.status, r.log).toBe(0);
    expect(r.log).toContain('finished');
    const got = markersOf().get(`${JOB}_${i}`);
    expect(got).toMatchObject({ key: SUBMISSION, index: i, jobId: JOB, node: 'node7', end: { code: 0 } });
    expect(got!.startedAt).toMatch(ISO);
    expect(got!.end!.at).toMatch(ISO);
    expect(got!.end!.at >= got!.startedAt!).toBe(true);
    expect(got!.end).not.toHaveProperty('signal');
    expect(got!.end).not.toHaveProperty('gate');
    expect(readFileSync(join(workdir, 'markers', `${i}.start`), 'utf8')).toMatch(
      new RegExp(`^\\ns ${SUBMISSION} ${i} ${JOB} \\d+ node7 \\.\\n$`),
    );
    expect(readFileSync(join(workdir, 'markers', `${i}.end`), 'utf8')).toMatch(
      new RegExp(`^\\ne ${SUBMISSION} ${i} ${JOB} \\d+ 0 - - \\.\\n$`),
    );
  });

  it("records the command's own exit status", () => {
    const i = indexOf('three');
    expect(runIndex(file, workdir, i).status).toBe(3);
    expect(markersOf().get(`${JOB}_${i}`)?.end).toEqual({ at: expect.stringMatching(ISO), code: 3 });
  });

  it('records a failing gate: status 97 and the gate by name', () => {
    const i = indexOf('gate');
    const r = runIndex(file, workdir, i);
    expect(r.status).toBe(GATE_EXIT);
    expect(r.log).toMatch(/^\[campaign\] gate inputs: FAIL missing /m);
    expect(markersOf().get(`${JOB}_${i}`)?.end).toMatchObject({ code: GATE_EXIT, gate: 'inputs' });
  });

  it('records a failed setup as the gate setup, with the status 97 it is given', () => {
    const dir = mkdtempSync(join(root, 'setup-'));
    const { file: f, indexOf: at } = rendered(dir, ['ok'], { setup: 'exit 5' });
    const r = runIndex(f, dir, at('ok'));
    expect(r.status).toBe(GATE_EXIT);
    expect(r.log).toMatch(/^\[campaign\] gate setup: FAIL the setup stopped with exit status 5$/m);
    expect(catMarkers(`${dir}/markers/*`).get(`${JOB}_${at('ok')}`)?.end).toMatchObject({
      code: GATE_EXIT,
      gate: 'setup',
    });
  });

  it('records an index not in the task table, start and end, as the gate index', () => {
    const r = runIndex(file, workdir, 9);
    expect(r.status).toBe(GATE_EXIT);
    const got = markersOf().get(`${JOB}_9`);
    expect(got).toMatchObject({ index: 9, node: 'node7', end: { code: GATE_EXIT, gate: 'index' } });
    expect(got!.startedAt).toMatch(ISO);
  });

  // Slurm signals the batch shell alone (a plain scancel, the time limit, preemption): the
  // script passes SIGTERM on to the command.
  for (const to of ['its process group', 'the batch shell alone'] as const) {
    it(`records SIGTERM to ${to} while the command runs: status 143, signal TERM, heard by the command`, async () => {
      const dir = mkdtempSync(join(root, 'term-'));
      const { file: f, indexOf: at } = rendered(dir, ['term']);
      const i = at('term');
      const child = spawn('bash', [f], { cwd: dir, env: slurmEnv(i), detached: true, stdio: 'ignore' });
      const ended = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
      // The command says it is running before it sleeps; until then a signal would find the gates.
      while (!existsSync(join(dir, 'running')) && child.exitCode === null) {
        await new Promise((r) => setTimeout(r, 20));
      }
      process.kill(to === 'its process group' ? -child.pid! : child.pid!, 'SIGTERM');
      expect(await ended).toBe(143);
      expect(existsSync(join(dir, 'heard'))).toBe(true);
      expect(catMarkers(`${dir}/markers/*`).get(`${JOB}_${i}`)?.end).toEqual({
        at: expect.stringMatching(ISO),
        code: 143,
        signal: 'TERM',
      });
    });
  }

  it('takes the node from the hostname where Slurm gives none', () => {
    const dir = mkdtempSync(join(root, 'host-'));
    const { file: f, indexOf: at } = rendered(dir, ['ok']);
    expect(runIndex(f, dir, at('ok'), false).status).toBe(0);
    const host = execFileSync('hostname', ['-s'], { encoding: 'utf8' }).trim();
    expect(catMarkers(`${dir}/markers/*`).get(`${JOB}_${at('ok')}`)?.node).toBe(host);
  });

  it('runs and exits as it would when no marker can be written, and says nothing of it', () => {
    const dir = mkdtempSync(join(root, 'unwritable-'));
    writeFileSync(join(dir, 'a-file'), '');
    const { file: f, indexOf: at } = rendered(dir, ['ok', 'three'], { markerDir: join(dir, 'a-file', 'markers') });
    const ok = runIndex(f, dir, at('ok'));
    expect(ok.status).toBe(0);
    expect(ok.log.split('\n').filter((l) => l !== '' && l !== 'finished' && !l.startsWith('[campaign] '))).toEqual([]);
    expect(runIndex(f, dir, at('three')).status).toBe(3);
  });

  it('leaves the scripts of the other executors without markers', () => {
    const text = renderTaskScript({ campaign: 'c', index: 0, setup: [], command: 'true', inputs: 0 });
    expect(text).not.toMatch(/campaign_mark|TERM/);
  });
});

describe.skipIf(!clusterUp)('markers on the test cluster', () => {
  const env = { ...process.env, ...clusterEnv() };

  /** A submission of one task per `k`, its files written where the Slurm executor writes them. */
  function submission(ks: readonly string[]) {
    const workdir = mkdtempSync(join(root, 'cluster-'));
    const m = manifestFor(workdir, ks);
    const plan = planCampaign(m);
    const array = plan.phases[0]!.arrays.find((a) => a.stage === 'full')!;
    const group = plan.phases[0]!.tasks.map((task, index) => ({ task, attempt: 1, array, index }));
    const slurmDir = slurmRoot(workdir, m.campaign);
    const dir = `${slurmDir}/${SUBMISSION}`;
    const { script, table } = submissionFiles(m, group, { name: 'campaign-marks', dir, workdir, exclude: false });
    mkdirSync(join(dir, 'logs'), { recursive: true });
    writeFileSync(join(dir, 'table.tsv'), table);
    writeFileSync(join(dir, 'job.sh'), script, { mode: 0o755 });
    mkdirSync(join(workdir, 'in'));
    for (const k of ks) writeFileSync(join(workdir, 'in', k), '');
    return { workdir, group, job: join(dir, 'job.sh'), markers: () => catMarkers(markersGlob(slurmDir, SUBMISSION)) };
  }

  it('are left by both indices of a sbatched array, with the job id sbatch gave', () => {
    const s = submission(['ok', 'three']);
    // --wait returns when the whole array has ended, with the highest status of its tasks.
    const r = spawnSync('sbatch', ['--parsable', '--wait', s.job], { encoding: 'utf8', env, timeout: 60_000 });
    const jobId = /^(\d+)/.exec(r.stdout)?.[1];
    expect(jobId, r.stdout + r.stderr).toBeDefined();
    expect(r.status, r.stdout + r.stderr).toBe(3);
    const markers = s.markers();
    expect([...markers.keys()].sort()).toEqual([`${jobId}_0`, `${jobId}_1`]);
    const codes = { ok: 0, three: 3 };
    for (const { task, index } of s.group) {
      const got = markers.get(`${jobId}_${index}`)!;
      expect(got).toMatchObject({ key: SUBMISSION, index, jobId, end: { code: codes[task.values.k as 'ok'] } });
      expect(got.startedAt).toMatch(ISO);
      expect(got.node).toBe(clusterEnv().CAMPAIGN_CLUSTER_NODE);
    }
  }, 90_000);

  it('record a scancel as SIGTERM, which the command hears', async () => {
    const s = submission(['term']);
    const sbatch = spawn('sbatch', ['--parsable', '--wait', s.job], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    sbatch.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const ended = new Promise<void>((done) => sbatch.on('close', () => done()));
    let exited = false;
    void ended.then(() => (exited = true));
    while (!(existsSync(join(s.workdir, 'running')) && /^\d+/.test(out)) && !exited) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const jobId = /^(\d+)/.exec(out)?.[1];
    expect(jobId, `sbatch printed ${JSON.stringify(out)}`).toBeDefined();
    execFileSync('scancel', [jobId!], { env });
    await ended;
    // sbatch --wait returns once slurmctld has the job CANCELLED, which it does at the scancel,
    // while the batch shell's trap may still be passing the signal on (KillWait is 5 s).
    await waitUntil(
      'the command to say it heard SIGTERM',
      async () => existsSync(join(s.workdir, 'heard')) || undefined,
      30_000,
      100,
    );
    expect(s.markers().get(`${jobId}_0`)).toMatchObject({
      key: SUBMISSION,
      end: { code: 143, signal: 'TERM' },
    });
  }, 90_000);
});
