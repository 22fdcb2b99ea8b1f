/** Durations ("90s", "179ms", "0.5s", "3h", "1h30m", "2d", "1-00:00:00", "30:00") and sizes ("32G", "500MiB"). */

// `ms` before `m`: "179ms" is 179 milliseconds, never 179 minutes and a stray "s".
const DURATION_PART = /(\d+(?:\.\d+)?|\.\d+)(ms|d|h|m|s)/g;
const UNIT_SECONDS: Record<string, number> = { d: 86400, h: 3600, m: 60, s: 1, ms: 0.001 };

/** Seconds in a duration, or undefined when the text is not one. */
export function parseDuration(text: string | number): number | undefined {
  if (typeof text === 'number') return text >= 0 && Number.isFinite(text) ? text : undefined;
  const s = text.trim();
  // Slurm's forms: with days the next field is hours (D-HH, D-HH:MM, D-HH:MM:SS); without, MM:SS or HH:MM:SS.
  const days = /^(\d+)-(\d+)(?::(\d+))?(?::(\d+))?$/.exec(s);
  if (days) {
    const [, d, h, m, sec] = days;
    return Number(d) * 86400 + Number(h) * 3600 + Number(m ?? 0) * 60 + Number(sec ?? 0);
  }
  const clock = /^(?:(\d+):)?(\d+):(\d+)$/.exec(s);
  if (clock) {
    const [, h, m, sec] = clock;
    return Number(h ?? 0) * 3600 + Number(m) * 60 + Number(sec);
  }
  if (!/^((\d+(?:\.\d+)?|\.\d+)(ms|d|h|m|s))+$/.test(s)) return undefined;
  let total = 0;
  for (const m of s.matchAll(DURATION_PART)) total += Number(m[1]) * UNIT_SECONDS[m[2]!]!;
  // Summed in milliseconds' precision: 0.1s + 0.2s is 0.3 s, not 0.30000000000000004.
  return Math.round(total * 1e6) / 1e6;
}

/** Slurm's `--time` form: D-HH:MM:SS, or HH:MM:SS below a day. */
export function formatSlurmTime(seconds: number): string {
  const s = Math.ceil(seconds);
  const d = Math.floor(s / 86400);
  const hms = [Math.floor((s % 86400) / 3600), Math.floor((s % 3600) / 60), s % 60]
    .map((n) => String(n).padStart(2, '0'))
    .join(':');
  return d > 0 ? `${d}-${hms}` : hms;
}

/** A short human form: "1h51m", "3m20s", "45s". */
export function formatDuration(seconds: number): string {
  if (seconds < 10) return `${Number(seconds.toFixed(seconds < 1 ? 2 : 1))}s`;
  let s = Math.round(seconds);
  const parts: string[] = [];
  for (const [unit, size] of Object.entries(UNIT_SECONDS).filter(([u]) => u !== 'ms')) {
    const n = Math.floor(s / size);
    if (n > 0) parts.push(`${n}${unit}`);
    s -= n * size;
  }
  return parts.slice(0, 2).join('');
}

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  K: 1024,
  M: 1024 ** 2,
  G: 1024 ** 3,
  T: 1024 ** 4,
};

/** Bytes in a size such as "32G", "500MiB", "1.5GB" (binary units, as Slurm reads them). */
export function parseSize(text: string | number): number | undefined {
  if (typeof text === 'number') return text >= 0 && Number.isFinite(text) ? text : undefined;
  const m = /^(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?$/i.exec(text.trim());
  if (!m) return undefined;
  return Math.round(Number(m[1]) * SIZE_UNITS[m[2]!.toUpperCase()]!);
}

/** Slurm's `--mem` form in whole megabytes. */
export function formatSlurmMem(bytes: number): string {
  return `${Math.ceil(bytes / 1024 ** 2)}M`;
}
