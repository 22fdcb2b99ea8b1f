import type { Rule, RuleFinding } from '../rule.js';

/** The words of a command that could name a file it runs: no options, no variables, no operators. */
function fileWords(command: string): string[] {
  return command
    .split(/[\s;&|()<>]+/)
    .map((w) => w.replace(/^['"]|['"]$/g, '').replace(/^\.\//, ''))
    .filter((w) => w !== '' && !w.startsWith('-') && !w.includes('$') && !w.includes('='));
}

/**
 * A command that runs a file the repository tracks, without `code`, runs whatever copy sits in
 * the workdir: an edit to it re-runs nothing, and the result does not name the code that made it.
 */
export const codeNotDeclared: Rule = {
  id: 'code-not-declared',
  severity: 'warning',
  description: "a command runs a file of the manifest's repository that `code` does not declare",
  needs: 'manifest',
  check({ manifest, source, repository }) {
    if (repository === undefined || manifest.code !== undefined) return [];
    const findings: RuleFinding[] = [];
    manifest.phases.forEach((phase, i) => {
      const files = fileWords(phase.command).filter((w) => repository.tracked.has(w));
      if (files.length === 0) return;
      const listed = [...new Set(files)];
      findings.push({
        message: `phase ${phase.name} runs ${listed.join(', ')} of this repository, which no \`code\` ships: an edit to it re-runs nothing, and its results do not name the code that made them`,
        position: source.at(['phases', i, 'command']),
        fix: `declare it: code: { paths: [${listed.join(', ')}] } at the top of the manifest (add the folders it imports)`,
      });
    });
    return findings;
  },
};
