import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';

/**
 * Every error of the auth module (RFC 6749, section 5.2, RFC 6750, section 3): the error envelope plus OAuth's
 * `error` and `error_description`, and the `WWW-Authenticate` challenge where one is due. The global
 * filter renders them like any other DomainError.
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

type OAuthCode = ErrorCode.InvalidClient | ErrorCode.InvalidRequest | ErrorCode.InvalidScope | ErrorCode.UnsupportedGrantType;

/** An RFC 6749, section 5.2 error of the token and introspection endpoints; `basic`: challenge for HTTP Basic. */
export function oauthError(code: OAuthCode, description: string, basic = false): DomainError {
  return Object.assign(DomainError.of(code, description), {
    extra: { error: code, error_description: description },
    ...(basic ? { headers: { 'WWW-Authenticate': `Basic realm="${REALM}"` } } : {}),
  });
}

/** The OAuth `error` of an answer of the token endpoints that no OAuth rule raised, by its status. */
function oauthErrorOf(status: number): string {
  if (status === 401) return ErrorCode.InvalidClient;
  if (status === 429 || status === 503) return 'temporarily_unavailable';
  return status >= 500 ? 'server_error' : ErrorCode.InvalidRequest;
}

/**
 * `error` with OAuth's `error` and `error_description` when it has none: every error answer of the token
 * and introspection endpoints carries them, also those raised before or around the OAuth rules (a body
 * too large or of the wrong type, a rate limit, the database being unreachable).
 */
export function asOAuthError(error: DomainError): DomainError {
  if (error.extra?.error !== undefined) return error;
  return Object.assign(new DomainError(error.errors, error.message), {
    headers: error.headers,
    extra: { ...error.extra, error: oauthErrorOf(error.status), error_description: error.message },
  });
}
