import type { HostPolicy, HostVerdict } from './host-policy.js';

/** How long a host's verdict is reused (a destination being stored or changed is always checked anew). */
const HOST_CHECK_TTL_MS = 30_000;
/** Hosts whose verdicts are kept at most: a bound on the cache, which projects fill by naming hosts. */
const MAX_VERDICTS = 10_000;

/**
 * A policy's recent verdicts by host, for clients that connect to the same destinations again and again
 * (webhook deliveries, extension calls): the check before a connection to a literal address (which the
 * policy's `lookup` never sees) without resolving the host on every call.
 */
export class HostVerdicts {
  private readonly verdicts = new Map<string, { verdict: HostVerdict; until: number }>();

  constructor(private readonly policy: HostPolicy) {}

  /** The host's verdict: a kept one unless `fresh`, else checked now and kept for HOST_CHECK_TTL_MS. */
  async check(host: string, fresh = false): Promise<HostVerdict> {
    const cached = this.verdicts.get(host);
    if (!fresh && cached && cached.until > Date.now()) return cached.verdict;
    const verdict = await this.policy.check(host);
    this.remember(host, verdict);
    return verdict;
  }

  /** Past MAX_VERDICTS hosts the lapsed ones go. */
  private remember(host: string, verdict: HostVerdict): void {
    const now = Date.now();
    if (this.verdicts.size >= MAX_VERDICTS) for (const [key, kept] of this.verdicts) if (kept.until <= now) this.verdicts.delete(key);
    if (this.verdicts.size < MAX_VERDICTS) this.verdicts.set(host, { verdict, until: now + HOST_CHECK_TTL_MS });
  }
}
