import { restriction } from '../../manifest/schema.js';
import type { Rule } from '../rule.js';

/**
 * A code snapshot travels by the file transfer the login allows; an automation node that allows
 * Slurm's commands alone (`restricted: slurm`) takes no file, so the tasks could never find it.
 */
export const codeWithoutTransfer: Rule = {
  id: 'code-without-transfer',
  severity: 'error',
  description: '`code` on an automation node that allows no file transfer (`restricted: slurm`)',
  needs: 'manifest',
  check({ manifest, source }) {
    if (manifest.code === undefined || restriction(manifest.cluster) !== 'slurm') return [];
    return [
      {
        message:
          'the code snapshot is shipped by file transfer, and cluster.restricted: slurm says the automation node allows none',
        position: source.at(['code'], { key: true }),
        fix: 'allow SFTP on the automation node (restricted: true), or reach the cluster through a login node with a shell',
      },
    ];
  },
};
