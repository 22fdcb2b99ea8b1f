/** The executor contract (battery.ts) against the local executor: detached sessions on this machine. */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { localAttemptsDir } from '../../../src/exec/local/local-executor.js';
import { contractBattery } from './battery.js';

contractBattery({
  name: 'local',
  ready: () => true,
  async place(dir) {
    const workdir = join(dir, 'work');
    await mkdir(workdir, { recursive: true });
    return {
      workdir,
      head: (name) => `campaign: ${name}\ncluster: { executor: local, max_parallel: 4 }\nworkdir: ${workdir}\n`,
    };
  },
  ssh: () => ({}),
  poll: 0.2,
  timeoutMs: 60_000,
  attempts: (campaign) => localAttemptsDir(campaign).join('/'),
  setsAside: true,
});
