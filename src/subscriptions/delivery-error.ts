import { failureDetail, OutboundReason, outboundReason } from '../outbound/outbound-failure.js';

/**
 * How a delivery failed: `ConfigurationError` when the destination refuses for a lasting reason (a
 * 4xx other than 408/429, a redirect, an unknown exchange or subject, refused credentials, a host not
 * allowed), `TemporaryError` otherwise (5xx, 408, 429, timeouts, refused or reset connections). Both
 * are retried: a notification is never dropped for a failure.
 */
export type FailureKind = 'TemporaryError' | 'ConfigurationError';

/**
 * A failed delivery. Its message is the reason a project sees (the 400 of a refused test notification,
 * the health's `lastError.message`): one of the server's fixed texts (OutboundReason, `answered HTTP
 * <status>`, a broker's reasons), never a library's. `detail`, for the server's log, says what answered.
 */
export class DeliveryError extends Error {
  constructor(
    readonly kind: FailureKind,
    reason: string,
    readonly detail?: string,
  ) {
    super(reason);
  }
}

/** What a broker destination's refusals say, besides the connection's reasons: the server's words. */
export const BrokerReason = {
  exchangeMissing: 'the exchange does not exist',
  credentialsRefused: 'the broker refused the credentials',
  virtualHostRefused: 'the broker refused access to the virtual host',
  messageRefused: 'the broker refused the message',
  noStream: 'no stream captures the subject',
} as const;

const REASONS = new Set<string>([...Object.values(OutboundReason), ...Object.values(BrokerReason)]);

/**
 * A stored failure's text as the health answer shows it: a reason of the fixed list as it is; a text
 * an older server stored (which may quote a library: `connection failed: ECONNREFUSED`) as the
 * reason it amounts to.
 */
export function shownReason(stored: string): string {
  if (REASONS.has(stored) || /^answered HTTP \d{3}$/.test(stored) || / destinations are not supported by this server$/.test(stored)) return stored;
  const status = /\bHTTP (\d{3})\b/.exec(stored);
  if (status) return `answered HTTP ${status[1]}`;
  if (/not allowed|link-local/.test(stored)) return OutboundReason.hostNotAllowed;
  if (/no answer within|no confirm from the broker/.test(stored)) return OutboundReason.timedOut;
  if (/no stream captures the subject/.test(stored)) return BrokerReason.noStream;
  if (/NOT[_-]FOUND/.test(stored)) return BrokerReason.exchangeMissing;
  return OutboundReason.couldNotConnect;
}

/** An HTTP status as a failure kind, or undefined for a 2xx (accepted). */
export function classifyHttpStatus(status: number): FailureKind | undefined {
  if (status >= 200 && status < 300) return undefined;
  if (status === 408 || status === 429 || status >= 500) return 'TemporaryError';
  return 'ConfigurationError';
}

/**
 * A thrown value as a delivery failure: a connection's reason (a host not allowed lasts; could not
 * connect, TLS failed, timed out are temporary), the thrown text kept for the log only.
 */
export function asDeliveryError(error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error;
  const reason = outboundReason(error);
  return new DeliveryError(reason === 'host not allowed' ? 'ConfigurationError' : 'TemporaryError', reason, failureDetail(error));
}
