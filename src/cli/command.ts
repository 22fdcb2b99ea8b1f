/**
 * What a command of the table is (main.ts holds the table, src/cli/commands/ one file per
 * command): its synopsis, help, options and examples, and how it runs; the options several
 * commands share, and the exit statuses.
 */

/** An option: a flag, or one that takes a value, named in help by its placeholder or its choices. */
export interface CommandOption {
  type: 'string' | 'boolean';
  /** The value's placeholder (DIR, SECONDS); a completion offers files for FILE and DIR. */
  value?: string;
  /** The values it accepts, where they are few. */
  choices?: readonly string[];
}

export const flag: CommandOption = { type: 'boolean' };
export const valued = (value: string): CommandOption => ({ type: 'string', value });
export const oneOf = (...choices: string[]): CommandOption => ({ type: 'string', choices });

/** The hidden command completion scripts call for the task ids of a manifest's stored state (commands/tasks.ts). */
export const TASKS_COMMAND = '__tasks';

export const STATE_DIR = { 'state-dir': valued('DIR') };
export const TEXT_OR_JSON = { format: oneOf('text', 'json') };

/** The options of a command that can read its state from GitHub. */
export const FROM_GITHUB = {
  'from-github': flag,
  repo: valued('OWNER/REPO'),
  branch: valued('NAME'),
};

export const FROM_GITHUB_HELP = `--from-github (read the state the newest trusted workflow run saved on GitHub; token from
GITHUB_TOKEN, GH_TOKEN or \`gh auth token\`; for the Enterprise Server GITHUB_API_URL names, GH_ENTERPRISE_TOKEN,
GITHUB_ENTERPRISE_TOKEN or \`gh auth token --hostname HOST\`)   --repo OWNER/REPO (else the origin remote)   --branch NAME`;

/** What a command is given: its options' values and its operands (FILE first, where it takes one). */
export interface Given {
  values: Record<string, string | boolean | undefined>;
  files: string[];
}

/**
 * A command: its synopsis (the command, then its operands: FILE a manifest, TASK, PATH, SHELL;
 * "..." for one or more), what it does (for `campaign help` and `--help`), its options,
 * examples, and how it runs. Completion and the man page are made from this table.
 */
export interface Command {
  synopsis: string;
  help: string;
  options: Readonly<Record<string, CommandOption>>;
  examples: readonly string[];
  run(given: Given): Promise<number>;
}

/**
 * Exit statuses; `interrupted` is a shell's for a command ended by SIGINT, `closedPipe` for
 * one ended by SIGPIPE (128 + 13), which is how `cmd | head` ends a command that writes on.
 */
export const EXIT = { ok: 0, incomplete: 1, user: 2, bug: 3, interrupted: 130, closedPipe: 141 } as const;

/** The operands of a synopsis: their names, and whether the last takes one or more. */
export function operandsOf(entry: Command): { names: string[]; many: boolean } {
  const words = entry.synopsis.split(' ').slice(1);
  return { names: words.map((w) => w.replace(/\.\.\.$/, '')), many: words.at(-1)?.endsWith('...') ?? false };
}

/** The `--format` of a command that writes text or JSON. */
export function format(v: string | boolean | undefined): 'text' | 'json' {
  return v === 'json' ? 'json' : 'text';
}
