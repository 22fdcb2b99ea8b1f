/**
 * This process's terminal, guarded: once `guardTerminal` has run, what is written to stdout or
 * stderr while it is a terminal loses its control characters (report/terminal.ts), whoever
 * wrote it: a task's reason, a server's message, a log. The few writers whose own escape
 * sequences are the point (the live display, the prompt's erase) write through `rawWrite`.
 */
import { StringDecoder } from 'node:string_decoder';
import { terminalText } from '../report/terminal.js';

type Write = (chunk: string, ...rest: never[]) => boolean;

/** Each guarded stream's own write. */
const raw = new WeakMap<object, Write>();

export function guardTerminal(stream: NodeJS.WriteStream): void {
  if (!stream.isTTY || raw.has(stream)) return;
  const write = stream.write.bind(stream) as Write;
  raw.set(stream, write);
  // A character split between two buffers is whole when the second comes.
  const decoder = new StringDecoder('utf8');
  stream.write = ((chunk: string | Uint8Array, ...rest: never[]) =>
    write(terminalText(typeof chunk === 'string' ? chunk : decoder.write(Buffer.from(chunk))), ...rest)) as Write;
}

/** Writes `text` as it is, past the guard: only text whose every part this process made. */
export function rawWrite(stream: { write(text: string): unknown }, text: string): void {
  const write = raw.get(stream);
  if (write) write(text);
  else stream.write(text);
}
