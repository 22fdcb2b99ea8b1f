/** The Slurm executor reads a log the state names only where it puts logs itself (no cluster needed). */
import { describe, expect, it } from 'vitest';
import { isJobLog } from '../../../src/exec/slurm/handles.js';

const root = '/home/u/w/.campaign/slurm/c';

describe('a job log named by a state', () => {
  it('is one of the campaign’s job logs', () => {
    expect(isJobLog(root, `${root}/0123456789ab/logs/7.log`)).toBe(true);
  });

  it('anything else is refused: another file, a way out of the directory, another campaign', () => {
    for (const path of [
      '/home/u/.ssh/id_ed25519',
      `${root}/0123456789ab/logs/../../../../../../.ssh/id_ed25519`,
      `${root}/../other/0123456789ab/logs/7.log`,
      `${root}/0123456789ab/logs/7.log/../../job.sh`,
      `${root}/0123456789ab/job.sh`,
      `${root}x/0123456789ab/logs/7.log`,
      '',
    ])
      expect(isJobLog(root, path), path).toBe(false);
  });
});
