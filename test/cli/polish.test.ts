/**
 * The messages a user meets first when a command line is wrong: an unknown option with the
 * nearest one, a value missing or outside its choices, a missing TASK or PATH named as such, a
 * manifest that is not there (not "ENOENT"), a task named by its tag alone, a budget too long
 * said as a duration, a `--uses` that is no action; and `check --format json`.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { makeTemp, writeManifest } from '../helpers/cli.js';

/** `campaign ...args` in this process, with what it wrote. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    return { code: await main(args), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

let manifest: string;
/** One a workflow can drive: its workdir outside the checkout, on a self-hosted runner. */
let forWorkflow: string;
beforeAll(async () => {
  const dir = await makeTemp('polish');
  await mkdir(join(dir, '.git'));
  manifest = await writeManifest(
    dir,
    `campaign: polish
cluster: { executor: local, name: here }
workdir: work
phases:
  - name: train
    grid: { seed: [1, 2], lr: [0.1, 0.01] }
    command: echo '{}' > \${output}
    output: out/\${tag}.json
    walltime: 1m
`,
  );
  forWorkflow = await writeManifest(
    dir,
    `campaign: polish-workflow
cluster: { executor: local, name: here }
workdir: ~/campaign-runs/polish-workflow
phases:
  - name: train
    grid: { seed: [1, 2] }
    command: echo '{}' > \${output}
    output: out/\${tag}.json
    walltime: 1m
`,
    'workflow.yml',
  );
});

describe('a command line that is wrong', () => {
  it('an unknown option gets the nearest known one, in a message of its own', async () => {
    const r = await cli(['plan', manifest, '--formt', 'json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `campaign: campaign plan has no option --formt; did you mean --format? (fix: campaign plan ${manifest} --format json)\n`,
    );
    const far = await cli(['status', manifest, '--zzzzzz']);
    expect(far.stderr).toBe(
      'campaign: campaign status has no option --zzzzzz (fix: run `campaign status --help` for its options)\n',
    );
    expect(far.stderr).not.toMatch(/Unknown option|To specify a positional/);
  });

  it('a value missing, or outside the choices, is said with the choices', async () => {
    const missing = await cli(['plan', manifest, '--format']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^campaign: --format needs a value \(text\|json\)/);
    const wrong = await cli(['run', manifest, '--format', 'xml']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe('campaign: --format xml is not known (fix: use --format text or --format json)\n');
  });

  it('a missing TASK or PATH is named, not taken for a missing manifest', async () => {
    const logs = await cli(['logs', manifest]);
    expect(logs.code).toBe(2);
    expect(logs.stderr).toMatch(
      /^campaign: no task id \(as `campaign status` shows it: phase\/tag\) given \(fix: campaign logs FILE TASK\)/,
    );
    const provenance = await cli(['provenance', manifest]);
    expect(provenance.stderr).toMatch(/^campaign: no output path given \(fix: campaign provenance FILE PATH\.\.\.\)/);
    expect((await cli(['logs'])).stderr).toMatch(/^campaign: no manifest given/);
  });

  it('a manifest that is not there says so and how to make one, not ENOENT', async () => {
    const r = await cli(['plan', 'campaigns/nope.yml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^campaign: campaigns\/nope\.yml does not exist \(fix: check the path .*campaign init campaigns\/nope\.yml/,
    );
    expect(r.stderr).not.toMatch(/ENOENT/);
  });

  it('a task named by its tag alone is found in its phase', async () => {
    const r = await cli(['logs', manifest, 'seed1_lr0.1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /has no task seed1_lr0\.1; did you mean train\/seed1_lr0\.1\? \(fix: campaign logs .* train\/seed1_lr0\.1\)/,
    );
  });

  it('a budget too long says the longest as a duration', async () => {
    const r = await cli(['workflow', forWorkflow, '--budget', '7h', '--runs-on', 'self-hosted', '--stdout']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/budget "7h" is not a duration up to 5h40m /);
  });

  it('--uses must name an action', async () => {
    const r = await cli(['workflow', forWorkflow, '--uses', 'foo', '--stdout']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--uses foo is not OWNER\/REPO@REF/);
    for (const uses of ['alice/campaign@v1', './', `alice/campaign@${'a'.repeat(40)} # v1`]) {
      const ok = await cli(['workflow', forWorkflow, '--uses', uses, '--runs-on', 'self-hosted', '--stdout']);
      expect(ok.code, `${uses}: ${ok.stderr}`).toBe(0);
    }
  });
});

describe('campaign check --format json', () => {
  it('prints one object: the campaign, whether nothing blocks, and each item', async () => {
    const r = await cli(['check', manifest, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as {
      campaign: string;
      passed: boolean;
      items: { check: string; status: string }[];
    };
    expect(report.campaign).toBe('polish');
    expect(report.passed).toBe(true);
    expect(report.items.length).toBeGreaterThan(0);
    for (const item of report.items) expect(['ok', 'warn', 'fail']).toContain(item.status);
    expect(report.items.map((i) => i.check)).toContain('workdir');
  });
});
