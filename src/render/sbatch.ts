/**
 * One `sbatch` submission of an array chunk: the batch script and its task table. The script
 * maps `$SLURM_ARRAY_TASK_ID` to a row of the table (an index not in it aborts, never wraps),
 * exports the row as the task's CAMPAIGN_* environment without `eval`, echoes the mapping,
 * then runs the shared task body (gates, setup, command). Each array task leaves a start and an
 * end marker beside the logs, for a controller that cannot ask sacct (exec/slurm/markers.ts).
 */
import { createHash } from 'node:crypto';
import { UserError } from '../errors.js';
import type { TaskSpec } from '../manifest/expand.js';
import type { Manifest } from '../manifest/schema.js';
import { envName } from '../manifest/template.js';
import { formatSlurmMem, formatSlurmTime, parseDuration } from '../manifest/units.js';
import type { ArrayPlan } from '../plan/plan.js';
import type { Submission } from '../state/events.js';
import { manifestTaskEnv } from './task-env.js';
import { elementLine, elementOf, packShares, renderPackDriver } from './pack-driver.js';
import { NOT_PLAIN, shellQuote } from './shell.js';
import { renderTaskScript, resumeEnv, scriptInputFor } from './task-script.js';

export interface SbatchRow {
  index: number;
  task: TaskSpec;
  attempt: number;
  /** It continues from the task's checkpoint: CAMPAIGN_RESUME=1. */
  resume?: boolean;
  /** In a packed array, the element it runs in (render/pack-driver.ts). */
  element?: number;
}

export interface SbatchInput {
  /** The code snapshot its tasks run in, where the manifest declares code (render/task-script.ts). */
  code?: string;
  manifest: Manifest;
  array: ArrayPlan;
  /** The job name: every job of the campaign carries it, so one query finds them all. */
  jobName: string;
  /** Unique per submission, in the job's comment: how the next pass recognises it. */
  key: string;
  /** The submission's key (its directory's name), in each marker line: whose task it is. */
  submission: string;
  rows: readonly SbatchRow[];
  /** Absolute workdir on the cluster. */
  workdir: string;
  /** Absolute path of the task table on the cluster. */
  tablePath: string;
  /** Absolute directory for this submission's logs (`<index>.log`). */
  logDir: string;
  /** Absolute directory for the start and end markers of its array tasks (task-script.ts). */
  markerDir: string;
  memBytes?: number;
  exclude?: readonly string[];
  /**
   * The script carries its task table and keeps its own log, for a login that allows no file
   * transfer (an automation node's Slurm-only list): sent to sbatch on its standard input,
   * nothing is uploaded, and no directory exists for `--output` until the job makes one.
   */
  selfContained?: boolean;
}

/** A `#SBATCH` line. */
const sbatchLine = (o: SlurmOption): string => `#SBATCH ${slurmOptionText(o)}`;
const directive = (option: string, value: string | number): string => sbatchLine({ option, value });

/** `0-3,7,9`: indices as sbatch's --array wants them, runs folded into ranges. */
export function arraySpec(indices: readonly number[]): string {
  const sorted = [...new Set(indices)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(j > i ? `${sorted[i]}-${sorted[j]}` : String(sorted[i]));
    i = j + 1;
  }
  return parts.join(',');
}

/**
 * A task-table row: the index, a tab, then the task's `KEY=VALUE` pairs separated by blanks, each
 * pair's characters as they are where they are plain (render/shell.ts) and their UTF-8 bytes as
 * `\xHH` otherwise. Any byte but NUL survives, and the batch shell decodes a pair with its own
 * `printf %b`, in no process of its own (base64, as earlier releases wrote rows, took two a task).
 */
export function tableRow(index: number, env: Readonly<Record<string, string>>): string {
  const pairs = Object.entries(env).map(([k, v]) => escapePair(`${k}=${v}`));
  return `${index}\t${pairs.join(' ')}`;
}

/** A character that is not plain, as its UTF-8 bytes, each `\xHH`. */
const hexBytes = (c: string): string =>
  [...Buffer.from(c, 'utf8')].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');

const escapePair = (pair: string): string => pair.replace(NOT_PLAIN, hexBytes);

/** A row's pairs read back: `\xHH` to its byte. Rows of earlier releases hold base64 of `KEY=VALUE\0` pairs. */
function rowPairs(data: string): string[] {
  if (!data.startsWith('CAMPAIGN_')) return Buffer.from(data, 'base64').toString('utf8').split('\0');
  const byte = (_: string, hex: string): string => String.fromCharCode(parseInt(hex, 16));
  return data.split(' ').map((pair) => Buffer.from(pair.replace(/\\x([0-9a-f]{2})/g, byte), 'latin1').toString('utf8'));
}

