/** Entry point of the lint action (lint/action.yml → dist/lint/index.js). */
import { run } from './lint-entry.js';

await run();
