/**
 * `campaign shell`: a shell in a task's place, where its executor would run it, for debugging
 * it by hand instead of on a login node. Slurm: an allocation of the task's resources (salloc,
 * then srun onto the node); ssh-gpu: the server, with free GPUs held while the shell lives;
 * local: a bash here. In each, the script of render/shell-script.ts: the gates first, then the
 * task's variables, environment and working directory (its code snapshot, shipped first as a
 * run would).
 */
import { UserError } from '../errors.js';
import { restriction } from '../manifest/schema.js';
import { shellBudget, shellTask } from '../plan/shell-task.js';
import { allocationOptions } from '../render/sbatch.js';
import { renderShellScript, sallocLine, shellJobName, type ShellScriptInput } from '../render/shell-script.js';
import { shellQuote } from '../render/shell.js';
import type { CampaignState } from '../state/state.js';
import { SshGpuExecutor } from '../exec/ssh-gpu/ssh-gpu-executor.js';
import type { Transport } from '../exec/transport/transport.js';
import { openExecutor } from './executors.js';
import type { Campaign } from './load.js';
import type { SshSecrets } from './transport-for.js';

export interface ShellOptions {
  taskId: string;
  /** The allocation's walltime (Slurm); default the phase's smoke walltime. */
  time?: string;
  /** The command run instead of an interactive shell. */
  command?: string;
  state: CampaignState;
  ssh: SshSecrets;
  /** Where what campaign says along the way goes (stderr). */
  note: (message: string) => void;
}

/** Refused before anything connects: an automation node runs no shell, and gives no allocation to one. */
function refuseAutomationNode(c: Campaign): void {
  if (restriction(c.manifest.cluster) === undefined) return;
  throw new UserError({
    message:
      'cluster.restricted says the login is an automation node, which runs only Slurm, listing and file-transfer commands: no shell, and no salloc or srun to open one with',
    fix: 'open the shell from a login node of the cluster (ssh to it, then salloc and srun there), or from a copy of the manifest without restricted whose login is a login node',
  });
}

/** Runs the shell to its end; its exit status (the command's, with --command). */
export async function openShell(c: Campaign, opts: ShellOptions): Promise<number> {
  refuseAutomationNode(c);
  const terminal = opts.command === undefined;
  if (terminal && !process.stdin.isTTY)
    throw new UserError({
      message: 'an interactive shell needs a terminal, and standard input is not one',
      fix: 'run it from a terminal, or give the command to run with --command',
    });
  const chosen = shellTask(c.manifest, c.plan, opts.taskId, c.file);
  const { task, array } = chosen;
  const cluster = c.manifest.cluster;
  if (opts.time !== undefined && cluster.executor !== 'slurm')
    throw new UserError({
      message: `--time sets the walltime of a Slurm allocation, and this campaign's executor is ${cluster.executor}`,
      fix: 'leave --time out: the shell lasts until you leave it',
    });
  // Computed before anything connects: a --time no partition holds is refused at once.
  const budget = cluster.executor === 'slurm' ? shellBudget(c.manifest, chosen, opts.time) : undefined;
  const opened = await openExecutor(c, {
    ssh: opts.ssh,
    since: () => opts.state.created,
    warn: opts.note,
    checkCluster: false,
  });
  const { executor } = opened;
  try {
    if (c.code) await executor.workdir.shipCode(c.code);
    const base = {
      manifest: c.manifest,
      task,
      attempt: opts.state.tasks[task.id]?.attempts.at(-1)?.n ?? 1,
      ...(c.code === undefined ? {} : { code: c.code.facts.id }),
      ...(opts.command === undefined ? {} : { command: opts.command }),
    };
    let transport: Transport = opened.transport;
    let input: ShellScriptInput;
    if (executor instanceof SshGpuExecutor) {
      const active = Object.values(opts.state.tasks).flatMap((t) => {
        const last = t.attempts.at(-1);
        return last?.class === undefined && last?.handle !== undefined ? [last.handle] : [];
      });
      const held = await executor.gpusForShell(array.resources.gpus, active);
      transport = held.transport;
      input = {
        ...base,
        workdir: held.workdir,
        gpus: held.gpus.length,
        devices: { uuids: held.gpus, holds: held.holds },
      };
      if (held.gpus.length > 0) opts.note(`GPUs ${held.gpus.join(',')} are held for the shell until it ends`);
    } else {
      input = {
        ...base,
        workdir: await opened.executor.workdir.path(),
        ...(cluster.executor === 'slurm' ? { gpus: array.resources.gpus, oneNode: true } : {}),
      };
    }
    const dir = `${input.workdir}/.campaign/shell/${c.manifest.campaign}`;
    const script = `${dir}/${task.id.replace(/\//g, '~')}.${Date.now()}.${process.pid}.sh`;
    await transport.mkdirp(dir);
    await transport.writeFile(script, renderShellScript(input), { mode: 0o755 });
    // Every transport that gets here has a shell: an automation node's was refused above.
    try {
      if (budget === undefined) return await transport.attach!(`bash ${shellQuote(script)}`, { terminal });
      const line = sallocLine(
        allocationOptions(c.manifest, array, { budget }),
        shellJobName(c.manifest.campaign),
        script,
        terminal,
      );
      opts.note(`allocating ${task.id}'s resources (${budget.arithmetic}): ${line}`);
      return await transport.attach!(line, { terminal });
    } finally {
      await transport.exec(`rm -f -- ${shellQuote(script)}`).catch(() => undefined);
    }
  } finally {
    await executor.close();
  }
}
