/**
 * The environment a task runs in (render/environment.ts): which one a phase gets, and its
 * activation run by real bash inside the rendered task script, against the real Lmod (module
 * files this test writes), the conda stand-in (test/fixtures/conda-stand-in, conda's shell hook
 * protocol) and a real venv; shellcheck over the scripts; and a property test that no value
 * changes what the script runs.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { classifyEnd } from '../../src/judge/attempt-end.js';
import { environment as environmentSchema, manifest as manifestSchema } from '../../src/manifest/schema.js';
import type { Environment } from '../../src/manifest/schema.js';
import { environmentFor } from '../../src/manifest/environment.js';
import { environmentLines, renderEnvironmentProbe } from '../../src/render/environment.js';
import { GATE_EXIT, GATE_LINE, renderTaskScript, type TaskScriptInput } from '../../src/render/task-script.js';

const root = mkdtempSync(join(tmpdir(), 'campaign-environment-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const STAND_IN = resolve(import.meta.dirname, '..', 'fixtures', 'conda-stand-in', 'conda');
const LMOD = existsSync('/usr/share/lmod/lmod/init/bash');
if (!LMOD) {
  console.warn('\n!!! environment tests with modules SKIPPED: no Lmod here (scripts/ensure-tools installs it).\n');
}

let counter = 0;
const fresh = (label: string): string => {
  const dir = join(root, `${label}-${counter++}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};

// ---------------------------------------------------------------------------------------------
// Module files, a conda install and a venv, as a site and a user would have them.

const modulepath = join(root, 'modulefiles');
const modbin = join(root, 'modbin');
mkdirSync(join(modulepath, 'campaign-tool'), { recursive: true });
mkdirSync(join(modulepath, 'campaign-broken'), { recursive: true });
mkdirSync(modbin, { recursive: true });
writeFileSync(join(modbin, 'campaign-tool-cmd'), '#!/bin/sh\necho "tool says $CAMPAIGN_TOOL_HOME"\n');
chmodSync(join(modbin, 'campaign-tool-cmd'), 0o755);
writeFileSync(
  join(modulepath, 'campaign-tool', '1.0.lua'),
  `setenv("CAMPAIGN_TOOL_HOME", "/opt/tool-1.0")\nprepend_path("PATH", "${modbin}")\n`,
);
writeFileSync(join(modulepath, 'campaign-tool', '2.0.lua'), 'setenv("CAMPAIGN_TOOL_HOME", "/opt/tool-2.0")\n');
writeFileSync(join(modulepath, 'campaign-tool', '3.11.4.lua'), 'setenv("CAMPAIGN_TOOL_HOME", "/opt/tool-3.11.4")\n');
writeFileSync(
  join(modulepath, 'campaign-broken', '1.0.lua'),
  'LmodError("this build of campaign-broken is retired")\n',
);

/** A home with conda (the stand-in) installed at ~/miniconda3 and one environment, `distill`. */
function condaHome(): string {
  const home = fresh('home');
  mkdirSync(join(home, 'miniconda3', 'bin'), { recursive: true });
  copyFileSync(STAND_IN, join(home, 'miniconda3', 'bin', 'conda'));
  chmodSync(join(home, 'miniconda3', 'bin', 'conda'), 0o755);
  const bin = join(home, 'miniconda3', 'envs', 'distill', 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'distill-python'), '#!/bin/sh\necho "python of distill"\n');
  chmodSync(join(bin, 'distill-python'), 0o755);
  return home;
}

// ---------------------------------------------------------------------------------------------
// Running a task script

interface Run {
  status: number | null;
  log: string;
}

const baseInput: TaskScriptInput = { campaign: 'c', index: 0, setup: [], command: 'true', inputs: 0 };

