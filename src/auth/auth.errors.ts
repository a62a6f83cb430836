import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';

/**
 * Every error of the auth module (CONTRACT.md §7, RFC 6749 §5.2, RFC 6750 §3): the contract's envelope
 * plus OAuth's `error` and `error_description`, and the `WWW-Authenticate` challenge where one is due.
 * The global filter renders them like any other DomainError.
 */

/** The protection space named in every `WWW-Authenticate` challenge this service sends. */
const REALM = 'resource-api';

/** RFC 7235 quoted-string content: no double quotes or backslashes. */
function quotable(text: string): string {
  return text.replace(/["\\]/g, "'");
}

/** 401 `invalid_token`: no, a malformed, an expired or an unknown bearer token. */
export function invalidToken(description: string): DomainError {
  return Object.assign(DomainError.of(ErrorCode.InvalidToken, description), {
    headers: { 'WWW-Authenticate': `Bearer realm="${REALM}", error="invalid_token", error_description="${quotable(description)}"` },
    extra: { error: 'invalid_token', error_description: description },
  });
}

/** 403 `insufficient_scope`: the token lacks `scope` (or the route declares no access rule). */
export function insufficientScope(description: string, scope?: string): DomainError {
  return Object.assign(DomainError.of(ErrorCode.InsufficientScope, description), {
    headers: { 'WWW-Authenticate': `Bearer realm="${REALM}", error="insufficient_scope"${scope ? `, scope="${quotable(scope)}"` : ''}` },
    extra: { error: 'insufficient_scope', error_description: description },
  });
}

/** 429: the client's requests per minute are used up; `waitSeconds` until the next one is allowed. */
export function rateLimited(waitSeconds: number): DomainError {
  return Object.assign(DomainError.of(ErrorCode.TooManyRequests, `Rate limit exceeded; retry in ${waitSeconds} s.`), {
    headers: { 'Retry-After': String(waitSeconds) },
  });
}

export type OAuthCode = ErrorCode.InvalidClient | ErrorCode.InvalidRequest | ErrorCode.InvalidScope | ErrorCode.UnsupportedGrantType;

/** An RFC 6749 §5.2 error of the token and introspection endpoints; `basic`: challenge for HTTP Basic. */
export function oauthError(code: OAuthCode, description: string, basic = false): DomainError {
  return Object.assign(DomainError.of(code, description), {
    extra: { error: code, error_description: description },
    ...(basic ? { headers: { 'WWW-Authenticate': `Basic realm="${REALM}"` } } : {}),
  });
}