/** A task-table row read back: its index and the task's environment; undefined for any other line. */
export function rowEnvironment(line: string): { index: number; env: Map<string, string> } | undefined {
  const [index = '', data = ''] = line.split('\t');
  if (!/^\d+$/.test(index)) return undefined;
  const pairs = rowPairs(data).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as const);
  return { index: Number(index), env: new Map(pairs) };
}

/** The task, attempt and definition a task-table row runs: tableRow read back, to find a submission again. */
export function rowAttempt(
  line: string,
): { index: number; task: string; attempt: number; definition: string } | undefined {
  const row = rowEnvironment(line);
  if (!row) return undefined;
  const task = row.env.get(envName('task'));
  const attempt = Number(row.env.get(envName('attempt')));
  const definition = row.env.get('CAMPAIGN_DEFINITION') ?? '';
  return task && Number.isInteger(attempt) && attempt > 0 ? { index: row.index, task, attempt, definition } : undefined;
}

/** One sbatch option: `--option=value`, or a flag without a value (e.g. --exclusive). */
export interface SlurmOption {
  option: string;
  value?: string | number;
}

/**
 * What one task of `array` is allocated, as sbatch and salloc both take it: its walltime and
 * partition (`budget`, the array's unless the caller fitted another), account, QOS, constraint,
 * reservation, one node, its CPUs, GPUs and memory, and the nodes it must avoid.
 */
export function allocationOptions(
  manifest: Manifest,
  array: ArrayPlan,
  extra: { memBytes?: number; exclude?: readonly string[]; budget?: { seconds: number; partition?: string } } = {},
): SlurmOption[] {
  const cluster = manifest.cluster;
  const r = array.resources;
  const budget = extra.budget ?? array.budget;
  const mem = extra.memBytes ?? r.memBytes;
  const account = r.account ?? (cluster.executor === 'slurm' ? cluster.account : undefined);
  const exclude = [...(r.exclude ? [r.exclude] : []), ...(extra.exclude ?? [])];
  return [
    { option: 'time', value: formatSlurmTime(budget.seconds) },
    ...(budget.partition ? [{ option: 'partition', value: budget.partition }] : []),
    ...(account ? [{ option: 'account', value: account }] : []),
    ...(r.qos ? [{ option: 'qos', value: r.qos }] : []),
    ...(r.constraint ? [{ option: 'constraint', value: r.constraint }] : []),
    ...(r.reservation ? [{ option: 'reservation', value: r.reservation }] : []),
    { option: 'nodes', value: 1 },
    { option: 'ntasks', value: 1 },
    { option: 'cpus-per-task', value: r.cpus },
    ...(r.gpus > 0 ? [{ option: 'gres', value: `gpu:${r.gpuType ? `${r.gpuType}:` : ''}${r.gpus}` }] : []),
    ...(mem === undefined
      ? []
      : r.memPerCpu
        ? [{ option: 'mem-per-cpu', value: formatSlurmMem(Math.ceil(mem / r.cpus)) }]
        : [{ option: 'mem', value: formatSlurmMem(mem) }]),
    ...(exclude.length > 0 ? [{ option: 'exclude', value: exclude.join(',') }] : []),
  ];
}

/**
 * An option's value as salloc or sbatch reads it, refused where it could be split or misread
 * (a `#SBATCH` line is read by sbatch, not bash); an option name is campaign's own.
 */