/** The task script of `input` run by real bash in a fresh workdir, with only the variables a batch shell has and `env`. */
function runTask(input: Partial<TaskScriptInput>, env: Record<string, string> = {}, workdir = fresh('work')): Run {
  const script = join(root, `task-${counter++}.sh`);
  writeFileSync(script, renderTaskScript({ ...baseInput, ...input }));
  const r = spawnSync('bash', [script], {
    cwd: root,
    // stdin is not a socket: bash would take itself for an rshd child and read ~/.bashrc.
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    env: {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: fresh('home'),
      CAMPAIGN_TASK: 'p/a',
      CAMPAIGN_WORKDIR: workdir,
      CAMPAIGN_CAMPAIGN: 'c',
      ...env,
    },
  });
  if (r.error) throw r.error;
  return { status: r.status, log: r.stdout + r.stderr };
}

/** What the observer makes of a run: the class and reason a state records. */
const judged = (r: Run) =>
  classifyEnd({
    marker: { code: r.status ?? -1, at: new Date().toISOString(), cause: 'exit' },
    log: r.log,
    walltimeSeconds: 60,
    oomPatterns: [],
  });

function expectGateFailure(r: Run, reason: RegExp): void {
  expect(r.status, r.log).toBe(GATE_EXIT);
  const gate = GATE_LINE.exec(r.log);
  expect(gate?.[1], r.log).toBe('environment');
  expect(gate![2]).toMatch(reason);
  expect(judged(r)).toMatchObject({ cls: 'gate', reason: expect.stringMatching(/^gate environment: /) });
  // The setup and the command never ran.
  expect(r.log).not.toContain('setup ran');
  expect(r.log).not.toContain('command ran');
}

const probe = { setup: ['echo "setup ran"'] };

// ---------------------------------------------------------------------------------------------

describe('which environment a phase gets', () => {
  const manifestWith = (top: unknown, phase: unknown) =>
    manifestSchema.parse({
      campaign: 'c',
      cluster: { executor: 'local' },
      workdir: 'w',
      ...(top === undefined ? {} : { environment: top }),
      phases: [{ name: 'p', command: 'true', ...(phase === undefined ? {} : { environment: phase }) }],
    });
  const resolved = (top: unknown, phase: unknown) => {
    const m = manifestWith(top, phase);
    return environmentFor(m, m.phases[0]!);
  };

  it('is the campaign’s when the phase sets none, and none when neither does', () => {
    expect(resolved(undefined, undefined)).toBeUndefined();
    expect(resolved({}, {})).toBeUndefined();
    expect(resolved({ modules: ['a/1'], conda: 'x' }, undefined)).toEqual({ modules: ['a/1'], conda: 'x' });
  });

  it('takes each key the phase sets, and the phase’s conda or venv replaces both of the campaign’s', () => {
    expect(resolved({ modules: ['a/1'], conda: 'x' }, { modules: ['b/2'] })).toEqual({ modules: ['b/2'], conda: 'x' });
    expect(resolved({ modules: ['a/1'], conda: 'x' }, { venv: '.venv' })).toEqual({ modules: ['a/1'], venv: '.venv' });
    expect(resolved({ venv: '.venv' }, { conda: 'y' })).toEqual({ conda: 'y' });
    expect(resolved({ modules: ['a/1'] }, { modules: [] })).toBeUndefined();
  });

  it('refuses a name that the module system, conda or bash would read as an option', () => {
    expect(() => environmentLines({ modules: ['--force'] })).toThrow(/environment\.modules "--force" starts with "-"/);
    expect(() => environmentLines({ conda: '-n' })).toThrow(/environment\.conda/);
    // A venv is always made a whole path: one starting with "-" is a directory like any other.
    expect(() => environmentLines({ venv: '-x' })).not.toThrow();
  });
});

