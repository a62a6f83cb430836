/**
 * How a delivery failed (CONTRACT.md §12 health): `ConfigurationError` when the destination refuses for
 * a lasting reason (a 4xx other than 408/429, a redirect, an unknown exchange or subject, refused
 * credentials), `TemporaryError` otherwise (5xx, 408, 429, timeouts, refused or reset connections).
 * Both are retried: a notification is never dropped for a failure.
 */
export type FailureKind = 'TemporaryError' | 'ConfigurationError';

export class DeliveryError extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
  ) {
    super(message);
  }
}

/** An HTTP status as a failure kind, or undefined for a 2xx (accepted). */
export function classifyHttpStatus(status: number): FailureKind | undefined {
  if (status >= 200 && status < 300) return undefined;
  if (status === 408 || status === 429 || status >= 500) return 'TemporaryError';
  return 'ConfigurationError';
}

/** A thrown value as a delivery failure; anything unclassified is temporary. */
export function asDeliveryError(error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error;
  return new DeliveryError('TemporaryError', error instanceof Error ? error.message : String(error));
}
