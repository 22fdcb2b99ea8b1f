/** Waits that end when their signal aborts, so a command's timeout bounds every step of it. */

/** `p`, or a rejection with the signal's reason as soon as it aborts (p itself runs on). */
export function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return abortable(
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
    }),
    signal,
  );
}

/**
 * A counting semaphore. Servers cap the channels one connection may have open (OpenSSH's
 * MaxSessions, 10 by default), and a channel over the cap is refused, so commands beyond the
 * cap wait here for a free one instead.
 */
export class Slots {
  private readonly waiting: (() => void)[] = [];

  constructor(private free: number) {}

  /** Resolves with the function that gives the slot back (safe to call more than once). */
  async take(signal: AbortSignal): Promise<() => void> {
    if (this.free > 0) this.free--;
    else {
      let grant!: () => void;
      const granted = new Promise<void>((resolve) => (grant = resolve));
      this.waiting.push(grant);
      try {
        await abortable(granted, signal);
      } catch (e) {
        const i = this.waiting.indexOf(grant);
        // Granted in the same tick as the abort: pass the slot on.
        if (i === -1) this.give();
        else this.waiting.splice(i, 1);
        throw e;
      }
    }
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.give();
    };
  }

  private give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}
