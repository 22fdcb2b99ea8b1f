/** The executor contract (battery.ts) against the local executor: detached sessions on this machine. */
import { localAttemptsDir } from '../../../src/exec/local/local-executor.js';
import { contractBattery, placeHere } from './battery.js';

contractBattery({
  name: 'local',
  ready: () => true,
  place: placeHere,
  ssh: () => ({}),
  poll: 0.2,
  timeoutMs: 60_000,
  attempts: (campaign) => localAttemptsDir(campaign).join('/'),
  setsAside: true,
});
