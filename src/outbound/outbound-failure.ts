/**
 * Why an outbound connection failed, in the server's own words: one of a fixed list. A caller learns
 * that a destination could not be reached, never what answered (an operating-system error code, a
 * library's message, a source path): such text would tell a project which hosts and ports of the
 * server's network listen. The detail goes to the server's log only.
 */
export const OutboundReason = {
  hostNotAllowed: 'host not allowed',
  couldNotConnect: 'could not connect',
  tlsFailed: 'TLS failed',
  timedOut: 'timed out',
} as const;

export type OutboundReason = (typeof OutboundReason)[keyof typeof OutboundReason];

/** The reason of a destination that answered with an HTTP status it should not have. */
export function answeredHttp(status: number): string {
  return `answered HTTP ${status}`;
}

/**
 * A connection the policy refused (thrown by its lookup, so a client library fails the connection
 * with it). `detail` is for the log.
 */
export class HostNotAllowedError extends Error {
  readonly code = 'EHOSTNOTALLOWED';
  constructor(readonly detail: string) {
    super(OutboundReason.hostNotAllowed);
  }
}

/** Error codes of a connection attempt that ran out of time. */
const TIMEOUT_CODES = /^(ETIMEDOUT|ESOCKETTIMEDOUT|UND_ERR_CONNECT_TIMEOUT|UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT|ABORT_ERR|TIMEOUT)$/;
/** OpenSSL and Node TLS codes, and certificate verdicts (node's `X509_V_ERR_*` names without the prefix). */
const TLS_CODES = /^(ERR_SSL_|ERR_TLS_|ERR_OSSL_)|CERT|^(UNABLE_TO_|SELF_SIGNED|DEPTH_ZERO|HOSTNAME_MISMATCH|EPROTO$)/;

/**
 * The reason of a failed connection, from a thrown value and its causes: refused by the policy, a
 * timeout (or abort), a TLS handshake or certificate failure; anything else could not connect.
 */
export function outboundReason(error: unknown): OutboundReason {
  for (let e = error as { name?: string; code?: unknown; message?: string; cause?: unknown } | undefined, depth = 0; e && depth < 6; e = e.cause as typeof e, depth++) {
    if (e instanceof HostNotAllowedError) return OutboundReason.hostNotAllowed;
    if (e.name === 'TimeoutError' || e.name === 'AbortError' || (typeof e.code === 'string' && TIMEOUT_CODES.test(e.code))) return OutboundReason.timedOut;
    if (typeof e.code === 'string' && TLS_CODES.test(e.code)) return OutboundReason.tlsFailed;
    if (typeof e.message === 'string' && /\bETIMEDOUT\b/.test(e.message)) return OutboundReason.timedOut;
    if (typeof e.message === 'string' && /\b(SSL|TLS)\b|certificate/i.test(e.message)) return OutboundReason.tlsFailed;
  }
  return OutboundReason.couldNotConnect;
}

/** The operator's view of a failure for the log: its codes and messages, causes included, on one line. */
export function failureDetail(error: unknown): string {
  const parts: string[] = [];
  for (let e = error as { code?: unknown; message?: string; detail?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 6; e = e.cause as typeof e, depth++) {
    const detail = typeof e.detail === 'string' ? e.detail : undefined;
    const text = [typeof e.code === 'string' ? e.code : undefined, detail ?? e.message ?? (typeof e === 'string' ? e : undefined)].filter(Boolean).join(' ');
    if (text && !parts.includes(text)) parts.push(text);
    if (typeof e !== 'object') break;
  }
  // No line breaks (one log line), no credentials a library quotes in a URL.
  return parts.join(' ← ').replace(/[\r\n]+/g, ' ').replace(/\/\/[^/@\s]*@/g, '//');
}
