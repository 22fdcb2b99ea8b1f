import { axisNames } from '../../manifest/grid.js';
import { BUILTINS, PATH_BUILTINS, unknownNames } from '../../manifest/template.js';
import type { Path } from '../../manifest/source.js';
import type { Rule, RuleFinding } from '../rule.js';
import { shellTexts } from '../shell-texts.js';

/** Every `${name}` must be a grid axis of its phase or a built-in; nothing is left for the shell. */
export const unknownVariable: Rule = {
  id: 'unknown-variable',
  severity: 'error',
  description: 'a ${name} that is neither a grid axis nor a built-in',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    const report = (text: string | undefined, path: Path, known: ReadonlySet<string>): void => {
      if (text === undefined) return;
      for (const name of unknownNames(text, known)) {
        findings.push({
          message: `unknown variable \${${name}}; known here: ${[...known].map((k) => `\${${k}}`).join(', ')}`,
          position: source.within(path, `\${${name}`),
          fix: 'use a grid axis or a built-in, or write $${...} for a shell expansion',
        });
      }
    };
    const builtins = new Set<string>(BUILTINS);
    const known = new Map(
      manifest.phases.map((phase) => [phase, new Set<string>([...axisNames(phase.grid), ...BUILTINS])]),
    );
    for (const { text, path, phase } of shellTexts(manifest)) report(text, path, phase ? known.get(phase)! : builtins);
    manifest.phases.forEach((phase, i) => {
      const paths = new Set<string>([...axisNames(phase.grid), ...PATH_BUILTINS]);
      report(phase.output, ['phases', i, 'output'], paths);
      phase.preconditions?.forEach((p, j) => report(p.exists, ['phases', i, 'preconditions', j, 'exists'], paths));
    });
    return findings;
  },
};
