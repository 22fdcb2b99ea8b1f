/** Quoting for bash: a value becomes one word whatever it holds. */

/** The characters bash takes as they are, in a word or through `printf %b`: no quoting, no escape. */
const PLAIN = 'A-Za-z0-9_./:=+@%,-';
const SAFE = new RegExp(`^[${PLAIN}]+$`);
/** Any character that is not plain (a whole code point), for replacing. */
export const NOT_PLAIN = new RegExp(`[^${PLAIN}]`, 'gu');

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

/**
 * `campaign_now`, a bash function that sets `campaign_ms` to the time in milliseconds, from bash
 * itself where it can (5.0 on): the scripts around a task fork as little as they can, since the
 * tasks of an array start and end together.
 */
export const NOW_MS_FUNCTION: readonly string[] = [
  'campaign_now() {',
  '  if [ -n "${EPOCHREALTIME:-}" ]; then campaign_ms=${EPOCHREALTIME/[.,]/}; campaign_ms=${campaign_ms%???}',
  '  else campaign_ms=$(date +%s%3N); fi',
  '}',
];
