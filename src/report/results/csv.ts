/** CSV as RFC 4180 has it: fields quoted where they must be, quotes doubled, CRLF line ends. */

/** One field: quoted when it holds a comma, a quote or a line break, its quotes doubled. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Rows of fields as CSV text, every line (the last too) ended by CRLF. */
export function writeCsv(rows: readonly (readonly string[])[]): string {
  // A row of one empty field is quoted, or it would read back as a blank line.
  return rows.map((r) => (r.length === 1 && r[0] === '' ? '""' : r.map(csvField).join(',')) + '\r\n').join('');
}

/**
 * The rows of a CSV text (CRLF or LF line ends, quoted fields with doubled quotes and line
 * breaks inside them); undefined where a quoted field is never closed or a quote stands inside
 * an unquoted field. A blank line is not a row.
 */
export function parseCsv(text: string): string[][] | undefined {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let wasQuoted = false;
  let i = 0;
  const endRow = (): void => {
    row.push(field);
    if (wasQuoted || !(row.length === 1 && row[0] === '')) rows.push(row);
    row = [];
    field = '';
    wasQuoted = false;
  };
  while (i < text.length) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        // After a closing quote only a separator or a line end may come.
        const next = text[i];
        if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') return undefined;
        continue;
      }
      field += char;
      i++;
      continue;
    }
    if (char === '"') {
      if (field !== '') return undefined;
      quoted = true;
      wasQuoted = true;
    } else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      endRow();
      i++;
    } else if (char === '\n') {
      endRow();
    } else {
      field += char;
    }
    i++;
  }
  if (quoted) return undefined;
  if (field !== '' || wasQuoted || row.length > 0) endRow();
  return rows;
}
