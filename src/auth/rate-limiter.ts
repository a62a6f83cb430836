/**
 * A fixed one-minute window per client, kept in memory: each replica enforces the limit on the
 * requests it serves. `limit` 0 disables it.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly limit: number) {}

  /** Seconds to wait when `key` is over its limit, else undefined (and the request is counted). */
  take(key: string, now = Date.now()): number | undefined {
    if (this.limit === 0) return undefined;
    const windowStart = now - (now % 60_000);
    let window = this.windows.get(key);
    if (!window || window.start !== windowStart) {
      if (this.windows.size > 100_000) this.windows.clear();
      window = { start: windowStart, count: 0 };
      this.windows.set(key, window);
    }
    if (window.count >= this.limit) return Math.max(1, Math.ceil((windowStart + 60_000 - now) / 1000));
    window.count++;
    return undefined;
  }
}
