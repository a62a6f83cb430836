import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { classifyHttpStatus, DeliveryError } from '../delivery-error.js';
import type { DestinationHosts } from '../destination-hosts.js';
import type { RenderedNotification } from '../notification-format.js';
import { signWebhook } from '../webhook-signature.js';
import type { DestinationTarget, Transport } from './transport.js';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Webhooks (CONTRACT.md §12): a POST signed per Standard Webhooks, accepted by any 2xx within the
 * timeout. undici 7 (`request`, an `Agent` keeping connections alive per origin) rather than the global
 * fetch, for one reason: its connections resolve host names through our `lookup`, which checks every
 * address against SUBSCRIPTION_DESTINATION_HOSTS and link-local, and connects to the addresses it
 * checked: a name cannot resolve to an allowed address for the check and to another one for the
 * connection (DNS rebinding). Redirects are not followed (a 3xx is a lasting refusal: the destination
 * should name its final URL). The response body is read and dropped so the connection is reused.
 */
export class HttpTransport implements Transport {
  private readonly agent: Agent;

  constructor(
    private readonly policy: DestinationHosts,
    timeoutMs: number,
  ) {
    const lookup = (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
      this.policy.check(hostname).then(
        (verdict) => {
          if ('refusal' in verdict) return callback(Object.assign(new DeliveryError('ConfigurationError', verdict.refusal), { code: 'EREFUSEDHOST' }), '');
          const addresses = verdict.addresses.map((address) => ({ address, family: isIP(address) }));
          if (options.all) callback(null, addresses);
          else callback(null, addresses[0].address, addresses[0].family);
        },
        (error: Error) => callback(error, ''),
      );
    };
    this.agent = new Agent({ connect: { lookup, timeout: timeoutMs }, keepAliveTimeout: 30_000, connections: 64 });
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
      const refused = findDeliveryError(error);
      if (refused) throw refused;
      throw new DeliveryError('TemporaryError', describeError(error, timeoutMs));
    }
    const kind = classifyHttpStatus(status);
    if (kind === undefined) return;
    const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
    throw new DeliveryError(kind, `the destination answered HTTP ${status}${redirect}`);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

function findDeliveryError(error: unknown): DeliveryError | undefined {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof DeliveryError) return e;
  }
  return undefined;
}

function describeError(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; code?: string; message?: string; cause?: { code?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || /TIMEOUT|ABORTED/.test(e?.code ?? '')) return `no answer within ${timeoutMs / 1000} s`;
  const code = e?.code ?? e?.cause?.code;
  if (code && /^E[A-Z]+$/.test(code)) return `connection failed: ${code}`;
  return `connection failed: ${e?.message ?? String(error)}`;
}
