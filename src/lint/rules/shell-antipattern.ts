import type { Path } from '../../manifest/source.js';
import type { Rule, RuleFinding } from '../rule.js';
import { shellTexts } from '../shell-texts.js';

interface Pattern {
  re: RegExp;
  /** A short word to find the match by in the YAML source when the match itself is not there verbatim. */
  word: string;
  message: string;
  fix: string;
  /** Only in a setup (the campaign's or a phase's): what the manifest's `environment` does instead. */
  setupOnly?: boolean;
}

const WATCH_FIX = 'watch the process by its pid ($! saved to a pid file) or by a sentinel file it writes';

const PATTERNS: readonly Pattern[] = [
  // Before the general eval "$(...)": the same match, with the fix that applies to conda's hook.
  {
    re: /\beval\s+"?\$\(\s*["']?[^\s"'()]*conda["']?\s+["']?shell\.\w+["']?\s+["']?hook\b/g,
    word: 'eval',
    message: 'eval "$(conda shell.bash hook)" runs text produced at run time as shell code',
    fix: 'name the environment in environment.conda: campaign finds conda, renders its activation before the setup and checks it as the gate environment',
  },
  {
    re: /\beval\s+"?\$\(/g,
    word: 'eval',
    message: 'eval "$(...)" runs text produced at run time as shell code',
    fix: 'run the command directly, or keep its output as data: x="$(cmd)"',
  },
  {
    re: /\beval\s+"?`/g,
    word: 'eval',
    message: 'eval `...` runs text produced at run time as shell code',
    fix: 'run the command directly, or keep its output as data: x="$(cmd)"',
  },
  {
    re: /\bpgrep\s+(?:-\w+\s+)*-[A-Za-z]*f/g,
    word: 'pgrep',
    message: 'pgrep -f matches a pattern against whole command lines: it can match itself, or another task',
    fix: WATCH_FIX,
  },
  {
    re: /\bpkill\s+(?:-\w+\s+)*-[A-Za-z]*f/g,
    word: 'pkill',
    message: 'pkill -f kills every process whose command line matches: it can kill itself, or another task',
    fix: 'kill the process by the pid you saved when you started it: kill "$(cat server.pid)"',
  },
  {
    re: /\bconda\s+activate\b/g,
    word: 'conda',
    message:
      "conda activate in a setup needs conda's shell hook, which a batch shell has not run, and its failure reads as a setup failure",
    fix: 'name the environment in environment.conda: campaign activates it before the setup and checks it as the gate environment',
    setupOnly: true,
  },
  {
    re: /\bmodule\s+load\b/g,
    word: 'module',
    message:
      'module load in a setup needs a module command, which a batch shell may not define, and its failure reads as a setup failure',
    fix: 'list the modules in environment.modules: campaign finds the module system, loads them after module purge and checks them as the gate environment',
    setupOnly: true,
  },
  {
    re: /(?<![\w./-])(?:source|\.)\s+["']?[^\s"';&|]*bin\/activate\b/g,
    word: 'activate',
    message:
      'a virtual environment activated in a setup, when it is missing, fails the task as a setup failure that gives only an exit status',
    fix: 'give its directory as environment.venv: campaign activates it before the setup and checks it as the gate environment',
    setupOnly: true,
  },
  {
    re: /(?<![\w.-])ps\b[^|;&\n]*\|\s*grep\b/g,
    word: 'ps ',
    message: 'ps ... | grep matches a pattern against the process list: the grep can match itself, or another task',
    fix: WATCH_FIX,
  },
];

/**
 * DESIGN rules 4 and 7: no poll can match itself, nothing uses eval "$(...)"; and a setup that
 * activates modules, conda or a venv itself is pointed at the manifest's `environment`.
 */
export const shellAntipattern: Rule = {
  id: 'shell-antipattern',
  severity: 'warning',
  description:
    'eval "$(...)", pgrep -f, pkill -f or ps | grep in shell text; module load, conda activate or a venv activated in a setup',
  needs: 'manifest',
  check({ manifest, source }) {
    const findings: RuleFinding[] = [];
    const seen = new Set<string>();
    const scan = (text: string, path: Path): void => {
      const start = source.at(path);
      const isSetup = path[path.length - 1] === 'setup';
      for (const p of PATTERNS) {
        if (p.setupOnly && !isSetup) continue;
        for (const m of text.matchAll(p.re)) {
          // The value may be folded or escaped in the YAML source: try the match, its first line, then the word.
          const needles = [m[0], m[0].split('\n')[0]!, p.word];
          let position = start;
          for (const needle of needles) {
            const at = source.within(path, needle);
            if (at.line !== start.line || at.column !== start.column) {
              position = at;
              break;
            }
          }
          const key = `${position.line}:${position.column}:${p.word}`;
          if (seen.has(key)) continue;
          seen.add(key);
          findings.push({ message: p.message, position, fix: p.fix });
        }
      }
    };
    for (const { text, path } of shellTexts(manifest)) scan(text, path);
    return findings;
  },
};
