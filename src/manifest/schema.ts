/**
 * The manifest language. Every type the rest of the code uses for a manifest comes from
 * here through `z.infer`; the published JSON Schema is generated from the same objects.
 *
 * It is one concern in one module, though long: the language's keys with their descriptions,
 * read top to bottom as a reference, each object built from the ones above it. Its parsers and
 * checks live beside it (units.ts, pattern.ts, slurm-args.ts, grid.ts).
 */
import { z } from 'zod';
import type { Grid } from './grid.js';
import { patternError } from './pattern.js';
import { slurmArgProblem } from './slurm-args.js';
import { parseDuration, parseSize } from './units.js';

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** A regular expression RE2 compiles (see pattern.ts); the issue is RE2's own reason. */
const pattern = z.string().superRefine((p, ctx) => {
  const error = patternError(p);
  if (error !== undefined)
    ctx.addIssue({ code: 'custom', message: `not a regular expression campaign can match: ${error}` });
});

export const duration = z
  .union([z.string(), z.number().nonnegative()])
  .refine((v) => parseDuration(v) !== undefined, {
    message: 'not a duration: write e.g. 90s, 179ms, 0.5s, 3h, 1h30m, 2d or 1-00:00:00',
  })
  .describe('A duration: 90s, 179ms, 0.5s, 3h, 1h30m, 2d, or Slurm form 1-00:00:00; a number is seconds.');

export const size = z
  .union([z.string(), z.number().nonnegative()])
  .refine((v) => parseSize(v) !== undefined, {
    message: 'not a size: write e.g. 500M, 32G or 500MiB',
  })
  .describe('A size: 500M, 32G, 500MiB; a number is bytes.');

const scalar = z.union([z.string(), z.number(), z.boolean()]);
export type Scalar = z.infer<typeof scalar>;

/**
 * A value that may differ per stratum: either one value, or a map from selectors such as
 * `N=384` or `N=384,n=50000` to values.
 */
function perStratum<T extends z.ZodType>(value: T) {
  return z.union([
    value,
    z
      .record(z.string().regex(/^\s*[A-Za-z_][A-Za-z0-9_]*=[^,]*(,\s*[A-Za-z_][A-Za-z0-9_]*=[^,]*)*$/), value)
      .describe('Per stratum: keys are selectors such as "N=384" or "N=384,n=50000".'),
  ]);
}

/** A Slurm name (account, QOS, reservation, GPU type): one word sbatch reads as it is. */
const slurmWord = z.string().regex(/^[A-Za-z0-9_.+:-]+$/, 'letters, digits, "_", ".", "+", ":" or "-" only');

export const resources = z
  .strictObject({
    gpus: perStratum(z.number().int().nonnegative()).optional().describe('GPUs per task (on one node).'),
    gpu_type: perStratum(slurmWord)
      .optional()
      .describe('The GPU model, as the cluster types its gres (e.g. h100, a100): sbatch --gres=gpu:<type>:<gpus>.'),
    cpus: perStratum(z.number().int().positive()).optional().describe('CPUs per task.'),
    mem: perStratum(size).optional().describe('Memory per task (sbatch --mem).'),
    mem_per_cpu: perStratum(size)
      .optional()
      .describe('Memory per CPU instead of per task (sbatch --mem-per-cpu); not with mem.'),
    nodes: z.literal(1).optional().describe('Always 1: a task never spans nodes.'),
    partition: z.string().optional().describe('Force a partition instead of choosing by walltime.'),
    account: perStratum(slurmWord).optional().describe('The Slurm account (sbatch --account), over cluster.account.'),
    qos: perStratum(slurmWord).optional().describe('The quality of service (sbatch --qos).'),
    constraint: perStratum(
      z.string().regex(/^[A-Za-z0-9_.&|,*[\]()!:-]+$/, 'a Slurm feature expression without blanks or quotes'),
    )
      .optional()
      .describe('Node features the job needs, as sbatch --constraint takes them (e.g. cascade, "v100|a100").'),
    reservation: perStratum(slurmWord).optional().describe('A reservation to run in (sbatch --reservation).'),
    exclude: perStratum(z.string().regex(/^[A-Za-z0-9_.,[\]-]+$/, 'a Slurm host list such as node[1-3],node7'))
      .optional()
      .describe('Nodes the job must not run on, as a Slurm host list (sbatch --exclude), e.g. node[1-3],node7.'),
  })
  .refine((r) => r.mem === undefined || r.mem_per_cpu === undefined, {
    message: 'give mem or mem_per_cpu, not both (Slurm takes one)',
  })
  .describe('What one task asks for.');
