/**
 * `campaign shell` on the local executor, through the built CLI: the command runs in the task's
 * place (its code snapshot, shipped first; its CAMPAIGN_* variables; the campaign's and the
 * phase's setup), after the gates, a failing one reported and the command run anyway; no secret
 * of campaign's environment reaches it; an unknown task id is answered with the nearest ones.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useBuiltCliAndTemp } from '../helpers/cli.js';

const root = useBuiltCliAndTemp('shell');

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.org', ...args], { cwd, encoding: 'utf8' });

async function repository(label: string): Promise<{ manifest: string; workdir: string }> {
  const dir = join(root(), label);
  const workdir = join(dir, 'work');
  await mkdir(workdir, { recursive: true });
  await writeFile(join(dir, '.gitignore'), 'work/\n.campaign/\n');
  await writeFile(join(dir, 'tool.sh'), 'echo tool\n');
  const manifest = join(dir, 'shell.yml');
  await writeFile(
    manifest,
    `campaign: shell-local
cluster: { executor: local }
workdir: ${workdir}
code: { paths: [tool.sh] }
setup: export FROM_SETUP=campaign
gates:
  capability: test -e "$CAMPAIGN_WORKDIR/ready"
phases:
  - name: p
    grid: { seed: [1, 2] }
    setup: export PHASE_NOTE="seed \${seed}"
    command: bash tool.sh > \${output}
    output: out/\${seed}.txt
    walltime: 5m
`,
  );
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'first');
  return { manifest, workdir };
}

const SHOW =
  'printf "%s|" "$CAMPAIGN_TASK" "$CAMPAIGN_AXIS_seed" "$CAMPAIGN_OUTPUT" "$FROM_SETUP" "$PHASE_NOTE" "$PWD" "${GITHUB_TOKEN-none}" "${CAMPAIGN_SSH_KEY-none}"; cat tool.sh; exit 5';

describe('campaign shell on this machine', () => {
  it("runs the command in the task's place after the gates, a failing gate reported and the command run anyway", async () => {
    const { manifest, workdir } = await repository('place');
    const env = { ...process.env, GITHUB_TOKEN: 'token-value', CAMPAIGN_SSH_KEY: 'key-value' };
    const failing = await runCli(['shell', manifest, 'p/seed2', '--command', SHOW], { env });
    expect(failing.code, failing.stderr).toBe(5);
    const [snapshot] = await readdir(join(workdir, '.campaign', 'code'));
    const code = join(workdir, '.campaign', 'code', snapshot!);
    expect(failing.stdout).toBe(`p/seed2|2|${workdir}/out/2.txt|campaign|seed 2|${code}|none|none|echo tool\n`);
    expect(failing.stderr).toMatch(/^\[campaign\] gate capability: FAIL the capability check exited 1$/m);
    expect(failing.stderr).toMatch(/the task would stop at the gate above \(exit 97\); the shell opens anyway/);

    await writeFile(join(workdir, 'ready'), '');
    const passing = await runCli(['shell', manifest, 'p/seed1', '--command', 'echo "$CAMPAIGN_AXIS_seed"']);
    expect(passing.code, passing.stderr).toBe(0);
    expect(passing.stdout).toBe('1\n');
    expect(passing.stderr).toMatch(/^\[campaign\] gate capability: ok$/m);
    expect(passing.stderr).toMatch(/^campaign: the gates passed$/m);
    // The script it ran is gone with it.
    expect(await readdir(join(workdir, '.campaign', 'shell', 'shell-local'))).toEqual([]);
  });

  it('answers an unknown task with the nearest ids, --time off Slurm, and a shell without a terminal with --command', async () => {
    const { manifest } = await repository('refusals');
    const unknown = await runCli(['shell', manifest, 'p/seed3', '--command', 'true']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /shell-local has no task p\/seed3; the nearest: p\/seed1, p\/seed2 \(fix: campaign shell \S+ p\/seed1\)/,
    );
    const time = await runCli(['shell', manifest, 'p/seed1', '--time', '1h', '--command', 'true']);
    expect(time.code).toBe(2);
    expect(time.stderr).toMatch(
      /--time sets the walltime of a Slurm allocation, and this campaign's executor is local/,
    );
    const interactive = await runCli(['shell', manifest, 'p/seed1']);
    expect(interactive.code).toBe(2);
    expect(interactive.stderr).toMatch(/an interactive shell needs a terminal.*--command/);
  });
});
