import { axesOf } from '../../manifest/grid.js';
import type { Scalar } from '../../manifest/schema.js';
import { BUILTINS, envName, variableUses, type VariableUse } from '../../manifest/template.js';
import type { Rule, RuleFinding } from '../rule.js';
import { shellTexts } from '../shell-texts.js';

/** Built-ins that are always numbers. */
const NUMERIC_BUILTINS = new Set(['attempt', 'units']);

/** A value bash arithmetic reads as a number and nothing else (no name, no subscript, no `$`). */
const isNumber = (v: Scalar): boolean =>
  typeof v === 'number' ? Number.isFinite(v) : typeof v === 'string' && /^[+-]?[0-9]+(\.[0-9]+)?$/.test(v);

/** Why a use lets a value become code regardless of the value, with the way out; undefined when it does not. */
function contextProblem(use: VariableUse): { message: string; fix: string } | undefined {
  const v = `\${${use.name}}`;
  const env = envName(use.name);
  if (use.context === 'sq' || use.context === 'ansi')
    return {
      message: `${v} inside single quotes is spliced into the quoted text: if that text is code (bash -c '…', python3 -c '…'), a value holding a quote runs as code`,
      fix: `pass it as an argument (bash -c 'echo "$1"' _ ${v}; python3 -c 'import sys; print(sys.argv[1])' ${v}), or read it from the environment inside the quotes ("$${env}" in a shell, os.environ["${env}"] in Python)`,
    };
  if (use.heredoc?.quoted)
    return {
      message: `${v} in the body of a quoted heredoc (<<'EOF') is not expanded: its command would read the text \${${env}}, not the value`,
      fix: `read the value from the environment there ("$${env}" in a shell, os.environ["${env}"] in Python), or unquote the delimiter of a heredoc that only cat or tee writes to a file`,
    };
  if (use.heredoc && !use.heredoc.writesText)
    return {
      message: `${v} in a heredoc body becomes part of the text its command reads: fed to a shell or an interpreter, a value runs as code`,
      fix: `quote the delimiter (<<'EOF') and read the value from the environment inside ("$${env}" in a shell, os.environ["${env}"] in Python); a heredoc whose line is only cat or tee, writing a file, may use ${v}`,
    };
  return undefined;
}

/**
 * DESIGN rule 9: a value is data in every quoting context. Outside single quotes and heredocs
 * the template makes it a quoted reference bash never parses; inside them it would be spliced
 * into text another program may run, and in arithmetic bash evaluates `a[$(…)]` in a value.
 */
export const valueBecomesCode: Rule = {
  id: 'value-becomes-code',
  severity: 'error',
  description:
    'a ${name} where a value could run as code: single quotes, a heredoc fed to a program, arithmetic on text',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    for (const { text, path, phase } of shellTexts(manifest)) {
      const axes = new Map(axesOf(phase?.grid));
      const seen = new Map<string, number>();
      for (const use of variableUses(text)) {
        const nth = seen.get(use.name) ?? 0;
        seen.set(use.name, nth + 1);
        const position = source.within(path, `\${${use.name}`, nth);
        const problem = contextProblem(use);
        if (problem) {
          findings.push({ ...problem, position });
          continue;
        }
        if (!use.arithmetic || NUMERIC_BUILTINS.has(use.name)) continue;
        const values = axes.get(use.name);
        if (!values && !(BUILTINS as readonly string[]).includes(use.name)) continue; // unknown-variable says so
        const k = values ? values.findIndex((x) => !isNumber(x)) : -1;
        if (values && k < 0) continue;
        findings.push({
          message: values
            ? `\${${use.name}} is evaluated as arithmetic here, where bash runs a $(…) inside a[…] of a value, and value ${k + 1} of axis "${use.name}" (${JSON.stringify(values[k])}) is not a number`
            : `\${${use.name}} is text, evaluated as arithmetic here, where bash runs a $(…) inside a[…] of a value`,
          position,
          fix: values
            ? `give axis "${use.name}" only numbers, or compare it as text ([[ \${${use.name}} == 3 ]])`
            : 'use a numeric axis here, or compare it as text ([[ … == … ]])',
        });
      }
    }
    return findings;
  },
};