export type Resources = z.infer<typeof resources>;

const retryClass = z.strictObject({
  attempts: z.number().int().nonnegative().describe('Retries after the first attempt.'),
  delay: duration.optional().describe('Wait before retrying.'),
});

export const retry = z
  .strictObject({
    out_of_memory: retryClass
      .extend({ mem_factor: z.number().min(1).optional().describe('Multiply memory per retry.') })
      .optional()
      .describe('A task killed for memory (Slurm OUT_OF_MEMORY, an out-of-memory log, exit 137).'),
    node_fail: retryClass.optional().describe('A node that failed under the task (Slurm NODE_FAIL).'),
    preempted: retryClass.optional().describe('A job stopped for one of higher priority (Slurm PREEMPTED).'),
    timeout: retryClass
      .extend({
        time_factor: z
          .number()
          .min(1)
          .optional()
          .describe(
            "Multiply the walltime per retry, up to the partitions' cap, for a phase without a checkpoint (default 1: the same walltime).",
          ),
      })
      .optional()
      .describe(
        "A task that reached its walltime: continued from its checkpoint with the remaining work's walltime where the phase declares `checkpoint`, else retried (walltime times `time_factor`).",
      ),
    failed: retryClass.optional().describe('A non-zero exit that is none of the above.'),
    lost: retryClass.optional().describe('A task that vanished (its process or record is gone).'),
    shortfall: retryClass
      .optional()
      .describe(
        'A task granted less than a part of its definition asks (fewer GPUs): its output is not its result (default 2 retries).',
      ),
  })
  .describe('How many times each class of failure is retried.');
export type Retry = z.infer<typeof retry>;

const partition = z.strictObject({
  name: z.string().min(1).describe('The partition, as sinfo names it.'),
  max_time: duration.describe('The partition MaxTime.'),
});

const common = {
  name: z.string().optional().describe('The name rates are measured on (cost.measured_on).'),
  max_parallel: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("The campaign's tasks running at once, all phases, strata and arrays together."),
};

const localCluster = z.strictObject({
  executor: z.literal('local').describe('Tasks run as processes on this machine.'),
  ...common,
});

/** How the host a login reaches is verified: one of the two, or both (each must agree). */
const hostKey = {
  host_key: z
    .string()
    .regex(/^SHA256:[A-Za-z0-9+/]{43}=?$/)
    .optional()
    .describe('The host key pinned by its SHA256 fingerprint, as `ssh-keygen -lf` prints it (e.g. SHA256:abc…).'),
  known_hosts: z
    .string()
    .optional()
    .describe('A known_hosts file (relative to the manifest) that lists the host key, as OpenSSH writes it.'),
};

/** How a login is reached: the target or a Host of the SSH config, through bastions, each verified. */
const sshAccess = {
  ...hostKey,
  ssh_config: z
    .string()
    .optional()
    .describe(
      'The OpenSSH client config a login alias is looked up in (relative to the manifest; default ~/.ssh/config).',
    ),
  jump: z
    .array(
      z
        .strictObject({
          login: z.string().min(1).describe('user@host:port of the bastion, or a Host of the SSH config.'),
          ...hostKey,
        })
        .describe('One bastion, verified like the login.'),
    )
    .optional()
    .describe(
      "Bastions to pass through in order (as ProxyJump), each with its own host key; overrides the config's ProxyJump.",
    ),
};

