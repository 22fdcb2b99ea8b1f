/**
 * The sbatch options a manifest may pass through (`slurm_args`), and why the others are
 * refused: campaign writes those itself, and a second value would silently win or break how
 * it finds, names, logs or retries its jobs.
 */

const MANAGED: Readonly<Record<string, string>> = {
  array: 'campaign forms the arrays from the grid',
  'job-name': 'campaign names its jobs to find them again',
  comment: 'campaign keys its submissions in the comment',
  output: 'campaign writes each task log where it reads it',
  error: 'campaign reads the task log as one stream (--output)',
  input: 'a task reads no standard input',
  time: 'the walltime comes from the cost model or `walltime`',
  'time-min': 'the walltime comes from the cost model or `walltime`',
  partition: 'use resources.partition, or cluster.partitions',
  mem: 'use resources.mem',
  'mem-per-cpu': 'use resources.mem_per_cpu',
  'mem-per-gpu': 'use resources.mem or resources.mem_per_cpu',
  gres: 'use resources.gpus and resources.gpu_type',
  gpus: 'use resources.gpus and resources.gpu_type',
  'gpus-per-node': 'use resources.gpus and resources.gpu_type',
  'gpus-per-task': 'use resources.gpus and resources.gpu_type',
  'cpus-per-task': 'use resources.cpus',
  'cpus-per-gpu': 'use resources.cpus',
  nodes: 'a task runs on one node',
  ntasks: 'a task is one process tree on one node',
  'ntasks-per-node': 'a task is one process tree on one node',
  account: 'use resources.account or cluster.account',
  qos: 'use resources.qos',
  constraint: 'use resources.constraint',
  reservation: 'use resources.reservation',
  exclude: 'use resources.exclude (campaign adds the nodes a task failed on)',
  requeue: 'campaign retries failures itself, that index alone',
  'no-requeue': 'campaign already sets it',
  export: 'campaign passes each task its values and keeps secrets out',
  'export-file': 'campaign passes each task its values and keeps secrets out',
  'get-user-env': 'campaign passes each task its values and keeps secrets out',
  chdir: 'tasks run in the workdir',
  dependency: 'campaign orders phases by depends_on',
  hold: 'a held job would wait for ever where campaign cannot see why',
  wait: 'campaign watches its jobs itself',
  'test-only': '`campaign check` tests the submission',
  parsable: 'campaign reads the job id itself',
  wrap: "the batch script is campaign's",
  'kill-on-invalid-dep': 'campaign orders phases by depends_on',
};

/** One long option, its value (if any) after "=" and free of what an #SBATCH line could split or misread. */
const OPTION = /^--([a-z][a-z0-9-]*)(?:=([^\s"'\\#]+))?$/;

/** Why an sbatch option may not be passed through, or undefined when it may. */
export function slurmArgProblem(arg: string): string | undefined {
  const m = OPTION.exec(arg);
  if (!m) {
    if (/^-[A-Za-z]/.test(arg) && !arg.startsWith('--'))
      return `"${arg}" is a short option: write its long form with "=" (e.g. --mail-type=END), so campaign can tell what it sets`;
    return `"${arg}" is not an sbatch option of the form --name or --name=value without blanks, quotes, "#" or backslashes`;
  }
  const reason = MANAGED[m[1]!];
  return reason === undefined ? undefined : `--${m[1]} is campaign's to set: ${reason}`;
}
