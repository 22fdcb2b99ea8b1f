import { axesOf } from '../../manifest/grid.js';
import type { Scalar } from '../../manifest/schema.js';
import {
  BUILTINS,
  envName,
  parseTemplate,
  templateNames,
  variableUses,
  type VariableUse,
} from '../../manifest/template.js';
import { marker, readBash } from '../bash-reading.js';
import type { Rule, RuleFinding } from '../rule.js';
import { shellTexts } from '../shell-texts.js';
import { runsText } from '../code-runners.js';
import { valueProblems, type ValueProblem } from '../value-contexts.js';

/** Built-ins that are always numbers. */
const NUMERIC_BUILTINS = new Set(['attempt', 'units']);

/** A value bash arithmetic reads as a number and nothing else (no name, no subscript, no `$`). */
const isNumber = (v: Scalar): boolean =>
  typeof v === 'number' ? Number.isFinite(v) : typeof v === 'string' && /^[+-]?[0-9]+(\.[0-9]+)?$/.test(v);

/** Shell text as the analysis reads it: each template use one marker character. */
function marked(text: string): string {
  let k = 0;
  return parseTemplate(text)
    .map((p) => (p.name === undefined ? p.literal : marker(k++)))
    .join('');
}

/**
 * The first problem of each use, by its index. Where a value names the command, the analysis
 * reads the text again with each value that names a program it knows (`${python} -c "…"` with
 * python3), so that a value passed to that program is judged as that program takes it.
 */
function problemsOf(text: string, axes: ReadonlyMap<string, readonly Scalar[]>): Map<number, ValueProblem> {
  const names = templateNames(text);
  const base = marked(text);
  const problems = (shell: string): ValueProblem[] => {
    const reading = readBash(shell);
    if (reading) return valueProblems(reading);
    const context = `text that nests substitutions deeper than this analysis reads`;
    return names.map((_, use) => ({ use, kind: 'code', context }));
  };
  const found = problems(base);
  for (const p of found.filter((q) => q.kind === 'command')) {
    const programs = new Set((axes.get(names[p.use]!) ?? []).map(String).filter(runsText));
    for (const program of programs)
      found.push(
        ...problems(base.replace(marker(p.use), `'${program.replaceAll("'", `'\\''`)}'`)).filter(
          (q) => q.use !== p.use,
        ),
      );
  }
  const first = new Map<number, ValueProblem>();
  for (const p of found) if (p.kind !== 'command' && !first.has(p.use)) first.set(p.use, p);
  return first;
}

/** What a problem the analysis found says, and the way out. */
function describe(
  problem: ValueProblem,
  name: string,
  values: readonly Scalar[] | undefined,
): { message: string; fix: string } {
  const v = `\${${name}}`;
  const env = envName(name);
  const through = problem.via ? `, through $${problem.via},` : '';
  const k = values ? values.findIndex((x) => !isNumber(x)) : -1;
  const which = values ? `, and value ${k + 1} of axis "${name}" (${JSON.stringify(values[k])}) is not a number` : '';
  switch (problem.kind) {
    case 'arithmetic':
      return {
        message: `${v}${through} is evaluated as arithmetic in ${problem.context}, where bash runs a $(…) inside a[…] of a value${which}`,
        fix: problem.context.includes('subscript')
          ? `use a numeric axis, or an associative array (declare -A ${problem.context.match(/of \$?\{?(\w+)/)?.[1] ?? 'name'}) whose keys are text`
          : `use a numeric axis here, or keep the value as text (compare it with [[ … == … ]])`,
      };
    case 'name':
      return {
        message: `${v}${through} is read as a variable's name in ${problem.context}, where bash evaluates the subscript of a name like a[$(…)]${which}`,
        fix: `write the name in the text (read -r x, printf -v x …, unset x, [[ -v x ]]) and keep the value as data`,
      };
    default:
      return {
        message: `${v}${through} becomes program text in ${problem.context}: a value holding a quote, a newline or $(…) runs as code there${which}`,
        fix: codeFix(problem, v, env),
      };
  }
}

/** The way out of a value in code, by the program that would run it. */
function codeFix(problem: ValueProblem, v: string, env: string): string {
  switch (problem.input ? 'input' : problem.program) {
    case 'ssh':
      return `quote it for the remote shell: ssh host "cmd $(printf %q "$${env}")" (a bash login shell there), or send it on the input: printf '%s' ${v} | ssh host 'read -r v; cmd "$v"'`;
    case 'make':
      return `make expands $(…) in any variable, from the command line or the environment: have the recipe read it in its shell ($$${env}), or give make only numbers`;
    case 'sed':
      return `sed cannot take a value as data: write the text with a heredoc that cat writes, or use a program that takes the value as an argument (awk -v v=${v} '…', python3 -c '…' ${v})`;
    case 'eval':
      return `run the command directly, with ${v} as one of its arguments`;
    case 'source':
      return `name the file in the text, and pass ${v} to it as an argument (source ./setup.sh ${v}) or read it there from the environment ("$${env}")`;
    case 'input':
      return `give the program as a file or a single-quoted argument, and ${v} as its argument (bash -c '… "$1"' _ ${v}) or from the environment ("$${env}", os.environ["${env}"])`;
    default:
      return `pass it as an argument (bash -c 'echo "$1"' _ ${v}; python3 -c 'import sys; print(sys.argv[1])' ${v}), or read it from the environment inside the program ("$${env}" in a shell, os.environ["${env}"] in Python, ENVIRON["${env}"] in awk)`;
  }
}

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
 * into text another program may run. Bash still evaluates a value, however quoted, as
 * arithmetic (`a[$(…)]` runs), as a variable's name, or as code it hands to an interpreter:
 * `value-contexts.ts` finds those places, through the variables a value is assigned to.
 */
export const valueBecomesCode: Rule = {
  id: 'value-becomes-code',
  severity: 'error',
  description:
    'a ${name} where a value could run as code: single quotes, a heredoc fed to a program, arithmetic or a name bash evaluates, the program of an interpreter (bash -c "…", python3 -c, ssh host "…")',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    for (const { text, path, phase } of shellTexts(manifest)) {
      const axes = new Map(axesOf(phase?.grid));
      const seen = new Map<string, number>();
      const problems = problemsOf(text, axes);
      variableUses(text).forEach((use, index) => {
        const nth = seen.get(use.name) ?? 0;
        seen.set(use.name, nth + 1);
        const position = source.within(path, `\${${use.name}`, nth);
        const problem = contextProblem(use);
        if (problem) {
          findings.push({ ...problem, position });
          return;
        }
        const values = axes.get(use.name);
        if (!values && !(BUILTINS as readonly string[]).includes(use.name)) return; // unknown-variable says so
        const found = problems.get(index);
        if (NUMERIC_BUILTINS.has(use.name)) return;
        const k = values ? values.findIndex((x) => !isNumber(x)) : -1;
        if (values && k < 0) return;
        if (!use.arithmetic) {
          if (found) findings.push({ ...describe(found, use.name, values), position });
          return;
        }
        findings.push({
          message: values
            ? `\${${use.name}} is evaluated as arithmetic here, where bash runs a $(…) inside a[…] of a value, and value ${k + 1} of axis "${use.name}" (${JSON.stringify(values[k])}) is not a number`
            : `\${${use.name}} is text, evaluated as arithmetic here, where bash runs a $(…) inside a[…] of a value`,
          position,
          fix: values
            ? `give axis "${use.name}" only numbers, or compare it as text ([[ \${${use.name}} == 3 ]])`
            : 'use a numeric axis here, or compare it as text ([[ … == … ]])',
        });
      });
    }
    return findings;
  },
};
