/**
 * Answering keyboard-interactive prompts (a second factor) on this process's terminal, as
 * `ssh` does: each prompt on stderr, the answer read from stdin in raw mode so that it is not
 * echoed where the server says not to (a one-time code, a password). Only for a terminal.
 */
import { terminalText } from '../report/terminal.js';
import { rawWrite } from './terminal.js';
import type { KeyboardInteractive } from '../exec/transport/ssh/auth.js';

const ENTER = new Set(['\r', '\n']);
/** Ctrl-C and Ctrl-D: raw mode turns them into characters, read here as "no answer". */
const GIVE_UP = new Set(['\u0003', '\u0004']);
const ERASE = new Set(['\u007f', '\b']);

export const askOnTerminal: KeyboardInteractive = async (request) => {
  // The name, instructions and prompts are the server's (a bastion's): no escape of theirs reaches the terminal.
  const heading = [request.name, request.instructions].filter((s) => s.trim() !== '').join('\n');
  process.stderr.write(terminalText(`${request.host} asks${heading ? `:\n${heading}` : ':'}\n`));
  const answers: string[] = [];
  for (const p of request.prompts) answers.push(await readAnswer(p.prompt, p.echo === true));
  return answers;
};

function readAnswer(prompt: string, echo: boolean): Promise<string> {
  const input = process.stdin;
  const out = process.stderr;
  return new Promise((resolve, reject) => {
    // Raw before the prompt shows: an answer typed the moment it appears is never echoed.
    const wasRaw = input.isRaw;
    input.setRawMode(true);
    input.resume();
    out.write(terminalText(prompt));
    let answer = '';
    const finish = (settle: () => void) => {
      input.off('data', onData);
      input.setRawMode(wasRaw);
      input.pause();
      out.write('\n');
      settle();
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString('utf8')) {
        if (ENTER.has(ch)) return finish(() => resolve(answer));
        if (GIVE_UP.has(ch)) return finish(() => reject(new Error('no answer given')));
        if (ERASE.has(ch)) {
          if (answer !== '' && echo) rawWrite(out, '\b \b');
          answer = [...answer].slice(0, -1).join('');
        } else {
          answer += ch;
          if (echo) out.write(terminalText(ch));
        }
      }
    };
    input.on('data', onData);
  });
}
