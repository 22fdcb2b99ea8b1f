import { posix } from 'node:path';
import { containedPath, pathMaker, type TaskSpec } from '../../manifest/expand.js';
import type { Path } from '../../manifest/source.js';
import type { Rule, RuleFinding } from '../rule.js';

/** Why a rendered path is not inside the workdir, or undefined when it is. */
function escapes(path: string): string | undefined {
  if (containedPath(path) !== undefined) return undefined;
  if (path.startsWith('/')) return 'is absolute';
  if (path.startsWith('~')) return 'starts with ~ (a home directory, not the workdir)';
  if (path.trim() === '') return 'is empty';
  if (posix.normalize(path) === '.') return 'is the workdir itself, not a path under it';
  return 'leaves the workdir (".." after normalisation)';
}

/**
 * Outputs (and the inputs a phase waits for) are paths relative to the workdir: an absolute
 * path, a `~` path or one that climbs out with `..` is shared with whatever else writes there,
 * so a task's output is no longer its alone (DESIGN rules 3 and 7).
 */
export const outputOutsideWorkdir: Rule = {
  id: 'output-outside-workdir',
  severity: 'error',
  description: 'an output or precondition path that is absolute, starts with ~ or leaves the workdir',
  needs: 'tasks',
  check({ manifest, source, tasks }) {
    const findings: RuleFinding[] = [];
    const report = (
      path: Path,
      what: string,
      rendered: (t: TaskSpec) => string,
      phaseTasks: readonly TaskSpec[],
    ): void => {
      let bad = 0;
      let example: [TaskSpec, string, string] | undefined;
      for (const t of phaseTasks) {
        const text = rendered(t);
        const why = escapes(text);
        if (why === undefined) continue;
        bad++;
        example ??= [t, text, why];
      }
      if (!example) return;
      const [t, text, why] = example;
      const others = bad > 1 ? ` (${bad} of ${phaseTasks.length} tasks)` : '';
      findings.push({
        message: `${what} of task ${t.id} is "${text}", which ${why}${others}`,
        position: source.at(path),
        fix: `write a path relative to the workdir (${manifest.workdir}), e.g. results/\${tag}.json`,
      });
    };
    manifest.phases.forEach((phase, i) => {
      const phaseTasks = tasks.get(phase.name) ?? [];
      if (phase.output !== undefined) {
        // expandPhase keeps a contained output normalised and an uncontained one as rendered text.
        report(['phases', i, 'output'], 'the output', (t) => t.output ?? '', phaseTasks);
      }
      phase.preconditions?.forEach((p, j) => {
        // The template parsed once for the phase's tasks, not once a task.
        const render = pathMaker(manifest, phase, p.exists);
        report(
          ['phases', i, 'preconditions', j, 'exists'],
          'the precondition path',
          (t) => render(t.values, t.tag),
          phaseTasks,
        );
      });
    });
    return findings;
  },
};
