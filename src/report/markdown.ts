/**
 * Text from logs, checks and manifests put into markdown (summaries, job summaries, check runs)
 * so that it stays what it is: a table cell stays one cell, a log stays inside its code block.
 */

/** One table cell: `|` escaped and line breaks made spaces, so that the row stays one row. */
export function tableCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n|\r/g, ' ');
}

/** A fenced code block that no run of backticks in the text can close (CommonMark: a longer fence). */
export function codeBlock(text: string): string[] {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [fence, text, fence];
}