const slurmCluster = z.strictObject({
  executor: z.literal('slurm').describe('Tasks run as Slurm job arrays, submitted on the login node.'),
  ...common,
  login: z
    .string()
    .optional()
    .describe('user@host:port of the login node, or a Host of the SSH config; omit to run sbatch here.'),
  ...sshAccess,
  restricted: z
    .union([z.boolean(), z.literal('slurm')])
    .optional()
    .describe(
      "The login is an automation node: its key's forced command allows only plain Slurm, listing and file-transfer commands, no shell; `slurm`: Slurm's and listing commands, no file transfer (docs/SLURM.md, Automation nodes).",
    ),
  account: z.string().optional().describe('The Slurm account jobs are charged to (sbatch --account).'),
  partitions: z
    .array(partition)
    .min(1)
    .optional()
    .describe(
      "The partitions walltimes are fitted into, with each one's MaxTime (default: the cluster's default partition).",
    ),
  max_array_size: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      'The largest array one sbatch may submit (Slurm MaxArraySize; default 1000, read from the cluster when it can be).',
    ),
  max_jobs: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      "The jobs and array tasks you may have queued and running at once (the site's MaxSubmitJobs). Read from sacctmgr (your association's MaxSubmitJobs and your QOS's MaxSubmitJobsPerUser) where it answers; this value wins when smaller, and is the only one on an automation node. Your other jobs in the queue count against it; the campaign's tasks are sent in waves as room frees.",
    ),
  min_job: duration
    .optional()
    .describe(
      'The least time one job (array element) of a phase with `pack: auto` should run: its tasks are packed until their expected cost reaches it (default 10m).',
    ),
});

const sshGpuCluster = z.strictObject({
  executor: z.literal('ssh-gpu').describe('Tasks run on the GPUs of one server, one task per free GPU.'),
  ...common,
  login: z
    .string()
    .optional()
    .describe(
      "user@host:port of the GPU server, or a Host of the SSH config; without it, this machine's GPUs (no SSH).",
    ),
  ...sshAccess,
  gpus: z
    .array(z.number().int().nonnegative())
    .min(1)
    .optional()
    .describe('GPU indices to use (default: every GPU the probe lists).'),
  servers: z
    .array(
      z
        .strictObject({
          login: z.string().min(1).describe('user@host:port of this GPU server, or a Host of the SSH config.'),
          ...sshAccess,
          gpus: z
            .array(z.number().int().nonnegative())
            .min(1)
            .optional()
            .describe("This server's GPU indices to use (default: every GPU its probe lists)."),
          max_parallel: z.number().int().positive().optional().describe('Tasks running at once on this server.'),
        })
        .describe('One GPU server of the pool, verified like a login.'),
    )
    .min(1)
    .optional()
    .describe(
      'A pool of GPU servers: tasks go to any free GPU of any of them (instead of `login`, `gpus` and the host key).',
    ),
  gpu_free_below: size.optional().describe('A GPU is free when its used memory is below this (default 500MiB).'),
  mode: z
    .enum(['fill', 'waves'])
    .optional()
    .describe(
      'fill (default): start a task whenever a GPU is free; waves: start the next wave only when every task of the current one has exited and its GPUs have settled.',
    ),
  probe: z
    .string()
    .min(1)
    .optional()
    .describe(
      'The command that lists the GPUs as `nvidia-smi --query-gpu=index,uuid,memory.used,memory.total --format=csv,noheader,nounits` does (the default).',
    ),
  probe_timeout: duration.optional().describe('How long the probe may take before it counts as hung (default 20s).'),
  oom: z
    .strictObject({
      patterns: z
        .array(pattern)
        .optional()
        .describe('Regular expressions that mark an out-of-memory log (searched in the whole log).'),
      retry: retryClass.optional().describe('How often a task that ran out of GPU memory is retried on a free GPU.'),
    })
    .optional()
    .describe('How an out-of-memory end is recognised on the GPU server, and retried.'),
});

export const cluster = z
  .discriminatedUnion('executor', [localCluster, slurmCluster, sshGpuCluster])
  .describe('Where tasks run.');
export type Cluster = z.infer<typeof cluster>;

/**
 * What an automation node lets through, where `cluster.restricted` says the login is one: `all`
 * (Slurm's, listing and file-transfer commands), `slurm` (no file transfer); undefined for a
 * login with a shell.
 */
export function restriction(cluster: Cluster): 'all' | 'slurm' | undefined {
  if (cluster.executor !== 'slurm' || !cluster.restricted) return undefined;
  return cluster.restricted === 'slurm' ? 'slurm' : 'all';
}

/** The logins the cluster is reached by: its `login`, or each server of an ssh-gpu pool; none for this machine. */
export function loginsOf(cluster: Cluster): string[] {
  if (cluster.executor === 'local') return [];
  if (cluster.executor === 'ssh-gpu' && cluster.servers) return cluster.servers.map((s) => s.login);
  return cluster.login ? [cluster.login] : [];
}

