/**
 * The action's secrets are out of its /proc/PID/environ before any task runs
 * (src/action/environ.ts): a local task, started as the local executor starts one, reads its
 * parent's environment there and finds no SSH key, passphrase or token, while the action still
 * holds each one in memory. The action is the built entry's module under the Node that runs these
 * tests, or the one CAMPAIGN_TEST_NODE names (the Action's runtime is node24); a Node without
 * process.execve (before 22.15) cannot start itself again, and the action says so.
 */
import { spawnSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { REPO, useBuiltCliAndTemp } from '../helpers/cli.js';

const tempRoot = useBuiltCliAndTemp('secrets-environ');
const NODE = process.env.CAMPAIGN_TEST_NODE ?? process.execPath;
const RUN = Date.now().toString(36);

/** What a runner gives the action, each a value no task may find. */
const SECRETS = {
  'INPUT_SSH-KEY': `-----BEGIN OPENSSH PRIVATE KEY-----\nkey-canary-${RUN}\n-----END OPENSSH PRIVATE KEY-----`,
  'INPUT_SSH-PASSPHRASE': `passphrase-canary-${RUN}`,
  GITHUB_TOKEN: `ghs_tokencanary${RUN}`,
  ACTIONS_RUNTIME_TOKEN: `runtime-canary-${RUN}`,
};

/**
 * The action's first steps: its secrets out of its environment, then a local task, with the
 * environment the local executor gives one, that prints its parent's /proc environ.
 */
const SCRIPT = `
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
const { secretsOutOfEnviron } = await import(${JSON.stringify(pathToFileURL(join(REPO, 'lib/action/environ.js')).href)});
const { environmentWithoutSecrets } = await import(${JSON.stringify(pathToFileURL(join(REPO, 'lib/exec/secrets.js')).href)});
const warnings = [];
secretsOutOfEnviron((m) => warnings.push(m));
const task = spawnSync('bash', ['-c', 'tr "\\\\0" "\\\\n" < /proc/$PPID/environ'], { env: environmentWithoutSecrets(), encoding: 'utf8' });
const held = Object.fromEntries(${JSON.stringify(Object.keys(SECRETS))}.map((n) => [n, process.env[n]]));
writeFileSync(process.env.RESULT_FILE, JSON.stringify({ seen: task.stdout, status: task.status, held, warnings }));
`;

it('a local task finds none of the secrets in the action’s environ, and the action keeps them', async () => {
  const dir = tempRoot();
  const script = join(dir, 'action.mjs');
  const result = join(dir, 'result.json');
  await writeFile(script, SCRIPT);
  const runnerTemp = join(dir, 'runner-temp');
  spawnSync('mkdir', [runnerTemp]);
  const r = spawnSync(NODE, [script], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, RUNNER_TEMP: runnerTemp, RESULT_FILE: result, ...SECRETS },
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  const { seen, status, held, warnings } = JSON.parse(await readFile(result, 'utf8')) as {
    seen: string;
    status: number;
    held: Record<string, string>;
    warnings: string[];
  };
  expect(status).toBe(0);
  expect(seen).toMatch(/^RESULT_FILE=/m);
  expect(held).toEqual(SECRETS);
  const execve = spawnSync(NODE, ['-p', 'typeof process.execve'], { encoding: 'utf8' }).stdout.trim() === 'function';
  if (!execve) {
    // Said, not hidden: this Node cannot start the action again.
    expect(warnings).toEqual([expect.stringMatching(/cannot start the action again without its secrets/)]);
    return;
  }
  expect(warnings).toEqual([]);
  for (const [name, value] of Object.entries(SECRETS)) {
    expect(seen, name).not.toContain(value.split('\n')[1] ?? value);
    expect(seen, name).not.toContain(`${name}=`);
  }
  // The file that carried them across is gone with its directory.
  expect(await readdir(runnerTemp)).toEqual([]);
});
