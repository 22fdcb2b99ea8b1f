/** Entry point of the campaign action (action.yml → dist/main/index.js). */
import './dirname-shim.js';
import { run } from './main-entry.js';

await run();
