/**
 * Both actions run from source by GitHub's own local runner tool (`@github/local-action`, a
 * devDependency): it calls each entry's `run()` with its own @actions/core in place, and prints
 * the outputs the action set through it.
 */
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, makeTemp } from '../helpers/cli.js';

const LOCAL_ACTION = join(REPO, 'node_modules', '.bin', 'local-action');

/** The tool's run of an action with these inputs: its exit status and the outputs table it printed. */
async function localAction(
  actionDir: string,
  entry: string,
  inputs: Record<string, string>,
): Promise<{ status: number | null; log: string; outputs: Record<string, string> }> {
  const dir = await makeTemp('local-action');
  const env = join(dir, '.env');
  await writeFile(
    env,
    Object.entries(inputs)
      .map(([k, v]) => `INPUT_${k.toUpperCase()}=${v}\n`)
      .join(''),
  );
  const r = spawnSync(LOCAL_ACTION, ['run', actionDir, entry, env], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: 120_000,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' },
  });
  const log = `${r.stdout}${r.stderr}`;
  const table = log.split('Action Outputs')[1] ?? '';
  const outputs = Object.fromEntries(
    [...table.matchAll(/│ \d+\s+│ '([\w-]+)'\s+│ '([^']*)'\s+│/g)].map((m) => [m[1]!, m[2]!]),
  );
  return { status: r.status, log, outputs };
}

describe("the actions under GitHub's local runner tool (@github/local-action)", () => {
  it('runs the lint action: its counts and files as outputs', async () => {
    const r = await localAction(join(REPO, 'lint'), '../src/action/lint-entry.ts', {
      manifests: 'examples/quickstart.yml',
    });
    expect(r.status, r.log).toBe(0);
    expect(r.outputs).toEqual({ errors: '0', warnings: '0', files: 'examples/quickstart.yml' });
  }, 150_000);

  it("runs the campaign action's plan with no GitHub around it: the plan, and its GPU-hours as an output", async () => {
    const r = await localAction(REPO, 'src/action/main-entry.ts', {
      command: 'plan',
      manifest: 'examples/quickstart.yml',
    });
    expect(r.status, r.log).toBe(0);
    expect(r.log).toContain('phase train: 6 tasks');
    expect(r.outputs).toEqual({ 'gpu-hours': '0.00' });
  }, 150_000);
});
