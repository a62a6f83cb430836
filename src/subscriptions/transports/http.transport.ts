import { classifyHttpStatus, DeliveryError } from '../delivery-error.js';
import type { RenderedNotification } from '../notification-format.js';
import { signWebhook } from '../webhook-signature.js';
import type { DestinationTarget, Transport } from './transport.js';

/**
 * Webhooks (CONTRACT.md §12): a POST signed per Standard Webhooks, accepted by any 2xx within the
 * timeout. Node's built-in fetch (undici) keeps connections alive per origin; redirects are not
 * followed (a 3xx is a lasting refusal: the destination should name its final URL). The response body
 * is read and dropped so its connection returns to the pool.
 */
export class HttpTransport implements Transport {
  hosts(target: DestinationTarget): string[] {
    return [new URL(target.destination.url).hostname];
  }

  async deliver(target: DestinationTarget, notification: RenderedNotification, timeoutMs: number): Promise<void> {
    const timestamp = Math.floor(Date.now() / 1000);
    let response: Response;
    try {
      response = await fetch(target.destination.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
        headers: {
          'content-type': notification.contentType,
          'webhook-id': notification.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(target.credentials.secret, notification.id, timestamp, notification.body),
        },
        body: notification.body,
      });
      await response.arrayBuffer();
    } catch (error) {
      throw new DeliveryError('TemporaryError', describeFetchError(error, timeoutMs));
    }
    const kind = classifyHttpStatus(response.status);
    if (kind === undefined) return;
    const redirect = response.status >= 300 && response.status < 400 ? ' (redirects are not followed)' : '';
    throw new DeliveryError(kind, `the destination answered HTTP ${response.status}${redirect}`);
  }

  async close(): Promise<void> {}
}

function describeFetchError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `no answer within ${timeoutMs / 1000} s`;
  }
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code) return `connection failed: ${cause.code}`;
  return `connection failed: ${cause?.message ?? (error instanceof Error ? error.message : String(error))}`;
}