export const progress = z
  .strictObject({
    log: pattern
      .optional()
      .describe(
        'A regular expression matching a progress line in the task log. Its group (?<units>…) is the units done so far (without it, each matching line is one unit); an optional (?<at>…) is a timestamp (seconds, or an ISO date-time) that gives the trend within a run.',
      ),
    records: z
      .literal(true)
      .optional()
      .describe('Count the records in the output (JSON lines, or a JSON array): one record per unit.'),
  })
  .refine((p) => (p.log === undefined) !== (p.records === undefined), {
    message: 'declare one of log (a pattern) or records: true',
  })
  .describe('How `campaign calibrate` learns the units a task completed.');
export type Progress = z.infer<typeof progress>;

export const cost = z
  .strictObject({
    unit: z.string().regex(IDENT).describe('What one unit of work is: generation, epoch, step.'),
    units: perStratum(z.number().positive()).describe('Units per task.'),
    per_unit: perStratum(duration).describe('Measured seconds per unit.'),
    measured_on: z.string().optional().describe('The cluster the rate was measured on.'),
    config: z.string().optional().describe('The configuration the rate was measured at.'),
    trend: z.number().min(1).optional().describe('Late units cost this much more than early ones.'),
    margin: z.number().min(1).optional().describe('Safety factor on the budget.'),
    progress: progress.optional(),
  })
  .describe('The cost model the walltime is budgeted from.');
export type Cost = z.infer<typeof cost>;

const checkBase = { otherwise: z.string().optional().describe('What a failure of this check means.') };

export const check = z.discriminatedUnion('check', [
  z.strictObject({ check: z.literal('all_completed').describe('Every smoke task completed.'), ...checkBase }),
  z.strictObject({
    check: z.literal('log_contains').describe('Every smoke log has a line matching pattern.'),
    pattern: pattern.describe('A regular expression (RE2 syntax, multiline) every smoke task log must match.'),
    ...checkBase,
  }),
  z.strictObject({
    check: z.literal('output_exists').describe('Every smoke task wrote its output, after it started.'),
    ...checkBase,
  }),
  z.strictObject({
    check: z
      .literal('distinct_outputs')
      .describe('No two smoke outputs are identical (each value reached the program).'),
    ...checkBase,
  }),
  z.strictObject({
    check: z.literal('records').describe('Each smoke output holds JSON records: count lines, with these fields.'),
    count: z.number().int().nonnegative().optional().describe('JSON lines expected in each output.'),
    fields: z.array(z.string()).optional().describe('Fields every record must hold.'),
    ...checkBase,
  }),
  z.strictObject({
    check: z.literal('command').describe('A command run after the smoke tasks; exit 0 passes.'),
    run: z.string().describe('A command run once per smoke task in the workdir; it must exit 0.'),
    ...checkBase,
  }),
]);
export type Check = z.infer<typeof check>;

export const smoke = z
  .strictObject({
    tasks: z
      .union([
        z.number().int().positive(),
        z.record(z.string().regex(IDENT), z.union([scalar, z.array(scalar).min(1)])),
      ])
      .optional()
      .describe('How many smoke tasks, or which cells (axis: values).'),
    overrides: z
      .strictObject({
        units: z.number().positive().optional().describe('Units per smoke task (${units}).'),
        args: z.string().optional().describe('Appended to the command of smoke tasks.'),
        walltime: duration.optional().describe('The walltime of smoke tasks (default: planned from the smoke units).'),
      })
      .optional()
      .describe('What smoke tasks change: fewer units, extra arguments, their walltime.'),
    trigger: z.array(check).optional().describe('The checklist that releases the full arrays.'),
    full_run: z
      .boolean()
      .optional()
      .describe('The smoke tasks are full runs: their results count, and the full arrays skip them.'),
  })
  .describe('A cheap first stage running the same machinery.');
export type Smoke = z.infer<typeof smoke>;

/** Columns a results table always has: a metric of that name would be mistaken for one. */
export const RESULT_COLUMNS = [
  'record',
  'status',
  'n',
  'planned',
  'missing',
  'attempt',
  'definition',
  'gpu_hours',
  'node',
  'problem',
] as const;

