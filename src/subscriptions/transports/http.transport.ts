import { Agent, request } from 'undici';
import type { HostPolicy } from '../../outbound/host-policy.js';
import { answeredHttp } from '../../outbound/outbound-failure.js';
import { asDeliveryError, classifyHttpStatus, DeliveryError } from '../delivery-error.js';
import type { RenderedNotification } from '../notification-format.js';
import { signWebhook } from '../webhook-signature.js';
import type { DestinationTarget, Transport } from './transport.js';

/**
 * Webhooks: a POST signed per Standard Webhooks, accepted by any 2xx within the timeout. undici 7
 * (`request`, an `Agent` keeping connections alive per origin) rather than the global fetch, for one
 * reason: its connections resolve host names through the outbound policy's `lookup`, which checks every
 * address and connects to the addresses it checked: a name cannot resolve to an allowed address for the
 * check and to another one for the connection (DNS rebinding). Redirects are not followed (a 3xx is a
 * lasting refusal: the destination should name its final URL). The response body is read and dropped so
 * the connection is reused. A failure says only its fixed reason (could not connect, TLS failed, timed
 * out, answered HTTP <status>); what answered goes to the log.
 */
export class HttpTransport implements Transport {
  private readonly agent: Agent;

  constructor(policy: HostPolicy, timeoutMs: number) {
    this.agent = new Agent({ connect: { lookup: policy.lookup, timeout: timeoutMs }, keepAliveTimeout: 30_000, connections: 64 });
  }

  hosts(target: DestinationTarget): string[] {
    return [new URL(target.destination.url).hostname];
  }

  async deliver(target: DestinationTarget, notification: RenderedNotification, timeoutMs: number): Promise<void> {
    const timestamp = Math.floor(Date.now() / 1000);
    let status: number;
    try {
      const response = await request(target.destination.url, {
        method: 'POST',
        dispatcher: this.agent,
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        headers: {
          'content-type': notification.contentType,
          'webhook-id': notification.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(target.credentials.secret, notification.id, timestamp, notification.body),
        },
        body: notification.body,
      });
      status = response.statusCode;
      await response.body.dump();
    } catch (error) {
      throw asDeliveryError(error);
    }
    const kind = classifyHttpStatus(status);
    if (kind === undefined) return;
    throw new DeliveryError(kind, answeredHttp(status), status >= 300 && status < 400 ? 'redirects are not followed' : undefined);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
