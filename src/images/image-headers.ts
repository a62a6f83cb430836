/** The request headers the image routes read, as pure functions. */

/** Whether `Prefer` asks for `respond-async` (RFC 7240), among other preferences and parameters. */
export function prefersAsync(prefer: string | undefined): boolean {
  return (prefer ?? '').split(',').some((preference) => preference.split(';', 1)[0].trim().toLowerCase() === 'respond-async');
}

/** Whether an `If-None-Match` header matches `etag` (weak comparison, RFC 9110, section 13.1.2; `*` matches). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