export const results = z
  .strictObject({
    metrics: z
      .array(
        z
          .string()
          .min(1)
          .refine((m) => !(RESULT_COLUMNS as readonly string[]).includes(m), {
            message: `a metric may not be named ${RESULT_COLUMNS.join(', ')} (columns of the results table)`,
          }),
      )
      .min(1)
      .refine((ms) => new Set(ms).size === ms.length, { message: 'a metric is named twice' })
      .describe("Fields of the output's records whose numbers are the results, e.g. [loss, accuracy]."),
    record: z
      .string()
      .regex(/^(last|all|best:[^:]+:(min|max))$/, 'last, all, or best:<field>:min|max')
      .optional()
      .describe(
        'Which record of an output is its result: last (the default), all (one row per record), or best:<field>:min|max (the record with the least or greatest field).',
      ),
    replicates: z
      .string()
      .regex(IDENT)
      .optional()
      .describe('The grid axis whose values are replicates (e.g. seed): results are averaged over it per cell.'),
    path: z
      .string()
      .min(1)
      .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), {
        message: 'a path inside the output, relative and without ".."',
      })
      .optional()
      .describe('Where the output is a directory: the file inside it (templated like output) that holds the records.'),
  })
  .describe(
    "What a task's result is: `campaign results` reads these metrics from each output (JSON lines, JSON, or CSV, found by content).",
  );
export type Results = z.infer<typeof results>;

export const environment = z
  .strictObject({
    modules: z
      .array(
        z
          .string()
          .regex(
            /^[A-Za-z0-9_.+/][A-Za-z0-9_.+/-]*$/,
            'a module name is letters, digits, "_", ".", "+", "/" or "-", not first',
          ),
      )
      .optional()
      .describe('Modules loaded (after `module purge`) before the setup, e.g. [StdEnv/2023, python/3.11].'),
    conda: z
      .string()
      .regex(
        /^[A-Za-z0-9_.+/~][A-Za-z0-9_.+/~-]*$/,
        'a conda environment name or path without blanks or quotes, not starting with "-"',
      )
      .optional()
      .describe('A conda environment (name, or path) activated in the batch shell; campaign renders the activation.'),
    venv: z
      .string()
      .regex(/^[A-Za-z0-9_.+/~][A-Za-z0-9_.+/~-]*$/, 'a path without blanks or quotes, not starting with "-"')
      .optional()
      .describe(
        'A Python virtual environment (its directory, relative to the workdir or absolute) activated before the setup.',
      ),
  })
  .refine((e) => e.conda === undefined || e.venv === undefined, { message: 'give conda or venv, not both' })
  .describe(
    'The software environment a task runs in, activated before the setup and checked as the gate `environment`.',
  );
export type Environment = z.infer<typeof environment>;

/** Options passed to sbatch as they are; those campaign manages are refused (see slurm-args.ts). */
export const slurmArgs = z
  .array(
    z.string().superRefine((arg, ctx) => {
      const problem = slurmArgProblem(arg);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    }),
  )
  .describe('sbatch options passed through, e.g. ["--mail-type=END"]; options campaign manages are refused.');

const gridAxis = z.union([scalar, z.array(scalar)]);

/** Why a reserved key of a grid was refused, and what to do when an axis was meant. */
const reserved = (key: string, form: string): string =>
  `"${key}" in a grid is ${form}; an axis cannot be named ${key}: rename it (e.g. ${key}_value)`;
const gridCell = (key: string, form: string) =>
  z.record(z.string().regex(IDENT, 'an axis name is a shell-style identifier'), scalar, {
    error: reserved(key, form),
  });
const INCLUDE = 'a list of explicit cells, each a mapping of every axis to one value ({ N: 384, seed: 1 })';
const EXCLUDE = 'a list of selectors, each a mapping of axes to values ({ N: 512, seed: 3 })';
const ZIP = 'a mapping of axes to lists of one length, taken in step ({ lr: [0.1, 0.01], batch: [32, 64] })';

const gridForms = z
  .object({
    include: z
      .array(gridCell('include', INCLUDE), { error: reserved('include', INCLUDE) })
      .optional()
      .describe('Cells added after the product, in order: each names every axis with one value.'),
    exclude: z
      .array(gridCell('exclude', EXCLUDE), { error: reserved('exclude', EXCLUDE) })
      .optional()
      .describe('Selectors removing every product cell that has all their values (included cells stay).'),
    zip: z
      .record(z.string().regex(IDENT, 'an axis name is a shell-style identifier'), z.array(scalar), {
        error: reserved('zip', ZIP),
      })
      .optional()
      .describe('Axes taken in step, not crossed: their i-th values form one value of the product.'),
  })
  .catchall(gridAxis)
  .superRefine((g, ctx) => {
    for (const key of Object.keys(g)) {
      if (!IDENT.test(key))
        ctx.addIssue({ code: 'custom', path: [key], message: 'an axis name is a shell-style identifier' });
    }
  })
  .meta({ propertyNames: { pattern: IDENT.source } });

