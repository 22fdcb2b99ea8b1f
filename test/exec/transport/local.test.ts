import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { LocalTransport } from '../../../src/exec/transport/local.js';
import { transportBattery } from './battery.js';

let home: string;
let transport: LocalTransport;

// A temporary directory stands in for the home directory, so the tests leave the real one alone.
beforeAll(async () => {
  home = await realpath(await mkdtemp(join(tmpdir(), 'local-transport-')));
  transport = new LocalTransport({ home });
});
afterAll(async () => {
  await transport.close();
  await rm(home, { recursive: true, force: true });
});

describe('LocalTransport', () => {
  transportBattery({ transport: () => transport, home: () => home });
});
