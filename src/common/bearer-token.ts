/**
 * The bearer token of an `Authorization` header (RFC 6750, section 2.1: `Bearer <b64token>`), read the same way
 * by the API's authentication and by `/metrics`.
 */

/** b64token: letters, digits and `-._~+/`, then any `=`. */
const B64TOKEN = String.raw`[A-Za-z0-9\-._~+/]+=*`;

/** A value that can be sent as a bearer token (METRICS_TOKEN is checked against it at start-up). */
export const BEARER_TOKEN = new RegExp(`^${B64TOKEN}$`);

const BEARER_HEADER = new RegExp(`^Bearer +(${B64TOKEN}) *$`, 'i');

/** The token of `Authorization: Bearer <token>`; undefined when the header is not that. */
export function bearerToken(header: string): string | undefined {
  return BEARER_HEADER.exec(header)?.[1];
}
