import { BUILTINS, PATH_BUILTINS, unknownNames } from '../../manifest/template.js';
import type { Path } from '../../manifest/source.js';
import type { Rule, RuleFinding } from '../rule.js';

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
    const globalKnown = new Set<string>(BUILTINS);
    report(manifest.setup, ['setup'], globalKnown);
    report(manifest.gates?.capability, ['gates', 'capability'], globalKnown);
    manifest.phases.forEach((phase, i) => {
      const axes = Object.keys(phase.grid ?? {});
      const all = new Set<string>([...axes, ...BUILTINS]);
      const paths = new Set<string>([...axes, ...PATH_BUILTINS]);
      report(phase.command, ['phases', i, 'command'], all);
      report(phase.setup, ['phases', i, 'setup'], all);
      report(phase.output, ['phases', i, 'output'], paths);
      phase.preconditions?.forEach((p, j) => report(p.exists, ['phases', i, 'preconditions', j, 'exists'], paths));
      phase.smoke?.trigger?.forEach((c, j) => {
        if (c.check === 'command') report(c.run, ['phases', i, 'smoke', 'trigger', j, 'run'], all);
      });
    });
    return findings;
  },
};
