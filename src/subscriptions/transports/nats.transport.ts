import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { DeliveryError } from '../delivery-error.js';
import type { RenderedNotification } from '../notification-format.js';
import type { DestinationTarget, Transport } from './transport.js';

/**
 * NATS JetStream (the official @nats-io client): a JetStream publish with `Nats-Msg-Id` = the
 * notification id, so the stream drops a redelivery within its duplicate window; success is the
 * stream's ack. One connection per URL. No stream capturing the subject ("no responders") and refused
 * credentials are configuration errors; anything else is temporary.
 */
export class NatsTransport implements Transport {
  private readonly clients = new Map<string, Promise<{ connection: NatsConnection; js: JetStreamClient }>>();

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
      const message = describe(error);
      // The client reports a publish nothing answered (no stream captures the subject) as "jetstream is not enabled".
      const noStream = /no responders|503|jetstream is not enabled/i.test(message);
      const lasting = noStream || /authori[sz]ation|authentication|permissions violation/i.test(message);
      throw new DeliveryError(lasting ? 'ConfigurationError' : 'TemporaryError', noStream ? `no stream captures the subject '${target.destination.subject}' (${message})` : message);
    }
  }

  private client(url: string, timeoutMs: number): Promise<{ connection: NatsConnection; js: JetStreamClient }> {
    let client = this.clients.get(url);
    if (!client) {
      const parsed = new URL(url);
      const server = `${parsed.protocol}//${parsed.host}`;
      client = connect({
        servers: server,
        user: parsed.username ? decodeURIComponent(parsed.username) : undefined,
        pass: parsed.password ? decodeURIComponent(parsed.password) : undefined,
        timeout: timeoutMs,
        name: 'resource-api subscriptions',
      }).then((connection) => {
        void connection.closed().then(() => this.clients.delete(url));
        return { connection, js: jetstream(connection) };
      });
      client.catch(() => this.clients.delete(url));
      this.clients.set(url, client);
    }
    return client;
  }

  async close(): Promise<void> {
    const clients = await Promise.allSettled([...this.clients.values()]);
    this.clients.clear();
    await Promise.allSettled(clients.map((c) => (c.status === 'fulfilled' ? c.value.connection.drain() : undefined)));
  }
}

function describe(error: unknown): string {
  const e = error as { message?: string; code?: string };
  return (e?.message ?? String(error)).replace(/(nats|tls):\/\/\S+/g, '<server>');
}
