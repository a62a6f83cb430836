import { connect, type ChannelModel, type ConfirmChannel } from 'amqplib';
import { DeliveryError } from '../delivery-error.js';
import type { RenderedNotification } from '../notification-format.js';
import type { DestinationTarget, Transport } from './transport.js';

/** AMQP reply codes that no retry will cure: not found (unknown exchange), access refused, not allowed. */
const LASTING = /\b(NOT_FOUND|ACCESS_REFUSED|NOT_ALLOWED|Login was refused|ACCESS-REFUSED|PRECONDITION_FAILED)\b|\b(403|404|530)\b/;

/**
 * RabbitMQ (AMQP 0-9-1, amqplib): a persistent message (`deliveryMode` 2) with `messageId` = the
 * notification id, on a confirm channel; success is the broker's confirm. One connection per URI and one
 * channel per (URI, exchange), opened on first use and dropped when they close: a channel error (an
 * exchange deleted, say) closes only that exchange's channel. An unknown exchange or refused credentials
 * are configuration errors; anything else (connection refused, a broker restarting) is temporary.
 */
export class RabbitMqTransport implements Transport {
  private readonly connections = new Map<string, Promise<ChannelModel>>();
  private readonly channels = new Map<string, Promise<ConfirmChannel>>();

  hosts(target: DestinationTarget): string[] {
    return [new URL(target.credentials.uri).hostname];
  }

  async deliver(target: DestinationTarget, notification: RenderedNotification, timeoutMs: number): Promise<void> {
    const { exchange, routingKey = '' } = target.destination;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeliveryError('TemporaryError', `no confirm from the broker within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    try {
      await Promise.race([this.publish(target.credentials.uri, exchange, routingKey, notification, timeoutMs), timeout]);
    } catch (error) {
      if (error instanceof DeliveryError) throw error;
      const message = describe(error);
      throw new DeliveryError(LASTING.test(message) ? 'ConfigurationError' : 'TemporaryError', message);
    } finally {
      clearTimeout(timer);
    }
  }

  private async publish(uri: string, exchange: string, routingKey: string, notification: RenderedNotification, timeoutMs: number): Promise<void> {
    const channel = await this.channel(uri, exchange, timeoutMs);
    await new Promise<void>((resolve, reject) => {
      const onClose = (error?: Error) => reject(error ?? new Error('the channel closed before the broker confirmed'));
      channel.once('error', onClose);
      channel.publish(
        exchange,
        routingKey,
        Buffer.from(notification.body, 'utf8'),
        { persistent: true, messageId: notification.id, contentType: notification.contentType, timestamp: Math.floor(Date.now() / 1000) },
        (error: unknown) => {
          channel.removeListener('error', onClose);
          if (error) reject(error instanceof Error ? error : new Error(`the broker refused the message: ${String(error)}`));
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
      connection = connect(uri, { timeout: timeoutMs }).then((model) => {
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

/** An error's message, without the URI (and its password) some connection errors quote. */
function describe(error: unknown): string {
  const e = error as { message?: string; code?: string };
  const message = e?.code && !e.message?.includes(e.code) ? `${e.code}: ${e.message}` : (e?.message ?? String(error));
  return message.replace(/amqps?:\/\/\S+/g, '<broker>');
}
