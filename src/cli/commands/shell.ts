/** `campaign shell FILE TASK`: a shell in the task's place (app/shell.ts). */
import { loadCampaign } from '../../app/load.js';
import { storedState } from '../../app/stored-state.js';
import { STATE_DIR, valued, type Command, type Given } from '../command.js';
import { note } from '../shared.js';

export const command: Command = {
  synopsis: 'shell FILE TASK',
  help: `a shell in a task's place, to debug it by hand (never on a login node): Slurm, an allocation of the
task's resources (salloc, then srun --pty onto the node); ssh-gpu, the server, with free GPUs in
CUDA_VISIBLE_DEVICES, held from the campaign's tasks while it lasts; local, a bash here. The gates
run first and say how each went; a failing one is reported and the shell opens anyway. Then the
shell has the task's CAMPAIGN_* variables, environment, setup and working directory (its code
snapshot, shipped first)   --command CMD (run CMD there instead; its exit status is the command's)
--time DURATION (Slurm: the allocation's walltime; default the phase's smoke walltime)
--state-dir DIR`,
  options: { ...STATE_DIR, command: valued('CMD'), time: valued('DURATION') },
  examples: [
    'campaign shell campaigns/sweep.yml train/seed1_lr0.1',
    'campaign shell campaigns/sweep.yml train/seed1_lr0.1 --command \'nvidia-smi; python -c "import torch"\'',
    'campaign shell campaigns/sweep.yml train/smoke/seed1_lr0.1 --time 2h',
  ],
  run: shell,
};

async function shell({ values, files }: Given): Promise<number> {
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  const [{ openShell }, { sshSecretsFrom }] = await Promise.all([
    import('../../app/shell.js'),
    import('../../app/transport-for.js'),
  ]);
  return openShell(c, {
    taskId: files[1]!,
    ...(typeof values.time === 'string' ? { time: values.time } : {}),
    ...(typeof values.command === 'string' ? { command: values.command } : {}),
    state: await storedState(c),
    ssh: sshSecretsFrom(process.env),
    note,
  });
}
