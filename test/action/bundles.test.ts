/**
 * The committed bundles, run exactly as the runner runs them: `node dist/lint/index.js` (and
 * `node dist/main/index.js`) in the workspace, inputs as INPUT_* variables, outputs and the job
 * summary through the files named by GITHUB_OUTPUT and GITHUB_STEP_SUMMARY, annotations as
 * workflow commands on stdout.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { REPO, makeTemp } from '../helpers/cli.js';

async function runLintBundle(inputs: Record<string, string>, bundle = 'dist/lint/index.js', extraEnv = {}) {
  const dir = await makeTemp('lint-bundle');
  const output = join(dir, 'output');
  const summary = join(dir, 'summary.md');
  await writeFile(output, '');
  await writeFile(summary, '');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    GITHUB_OUTPUT: output,
    GITHUB_STEP_SUMMARY: summary,
    ...extraEnv,
  };
  // The runner upper-cases the input's name and keeps its dashes.
  for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.toUpperCase()}`] = v;
  const r = spawnSync(process.execPath, [join(REPO, bundle)], { cwd: REPO, env, encoding: 'utf8' });
  return {
    status: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    outputs: parseOutputs(await readFile(output, 'utf8')),
    summary: await readFile(summary, 'utf8'),
  };
}

/** GITHUB_OUTPUT's format: `name<<DELIMITER`, the value's lines, `DELIMITER`. */
function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<]+)<<(.+)$/.exec(lines[i]!);
    if (!m) continue;
    const end = lines.indexOf(m[2]!, i + 1);
    out[m[1]!] = lines.slice(i + 1, end).join('\n');
    i = end;
  }
  return out;
}

const annotations = (stdout: string, kind: string) => stdout.split('\n').filter((l) => l.startsWith(`::${kind} `));

test('a broken manifest: an error annotation on its line, the summary, the outputs, exit status 1', async () => {
  const file = 'test/fixtures/broken/unknown-variable.yml';
  const text = await readFile(join(REPO, file), 'utf8');
  const line = text.split('\n').findIndex((l) => l.includes('${sed}')) + 1;
  const r = await runLintBundle({ manifests: file });
  expect(r.status).toBe(1);
  const errors = annotations(r.stdout, 'error');
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(
    new RegExp(`^::error title=unknown-variable,file=${file},line=${line},col=\\d+::unknown variable \\$\\{sed\\}`),
  );
  // The step fails with a message saying where to look.
  expect(r.stdout).toContain('::error::campaign lint found problems');
  expect(r.outputs).toEqual({ errors: '1', warnings: String(annotations(r.stdout, 'warning').length), files: file });
  expect(r.summary).toContain('## campaign lint');
  expect(r.summary).toContain(`| ${file}:${line}:`);
  expect(r.summary).toContain('| error | unknown-variable |');
});

test('many findings: 10 error annotations (GitHub shows no more), every finding in the summary', async () => {
  const dir = 'test/fixtures/broken';
  const r = await runLintBundle({ manifests: dir });
  expect(r.status).toBe(1);
  const errors = Number(r.outputs.errors);
  expect(errors).toBeGreaterThan(10);
  expect(annotations(r.stdout, 'error').filter((l) => l.includes('file='))).toHaveLength(10);
  expect(annotations(r.stdout, 'warning').length).toBeLessThanOrEqual(10);
  const rows = r.summary.split('\n').filter((l) => l.startsWith(`| ${dir}/`));
  expect(rows).toHaveLength(errors + Number(r.outputs.warnings));
  expect(r.outputs.files!.split('\n')).toHaveLength(
    (await readdir(join(REPO, dir))).filter((n) => n.endsWith('.yml')).length,
  );
});

test('clean manifests pass with exit status 0; strict makes warnings fail', async () => {
  const ok = await runLintBundle({ manifests: 'examples/quickstart.yml' });
  expect(ok.stdout).not.toContain('::error');
  expect(ok.status).toBe(0);
  expect(ok.outputs.errors).toBe('0');
  const warned = await runLintBundle({ manifests: 'examples/gpu-box.yml', strict: 'true' });
  expect(Number(warned.outputs.warnings)).toBeGreaterThan(0);
  expect(warned.status).toBe(1);
});

test('an absolute manifest path is annotated by its path from the workspace', async () => {
  const r = await runLintBundle({ manifests: join(REPO, 'test/fixtures/broken/unknown-variable.yml') });
  expect(annotations(r.stdout, 'error')[0]).toContain(',file=test/fixtures/broken/unknown-variable.yml,');
});

