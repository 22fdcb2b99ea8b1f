/**
 * An answer asked of a remote machine once and kept, but never a failure: a connection that
 * drops while it is asked must not answer every later call with the same error. (A kept failed
 * `realpath` of the workdir cut every pass after one such drop short, for ever.)
 */
export function askedOnce<T>(ask: () => Promise<T>): () => Promise<T> {
  let kept: Promise<T> | undefined;
  return () =>
    (kept ??= ask().catch((e: unknown) => {
      kept = undefined;
      throw e;
    }));
}
