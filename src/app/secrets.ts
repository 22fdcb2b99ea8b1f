/**
 * The secrets in this process's environment, as a front end sees them: which names hold one,
 * and the environment without them (exec/secrets.ts, where the executors hand it to every task).
 * The Action starts itself again with that environment (action/environ.ts).
 */
export { environmentWithoutSecrets, isSecretName } from '../exec/secrets.js';