/** What the runner sets for every job; the main bundle's GitHub services read it. */
const RUNNER_ENV = {
  GITHUB_REPOSITORY: 'owner/repo',
  GITHUB_API_URL: 'http://127.0.0.1:9',
  GITHUB_RUN_ID: '1',
  GITHUB_RUN_ATTEMPT: '1',
  GITHUB_SHA: 'a'.repeat(40),
};

test('the main bundle starts (ssh2 inside an ES module bundle), masks the SSH key, and plans', async () => {
  const key = 'not-a-real-key-but-a-secret-all-the-same';
  const r = await runLintBundle(
    { command: 'plan', manifest: 'examples/distill.yml', 'ssh-key': key },
    'dist/main/index.js',
    RUNNER_ENV,
  );
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  expect(r.stdout.split('\n')).toContain(`::add-mask::${key}`);
  expect(r.summary).toContain('## Plan of distill-sweep');
  expect(r.summary).toContain('phase distill_students (after train_teachers)');
  expect(Number(r.outputs['gpu-hours'])).toBeGreaterThan(100);
});

test('the main bundle annotates a broken manifest on its line', async () => {
  const file = 'test/fixtures/broken/unknown-variable.yml';
  const r = await runLintBundle({ command: 'plan', manifest: file }, 'dist/main/index.js', RUNNER_ENV);
  expect(r.status).toBe(1);
  expect(annotations(r.stdout, 'error')[0]).toMatch(
    new RegExp(`^::error title=campaign,file=${file},line=\\d+,col=\\d+::`),
  );
});

test('the lint bundle carries no SSH, artifact or cache code (safe for pull requests from forks)', async () => {
  const markers = { ssh2: 'SSH-2.0-ssh2js', artifact: 'ArtifactService', blob: 'storage-blob' };
  const lint = await readFile(join(REPO, 'dist/lint/index.js'), 'utf8');
  // The main bundle's network code is in chunks of their own (loaded by the commands that need it).
  const chunks = (await readdir(join(REPO, 'dist/main'))).filter((f) => f.endsWith('.js'));
  const main = (await Promise.all(chunks.map((f) => readFile(join(REPO, 'dist/main', f), 'utf8')))).join('\n');
  const index = await readFile(join(REPO, 'dist/main/index.js'), 'utf8');
  for (const [what, marker] of Object.entries(markers)) {
    // The marker is real: the main bundle, which needs that code, has it.
    expect(main.includes(marker), what).toBe(true);
    expect(index.includes(marker), what).toBe(false);
    expect(lint.includes(marker), what).toBe(false);
  }
  expect(lint).not.toContain('@actions/cache');
});

test('a bad input is an error naming it, not a crash', async () => {
  const r = await runLintBundle({ manifests: 'examples/quickstart.yml', strict: 'maybe' });
  expect(r.status).toBe(1);
  expect(r.stdout).toContain('input "strict" is not true or false');
  expect(r.stdout).not.toContain('internal error');
});

test('the main bundle runs the pre-flight as command check: what blocks which phase, in the job summary, failing the step', async () => {
  const dir = await makeTemp('check-bundle');
  const manifest = join(dir, 'campaign.yml');
  await writeFile(
    manifest,
    `campaign: preflight
cluster: { executor: local }
workdir: ${join(dir, 'work')}
phases:
  - name: p
    preconditions: [ { exists: in.txt } ]
    command: cp in.txt \${output}
    output: out.txt
    walltime: 1m
`,
  );
  const blocked = await runLintBundle({ command: 'check', manifest }, 'dist/main/index.js', RUNNER_ENV);
  expect(blocked.status).toBe(1);
  expect(blocked.summary).toContain('## Pre-flight of preflight');
  expect(blocked.summary).toMatch(/^FAIL {2}preconditions +1 of the 1 inputs of p are missing: in\.txt \[blocks p\]$/m);
  expect(blocked.stdout).toContain('::error::the pre-flight found 1 problem (see the job summary)');
  await mkdir(join(dir, 'work'));
  await writeFile(join(dir, 'work', 'in.txt'), 'x\n');
  const clear = await runLintBundle({ command: 'check', manifest }, 'dist/main/index.js', RUNNER_ENV);
  expect(clear.stdout + clear.stderr).not.toContain('::error');
  expect(clear.status).toBe(0);
  expect(clear.summary).toMatch(/^nothing blocks the campaign \(\d+ checks\)$/m);
});
