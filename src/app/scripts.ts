/**
 * `campaign plan --scripts DIR`: every script the first submission of each array would send,
 * written where a user can read them (and shellcheck them) without a cluster.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, posix } from 'node:path';
import type { TaskSpec } from '../manifest/expand.js';
import { traitsOf } from '../plan/executor-kinds.js';
import type { ArrayPlan, Plan } from '../plan/plan.js';
import { manifestTaskEnv } from '../render/task-env.js';
import { slurmRoot, submissionFiles, submissionKey } from '../render/sbatch.js';
import { renderTaskScript, scriptInputFor } from '../render/task-script.js';
import type { Submission } from '../state/events.js';
import type { Campaign } from './load.js';
import { loginUser } from './transport-for.js';

export interface WrittenScript {
  /** Relative to the scripts directory. */
  path: string;
  array: string;
}

/**
 * The workdir as the cluster will see it. A `~` is resolved there, at submission; here it is
 * the login user's home as most clusters lay it out (`/home/<user>`), or this machine's.
 */
export function shownWorkdir(c: Campaign): string {
  const w = c.manifest.workdir;
  if (!w.startsWith('~')) return w;
  const user = loginUser(c);
  return posix.join(user === undefined ? homedir() : `/home/${user}`, w.replace(/^~\/?/, ''));
}

function firstSubmissions(plan: Plan, array: ArrayPlan): Submission[] {
  const phase = plan.phases.find((p) => p.name === array.phase)!;
  const specs = new Map<string, TaskSpec>([...phase.tasks, ...phase.smoke].map((t) => [t.id, t]));
  return array.tasks.map((id, index) => ({ task: specs.get(id)!, attempt: 1, array, index }));
}

/** Writes the scripts under `dir`, one folder per array; returns what it wrote. */
export async function writeSubmissionScripts(c: Campaign, dir: string): Promise<WrittenScript[]> {
  const { manifest, plan } = c;
  const traits = traitsOf(manifest.cluster);
  const workdir = shownWorkdir(c);
  const since = new Date().toISOString();
  const written: WrittenScript[] = [];
  const put = async (path: string, text: string, array: string, mode = 0o644) => {
    await mkdir(join(dir, posix.dirname(path)), { recursive: true });
    await writeFile(join(dir, path), text, { mode });
    written.push({ path, array });
  };
  for (const phase of plan.phases) {
    for (const array of phase.arrays) {
      const group = firstSubmissions(plan, array);
      if (traits.queues) {
        const key = submissionKey(manifest.campaign, since, group);
        const where = { name: `${manifest.campaign}~${key}`, dir: `${slurmRoot(workdir, manifest.campaign)}/${key}` };
        const { script, table } = submissionFiles(manifest, group, { ...where, workdir, exclude: false });
        await put(`${array.id}/job.sh`, script, array.id, 0o755);
        await put(`${array.id}/table.tsv`, table, array.id);
        continue;
      }
      // Local and ssh-gpu run one script per task, its values in its environment.
      for (const s of group) {
        const base = `${array.id}/${s.task.tag}`;
        const gpus = traits.placesGpus ? array.resources.gpus : undefined;
        await put(`${base}.sh`, renderTaskScript(scriptInputFor(manifest, s.task, s.index, gpus)), array.id, 0o755);
        const env = manifestTaskEnv(manifest, s.task, s.attempt, workdir);
        await put(
          `${base}.env`,
          Object.entries(env)
            .map(([k, v]) => `${k}=${JSON.stringify(v)}\n`)
            .join(''),
          array.id,
        );
      }
    }
  }
  return written;
}
