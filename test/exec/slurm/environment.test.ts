/**
 * The manifest's environment on the real test cluster over SSH, with the real Lmod: a phase
 * whose module exists completes with the module's environment, and a phase whose module does
 * not ends its task as a gate failure whose reason names the gate environment and carries
 * Lmod's message.
 *
 * The module files go where a cluster keeps its site's modules: in a directory of Lmod's
 * default MODULEPATH (Debian's /etc/lmod/modulespath lists /etc/lmod/modules), which the module
 * system's init sets on every node. The SSH session campaign submits from is not a login shell
 * and sets no MODULEPATH (as on a real login node), so the job inherits none, and its batch
 * shell has no module command: it must find Lmod through its init, as on a real cluster.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readState, useBuiltCliAndTemp } from '../../helpers/cli.js';
import { clusterIsUp, runSlurmCampaign } from '../../helpers/slurm-cluster.js';
import { sshdUp, type Sshd } from '../transport/sshd.js';

const SITE_MODULES = '/etc/lmod/modules';
const siteWritable = (() => {
  try {
    accessSync(SITE_MODULES, constants.W_OK);
    return existsSync('/usr/share/lmod/lmod/init/bash');
  } catch {
    return false;
  }
})();
if (!siteWritable) {
  console.warn(
    `\n!!! Slurm environment test SKIPPED: no Lmod here, or ${SITE_MODULES} is not writable (scripts/ensure-tools installs Lmod; run as root).\n`,
  );
}

const clusterUp = siteWritable && clusterIsUp('Slurm environment test');
const tempRoot = useBuiltCliAndTemp('slurm-environment');
/** Unique to this run, so that runs side by side never share a module. */
const MODULE = `campaign-e2e-${Date.now().toString(36)}-${process.pid}`;
let sshd: Sshd | undefined;

beforeAll(async () => {
  if (!clusterUp) return;
  sshd = await sshdUp();
  await mkdir(join(SITE_MODULES, MODULE), { recursive: true });
  await writeFile(join(SITE_MODULES, MODULE, '1.0.lua'), `setenv("CAMPAIGN_E2E_SITE", "${MODULE}-1.0")\n`);
}, 300_000);

afterAll(async () => {
  await rm(join(SITE_MODULES, MODULE), { recursive: true, force: true });
});

describe.runIf(clusterUp)('environment on the test cluster, over SSH', () => {
  it('a phase with a site module completes; one with a missing module fails the gate environment', async (ctx) => {
    if (!sshd) return ctx.skip();
    const c = await runSlurmCampaign(
      tempRoot(),
      'env',
      sshd,
      `  - name: tooled
    environment: { modules: [${MODULE}/1.0] }
    command: echo "$CAMPAIGN_E2E_SITE" > \${output}
    output: site.txt
    walltime: 5m
  - name: untooled
    environment: { modules: [${MODULE}/9.9] }
    command: touch ran
    walltime: 5m
`,
    );
    const r = await c.run.done;
    expect(r.code, r.stderr).toBe(1);
    const state = await readState(c.stateDir);

    expect(state.tasks['tooled/task']).toMatchObject({ status: 'completed' });
    expect(await readFile(join(c.workdir, 'site.txt'), 'utf8')).toBe(`${MODULE}-1.0\n`);

    const failed = state.tasks['untooled/task']!;
    expect(failed.status).toBe('failed');
    expect(failed.attempts.map((a) => a.class)).toEqual(['gate']);
    expect(failed.attempts[0]!.reason).toMatch(
      new RegExp(`^gate environment: module load ${MODULE}/9\\.9: Lmod has detected the following error: .*unknown`),
    );
    expect(existsSync(join(c.workdir, 'ran'))).toBe(false);
  }, 300_000);
});
