/**
 * The runner's workflow commands the actions use, written exactly as @actions/core writes them
 * (its core.js, command.js, file-command.js; test/action/commands.test.ts compares them byte for
 * byte). Not that library in the bundles: importing it loads an HTTP client (for OIDC tokens)
 * with Node's network stack, about 1.2 MB of each bundle and over 100 ms of each step's
 * start-up, for nothing `lint` or `plan` does.
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync } from 'node:fs';
import { EOL } from 'node:os';

export interface AnnotationProperties {
  title?: string;
  file?: string;
  startLine?: number;
  endLine?: number;
  startColumn?: number;
  endColumn?: number;
}

/** An input by its name in action.yml, trimmed; '' when not given. */
export function getInput(name: string): string {
  return (process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] || '').trim();
}

export function info(message: string): void {
  process.stdout.write(message + EOL);
}

export function notice(message: string, properties: AnnotationProperties = {}): void {
  issue('notice', commandProperties(properties), message);
}

export function warning(message: string, properties: AnnotationProperties = {}): void {
  issue('warning', commandProperties(properties), message);
}

export function error(message: string, properties: AnnotationProperties = {}): void {
  issue('error', commandProperties(properties), message);
}

/** Fails the step with this message. */
export function setFailed(message: string): void {
  process.exitCode = 1;
  error(message);
}

/** Masks the value wherever the log would show it. */
export function setSecret(secret: string): void {
  issue('add-mask', {}, secret);
}

export function setOutput(name: string, value: unknown): void {
  const file = process.env.GITHUB_OUTPUT || '';
  if (!file) {
    process.stdout.write(EOL);
    issue('set-output', { name }, commandValue(value));
    return;
  }
  if (!existsSync(file)) throw new Error(`Missing file at path: ${file}`);
  const delimiter = `ghadelimiter_${randomUUID()}`;
  const text = commandValue(value);
  if (name.includes(delimiter))
    throw new Error(`Unexpected input: name should not contain the delimiter "${delimiter}"`);
  if (text.includes(delimiter))
    throw new Error(`Unexpected input: value should not contain the delimiter "${delimiter}"`);
  appendFileSync(file, `${name}<<${delimiter}${EOL}${text}${EOL}${delimiter}${EOL}`, { encoding: 'utf8' });
}

function commandProperties(p: AnnotationProperties): Record<string, unknown> {
  if (Object.keys(p).length === 0) return {};
  return {
    title: p.title,
    file: p.file,
    line: p.startLine,
    endLine: p.endLine,
    col: p.startColumn,
    endColumn: p.endColumn,
  };
}

function issue(command: string, properties: Record<string, unknown>, message: string): void {
  let text = `::${command}`;
  // As the library does: a space after the name whenever there are properties, set or not.
  if (Object.keys(properties).length > 0) {
    const set = Object.entries(properties).filter(([, v]) => v);
    text += ' ' + set.map(([k, v]) => `${k}=${escapeProperty(v)}`).join(',');
  }
  process.stdout.write(`${text}::${escapeData(message)}${EOL}`);
}

function commandValue(input: unknown): string {
  if (input === null || input === undefined) return '';
  if (typeof input === 'string' || input instanceof String) return String(input);
  return JSON.stringify(input);
}

const escapeData = (s: unknown): string =>
  commandValue(s).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

const escapeProperty = (s: unknown): string => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
