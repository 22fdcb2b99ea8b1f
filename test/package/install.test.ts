/**
 * The package as a user gets it: `npm pack`, then `npm install -g` of the tarball into a scratch
 * prefix, its dependencies from the registry, then the installed `campaign` command. It must run
 * without the `@actions/*` packages (only the Action's bundles use them, inlined), stay small,
 * and install on Node 20 without an engine warning.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runProgram, useBuiltCliAndTemp } from '../helpers/cli.js';

const root = useBuiltCliAndTemp('package');

/**
 * npm's environment without what an enclosing `npm test` or `npx` passes down to its children
 * (npm_config_* would set the prefix, the log level or the registry for the install).
 */
function npmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
}

const npm = (args: string[], cwd: string, timeoutMs: number) =>
  runProgram('npm', args, { cwd, timeoutMs, env: npmEnv() });

/** True when the registry answers; otherwise the test skips, and this says so loudly. */
async function registryUp(): Promise<boolean> {
  // No retries inside npm, whose backoff would take minutes to say no; three pings instead, each
  // a fresh process: under the suite's load one npm hung 40 s while the registry answered.
  let r: { code: number | null; stdout: string; stderr: string } = { code: null, stdout: '', stderr: '' };
  for (let ping = 0; ping < 3 && r.code !== 0; ping++)
    r = await npm(['ping', '--loglevel=error', '--fetch-retries=0', '--fetch-timeout=20000'], REPO, 40_000).catch(
      (e: Error) => ({ code: null, stdout: '', stderr: e.message }),
    );
  if (r.code === 0) return true;
  const registry = execFileSync('npm', ['config', 'get', 'registry'], { env: npmEnv(), encoding: 'utf8' }).trim();
  console.warn(
    [
      '',
      `!!! test/package/install.test.ts SKIPPED: the npm registry (${registry}) cannot be reached.`,
      `!!! 'npm ping' said: ${`${r.stdout}${r.stderr}`.trim() || `exit ${r.code}`}`,
      '!!! The install test needs the registry for the dependencies; run it where it can be reached.',
      '',
    ].join('\n'),
  );
  return false;
}

interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}

describe('the package', () => {
  it('packs what the CLI needs; a global install of it runs, under 40 MB, with no engine warning', async (ctx) => {
    if (!(await registryUp())) return ctx.skip();
    const dir = root();
    // lib/ is built already (useBuiltCliAndTemp): `prepare` would rebuild it under the other
    // test files' running commands.
    const pack = await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir], REPO, 120_000);
    expect(pack.code, pack.stderr).toBe(0);
    const packed = (JSON.parse(pack.stdout) as Packed[])[0]!;
    const files = packed.files.map((f) => f.path);
    for (const f of [
      'package.json',
      'bin/campaign.js',
      'lib/cli/main.js',
      'lib/bundle/main.js',
      'schema/campaign.schema.json',
      'README.md',
      'LICENSE',
      'CHANGELOG.md',
    ])
      expect(files).toContain(f);
    expect(files.filter((f) => /^(src|test|dist|lib\/action)\/|\.map$/.test(f))).toEqual([]);

    const prefix = join(dir, 'prefix');
    const install = await npm(
      // What npm's cache holds (npm ci filled it) is not asked for again: one fetch fewer to stall.
      [
        'install',
        '-g',
        '--prefix',
        prefix,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--loglevel=warn',
        join(dir, packed.filename),
      ],
      dir,
      240_000,
    );
    const said = `${install.stdout}${install.stderr}`;
    expect(install.code, said).toBe(0);
    expect(said).not.toContain('EBADENGINE');

    const installed = join(prefix, 'lib', 'node_modules', '@campaign-tools', 'campaign');
    expect(existsSync(join(installed, 'node_modules', '@actions'))).toBe(false);
    const bytes = Number(execFileSync('du', ['-sb', prefix], { encoding: 'utf8' }).split('\t')[0]);
    console.log(
      `package: tarball ${packed.size} bytes (${packed.files.length} files, ${packed.unpackedSize} unpacked); ` +
        `installed tree ${bytes} bytes (${(bytes / 1e6).toFixed(1)} MB)`,
    );
    expect(bytes).toBeLessThan(40e6);

    // Every module of the CLI loads at start (no dynamic imports), so --help proves the import
    // graph is complete without the devDependencies; init and plan then run it for real.
    const campaign = join(prefix, 'bin', 'campaign');
    const help = await runProgram(campaign, ['--help'], { cwd: dir });
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^usage: campaign /);
    const version = await runProgram(campaign, ['--version'], { cwd: dir });
    const pkg = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as {
      version: string;
      scripts: Record<string, string>;
    };
    const pkgScripts = pkg.scripts;
    expect(version.stdout.trim()).toContain(pkg.version);
    const init = await runProgram(campaign, ['init', 'sweep.yml'], { cwd: dir });
    expect(init.code, init.stderr).toBe(0);
    const plan = await runProgram(campaign, ['plan', 'sweep.yml'], { cwd: dir });
    expect(plan.code, plan.stderr).toBe(0);

    // Packed for a release (prepack), the package names the action at the commit it came from,
    // never by a tag that can be moved.
    expect(pkgScripts.prepack).toBe('bash scripts/release-stamp');
    execFileSync('bash', [join(REPO, 'scripts', 'release-stamp'), installed]);
    const head = execFileSync('git', ['-C', REPO, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    await cp(join(REPO, 'examples', 'distill.yml'), join(dir, 'distill.yml'));
    const workflow = await runProgram(campaign, ['workflow', 'distill.yml', '--stdout'], { cwd: dir });
    expect(workflow.code, workflow.stderr).toBe(0);
    expect(workflow.stdout).toContain(`uses: campaign-tools/campaign@${head} # v${pkg.version}`);
    expect(workflow.stdout).toContain(`uses: campaign-tools/campaign/lint@${head} # v${pkg.version}`);
    expect(workflow.stdout).not.toMatch(/campaign-tools\/campaign(\/lint)?@v/);
  }, 420_000);
});
