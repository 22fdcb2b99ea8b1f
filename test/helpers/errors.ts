/** The error a promise (or a function, sync or async) fails with; fails the test if it does not. */
export async function errorOf(p: Promise<unknown> | (() => unknown)): Promise<Error> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a failure');
}
