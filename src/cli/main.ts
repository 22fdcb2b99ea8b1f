/**
 * The `campaign` command: its table of commands, and the dispatch of a command line to one of
 * them. Each command is a file of src/cli/commands/ exporting its synopsis, help, options,
 * examples and handler (a `Command`, ./command.ts); help, completion and the man page are made
 * from the table, and tests loop over it.
 */
import { failureOf } from '../app/errors.js';
import { guardTerminal } from '../app/terminal.js';
import { UserError } from '../errors.js';
import { closest } from '../manifest/suggest.js';
import { EXIT, TASKS_COMMAND, type Command } from './command.js';
import { command as init } from './commands/init.js';
import { command as lint } from './commands/lint.js';
import { command as plan } from './commands/plan.js';
import { command as check } from './commands/check.js';
import { command as run } from './commands/run.js';
import { command as status } from './commands/status.js';
import { command as cancel } from './commands/cancel.js';
import { command as logs } from './commands/logs.js';
import { command as shell } from './commands/shell.js';
import { command as summary } from './commands/summary.js';
import { command as results } from './commands/results.js';
import { command as provenance } from './commands/provenance.js';
import { command as gc } from './commands/gc.js';
import { command as calibrate } from './commands/calibrate.js';
import { command as workflow } from './commands/workflow.js';
import { command as schema } from './commands/schema.js';
import { command as completion } from './commands/completion.js';
import { storedTaskIds } from './commands/tasks.js';
import { parse } from './parse.js';
import { closedPipe, version, watchPipes } from './shared.js';

export { jsonSchema } from './commands/schema.js';

// A command's file imports what reads and plans a manifest; what only it needs it imports when
// it runs (`await import`, naming its module as a string): the controller, the executors and
// their transports, the summaries with their pictures, results, calibration and the batch
// scripts. `lint`, `plan` and `init` then load only what reads and plans a manifest, which is
// most of their start-up (test/app/lazy-loading.test.ts).

/** The commands, in the order help, completion and the man page give them. */
export const COMMANDS: Record<string, Command> = {
  init,
  lint,
  plan,
  check,
  run,
  status,
  cancel,
  logs,
  shell,
  summary,
  results,
  provenance,
  gc,
  calibrate,
  workflow,
  schema,
  completion,
};

const EXIT_STATUS = `Exit status: 0 success (run: every task completed), 1 lint errors or an incomplete
campaign, 2 a usage or input error, 3 a bug in campaign, 130 stopped by Ctrl-C, 141 its output
was a pipe the reader closed (as \`| head\` does).`;

const indent = (text: string, by: number): string =>
  text
    .split('\n')
    .map((l) => ' '.repeat(by) + l)
    .join('\n');

function usage(): string {
  const lines = Object.values(COMMANDS).map((command) => `  ${command.synopsis}\n${indent(command.help, 6)}`);
  return `usage: campaign <command> [options]   (campaign <command> --help, campaign --version)\n\n${lines.join('\n')}\n\n${EXIT_STATUS}`;
}

function commandHelp(entry: Command): string {
  const examples = entry.examples.map((e) => `  ${e}`).join('\n');
  return `usage: campaign ${entry.synopsis} [options]\n\n${entry.help}\n\nExamples:\n${examples}\n\n${EXIT_STATUS}`;
}

export async function main(argv: string[]): Promise<number> {
  watchPipes();
  // Reasons, server messages and logs quote tasks: no escape sequence of theirs reaches a terminal.
  guardTerminal(process.stdout);
  guardTerminal(process.stderr);
  const code = await dispatch(argv);
  return closedPipe.signal.aborted ? EXIT.closedPipe : code;
}

async function dispatch(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
      const about = name === 'help' && rest[0] !== undefined ? COMMANDS[rest[0]] : undefined;
      process.stdout.write((about ? commandHelp(about) : usage()) + '\n');
      return name === undefined ? EXIT.user : EXIT.ok;
    }
    if (name === '--version' || name === '-V' || name === 'version') {
      process.stdout.write(`campaign ${await version()}\n`);
      return EXIT.ok;
    }
    if (name === TASKS_COMMAND) return await storedTaskIds(rest);
    const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!command) {
      const near = closest(name, Object.keys(COMMANDS));
      throw new UserError({
        message: `unknown command "${name}"${near ? `; did you mean "${near}"?` : ''}`,
        fix: near ? `campaign ${near} ${rest.join(' ')}`.trim() : 'run `campaign help` for the commands',
      });
    }
    if (rest.includes('--help') || rest.includes('-h')) {
      process.stdout.write(commandHelp(command) + '\n');
      return EXIT.ok;
    }
    return await command.run(await parse(name, command, rest));
  } catch (e) {
    const failure = failureOf(e);
    process.stderr.write(`campaign: ${failure.kind === 'user' ? failure.error.message : failure.message}\n`);
    return failure.kind === 'bug' ? EXIT.bug : EXIT.user;
  }
}

/** campaign(1), made from the command table (`npm run man` writes it to man/campaign.1). */
export async function manual(): Promise<string> {
  const { manPage } = await import('./man.js');
  return manPage(COMMANDS, EXIT_STATUS);
}
