/**
 * Header rules of the namespace actions: which names a declaration may set, which request headers may
 * be copied to a backend, and which backend answer headers reach the client.
 */

/** RFC 9110, section 7.6.1: meaningful for one connection only, never relayed. */
const HOP_BY_HOP = [
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
] as const;

/** Framing of the message: the server computes these itself. */
const FRAMING = ['content-length', 'content-type', 'content-encoding', 'host'];

/**
 * Backend answer headers that would let a backend change the client's security context or reveal
 * internals: cookies, transport and content policies, CORS (configured on this server), credentials
 * challenges, redirects, server identification.
 */
const SECURITY_RELEVANT = [
  'set-cookie',
  'set-cookie2',
  'strict-transport-security',
  'content-security-policy',
  'content-security-policy-report-only',
  'public-key-pins',
  'public-key-pins-report-only',
  'expect-ct',
  'x-frame-options',
  'x-xss-protection',
  'x-content-type-options',
  'referrer-policy',
  'permissions-policy',
  'feature-policy',
  'cross-origin-opener-policy',
  'cross-origin-embedder-policy',
  'cross-origin-resource-policy',
  'clear-site-data',
  'www-authenticate',
  'location',
  'content-location',
  'refresh',
  'alt-svc',
  'server',
  'x-powered-by',
  'via',
  'date',
];

const SECURITY_PREFIXES = ['access-control-', 'x-forwarded-'];

/**
 * Who calls, as the backend of a `forward` action learns it (docs/rules.md#namespace-actions): set by the server from
 * the access token on every forwarded request, never copied from the caller (a caller's own headers of
 * these names are dropped) and never declarable.
 */
export const CALLER_HEADERS = { projectKey: 'x-project-key', clientId: 'x-client-id', customerId: 'x-customer-id' } as const;
const CALLER_HEADER_NAMES: readonly string[] = Object.values(CALLER_HEADERS);

export const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,256}$/;
/** Visible characters, spaces and tabs: no CR, LF or NUL (header injection). */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]{0,8192}$/;

/** Why a declaration may not set this header on its answer, or undefined when it may. */
export function reservedAnswerHeader(name: string): string | undefined {
  const lower = name.toLowerCase();
  if ((HOP_BY_HOP as readonly string[]).includes(lower)) return 'is a hop-by-hop header';
  if (FRAMING.includes(lower)) return 'is set by the server (answers are application/json)';
  if (SECURITY_PREFIXES.some((prefix) => lower.startsWith(prefix))) return 'is set by the server (CORS is configured with HTTP_CORS_ORIGINS)';
  return undefined;
}

/** Why a forward declaration may not send (or copy) this header to its backend, or undefined. */
export function reservedBackendHeader(name: string, copied: boolean): string | undefined {
  const lower = name.toLowerCase();
  if ((HOP_BY_HOP as readonly string[]).includes(lower)) return 'is a hop-by-hop header';
  if (FRAMING.includes(lower)) return 'is set by the server';
  if (CALLER_HEADER_NAMES.includes(lower)) return 'is set by the server (who calls: project key, client id, customer id)';
  if (copied && (lower === 'authorization' || lower === 'cookie')) return "would pass the caller's credentials to the backend";
  return undefined;
}

/**
 * The backend answer headers a client receives: all but hop-by-hop ones (including those the
 * backend's `Connection` header names), framing, and security-relevant ones.
 */
export function passableBackendHeaders(headers: Iterable<[string, string]>): Record<string, string> {
  const entries = [...headers].map(([name, value]) => [name.toLowerCase(), value] as const);
  const connection = entries.find(([name]) => name === 'connection')?.[1] ?? '';
  const named = connection.split(',').map((token) => token.trim().toLowerCase()).filter(Boolean);
  const result: Record<string, string> = {};
  for (const [name, value] of entries) {
    if ((HOP_BY_HOP as readonly string[]).includes(name) || named.includes(name)) continue;
    if (FRAMING.includes(name) || SECURITY_RELEVANT.includes(name)) continue;
    if (SECURITY_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    if (!HEADER_NAME.test(name) || !HEADER_VALUE.test(value)) continue;
    result[name] = value;
  }
  return result;
}
