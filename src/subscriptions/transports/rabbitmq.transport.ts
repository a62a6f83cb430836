import { connect, type ChannelModel, type ConfirmChannel } from 'amqplib';
import type { HostPolicy } from '../../outbound/host-policy.js';
import { failureDetail, OutboundReason } from '../../outbound/outbound-failure.js';
import { asDeliveryError, BrokerReason, DeliveryError } from '../delivery-error.js';
import type { RenderedNotification } from '../notification-format.js';
import type { DestinationTarget, Transport } from './transport.js';

/**
 * The broker's refusals no retry will cure, by AMQP reply code (a closed channel's or connection's
 * `code`) or name (a refused handshake's text), each with the server's own words for it: a library's
 * or broker's text is never answered (it may describe the server's network).
 */
const LASTING: Array<[number, RegExp, string]> = [
  [404, /\bNOT[_-]FOUND\b/, BrokerReason.exchangeMissing],
  [403, /\bACCESS[_-]REFUSED\b|Login was refused/, BrokerReason.credentialsRefused],
  [530, /\bNOT[_-]ALLOWED\b/, BrokerReason.virtualHostRefused],
  [406, /\bPRECONDITION[_-]FAILED\b/, BrokerReason.messageRefused],
];

/**
 * RabbitMQ (AMQP 0-9-1, amqplib): a persistent message (`deliveryMode` 2) with `messageId` = the
 * notification id, on a confirm channel; success is the broker's confirm. One connection per URI and one
 * channel per (URI, exchange), opened on first use and dropped when they close: a channel error (an
 * exchange deleted, say) closes only that exchange's channel. An unknown exchange or refused credentials
 * are configuration errors; anything else (connection refused, a broker restarting) is temporary.
 * Connections resolve the broker's host through the outbound policy's lookup (checked addresses only).
 */
export class RabbitMqTransport implements Transport {
  private readonly connections = new Map<string, Promise<ChannelModel>>();
  private readonly channels = new Map<string, Promise<ConfirmChannel>>();

  constructor(private readonly policy: HostPolicy) {}

  hosts(target: DestinationTarget): string[] {
    return [new URL(target.credentials.uri).hostname];
  }

  async deliver(target: DestinationTarget, notification: RenderedNotification, timeoutMs: number): Promise<void> {
    const { exchange, routingKey = '' } = target.destination;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeliveryError('TemporaryError', OutboundReason.timedOut, `no confirm from the broker within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    try {
      await Promise.race([this.publish(target.credentials.uri, exchange, routingKey, notification, timeoutMs), timeout]);
    } catch (error) {
      throw brokerFailure(error);
    } finally {
      clearTimeout(timer);
    }
  }

  private async publish(uri: string, exchange: string, routingKey: string, notification: RenderedNotification, timeoutMs: number): Promise<void> {
    const channel = await this.channel(uri, exchange, timeoutMs);
    await new Promise<void>((resolve, reject) => {
      const onClose = (error?: Error) => reject(error ?? new DeliveryError('TemporaryError', BrokerReason.messageRefused, 'the channel closed before the broker confirmed'));
      channel.once('error', onClose);
      channel.publish(
        exchange,
        routingKey,
        Buffer.from(notification.body, 'utf8'),
        { persistent: true, messageId: notification.id, contentType: notification.contentType, timestamp: Math.floor(Date.now() / 1000) },
        (error: unknown) => {
          channel.removeListener('error', onClose);
          if (error) reject(new DeliveryError('TemporaryError', BrokerReason.messageRefused, failureDetail(error)));
          else resolve();
        },
      );
    });
  }

  private channel(uri: string, exchange: string, timeoutMs: number): Promise<ConfirmChannel> {
    const key = `${uri}\u0000${exchange}`;
    let channel = this.channels.get(key);
    if (!channel) {
      channel = this.connection(uri, timeoutMs).then(async (model) => {
        const created = await model.createConfirmChannel();
        created.on('error', () => undefined);
        created.on('close', () => this.channels.delete(key));
        return created;
      });
      channel.catch(() => this.channels.delete(key));
      this.channels.set(key, channel);
    }
    return channel;
  }

  private connection(uri: string, timeoutMs: number): Promise<ChannelModel> {
    let connection = this.connections.get(uri);
    if (!connection) {
      connection = connect(uri, { timeout: timeoutMs, lookup: this.policy.lookup }).then((model) => {
        model.on('error', () => undefined);
        model.on('close', () => {
          this.connections.delete(uri);
          for (const key of this.channels.keys()) if (key.startsWith(`${uri}\u0000`)) this.channels.delete(key);
        });
        return model;
      });
      connection.catch(() => this.connections.delete(uri));
      this.connections.set(uri, connection);
    }
    return connection;
  }

  async close(): Promise<void> {
    const models = await Promise.allSettled([...this.connections.values()]);
    this.connections.clear();
    this.channels.clear();
    await Promise.allSettled(models.map((m) => (m.status === 'fulfilled' ? m.value.close() : undefined)));
  }
}

/**
 * A failure as the project sees it: a lasting refusal of the broker in the server's words, else the
 * connection's reason (could not connect, TLS failed, timed out, host not allowed); the broker's or the
 * library's text (without the URI's credentials) goes to the log only.
 */
function brokerFailure(error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error;
  const e = error as { message?: string; code?: unknown };
  const lasting = LASTING.find(([code, name]) => e?.code === code || name.test(e?.message ?? ''));
  if (lasting) return new DeliveryError('ConfigurationError', lasting[2], failureDetail(error));
  // A channel or connection the broker closed with a reply code: the broker's doing, not the network's.
  if (typeof e?.code === 'number') return new DeliveryError('TemporaryError', BrokerReason.messageRefused, failureDetail(error));
  return asDeliveryError(error);
}
