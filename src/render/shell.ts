/** Quoting for bash: a value becomes one word whatever it holds. */

const SAFE = /^[A-Za-z0-9_./:=+@%,-]+$/;

/** One bash word that expands to exactly `value` (single quotes, `'\''` for a quote). */
export function shellQuote(value: string): string {
  if (value !== '' && SAFE.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** `export NAME=value` lines for an environment, every value quoted. */
export function exportLines(env: Readonly<Record<string, string>>): string {
  return Object.entries(env)
    .map(([k, v]) => `export ${k}=${shellQuote(v)}`)
    .join('\n');
}
