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

/**
 * Text a task controls (an attempt's reason, a check's detail) as inline code, on one line: no
 * link, image or HTML in it renders, and no run of backticks in it ends the span. In a table,
 * pass the result through tableCell as well.
 */
export function inlineCode(text: string): string {
  const flat = text.replace(/\r?\n|\r/g, ' ');
  if (flat === '') return '';
  let longest = 0;
  for (const run of flat.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  const fence = '`'.repeat(longest + 1);
  // A backtick at an end would join the fence, and CommonMark takes one space off each end of a
  // span that has one at both (and is not all spaces): a space at each end keeps the text whole.
  const spaced = flat.startsWith(' ') && flat.endsWith(' ') && flat.trim() !== '';
  const pad = spaced || flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}
