/**
 * Commands that need no network load no network code: the SSH client (ssh2 and our transport
 * over it), the artifact client and GitHub's REST client are imported only by the commands that
 * reach a cluster or GitHub, and the actions write their workflow commands without
 * @actions/core (whose HTTP client loads Node's network stack). The CLI's commands load what
 * only some of them need (the controller, the executors, the summaries) when they run. Each
 * command runs from lib/'s modules under a module hook that writes down every module it
 * resolves.
 */
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { BIN, REPO, ensureBuilt, makeTemp } from '../helpers/cli.js';

/** What a command that reaches nothing must not load. */
const NETWORK = [
  '/node_modules/ssh2/',
  '/lib/exec/transport/ssh.js',
  '/node_modules/@actions/artifact/',
  '/node_modules/@actions/github/',
];

let dir: string;
let hooks: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = await makeTemp('lazy-loading');
  // The examples are read from a copy: `npm start` leaves the quickstart's state beside the
  // one in the tree, and a plan that finds a stored state reads it (with the controller).
  await mkdir(join(dir, 'examples'));
  for (const example of ['quickstart.yml', 'distill.yml'])
    await copyFile(join(REPO, 'examples', example), join(dir, 'examples', example));
  // A resolve hook (module.register) that appends each resolved URL to the file it is given.
  const resolveHooks = join(dir, 'hooks.mjs');
  await writeFile(
    resolveHooks,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(process.env.LOADED_LOG, r.url + '\\n');
  return r;
}
`,
  );
  hooks = join(dir, 'register.mjs');
  await writeFile(
    hooks,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(resolveHooks).href)});\n`,
  );
}, 300_000);

/** The modules `node args` resolved, with its exit status and output. */
async function loaded(name: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const log = join(dir, `${name}.log`);
  await writeFile(log, '');
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(hooks).href, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOADED_LOG: log, ...env },
    encoding: 'utf8',
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}`, urls: (await readFile(log, 'utf8')).split('\n') };
}

/** What the actions' lint and plan must not load: any of GitHub's toolkit, and its HTTP client. */
const TOOLKIT = ['/node_modules/@actions/', '/node_modules/undici/'];

/** What the CLI's lint and plan leave to the commands that drive, summarise or reach a campaign. */
const COMMAND_ONLY = [
  '/lib/exec/controller.js',
  '/lib/app/executors.js',
  '/lib/app/write-summary.js',
  '/lib/app/scripts.js',
];

const network = (urls: string[]) => urls.filter((u) => NETWORK.some((n) => u.includes(n)));
const among = (urls: string[], paths: string[]) => urls.filter((u) => paths.some((n) => u.includes(n)));

/**
 * `campaign args` run from lib/'s modules, one file each, rather than the command's bundle
 * (lib/bundle, which bin/campaign.js runs): the bundle keeps what is imported at run time in
 * chunks named by their content, and lib/ names each module, so what a command loads is read here.
 */
const fromModules = (args: string[]): string[] => [
  '--input-type=module',
  '-e',
  `const { main } = await import(${JSON.stringify(pathToFileURL(join(REPO, 'lib', 'cli', 'main.js')).href)}); process.exitCode = await main(${JSON.stringify(args)});`,
];

it.concurrent('campaign plan and lint load no network code', async () => {
  for (const command of ['plan', 'lint']) {
    const r = await loaded(command, fromModules([command, join(dir, 'examples', 'quickstart.yml')]));
    expect(r.status, r.out).toBe(0);
    expect(r.urls.some((u) => u.endsWith('/lib/cli/main.js'))).toBe(true);
    expect(network(r.urls)).toEqual([]);
    expect(among(r.urls, COMMAND_ONLY)).toEqual([]);
    // The command as installed, from its bundle: ssh2 is a package of its own there, and unread.
    const bundled = await loaded(`${command}-bundled`, [BIN, command, join(dir, 'examples', 'quickstart.yml')]);
    expect(bundled.status, bundled.out).toBe(0);
    expect(bundled.urls.some((u) => u.endsWith('/lib/bundle/main.js'))).toBe(true);
    expect(network(bundled.urls)).toEqual([]);
  }
});

it.concurrent('campaign status of a local state loads no network code and opens no executor', async () => {
  const work = await makeTemp('lazy-loading-status');
  const file = join(work, 'local.yml');
  await writeFile(
    file,
    `campaign: lazy-status
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
  const stateDir = join(work, 'state');
  const ran = spawnSync(process.execPath, [BIN, 'run', file, '--state-dir', stateDir], { cwd: work, encoding: 'utf8' });
  expect(ran.status, `${ran.stdout}${ran.stderr}`).toBe(0);
  const r = await loaded('status', fromModules(['status', file, '--state-dir', stateDir]));
  expect(r.status, r.out).toBe(0);
  expect(r.out).toContain('p [completed] 2/2 done');
  expect(network(r.urls)).toEqual([]);
  expect(among(r.urls, ['/lib/app/executors.js'])).toEqual([]);
});

it.concurrent('the lint action loads none of GitHub’s toolkit', async () => {
  const summary = join(dir, 'lint-summary');
  const out = join(dir, 'lint-output');
  await writeFile(out, '');
  await writeFile(summary, '');
  const r = await loaded('action-lint', [join(REPO, 'lib/action/lint-index.js')], {
    GITHUB_WORKSPACE: dir,
    GITHUB_OUTPUT: out,
    GITHUB_STEP_SUMMARY: summary,
    INPUT_MANIFESTS: 'examples/quickstart.yml',
  });
  expect(r.status, r.out).toBe(0);
  expect(await readFile(out, 'utf8')).toContain('files<<');
  expect(among(r.urls, TOOLKIT)).toEqual([]);
});

it.concurrent(
  'the action’s plan loads no network code nor GitHub’s toolkit; its check loads the SSH client',
  async () => {
    const out = join(dir, 'output');
    const summary = join(dir, 'summary');
    await writeFile(out, '');
    await writeFile(summary, '');
    const env = (command: string, manifest: string) => ({
      GITHUB_WORKSPACE: dir,
      GITHUB_OUTPUT: out,
      GITHUB_STEP_SUMMARY: summary,
      RUNNER_TEMP: dir,
      INPUT_COMMAND: command,
      INPUT_MANIFEST: manifest,
    });
    const plan = await loaded(
      'action-plan',
      [join(REPO, 'lib/action/main-index.js')],
      env('plan', 'examples/distill.yml'),
    );
    expect(plan.status, plan.out).toBe(0);
    expect(network(plan.urls)).toEqual([]);
    expect(among(plan.urls, TOOLKIT)).toEqual([]);
    // With no key anywhere (a home of its own), the check fails at the login, once ssh2 is loaded.
    const check = await loaded('action-check', [join(REPO, 'lib/action/main-index.js')], {
      ...env('check', 'examples/distill.yml'),
      HOME: dir,
    });
    expect(check.out).toContain('no SSH key');
    expect(check.urls.some((u) => u.includes('/node_modules/ssh2/'))).toBe(true);
  },
);