export function slurmOptionText({ option, value }: SlurmOption): string {
  if (!/^[a-z][a-z0-9-]*$/.test(option)) throw new Error(`not an sbatch option name: ${option}`);
  if (value === undefined) return `--${option}`;
  const text = String(value);
  if (!/^[^\s"'\\#]+$/.test(text)) {
    throw new UserError({
      message: `the value for sbatch --${option} (${JSON.stringify(text)}) holds blanks, quotes, "#" or backslashes`,
      fix: 'use a workdir, account and partition without such characters',
    });
  }
  return `--${option}=${text}`;
}

/**
 * The files of one submission: the batch script and its task table, and for a packed array the
 * task script its elements run (`task.sh`, the batch script being their driver).
 */
export interface SbatchFiles {
  script: string;
  table: string;
  task?: string;
}

export function renderSbatch(input: SbatchInput): SbatchFiles {
  const { manifest, array } = input;
  const r = array.resources;
  const phase = manifest.phases.find((p) => p.name === array.phase);
  const packing = array.packing;
  if (packing && input.selfContained)
    throw new Error('a packed array cannot be self-contained: its elements run task.sh (lint refuses pack there)');
  // What the array's indices are: one per task, or one per element of packed tasks.
  const indices = packing ? [...new Set(input.rows.map((x) => x.element ?? 0))] : input.rows.map((x) => x.index);
  // Its share of the campaign's max_parallel (and of its phase's): the places the controller
  // gave its tasks when it sent them (exec/slurm: capacity), never the whole cap, so that
  // arrays, strata and phases sent side by side together stay within it.
  const caps = [manifest.cluster.max_parallel, phase?.max_parallel].filter((cap) => cap !== undefined);
  const throttle = caps.length === 0 ? undefined : Math.min(indices.length, ...caps);
  const passed = phase?.slurm_args ?? manifest.defaults?.slurm_args ?? [];
  const allocation = allocationOptions(manifest, array, {
    ...(input.memBytes === undefined ? {} : { memBytes: input.memBytes }),
    ...(input.exclude === undefined ? {} : { exclude: input.exclude }),
    // An element asks the sum of its tasks' budgets (plan/pack.ts).
    ...(packing ? { budget: packing.budget } : {}),
  });
  // sbatch expands %-patterns in --output: a % of the path itself is written %%.
  const logs = input.logDir.replace(/%/g, '%%');
  const header = [
    directive('job-name', input.jobName),
    directive('comment', input.key),
    directive('array', `${arraySpec(indices)}${throttle ? `%${throttle}` : ''}`),
    ...allocation.filter((o) => o.option !== 'exclude').map(sbatchLine),
    directive('chdir', input.workdir),
    // A packed element's own output (the driver's lines) is apart from its tasks' logs.
    directive('output', input.selfContained ? '/dev/null' : packing ? `${logs}/e%a.log` : `${logs}/%a.log`),
    ...allocation.filter((o) => o.option === 'exclude').map(sbatchLine),
    // Passed through as written; the schema refused the options campaign sets itself.
    ...passed.map((arg) => {
      const [option = '', ...value] = arg.slice(2).split('=');
      return sbatchLine(value.length === 0 ? { option } : { option, value: value.join('=') });
    }),
    // A failed node is the controller's to handle (that index alone, elsewhere), not Slurm's.
    '#SBATCH --no-requeue',
    // The warning goes to the batch shell, which passes it on to the command (task-script.ts).
    ...(phase?.checkpoint
      ? [directive('signal', `B:${phase.checkpoint.signal}@${Math.round(parseDuration(phase.checkpoint.before)!)}`)]
      : []),
  ];
  const rows = input.rows
    .map((row) =>
      tableRow(row.index, {
        ...manifestTaskEnv(manifest, row.task, row.attempt, input.workdir),
        ...resumeEnv(phase, row.resume),
      }),
    )
    .join('\n');
  const elements = packing ? elementLines(input.rows) : [];
  const table = `${[tableHeader(input.submission), ...elements].join('\n')}\n${rows}\n`;
  // Compared as strings: awk would take "1 " for the number 1.
  const lookup = `awk -F "\\t" -v i="\${SLURM_ARRAY_TASK_ID:-none}" '$1 "" == i "" { print $2; found = 1; exit } END { exit !found }'`;
  const prelude = [
    `campaign_table=${shellQuote(input.tablePath)}`,
    ...(input.selfContained
      ? selfContainedLines(input.logDir, table, lookup)
      : packing
        ? [
            // The element's driver read this row from the table with its own (pack-driver.ts): a
            // task of a packed element forks no lookup of its own. Looked up here where it did not.
            'campaign_row=${CAMPAIGN_PACKED_ROW:-}',
            'unset CAMPAIGN_PACKED_ROW',
            `[ -n "$campaign_row" ] || campaign_row=$(${lookup} "$campaign_table") ||`,
          ]
        : [`campaign_row=$(${lookup} "$campaign_table") ||`]),
    '  campaign_fail index "array index ${SLURM_ARRAY_TASK_ID:-none} is not in the task table $campaign_table"',
    // Decoded by bash itself (tableRow): a here-string and printf fork nothing.
    'read -r -a campaign_pairs <<< "$campaign_row"',
    'for campaign_pair in "${campaign_pairs[@]}"; do',
    '  printf -v campaign_kv \'%b\' "$campaign_pair"',
    '  campaign_key=${campaign_kv%%=*}',
    '  [[ $campaign_key =~ ^CAMPAIGN_[A-Za-z0-9_]+$ ]] || campaign_fail index "a malformed task-table row"',
    '  export "$campaign_key=${campaign_kv#*=}"',
    'done',
  ];
  const first = input.rows[0];
  if (!first) throw new Error('an sbatch submission needs at least one row');
  // A packed task side by side with others counts its share of the element's GPUs (pack-driver.ts).
  const gpus = packing ? packShares({ parallel: packing.parallel, cpus: r.cpus, gpus: r.gpus }).gpus : r.gpus;
  const task = renderTaskScript({
    ...scriptInputFor(manifest, first.task, 0, gpus, input.code),
    index: '"${SLURM_ARRAY_TASK_ID}"',
    header: packing ? [] : header,
    prelude,
    oneNode: true,
    markers: { dir: input.markerDir, key: input.submission },
  });
  if (!packing) return { script: task, table };
  const dir = input.tablePath.slice(0, input.tablePath.lastIndexOf('/'));
  const driver = renderPackDriver({
    header,
    campaign: manifest.campaign,
    dir,
    parallel: packing.parallel,
    cpus: r.cpus,
    gpus: r.gpus,
  });
  return { script: driver, table, task };
}

/** The task table's element lines (`e<element>`, then its rows), before the rows, in element order. */
function elementLines(rows: readonly SbatchRow[]): string[] {
  const byElement = new Map<number, number[]>();
  for (const row of rows) {
    if (row.element === undefined) throw new Error(`row ${row.index} of a packed array has no element`);
    const held = byElement.get(row.element);
    if (held) held.push(row.index);
    else byElement.set(row.element, [row.index]);
  }
  return [...byElement].sort(([a], [b]) => a - b).map(([element, held]) => elementLine(element, held));
}

/**
 * The lines of a self-contained script that make its log directory and send its output there,
 * then leave a copy of the table it carries where a state rebuilt from the cluster looks for it,
 * and look the task up in it. Each of the table's rows is one line that begins with a number, so
 * none ends the heredoc.
 */
function selfContainedLines(logDir: string, table: string, lookup: string): string[] {
  return [
    `mkdir -p -- ${shellQuote(logDir)} 2>/dev/null`,
    `exec >> ${shellQuote(logDir)}/"\${SLURM_ARRAY_TASK_ID:-none}.log" 2>&1`,
    "campaign_rows=$(cat <<'CAMPAIGN_TABLE'",
    table.trimEnd(),
    'CAMPAIGN_TABLE',
    ')',
    '[ -e "$campaign_table" ] || { printf \'%s\\n\' "$campaign_rows" > "$campaign_table.${SLURM_ARRAY_TASK_ID:-none}" &&',
    '  mv -f -- "$campaign_table.${SLURM_ARRAY_TASK_ID:-none}" "$campaign_table"; } 2>/dev/null',
    `campaign_row=$(printf '%s\\n' "$campaign_rows" | ${lookup}) ||`,
  ];
}

/**
 * A task table's first line names its submission, so that all the tables of a campaign read in
 * one `cat` (an automation node has no shell to print each file's name) say whose rows follow.
 * No index is that line's first field: the batch script's lookup passes over it.
 */
const tableHeader = (submission: string): string => `# submission ${submission}`;
export const TABLE_HEADER = /^# submission (\S+)$/;

/** The campaign's job scripts, task tables and logs: its own directory, apart from other campaigns'. */
export function slurmRoot(workdir: string, campaign: string): string {
  return `${workdir}/.campaign/slurm/${campaign}`;
}

/** The batch script and task table of one sbatch: `dir` is the submission's own directory. */
export function submissionFiles(
  manifest: Manifest,
  group: readonly Submission[],
  where: { name: string; dir: string; workdir: string; exclude: boolean; selfContained?: boolean },
): SbatchFiles {
  const first = group[0]!;
  const packing = first.array.packing;
  return renderSbatch({
    manifest,
    array: first.array,
    jobName: where.name,
    key: first.array.id,
    submission: where.dir.slice(where.dir.lastIndexOf('/') + 1),
    rows: group.map((s, i) => ({
      index: s.index,
      task: s.task,
      attempt: s.attempt,
      ...(s.resume ? { resume: true } : {}),
      ...(packing ? { element: elementOf(i, packing.tasks) } : {}),
    })),
    workdir: where.workdir,
    tablePath: `${where.dir}/table.tsv`,
    logDir: `${where.dir}/logs`,
    markerDir: `${where.dir}/markers`,
    ...(first.memBytes === undefined ? {} : { memBytes: first.memBytes }),
    ...(where.exclude && first.avoidNodes ? { exclude: first.avoidNodes } : {}),
    ...(where.selfContained ? { selfContained: true } : {}),
    ...(first.code === undefined ? {} : { code: first.code }),
  });
}

/**
 * Derived from what is submitted, so the same submission after a crash, or from another
 * controller, has the same key: the tasks with their attempts and definitions, and the
 * campaign's generation as the workdir records it (decide/generation.ts), so that a campaign
 * started afresh never takes an earlier one's job for its own.
 */
export function submissionKey(campaign: string, generation: string, group: readonly Submission[]): string {
  const h = createHash('sha256');
  h.update(
    `${campaign}\u0000${generation}\u0000${group[0]!.array.id}\u0000${group[0]!.memBytes ?? ''}\u0000${(group[0]!.avoidNodes ?? []).join(',')}`,
  );
  for (const s of group) h.update(`\u0000${s.task.id}:${s.attempt}:${s.task.definition ?? ''}`);
  return h.digest('hex').slice(0, 12);
}
