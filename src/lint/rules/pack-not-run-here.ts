import { restriction } from '../../manifest/schema.js';
import type { Rule, RuleFinding } from '../rule.js';

/**
 * What packing does not run with yet, refused rather than run wrongly:
 * - an automation node (`cluster.restricted`): with no file transfer there is no `task.sh` for
 *   the element to run, and without a shell the controller judges an ended job by the queue,
 *   which forgets an element after MinJobAge, and with it which of its tasks never started;
 * - a checkpointing phase: Slurm's warning signal reaches the element's driver, which would
 *   pass it to the task running then alone, and the tasks after it would start with no time
 *   to checkpoint in.
 */
export const packNotRunHere: Rule = {
  id: 'pack-not-run-here',
  severity: 'error',
  description: '`pack` on an automation node (cluster.restricted) or together with checkpoint',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    const restricted = restriction(manifest.cluster);
    manifest.phases.forEach((phase, i) => {
      if (phase.pack === undefined) return;
      if (restricted !== undefined)
        findings.push({
          message: `phase "${phase.name}" packs its tasks, which campaign does not run on an automation node (restricted: ${restricted === 'slurm' ? 'slurm, no file transfer to send each element its task script' : 'true, no shell to tell the tasks an ended element never started'})`,
          position: source.at(['phases', i, 'pack'], { key: true }),
          fix: 'remove pack (each task then runs in an array element of its own), or run the campaign from a login with a shell',
        });
      if (phase.checkpoint !== undefined)
        findings.push({
          message: `phase "${phase.name}" packs its tasks and checkpoints them: the warning signal would reach only the task running when it comes, and the tasks after it would start with no time left to checkpoint`,
          position: source.at(['phases', i, 'pack'], { key: true }),
          fix: 'remove pack or checkpoint from the phase',
        });
    });
    return findings;
  },
};