/**
 * The grid, checked as gridForms but kept in the order it is written: an object schema puts its
 * own keys (zip) before the others, and where `zip` stands among the axes orders the product.
 * Its JSON Schema is gridForms', given to it by manifestJsonSchema: made at import, it would cost
 * every command's start-up for what only `campaign schema` shows.
 */
const gridChecked = z.record(z.string(), z.unknown()).superRefine((g, ctx) => {
  const checked = gridForms.safeParse(g);
  if (!checked.success) for (const issue of checked.error.issues) ctx.addIssue({ ...issue });
});
const grid = gridChecked.transform((g) => g as Grid);

/**
 * A path of the manifest's repository, as `git ls-files` names it: relative to the repository's
 * root, never leaving it, and never a pattern (a folder takes every tracked file under it).
 */
const codePath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith('/') && !p.split('/').includes('..') && !/[*?[\]\\]/.test(p), {
    message:
      "a code path is a file or folder of the repository, relative to its root (no '/' first, no '..', no patterns)",
  })
  .describe('A file or folder of the repository, relative to its root (e.g. train.py or src/).');

export const code = z
  .strictObject({
    paths: z
      .array(codePath)
      .min(1)
      .describe(
        "Files and folders of the manifest's repository that the tasks run: tracked files only, .gitignore respected.",
      ),
    max_size: size
      .optional()
      .describe('The largest snapshot shipped (default 100M): data belongs in inputs, not code.'),
  })
  .describe(
    "What the campaign's tasks run: these paths, as the working tree holds them, are shipped as one immutable snapshot to <workdir>/.campaign/code/<id>/, where each task runs (${code}); an edit re-runs the phases whose code it touches.",
  );
export type Code = z.infer<typeof code>;

/**
 * Several tasks run in one array element, so that short tasks do not each pay for a job's start
 * and accounting, and a site's limit on jobs queued holds more of them.
 */
export const pack = z
  .union([
    z.number().int().min(1).max(1000),
    z.literal('auto'),
    z.strictObject({
      tasks: z
        .union([z.number().int().min(1).max(1000), z.literal('auto')])
        .describe('Tasks per array element, or auto (as `pack: auto`, counted in waves of `parallel`).'),
      parallel: z
        .number()
        .int()
        .min(1)
        .describe(
          "Tasks of the element running side by side. The phase's resources are the element's, split in equal shares: each running task sees its own slice of the element's GPUs in CUDA_VISIBLE_DEVICES (its devices gate counts that share), and its share of the CPUs in SLURM_CPUS_PER_TASK, OMP_NUM_THREADS and CAMPAIGN_CPUS (not pinned: a program that sizes its threads by them keeps to its share). Memory is the element's, shared. Lint refuses fewer CPUs than tasks side by side, and GPUs that do not split into equal whole shares.",
        ),
    }),
  ])
  .describe(
    "Tasks per Slurm array element (Slurm only), run one after another: N, or `auto` from the cost model (enough tasks that an element's expected run reaches cluster.min_job, no more than the largest partition cap holds, nor than the array has), or { tasks, parallel } to run `parallel` of them side by side. The element asks the phase's resources and the sum of its tasks' walltime budgets (of its waves', side by side). Each task keeps its own markers, log, gates, claim, provenance and retries; a retry is sent in an element of retries only. A task running when its element's time limit comes is a timeout; the tasks after it never started and go back to pending with no retry spent.",
  );
export type Pack = z.infer<typeof pack>;

