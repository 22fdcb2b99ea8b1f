/** Entry point of the campaign action (action.yml → dist/main/index.js). */
import './dirname-shim.js';
import { mainStep } from './main-step.js';

await mainStep();
