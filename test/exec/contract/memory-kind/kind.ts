/**
 * The test-only kind as the contract battery drives it: its manifests name the local executor
 * (the schema knows no kind of test/'s), and its executor is opened here instead, on one machine
 * that every executor of the test file shares.
 */
import { localWorkdir } from '../../../../src/app/load.js';
import { placeHere, type Kind } from '../battery.js';
import { Machine, MemoryExecutor } from './memory-executor.js';

export function memoryKind(): Kind {
  const machine = new Machine();
  return {
    name: 'memory (a kind registered from test/)',
    ready: () => true,
    place: placeHere,
    ssh: () => ({}),
    open: async (c) => ({
      executor: new MemoryExecutor({ manifest: c.manifest, workdir: localWorkdir(c), machine }),
      plan: c.plan,
    }),
    poll: 0.1,
    timeoutMs: 60_000,
    attempts: (campaign) => `.campaign/memory/${campaign}/attempts`,
    setsAside: true,
  };
}