export const phase = z.strictObject({
  name: z
    .string()
    .regex(NAME, 'a phase name is letters, digits, "_", "." or "-"')
    .describe('The phase, unique in the campaign (e.g. train, evaluate).'),
  depends_on: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe('Phases whose every task must complete before this one starts.'),
  preconditions: z
    .array(z.strictObject({ exists: z.string().describe('A path (templated) that must exist.') }))
    .optional()
    .describe("Files each task needs before it is submitted, e.g. an upstream phase's output."),
  grid: grid
    .optional()
    .describe(
      'The axes and their values: every combination is one task (e.g. seed: [1, 2, 3]), less `exclude`, plus `include`; `zip` axes go in step.',
    ),
  strata: z.array(z.string()).optional().describe('Axes the cost varies along: one array per stratum.'),
  command: z
    .string()
    .min(1)
    .describe('The shell command of each task; ${axis} and the built-ins (${output}, ${tag}, …) are its values.'),
  output: z.string().optional().describe('Path (templated, under the workdir) this task writes.'),
  flush: z
    .string()
    .regex(/^(per_[A-Za-z_][A-Za-z0-9_]*|at_end)$/)
    .optional()
    .describe('How often results are written: per_<unit> or at_end.'),
  config: z.string().optional().describe('The configuration this phase runs at.'),
  cost: cost.optional(),
  walltime: duration.optional().describe('A fixed walltime (prefer a cost model).'),
  resources: resources.optional(),
  max_parallel: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("This phase's tasks running at once, within the campaign's max_parallel."),
  pack: pack.optional(),
  slurm_args: slurmArgs
    .optional()
    .describe("sbatch options for this phase's jobs, instead of the defaults' (Slurm only)."),
  environment: environment
    .optional()
    .describe(
      "This phase's environment: each key it sets replaces the campaign's (conda and venv replace each other).",
    ),
  retry: retry.optional(),
  checkpoint: z
    .strictObject({
      signal: z
        .enum(['USR1', 'USR2', 'TERM', 'INT', 'HUP'])
        .describe("The signal the command's processes get before the walltime ends."),
      before: duration.describe('How long before the end of the walltime the signal is sent (e.g. 5m).'),
    })
    .optional()
    .describe(
      'A warning before the kill: the command is signalled `before` the walltime ends, writes its checkpoint, and a task stopped that way is continued (CAMPAIGN_RESUME=1) within retry.timeout.',
    ),
  setup: z
    .string()
    .optional()
    .describe("Shell run before this phase's command (same shell), after the campaign's setup."),
  code: z
    .strictObject({
      paths: z
        .array(codePath)
        .min(1)
        .describe("The campaign's code paths (or folders under them) this phase's definition depends on."),
    })
    .optional()
    .describe(
      "What of the campaign's code this phase runs (default: all of it): an edit under these paths re-runs this phase and those that depend on it.",
    ),
  smoke: smoke.optional(),
  results: results.optional(),
});
export type Phase = z.infer<typeof phase>;

export const gates = z
  .strictObject({
    imports: z
      .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_.]*$/))
      .optional()
      .describe('Python modules that must import.'),
    capability: z.string().optional().describe('A command proving the capability the experiment needs.'),
  })
  .describe('Checks run before the command, cheapest and most fatal first.');

export const manifest = z.strictObject({
  $schema: z.string().optional().describe('The JSON Schema an editor checks this file against.'),
  campaign: z
    .string()
    .regex(NAME, 'a campaign name is letters, digits, "_", "." or "-"')
    .describe('The campaign: names its state, its jobs on the cluster and its workflow.'),
  cluster,
  workdir: z.string().min(1).describe('Where tasks run; outputs stay under it.'),
  environment: environment.optional(),
  setup: z.string().optional().describe('Shell run before every command (same shell).'),
  code: code.optional(),
  gates: gates.optional(),
  defaults: z
    .strictObject({
      resources: resources.optional(),
      retry: retry.optional(),
      slurm_args: slurmArgs.optional().describe("sbatch options for every phase's jobs (Slurm only)."),
      walltime: duration.optional().describe('The walltime of phases without a cost model or a walltime.'),
    })
    .optional()
    .describe('What every phase gets unless it says otherwise.'),
  phases: z.array(phase).min(1).describe('The stages of the campaign, run in the order their dependencies allow.'),
});
export type Manifest = z.infer<typeof manifest>;

/** The manifest's JSON Schema, as an editor reads it (`campaign schema`). */
export function manifestJsonSchema(): Record<string, unknown> {
  if (!z.globalRegistry.has(gridChecked)) {
    const gridJsonSchema: Record<string, unknown> = z.toJSONSchema(gridForms, { io: 'input', unrepresentable: 'any' });
    delete gridJsonSchema.$schema;
    z.globalRegistry.add(gridChecked, gridJsonSchema);
  }
  return z.toJSONSchema(manifest, { io: 'input', unrepresentable: 'any' });
}
