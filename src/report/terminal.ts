/**
 * Text for a terminal. What a task, a server or a log says may hold escape sequences that move
 * the cursor, rewrite the title, or make a link (OSC 8) that shows one address and opens
 * another: C0 and C1 control characters go, but for newline and tab, and a carriage return
 * ends a line rather than overwriting it.
 */

// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function terminalText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(CONTROL, '');
}
