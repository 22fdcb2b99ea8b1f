/** `campaign logs FILE TASK`: the task's log, read where its executor put it. */
import { systemClock } from '../../app/drive.js';
import { loadCampaign } from '../../app/load.js';
import { storedState } from '../../app/stored-state.js';
import { UserError } from '../../errors.js';
import { closest } from '../../manifest/suggest.js';
import { EXIT, flag, STATE_DIR, valued, type Command, type Given } from '../command.js';
import { closedPipe, openFor } from '../shared.js';

export const command: Command = {
  synopsis: 'logs FILE TASK',
  help: `a task's log, from wherever it ran (its last attempt, or --attempt N)
--follow (print what it writes until the attempt ends, while a run drives the campaign)
--state-dir DIR`,
  options: { ...STATE_DIR, attempt: valued('N'), follow: flag },
  examples: [
    'campaign logs campaigns/sweep.yml train/seed1_lr0.1',
    'campaign logs campaigns/sweep.yml train/seed1_lr0.1 --attempt 1',
  ],
  run: logs,
};

/** How often `logs --follow` reads the log again. */
const FOLLOW_MS = 1000;

async function logs({ values, files }: Given): Promise<number> {
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  const id = files[1]!;
  const tasks = c.plan.phases.flatMap((p) => [...p.smoke, ...p.tasks]);
  const task = tasks.find((t) => t.id === id);
  if (!task) {
    // A tag alone (seed1_lr0.1) is the task of that tag in whichever phase has one.
    const ids = tasks.map((t) => t.id);
    const near = ids.find((t) => t.endsWith(`/${id}`)) ?? closest(id, ids);
    throw new UserError({
      message: `${c.manifest.campaign} has no task ${id}${near ? `; did you mean ${near}?` : ''}`,
      fix: near
        ? `campaign logs ${files[0]!} ${near}`
        : 'give a task id as `campaign status` and the summary show them (phase/tag)',
    });
  }
  let state = await storedState(c);
  const attempts = state.tasks[id]?.attempts ?? [];
  const n = values.attempt === undefined ? attempts.length : Number(values.attempt);
  if (!attempts.some((a) => a.n === n))
    throw new UserError({
      message:
        attempts.length === 0
          ? `${id} has not run yet`
          : `${id} has no attempt ${String(values.attempt)}; it has ${attempts.map((a) => a.n).join(', ')}`,
      fix: attempts.length === 0 ? 'run the campaign first' : 'give one of those to --attempt',
    });
  const { executor } = await openFor(c, () => state.created, false);
  try {
    let shown = 0;
    for (;;) {
      const attempt = state.tasks[id]!.attempts.find((a) => a.n === n)!;
      const text = await executor.readLog(task, attempt);
      // A log only grows; one read shorter than what was shown was rewritten, so it is shown again.
      process.stdout.write(text.length >= shown ? text.slice(shown) : text);
      shown = text.length;
      if (values.follow !== true || attempt.class !== undefined || closedPipe.signal.aborted) break;
      await systemClock.sleep(FOLLOW_MS);
      state = await storedState(c);
    }
  } finally {
    await executor.close();
  }
  return EXIT.ok;
}
