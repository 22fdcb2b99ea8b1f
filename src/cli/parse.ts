/**
 * A command's options and operands, checked against its entry in the table before it runs:
 * each refusal says what was wrong and how to write it.
 */
import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { UserError } from '../errors.js';
import { closest } from '../manifest/suggest.js';
import { operandsOf, type Command, type Given } from './command.js';

/** What an operand of a synopsis is, in a message that says one is missing. */
const OPERANDS: Record<string, string> = {
  FILE: 'manifest',
  'FILE|DIR': 'manifest or folder',
  TASK: 'task id (as `campaign status` shows it: phase/tag)',
  PATH: 'output path',
  SHELL: 'shell (bash, zsh or fish)',
};

/**
 * The options and operands of a command, checked against its entry in the table: an unknown
 * option gets a suggestion, a value outside an option's choices the choices, a missing operand
 * its name, and a manifest that is not there says so before anything reads it.
 */
export async function parse(name: string, entry: Command, argv: string[]): Promise<Given> {
  const options = Object.fromEntries(Object.entries(entry.options).map(([k, o]) => [k, { type: o.type }]));
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw optionError(name, entry, argv, e as Error & { code?: string });
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  for (const [option, value] of Object.entries(values)) {
    const choices = entry.options[option]?.choices;
    if (typeof value === 'string' && choices && !choices.includes(value))
      throw new UserError({
        message: `--${option} ${value} is not known`,
        fix: `use ${choices
          .map((v) => `--${option} ${v}`)
          .join(', ')
          .replace(/, ([^,]*)$/, ' or $1')}`,
      });
  }
  const given = parsed.positionals;
  const operands = operandsOf(entry);
  if (given.length < operands.names.length) {
    const missing = operands.names[given.length]!;
    throw new UserError({
      message:
        given.length === 0 && missing === 'FILE' ? 'no manifest given' : `no ${OPERANDS[missing] ?? missing} given`,
      fix: `campaign ${entry.synopsis}`,
    });
  }
  if (!operands.many && given.length > operands.names.length)
    throw new UserError({
      message:
        operands.names.length === 1 && operands.names[0] === 'FILE'
          ? `this command takes one manifest; also given: ${given.slice(1).join(' ')}`
          : `campaign ${entry.synopsis} takes ${operands.names.length}; also given: ${given.slice(operands.names.length).join(' ')}`,
      fix: operands.names[0] === 'FILE' ? 'run it once per manifest' : `campaign ${entry.synopsis}`,
    });
  // init writes its FILE; every other command reads it.
  if (operands.names[0] === 'FILE' && name !== 'init') await mustExist(given[0]!);
  return { values, files: given };
}

async function mustExist(file: string): Promise<void> {
  const found = await stat(file).catch(() => undefined);
  if (found?.isFile()) return;
  throw new UserError({
    message: found ? `${file} is not a file` : `${file} does not exist`,
    fix: found
      ? 'give the manifest, a .yml file'
      : `check the path (from ${process.cwd()}), or write a starter there with \`campaign init ${file}\``,
  });
}

/** parseArgs's refusal, said in the command's terms: the option it does not know, with the nearest it does. */
function optionError(name: string, entry: Command, argv: string[], e: Error & { code?: string }): UserError {
  const help = `run \`campaign ${name} --help\` for its options`;
  const known = Object.keys(entry.options).map((o) => `--${o}`);
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const end = argv.indexOf('--');
    const unknown = (end < 0 ? argv : argv.slice(0, end))
      .filter((a) => a.startsWith('-') && a !== '-')
      .map((a) => a.split('=')[0]!)
      .find((a) => !known.includes(a));
    const shown = unknown ?? 'an option';
    const near = unknown === undefined ? undefined : closest(unknown.replace(/^-+/, '--'), known);
    return new UserError({
      message: `campaign ${name} has no option ${shown}${near ? `; did you mean ${near}?` : ''}`,
      fix: near
        ? `campaign ${name} ${argv.map((a) => (a.split('=')[0] === unknown ? a.replace(unknown!, near) : a)).join(' ')}`
        : help,
    });
  }
  const option = /'(?:-\w, )?(--[\w-]+)/.exec(e.message)?.[1];
  const spec = option === undefined ? undefined : entry.options[option.slice(2)];
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option !== undefined && spec !== undefined)
    return new UserError({
      message:
        spec.type === 'boolean'
          ? `${option} takes no value`
          : `${option} needs a value${spec.choices ? ` (${spec.choices.join('|')})` : spec.value ? ` (${spec.value})` : ''}`,
      fix:
        spec.type === 'boolean'
          ? `write ${option} alone`
          : `${option} VALUE, or ${option}=VALUE for a value that starts with "-"`,
    });
  return new UserError({ message: e.message, fix: help });
}
