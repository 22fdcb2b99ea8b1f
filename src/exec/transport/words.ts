/**
 * Commands as plain words: what an automation node's forced command runs. The wrapper runs
 * `$SSH_ORIGINAL_COMMAND` unquoted, so word splitting at blanks and globbing are all that
 * happens to it there: a word must mean the same whether or not it is split and globbed, save
 * the glob words that are meant to be globbed. No quoting can help, so a word that needs any
 * is a bug of the caller's, never something to escape.
 */

/** One word: a string is taken literally; `{ glob }` is a pathname pattern (`*`, `?`) to expand. */
export type Word = string | { glob: string };

/**
 * Characters that mean nothing to word splitting, globbing or the usual login shells (bash,
 * zsh, tcsh): the same command then means the same on an automation node and through an
 * ordinary login's shell. Not `|` (a pipe to a shell, even inside a word) nor `^` (a pipe to
 * the Bourne shell, a negation to zsh's extended globs): squeue formats separate with `@`.
 */
const PLAIN = /^[A-Za-z0-9_.,:=%@+/-]$/;
const GLOB = /^[*?]$/;

/** The command line for `words`: each validated, joined with single spaces. Throws on a word that is not plain. */
export function plainCommand(words: readonly Word[]): string {
  if (words.length === 0) throw new Error('a plain command needs at least one word');
  if (typeof words[0] !== 'string') throw new Error("a plain command's first word (the program) cannot be a glob");
  return words
    .map((word, i) => {
      const glob = typeof word !== 'string';
      const text = glob ? word.glob : word;
      if (text === '') throw new Error(`word ${i + 1} of a plain command is empty`);
      [...text].forEach((char, at) => {
        if (PLAIN.test(char) || (glob && GLOB.test(char))) return;
        throw new Error(
          `word ${i + 1} of a plain command has ${JSON.stringify(char)} at character ${at + 1}, which the automation node's wrapper would not take literally`,
        );
      });
      return text;
    })
    .join(' ');
}
