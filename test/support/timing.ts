export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A timeout for `Promise.race` that does not keep the process alive once the race is decided. */
export const deadline = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** Polls `probe` every 50 ms until it answers a truthy value (returned), failing after `ms` with what was awaited. */
export async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/**
 * Waits for the next clock minute when less than 10 s of this one is left: a fixed one-minute window
 * (src/auth/rate-limiter.ts) must not reset in the middle of a check that counts requests against it.
 */
export async function awayFromMinuteBoundary(): Promise<void> {
  const into = Date.now() % 60_000;
  if (into > 50_000) await sleep(60_000 - into + 200);
}
