/** The executor contract (battery.ts) against the test-only kind of memory-kind/, registered here. */
import { contractBattery } from './battery.js';
import { memoryKind } from './memory-kind/kind.js';

contractBattery(memoryKind());
