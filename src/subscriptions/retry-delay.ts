/**
 * The wait before retrying a notification after its `attempt`-th failure (docs/change-log-and-subscriptions.md#subscriptions): `base`
 * doubled per attempt (1 s, 2 s, 4 s, …), at most `max` (10 min), then 75–100 % of that at random, so the
 * retries of many notifications that failed together spread out.
 */
export function retryDelay(attempt: number, base: number, max: number, random: () => number = Math.random): number {
  const delay = Math.min(base * 2 ** Math.min(Math.max(attempt, 1) - 1, 30), max);
  return Math.round(delay * (0.75 + random() * 0.25));
}
