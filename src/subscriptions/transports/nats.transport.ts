import { connect, headers, type NatsConnection, type TlsOptions } from '@nats-io/transport-node';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import type { HostPolicy } from '../../outbound/host-policy.js';
import { failureDetail, HostNotAllowedError, OutboundReason } from '../../outbound/outbound-failure.js';
import { asDeliveryError, BrokerReason, DeliveryError } from '../delivery-error.js';
import type { RenderedNotification } from '../notification-format.js';
import type { DestinationTarget, Transport } from './transport.js';

/**
 * NATS JetStream (the official @nats-io client): a JetStream publish with `Nats-Msg-Id` = the
 * notification id, so the stream drops a redelivery within its duplicate window; success is the
 * stream's ack. One connection per URL. No stream capturing the subject ("no responders") and refused
 * credentials are configuration errors; anything else is temporary.
 *
 * The client resolves host names itself and follows the servers a server announces (cluster updates):
 * so the host is checked by the outbound policy first and the client is given the checked addresses,
 * with its own resolution and cluster updates off (a server cannot send it elsewhere); a tls:// URL
 * keeps its host name for the certificate check.
 */
export class NatsTransport implements Transport {
  private readonly clients = new Map<string, Promise<{ connection: NatsConnection; js: JetStreamClient }>>();

  constructor(private readonly policy: HostPolicy) {}

  hosts(target: DestinationTarget): string[] {
    return [new URL(target.credentials.url).hostname];
  }

  async deliver(target: DestinationTarget, notification: RenderedNotification, timeoutMs: number): Promise<void> {
    try {
      const { js } = await this.client(target.credentials.url, timeoutMs);
      const h = headers();
      h.set('Content-Type', notification.contentType);
      await js.publish(target.destination.subject, new TextEncoder().encode(notification.body), { msgID: notification.id, timeout: timeoutMs, headers: h });
    } catch (error) {
      throw natsFailure(error);
    }
  }

  private client(url: string, timeoutMs: number): Promise<{ connection: NatsConnection; js: JetStreamClient }> {
    let client = this.clients.get(url);
    if (!client) {
      client = this.connect(url, timeoutMs).then((connection) => {
        void connection.closed().then(() => this.clients.delete(url));
        return { connection, js: jetstream(connection) };
      });
      client.catch(() => this.clients.delete(url));
      this.clients.set(url, client);
    }
    return client;
  }

  private async connect(url: string, timeoutMs: number): Promise<NatsConnection> {
    const parsed = new URL(url);
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    const verdict = await this.policy.check(host);
    if ('refusal' in verdict) throw verdict.refusal === OutboundReason.hostNotAllowed ? new HostNotAllowedError(verdict.detail) : new DeliveryError('TemporaryError', verdict.refusal, verdict.detail);
    const port = parsed.port || '4222';
    return connect({
      servers: verdict.addresses.map((address) => `${parsed.protocol}//${address.includes(':') ? `[${address}]` : address}:${port}`),
      resolve: false,
      ignoreClusterUpdates: true,
      // The transport spreads these options over tls.connect's, which takes `servername`; the type omits it.
      ...(parsed.protocol === 'tls:' ? { tls: { servername: host } as TlsOptions } : {}),
      user: parsed.username ? decodeURIComponent(parsed.username) : undefined,
      pass: parsed.password ? decodeURIComponent(parsed.password) : undefined,
      timeout: timeoutMs,
      name: 'resource-api subscriptions',
    });
  }

  async close(): Promise<void> {
    const clients = await Promise.allSettled([...this.clients.values()]);
    this.clients.clear();
    await Promise.allSettled(clients.map((c) => (c.status === 'fulfilled' ? c.value.connection.drain() : undefined)));
  }
}

/**
 * A failure as the project sees it: the server's words for a lasting refusal, else the connection's
 * reason; the client's text goes to the log only.
 */
function natsFailure(error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error;
  const e = error as { name?: string; message?: string };
  const message = e?.message ?? String(error);
  // The client reports a publish nothing answered (no stream captures the subject) as "jetstream is not enabled".
  if (e?.name === 'NoResponders' || /no responders|\b503\b|jetstream is not enabled/i.test(message)) {
    return new DeliveryError('ConfigurationError', BrokerReason.noStream, failureDetail(error));
  }
  if (e?.name === 'AuthorizationError' || /authori[sz]ation|authentication/i.test(message)) {
    return new DeliveryError('ConfigurationError', BrokerReason.credentialsRefused, failureDetail(error));
  }
  if (e?.name === 'PermissionViolationError' || /permissions violation/i.test(message)) {
    return new DeliveryError('ConfigurationError', BrokerReason.messageRefused, failureDetail(error));
  }
  return asDeliveryError(error);
}
