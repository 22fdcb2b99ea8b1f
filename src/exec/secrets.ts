/**
 * The secrets campaign is given through its environment, and the environment it hands on:
 * tasks, batch jobs and local commands need none of them, and anything a task prints (`env`
 * in a debug line) would put them in its log.
 */

/** The SSH private key's text (a CI secret). */
export const KEY_ENV = 'CAMPAIGN_SSH_KEY';
/** The SSH private key's path. */
export const KEY_FILE_ENV = 'CAMPAIGN_SSH_KEY_FILE';
/** The passphrase of an encrypted key. */
export const PASSPHRASE_ENV = 'CAMPAIGN_SSH_PASSPHRASE';

const SECRET_ENV = new Set([KEY_ENV, KEY_FILE_ENV, PASSPHRASE_ENV, 'GITHUB_TOKEN', 'GH_TOKEN']);

/**
 * What a runner or campaign holds that no task needs, by name: the SSH key and passphrase (and
 * where the key is), the tokens, every action input (`INPUT_SSH-KEY`, `INPUT_TOKEN`, …) and the
 * runner's own service credentials (`ACTIONS_RUNTIME_TOKEN`, `ACTIONS_ID_TOKEN_REQUEST_TOKEN`, …).
 */
export function isSecretName(name: string): boolean {
  return SECRET_ENV.has(name) || name.startsWith('INPUT_') || name.startsWith('ACTIONS_');
}

/**
 * This process's environment without the secrets, for the local executor's tasks and checks.
 * A deny-list is enough there, and an allow-list would protect nothing: those tasks run on this
 * machine as this user while campaign watches them, so they could read its environment
 * (/proc/PID/environ) anyway; they are what a user of `campaign run` expects to inherit (an
 * activated venv, CUDA_VISIBLE_DEVICES); and on a runner RUNNER_TRACKING_ID lets the runner kill
 * a task left over when its job ends.
 */
export function environmentWithoutSecrets(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !isSecretName(name)));
}

/**
 * The names a login shell of the user has, and nothing about the runner or its job: who and
 * where (HOME, USER, LOGNAME, SHELL), the search paths a site's profile and default modules set
 * (PATH, LD_LIBRARY_PATH), locale and time zone, the module system (Lmod and Environment
 * Modules: where modules are, what is loaded, so that `module purge` in a job undoes it, and the
 * exported `module`/`ml` functions), and SLURM_CONF for a cluster not at the default place.
 */
const LOGIN_NAME =
  /^(HOME|USER|LOGNAME|SHELL|PATH|LD_LIBRARY_PATH|LANG|LANGUAGE|LC_\w+|TZ|SLURM_CONF|MODULEPATH|MODULEPATH_ROOT|MODULESHOME|LOADEDMODULES|_LMFILES_|LMOD_\w+|__LMOD_REF_COUNT_\w+|_ModuleTable\w*|MODULES_\w+|__MODULES_\w+|BASH_FUNC_(module|ml|_module_raw)%%)$/;

/**
 * This process's environment cut to what a login shell of the user would see, for the commands
 * LocalTransport runs for Slurm: sbatch, squeue and sacct on a login node that is this machine
 * (a self-hosted runner), and Slurm's check commands. An allow-list, not the deny-list:
 * sbatch hands the whole environment it is run in to the batch job (its default --export=ALL),
 * where it outlives the runner's job, is printed by any `env` in a task's log and is kept by
 * Slurm with the job (its state, and its database under AccountingStoreFlags=job_env); a runner
 * holds GITHUB_*, RUNNER_*, ACTIONS_* and INPUT_* and whatever secret a workflow step put in its
 * env under a name no deny-list can know. It also keeps SBATCH_*, SQUEUE_* and SACCT_* out, which
 * would change campaign's own submissions and queries behind the manifest's back. Not
 * `sbatch --export=NONE`: that has slurmd rebuild a login environment on the node
 * (--get-user-env), which needs root there and differs from site to site.
 */
export function loginEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => LOGIN_NAME.test(name)));
}
