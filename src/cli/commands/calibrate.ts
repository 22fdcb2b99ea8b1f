/** `campaign calibrate FILE`: the measured rates against the declared ones (its body, ../calibrate.ts, is loaded when it runs). */
import { loadCampaign } from '../../app/load.js';
import { storedState } from '../../app/stored-state.js';
import { EXIT, flag, format, STATE_DIR, TEXT_OR_JSON, type Command, type Given } from '../command.js';
import { openFor } from '../shared.js';

export const command: Command = {
  synopsis: 'calibrate FILE',
  help: `measured seconds per unit per stratum against the declared rates, headroom, the walltime
the planner would now choose; writes the cost sections' patch to calibrate.patch in the state dir
--state-dir DIR   --write (apply it to FILE)   --format text|json`,
  options: { ...STATE_DIR, write: flag, ...TEXT_OR_JSON },
  examples: ['campaign calibrate campaigns/sweep.yml', 'campaign calibrate campaigns/sweep.yml --write'],
  run: calibrate,
};

async function calibrate({ values, files }: Given): Promise<number> {
  const fmt = format(values.format);
  const c = await loadCampaign(files[0]!, values['state-dir'] as string | undefined);
  const state = await storedState(c);
  const { runCalibrate } = await import('../calibrate.js');
  const { executor } = await openFor(c, () => state.created, false);
  try {
    const r = await runCalibrate(c, executor, state, { write: values.write === true });
    if (fmt === 'json') process.stdout.write(JSON.stringify({ ...r.calibration, diff: r.diff }, null, 2) + '\n');
    else {
      process.stdout.write(r.report);
      if (r.patchFile) {
        const applied =
          values.write === true ? `applied to ${c.file}` : 'apply it with `git apply` or rerun with --write';
        process.stdout.write(`\nThe cost sections, as measured (${r.patchFile}; ${applied}):\n\n${r.diff}`);
      } else if (r.calibration.phases.some((p) => p.strata.length > 0))
        process.stdout.write('\nThe manifest already holds the measured rates.\n');
    }
    return r.differs ? EXIT.incomplete : EXIT.ok;
  } finally {
    await executor.close();
  }
}
