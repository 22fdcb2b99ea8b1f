/** Entry point of the lint action (lint/action.yml → dist/lint/index.js). */
import { lintStep } from './lint.js';

await lintStep();
