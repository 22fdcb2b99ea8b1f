/** Telling a spent rate limit from a missing permission: GitHub answers both with a 403. */

/**
 * When a refused call's answer says a rate limit is spent: its kind and, where GitHub said it,
 * when it resets (`" (it resets at …)"`, or empty); undefined for any other refusal.
 */
export function spentRateLimit(
  status: number,
  said: string,
  header: (name: string) => string | undefined,
): { secondary: boolean; when: string } | undefined {
  if (status !== 403 && status !== 429) return undefined;
  if (header('x-ratelimit-remaining') !== '0' && !/rate limit/i.test(said)) return undefined;
  const reset = Number(header('x-ratelimit-reset'));
  const when = Number.isFinite(reset) && reset > 0 ? ` (it resets at ${new Date(reset * 1000).toISOString()})` : '';
  return { secondary: /secondary rate limit/i.test(said), when };
}
