/** Entry point of the campaign action (action.yml → dist/main/index.js). */
import './dirname-shim.js';
import { secretsOutOfEnviron } from './environ.js';
import { mainStep } from './main-step.js';
import { core } from './toolkit.js';

secretsOutOfEnviron((m) => core.warning(m));
await mainStep();
