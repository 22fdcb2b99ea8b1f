/** `campaign run FILE`: drives the campaign to its end (src/app/run.ts), with the live display, the signals and the summary. */
import { writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { systemClock } from '../../app/drive.js';
import { loadCampaign } from '../../app/load.js';
import { UserError } from '../../errors.js';
import { allCompleted, statusText } from '../../report/summary.js';
import type { CampaignState } from '../../state/state.js';
import { EXIT, flag, oneOf, STATE_DIR, valued, type Command, type Given } from '../command.js';
import { manifestCommit } from '../git.js';
import { closedPipe, note, printWarnings, warn } from '../shared.js';

export const command: Command = {
  synopsis: 'run FILE',
  help: `drive the campaign to its end (resumes where it stopped; a task whose definition changed
runs again, and the run says so first); progress and notes go to stderr, and at the end the
markdown summary to stdout (on a terminal, its short form)
--state-dir DIR   --poll SECONDS (longest wait between passes)
--retry-failed (run failed tasks and failed smoke stages again)
--keep-changed (keep the results of tasks whose definition changed, recording that choice in
their provenance)
--fresh (start over: the earlier state, attempts and outputs are moved aside, never deleted,
never adopted)
--format json (one JSON event per line on stdout: start, task, phase, end)`,
  options: {
    ...STATE_DIR,
    poll: valued('SECONDS'),
    'retry-failed': flag,
    'keep-changed': flag,
    fresh: flag,
    format: oneOf('text', 'json'),
  },
  examples: [
    'campaign run campaigns/sweep.yml',
    'campaign run campaigns/sweep.yml --retry-failed',
    'campaign run campaigns/sweep.yml --format json | jq -c \'select(.event == "task")\'',
  ],
  run,
};

const STOPPED = 'stopped; running tasks go on. Run the same command again to reattach.';

async function run({ values, files }: Given): Promise<number> {
  if (values.fresh === true && values['keep-changed'] === true)
    throw new UserError({
      message: '--fresh and --keep-changed contradict each other',
      fix: 'a fresh start keeps no earlier result: give one of them',
    });
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  const maxPoll = values.poll === undefined ? undefined : Number(values.poll);
  if (maxPoll !== undefined && !(maxPoll > 0))
    throw new UserError({ message: `--poll ${String(values.poll)} is not a positive number of seconds` });
  const json = values.format === 'json';
  printWarnings(c);
  const commit = await manifestCommit(c.file);
  const [{ runCampaign }, { sshSecretsFrom }, { Progress }, { campaignSummary, summaryRecord }, { RunEvents }] =
    await Promise.all([
      import('../../app/run.js'),
      import('../../app/transport-for.js'),
      import('../progress.js'),
      import('../../app/write-summary.js'),
      import('../../report/run-events.js'),
    ]);
  // The first Ctrl-C (or SIGTERM) stops after the pass under way, so that what it submitted is
  // saved; a second one leaves at once. Running tasks go on either way.
  const stopping = new AbortController();
  let lock: { release(): Promise<void> } | undefined;
  const stop = (): void => {
    if (!stopping.signal.aborted) {
      process.stderr.write('\ncampaign: stopping after this pass (again to stop at once); running tasks go on\n');
      stopping.abort();
      return;
    }
    process.stderr.write(`\ncampaign: ${STOPPED}\n`);
    void (lock?.release() ?? Promise.resolve()).finally(() => process.exit(EXIT.interrupted));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // A reader gone (`run … | head`) stops it as a first Ctrl-C does, quietly.
  const readerGone = (): void => stopping.abort();
  closedPipe.signal.addEventListener('abort', readerGone);
  // Progress goes to stderr, so that stdout carries only data: the summary, or the events.
  let shown: { update(state: CampaignState): void } | undefined;
  try {
    return await runCampaign(
      c,
      {
        holder: `campaign run ${files[0]!}`,
        ssh: sshSecretsFrom(process.env),
        clock: systemClock,
        signal: stopping.signal,
        ...(maxPoll === undefined ? {} : { maxPoll }),
        ...(commit === undefined ? {} : { commit }),
        retryFailed: values['retry-failed'] === true,
        keepChanged: values['keep-changed'] === true,
        fresh: values.fresh === true,
        retryFix: 'run again with --retry-failed',
        note,
        warn,
        onLock: (held) => (lock = held),
        onStart: (plan, state) => {
          if (!json) shown = new Progress(process.stderr, plan);
          else {
            const events = new RunEvents(plan, (e) => process.stdout.write(JSON.stringify(e) + '\n'));
            events.start(state);
            shown = events;
          }
        },
        onPass: (state) => shown?.update(state),
      },
      async ({ plan, state, executor, diskFull }) => {
        // Its reader gone, the run says nothing more.
        if (closedPipe.signal.aborted) return EXIT.closedPipe;
        if (stopping.signal.aborted) {
          process.stderr.write(`campaign: ${STOPPED}\n`);
          return EXIT.interrupted;
        }
        const text = await campaignSummary({ campaign: c, plan, state, executor, beside: c.stateDir, warn });
        const summaryFile = join(c.stateDir, 'summary.md');
        await writeFile(summaryFile, text);
        const record = await summaryRecord(plan, state, undefined);
        // The markdown is data for a file or a pipe; a person at a terminal reads its short form.
        if (shown instanceof RunEvents) shown.end(record, summaryFile);
        else if (process.stdout.isTTY) process.stdout.write('\n' + statusText(record));
        else process.stdout.write('\n' + text);
        note(
          `the summary is in ${join(relative(process.cwd(), c.stateDir) || '.', 'summary.md')}, its pictures beside it; a task's log: campaign logs ${files[0]!} TASK`,
        );
        if (diskFull.length > 0) {
          warn(
            `paused: ${diskFull.length} task${diskFull.length === 1 ? '' : 's'} found the disk full (${state.tasks[diskFull[0]!]!.attempts.at(-1)!.reason}); ` +
              'nothing more was submitted. Free space, then run the same command again: they run again, their retries intact',
          );
        }
        return allCompleted(plan, state) ? EXIT.ok : EXIT.incomplete;
      },
    );
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    closedPipe.signal.removeEventListener('abort', readerGone);
  }
}
