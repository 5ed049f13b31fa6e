/** Retries a store call a few times with a growing pause (a store that blinks must not lose a piece still on disk). */
export async function withRetries<T>(what: () => Promise<T>, tries = 5): Promise<T> {
  let last: unknown;
  for (let i = 0; i < tries; i++) {
    try {
      return await what();
    } catch (err) {
      last = err;
      await new Promise<void>((r) => setTimeout(r, 200 * 2 ** i).unref());
    }
  }
  throw last;
}
