/**
 * The manifest's environment through the real CLI on the local executor, with the real Lmod: a
 * phase whose module exists completes with the module's environment, and a phase whose module
 * does not ends its task as a gate failure whose reason names the gate environment and carries
 * Lmod's message. The module files are the user's own, in a directory their shell's MODULEPATH
 * names (as `module use` in a profile leaves it): campaign runs with that environment, and the
 * task's batch shell, which has no module command, finds Lmod through its init.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readState, runCli, useBuiltCliAndTemp, writeManifest } from '../../helpers/cli.js';

const LMOD = existsSync('/usr/share/lmod/lmod/init/bash');
if (!LMOD) console.warn('\n!!! local environment test SKIPPED: no Lmod here (scripts/ensure-tools installs it).\n');

const tempRoot = useBuiltCliAndTemp('local-environment');

describe.runIf(LMOD)('environment on the local executor', () => {
  it('a phase with a module that exists completes; one with a missing module fails the gate environment', async () => {
    const dir = join(tempRoot(), 'env');
    const workdir = join(dir, 'work');
    const modules = join(dir, 'modulefiles');
    await mkdir(workdir, { recursive: true });
    await mkdir(join(modules, 'campaign-e2e-tool'), { recursive: true });
    await writeFile(join(modules, 'campaign-e2e-tool', '1.0.lua'), 'setenv("CAMPAIGN_E2E_TOOL", "tool-1.0")\n');
    const manifest = await writeManifest(
      dir,
      `campaign: env-local
cluster: { executor: local, max_parallel: 2 }
workdir: work
phases:
  - name: tooled
    environment: { modules: [campaign-e2e-tool/1.0] }
    setup: echo "setup sees $CAMPAIGN_E2E_TOOL"
    command: echo "$CAMPAIGN_E2E_TOOL" > \${output}
    output: tool.txt
    walltime: 2m
  - name: untooled
    environment: { modules: [campaign-e2e-missing/1.0] }
    command: touch ran
    walltime: 2m
`,
    );
    const stateDir = join(dir, 'state');
    const r = await runCli(['run', manifest, '--state-dir', stateDir, '--poll', '0.2'], {
      env: { ...process.env, MODULEPATH: modules },
    });
    expect(r.code, r.stderr).toBe(1);
    const state = await readState(stateDir);

    expect(state.tasks['tooled/task']).toMatchObject({ status: 'completed' });
    expect(await readFile(join(workdir, 'tool.txt'), 'utf8')).toBe('tool-1.0\n');
    // Activated before the setup, which sees it too (the log, as `campaign logs` prints it).
    const log = await runCli(['logs', manifest, 'tooled/task', '--state-dir', stateDir]);
    expect(log.stdout).toMatch(/\[campaign\] gate environment: ok\n(.*\n)*setup sees tool-1\.0\n/);

    const failed = state.tasks['untooled/task']!;
    expect(failed.status).toBe('failed');
    expect(failed.attempts.map((a) => a.class)).toEqual(['gate']);
    expect(failed.attempts[0]!.reason).toMatch(
      /^gate environment: module load campaign-e2e-missing\/1\.0: Lmod has detected the following error: .*unknown/,
    );
    expect(existsSync(join(workdir, 'ran'))).toBe(false);
    const summary = await readFile(join(stateDir, 'summary.md'), 'utf8');
    expect(summary).toMatch(/### untooled\/task\n\n`gate: gate environment: module load campaign-e2e-missing\/1\.0/);
  });
});