describe.skipIf(!LMOD)('modules, with the real Lmod', () => {
  const env = { MODULEPATH: modulepath };

  it('finds Lmod in a batch shell that has no module command, loads the module, and the command sees it', () => {
    const r = runTask(
      {
        ...probe,
        environment: { modules: ['campaign-tool/1.0'] },
        command: 'echo "home=$CAMPAIGN_TOOL_HOME"; campaign-tool-cmd',
      },
      env,
    );
    expect(r.status, r.log).toBe(0);
    expect(r.log).toContain('[campaign] gate environment: ok');
    expect(r.log).toContain('home=/opt/tool-1.0');
    expect(r.log).toContain('tool says /opt/tool-1.0');
    // Activated before the setup.
    expect(r.log.indexOf('gate environment: ok')).toBeLessThan(r.log.indexOf('setup ran'));
  });

  it('purges what the shell had loaded before loading the list', () => {
    const r = runTask(
      {
        // The shell arrives with a module loaded, as a job from a login shell does.
        prelude: ['. /usr/share/lmod/lmod/init/bash', 'module load campaign-tool/2.0 2>/dev/null'],
        environment: { modules: ['campaign-tool/1.0'] },
        command: 'echo "loaded=$LOADEDMODULES"',
      },
      env,
    );
    expect(r.status, r.log).toBe(0);
    expect(r.log).toContain('loaded=campaign-tool/1.0\n');
  });

  it('a module that does not exist fails the gate environment with Lmod’s own message', () => {
    const r = runTask({ ...probe, environment: { modules: ['campaign-tool/1.0', 'campaign-nowhere/9'] } }, env);
    expectGateFailure(
      r,
      /^ module load campaign-nowhere\/9: Lmod has detected the following error: .*unknown.*"campaign-nowhere\/9"/,
    );
  });

  it('a module file that raises an error fails with that error', () => {
    const r = runTask({ ...probe, environment: { modules: ['campaign-broken'] } }, env);
    expectGateFailure(
      r,
      /module load campaign-broken: Lmod has detected the following error: this build of campaign-broken is retired/,
    );
  });

  it('a module replaced by a later one of the list (Lmod swaps it, returns 0 and only notes it) fails', () => {
    const r = runTask({ ...probe, environment: { modules: ['campaign-tool/1.0', 'campaign-tool/2.0'] } }, env);
    expectGateFailure(r, /campaign-tool\/1\.0 is not loaded once the whole list is: .*\(loaded: campaign-tool\/2\.0\)/);
  });

  it('a version Lmod completes (campaign-tool/3.11 loads campaign-tool/3.11.4) counts as loaded', () => {
    const r = runTask(
      { environment: { modules: ['campaign-tool/3.11'] }, command: 'echo "loaded=$LOADEDMODULES"' },
      env,
    );
    expect(r.status, r.log).toBe(0);
    expect(r.log).toContain('loaded=campaign-tool/3.11.4\n');
  });

  it('no module system at all fails with where it was looked for', () => {
    // A module command that is not there: the init files are found, so hide them behind a function that fails.
    const script = join(root, `nomod-${counter++}.sh`);
    const lines = environmentLines({ modules: ['x'] }).map((l) =>
      l.replace(/for campaign_env_init in .*; do/, 'for campaign_env_init in /nowhere/init; do'),
    );
    writeFileSync(
      script,
      ['campaign_fail() { printf \'[campaign] gate %s: FAIL %s\\n\' "$1" "$2"; exit 97; }', ...lines].join('\n'),
    );
    const r = spawnSync('bash', [script], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
    expect(r.status).toBe(97);
    expect(r.stdout).toMatch(
      /gate environment: FAIL no module command: .*\/etc\/profile\.d\/lmod\.sh, \$LMOD_PKG\/init\/bash/,
    );
  });

  it('leaves no temporary file behind, whether the gate passes or fails', () => {
    const tmp = fresh('tmp');
    runTask({ environment: { modules: ['campaign-tool/1.0'] } }, { ...env, TMPDIR: tmp });
    runTask({ environment: { modules: ['campaign-nowhere'] } }, { ...env, TMPDIR: tmp });
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe('what is loaded decides, whatever the module command returns', () => {
  /** A module command, exported as a job inherits it, that loads nothing: only says so and returns 0. */
  const silent = (isLoaded: string) => ({
    'BASH_FUNC_module%%': `() { case "$1" in load) echo "module: $2 needs a licence token" >&2 ;; is-loaded) ${isLoaded} ;; esac; return 0; }`,
  });

  it('a load that returns 0 and loads nothing fails, with what the module command said', () => {
    const r = runTask({ ...probe, environment: { modules: ['licensed/1.0'] } }, silent('return 1'));
    expectGateFailure(
      r,
      /^ module load licensed\/1\.0 returned 0 but licensed\/1\.0 is not loaded: module: licensed\/1\.0 needs/,
    );
  });

  it('without is-loaded (Environment Modules 3.2), LOADEDMODULES says what is loaded', () => {
    const r = runTask(
      { environment: { modules: ['python'] }, command: 'echo ran' },
      { ...silent('echo "ERROR: Invalid command is-loaded" >&2; return 1'), LOADEDMODULES: 'gcc/12:python/3.11' },
    );
    expect(r.status, r.log).toBe(0);
    expect(r.log).toContain('[campaign] gate environment: ok');
  });
});

describe('conda, with the stand-in', () => {
  it('finds conda at ~/miniconda3, activates the environment, and the command sees it', () => {
    const home = condaHome();
    const r = runTask(
      {
        ...probe,
        environment: { conda: 'distill' },
        command: 'echo "env=$CONDA_DEFAULT_ENV path=$PATH"; distill-python',
      },
      { HOME: home },
    );
    expect(r.status, r.log).toBe(0);
    expect(r.log).toContain('[campaign] gate environment: ok');
    expect(r.log).toContain(`env=distill path=${home}/miniconda3/envs/distill/bin:`);
    expect(r.log).toContain('python of distill');
  });

  it('takes $CONDA_EXE first, and a path (~ for the home) for an environment', () => {
    const home = condaHome();
    const other = join(condaHome(), 'miniconda3', 'bin', 'conda');
    const r = runTask(
      { environment: { conda: '~/miniconda3/envs/distill' }, command: 'echo "exe=$CONDA_EXE prefix=$CONDA_PREFIX"' },
      { HOME: home, CONDA_EXE: other },
    );
    expect(r.status, r.log).toBe(0);
    expect(r.log).toContain(`exe=${other} prefix=${home}/miniconda3/envs/distill\n`);
  });

  it('an environment that does not exist fails the gate environment with conda’s message', () => {
    const r = runTask({ ...probe, environment: { conda: 'nowhere' } }, { HOME: condaHome() });
    expectGateFailure(
      r,
      /^ conda activate nowhere: EnvironmentNameNotFound: Could not find conda environment: nowhere You can list/,
    );
  });

  it('no conda anywhere fails with where it was looked for', () => {
    const r = runTask({ ...probe, environment: { conda: 'distill' } });
    expectGateFailure(r, /no conda: not in \$CONDA_EXE, not on the PATH, not at ~\/miniconda3\/bin\/conda/);
  });
});

describe('venv', () => {
  const hasVenv = spawnSync('python3', ['-m', 'venv', '--help'], { stdio: 'ignore' }).status === 0;

  it.skipIf(!hasVenv)('activates a real venv relative to the workdir, and the command runs its python', () => {
    const workdir = fresh('work');
    const made = spawnSync('python3', ['-m', 'venv', '--without-pip', join(workdir, '.venv')], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    const r = runTask(
      { ...probe, environment: { venv: '.venv' }, command: 'echo "venv=$VIRTUAL_ENV"; command -v python' },
      {},
      workdir,
    );
    expect(r.status, r.log).toBe(0);
    expect(r.log).toContain('[campaign] gate environment: ok');
    expect(r.log).toContain(`venv=${workdir}/.venv\n${workdir}/.venv/bin/python\n`);
  });

  it('a venv that is not there fails the gate environment with the path it looked at', () => {
    const workdir = fresh('work');
    const r = runTask({ ...probe, environment: { venv: 'envs/missing' } }, {}, workdir);
    expectGateFailure(r, new RegExp(`no virtual environment at ${workdir}/envs/missing \\(no bin/activate there\\)`));
  });
});

describe('the probe campaign check runs', () => {
  const runProbe = (env: Environment, workdir: string, vars: Record<string, string>) => {
    const script = join(root, `probe-${counter++}.sh`);
    writeFileSync(script, renderEnvironmentProbe(env, workdir));
    return spawnSync('bash', [script], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin', HOME: fresh('home'), ...vars },
    });
  };

  it.skipIf(!LMOD)('prints one ok line and exits 0, or one FAIL line with the reason and exits 1', () => {
    const ok = runProbe({ modules: ['campaign-tool/1.0'] }, '/nowhere', { MODULEPATH: modulepath });
    expect([ok.status, ok.stdout]).toEqual([0, '[campaign] gate environment: ok\n']);
    const bad = runProbe({ modules: ['campaign-nowhere'] }, '/nowhere', { MODULEPATH: modulepath });
    expect(bad.status).toBe(1);
    expect(bad.stdout.split('\n')).toHaveLength(2);
    expect(GATE_LINE.exec(bad.stdout)?.[2]).toMatch(
      /^ module load campaign-nowhere: Lmod has detected the following error/,
    );
  });

  it('looks for a relative venv in the workdir, and says so when it cannot enter it', () => {
    const workdir = fresh('work');
    mkdirSync(join(workdir, 'v', 'bin'), { recursive: true });
    writeFileSync(join(workdir, 'v', 'bin', 'activate'), 'export VIRTUAL_ENV=here\n');
    expect(runProbe({ venv: 'v' }, workdir, {}).stdout).toBe('[campaign] gate environment: ok\n');
    const gone = runProbe({ venv: 'v' }, join(workdir, 'gone'), {});
    expect(gone.status).toBe(1);
    expect(gone.stdout).toContain(`FAIL cannot enter the workdir ${workdir}/gone, where the venv v is looked for`);
  });
});

// ---------------------------------------------------------------------------------------------
// shellcheck and values

describe('the rendered scripts', () => {
  const ENVIRONMENTS: Environment[] = [
    { modules: ['StdEnv/2023', 'python/3.11', 'cuda/12.2'], conda: 'distill' },
    { modules: ['gcc/12.3'], venv: '~/venvs/x' },
    { conda: '/opt/envs/a+b' },
    { venv: '.venv' },
    { venv: '/abs/venv' },
  ];

  it('pass shellcheck -S warning, in a task script and as a probe', () => {
    const dir = fresh('sc');
    const files = ENVIRONMENTS.flatMap((environment, i) => {
      const task = join(dir, `task${i}.sh`);
      const probeFile = join(dir, `probe${i}.sh`);
      writeFileSync(task, renderTaskScript({ ...baseInput, environment, setup: ['echo hi'], gpus: 1, oneNode: true }));
      writeFileSync(probeFile, renderEnvironmentProbe(environment, 'work dir'));
      return [task, probeFile];
    });
    const r = spawnSync('shellcheck', ['-s', 'bash', '-S', 'warning', ...files], { encoding: 'utf8' });
    expect(r.error).toBeUndefined();
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('a manifest without an environment renders no environment lines', () => {
    expect(renderTaskScript(baseInput)).not.toContain('environment');
  });

  /**
   * Each value reaches the module command, conda or the venv's path as exactly one word,
   * unchanged, and nothing else runs: stand-ins record their arguments, a canary file would
   * show code run from a value. Values are drawn both as the schema accepts them and as any
   * text at all (the renderer must not rely on the schema).
   */
  it('delivers any module, conda or venv name as one word and runs nothing from it', () => {
    const dir = fresh('prop');
    const canary = join(dir, 'canary');
    // conda's hook defines a conda function: this one records its arguments.
    const conda = join(dir, 'conda');
    writeFileSync(conda, `#!/bin/sh\ncat <<'EOF'\nconda() { printf '%s\\0' "$@" > "$CALLS/conda"; }\nEOF\n`);
    chmodSync(conda, 0o755);
    const hostile = [
      '$(touch CANARY)',
      '`touch CANARY`',
      "'; touch CANARY; '",
      '"; touch CANARY; "',
      'a\ntouch CANARY',
    ];
    const anyText = fc.oneof(
      fc.constantFrom(...hostile.map((h) => h.replaceAll('CANARY', canary)), '$HOME', '~', '*', 'a b', '..'),
      fc.string({
        unit: fc.constantFrom(...'ab-_./~+ $`\'"\\;&|()<>*?[]{}!#\n\t=%^,:@é'),
        minLength: 1,
        maxLength: 12,
      }),
    );
    const schemaName = fc.stringMatching(/^[A-Za-z0-9_.+/~-]{1,12}$/);
    const name = fc.oneof(schemaName, anyText);
    const notAnOption = name.filter((s) => !s.startsWith('-'));
    const arbEnv = fc.record({
      modules: fc.array(notAnOption, { minLength: 1, maxLength: 3 }),
      // [true, a conda name] or [false, a venv path]: a venv may start with "-", a conda name may not.
      python: fc.option(fc.oneof(fc.tuple(fc.constant(true), notAnOption), fc.tuple(fc.constant(false), name))),
    });
    fc.assert(
      fc.property(arbEnv, ({ modules, python }) => {
        const env: Environment = {
          modules,
          ...(python ? (python[0] ? { conda: python[1] } : { venv: python[1] }) : {}),
        };
        const calls = fresh('calls');
        const workdir = fresh('w');
        const home = fresh('h');
        const r = runTask(
          { environment: env, command: 'echo "command ran"' },
          {
            CALLS: calls,
            CONDA_EXE: conda,
            HOME: home,
            // An exported module function, as a job inherits it from a login shell: it records each call.
            'BASH_FUNC_module%%':
              '() { campaign_n=$((${campaign_n:-0} + 1)); printf "%s\\0" "$@" > "$CALLS/module.$campaign_n"; }',
          },
          workdir,
        );
        expect(existsSync(canary), r.log).toBe(false);
        const call = (file: string): string[] => readFileSync(join(calls, file), 'utf8').split('\0').slice(0, -1);
        const moduleCalls = readdirSync(calls)
          .filter((f) => f.startsWith('module.'))
          .sort((a, b) => Number(a.slice(7)) - Number(b.slice(7)))
          .map(call);
        expect(moduleCalls[0], r.log).toEqual(['purge']);
        expect(
          moduleCalls.filter((c) => c[0] === 'load'),
          r.log,
        ).toEqual(modules.map((m) => ['load', m]));
        if (env.conda !== undefined) {
          expect(call('conda'), r.log).toEqual(['activate', env.conda]);
          expect(r.log).toContain('[campaign] gate environment: ok');
          expect(r.log).toContain('command ran');
        }
        if (env.venv !== undefined) {
          const v = env.venv;
          const at =
            v === '~' ? home : v.startsWith('~/') ? `${home}/${v.slice(2)}` : v.startsWith('/') ? v : `${workdir}/${v}`;
          expect(r.log).toContain(
            `[campaign] gate environment: FAIL no virtual environment at ${at} (no bin/activate there)`,
          );
        }
      }),
      { numRuns: 60 },
    );
  });

  it('the schema refuses what could break a word, so the names above are the hard cases', () => {
    for (const bad of ['a b', '$(x)', 'a;b', "it's", 'a"b', '`x`']) {
      expect(environmentSchema.safeParse({ modules: [bad] }).success).toBe(false);
      expect(environmentSchema.safeParse({ conda: bad }).success).toBe(false);
    }
  });
});
