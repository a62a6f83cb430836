import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DomainError } from '../common/domain-error.js';
import type { PageQueryDto } from '../common/page-query.dto.js';
import { asDeliveryError, shownReason } from './delivery-error.js';
import { DestinationClient } from './destination-client.js';
import { type NotificationFormat, renderTestNotification } from './notification-format.js';
import {
  type Destination,
  MAX_SUBSCRIPTIONS_PER_PROJECT,
  SubscriptionDraftDto,
  SubscriptionHealthDto,
  SubscriptionPageDto,
  SubscriptionResponseDto,
  SubscriptionUpdateDto,
} from './subscription.dto.js';
import { SubscriptionErrors } from './subscriptions.errors.js';
import { subscriptionsConfig, type SubscriptionsConfig } from './subscriptions.config.js';
import { type StoredSubscription, type SubscriptionChanges, SubscriptionsRepository } from './subscriptions.repository.js';
import type { DestinationTarget } from './transports/transport.js';
import { generateWebhookSecret, maskWebhookSecret } from './webhook-signature.js';

/** The subscriptions of a project (docs/change-log-and-subscriptions.md#subscriptions): CRUD, the destination's checks, health. */
@Injectable()
export class SubscriptionsService {
  constructor(
    private readonly subscriptions: SubscriptionsRepository,
    private readonly destinations: DestinationClient,
    @Inject(subscriptionsConfig.KEY) private readonly config: SubscriptionsConfig,
  ) {}

  async create(projectKey: string, draft: SubscriptionDraftDto): Promise<SubscriptionResponseDto> {
    if (draft.key !== undefined && (await this.subscriptions.findByKey(projectKey, draft.key))) throw SubscriptionErrors.duplicateKey(draft.key);
    if ((await this.subscriptions.count(projectKey)) >= MAX_SUBSCRIPTIONS_PER_PROJECT) throw SubscriptionErrors.limitReached(MAX_SUBSCRIPTIONS_PER_PROJECT);
    const id = randomUUID();
    const format = toFormat(draft.format);
    const target = toTarget(draft.destination);
    await this.testDestination(projectKey, id, target, format);
    const stored = await this.subscriptions.insertWithinLimit(
      {
        id,
        projectKey,
        key: draft.key ?? null,
        destination: target.destination,
        credentials: target.credentials,
        messages: draft.messages ?? [],
        changes: draft.changes ?? [],
        format,
      },
      MAX_SUBSCRIPTIONS_PER_PROJECT,
    );
    if (stored === 'limit') throw SubscriptionErrors.limitReached(MAX_SUBSCRIPTIONS_PER_PROJECT);
    if (stored === 'duplicate-key') throw SubscriptionErrors.duplicateKey(draft.key!);
    return toResponse(stored, true);
  }

  async list(projectKey: string, { limit, offset }: PageQueryDto): Promise<SubscriptionPageDto> {
    const { results, total } = await this.subscriptions.list(projectKey, limit, offset);
    return { limit, offset, count: results.length, total, results: results.map((s) => toResponse(s, false)) };
  }

  async get(projectKey: string, id: string): Promise<SubscriptionResponseDto> {
    return toResponse(await this.find(projectKey, id), false);
  }

  async getByKey(projectKey: string, key: string): Promise<SubscriptionResponseDto> {
    const stored = await this.subscriptions.findByKey(projectKey, key);
    if (!stored) throw SubscriptionErrors.keyNotFound(key);
    return toResponse(stored, false);
  }

  /**
   * Applies the actions in order, all or nothing. A new destination is checked and tested (in the
   * format the subscription has after the actions) before anything is stored, and an HTTP one gets a
   * new secret, answered once.
   */
  async update(projectKey: string, id: string, request: SubscriptionUpdateDto): Promise<SubscriptionResponseDto> {
    const current = await this.find(projectKey, id);
    if (current.version !== request.version) throw DomainError.concurrentModification(current.version);
    const changes: SubscriptionChanges = {};
    let destination: Destination | undefined;
    for (const action of request.actions) {
      switch (action.action) {
        case 'changeDestination':
          destination = action.destination;
          break;
        case 'setMessages':
          changes.messages = action.messages ?? [];
          break;
        case 'setChanges':
          changes.changes = action.changes ?? [];
          break;
        case 'setKey':
          changes.key = action.key ?? null;
          break;
        case 'setFormat':
          changes.format = toFormat(action.format);
          break;
      }
    }
    if ((changes.messages ?? current.messages).length === 0 && (changes.changes ?? current.changes).length === 0) {
      throw SubscriptionErrors.nothingSubscribed();
    }
    if (changes.key && changes.key !== current.key && (await this.subscriptions.findByKey(projectKey, changes.key))) {
      throw SubscriptionErrors.duplicateKey(changes.key);
    }
    if (destination) {
      const target = toTarget(destination);
      await this.testDestination(projectKey, id, target, changes.format ?? current.format);
      changes.destination = target.destination;
      changes.credentials = target.credentials;
    }
    const updated = await this.subscriptions.update(projectKey, id, request.version, changes);
    if (updated === 'duplicate-key') throw SubscriptionErrors.duplicateKey(changes.key!);
    if (!updated) {
      const now = await this.find(projectKey, id);
      throw DomainError.concurrentModification(now.version);
    }
    return toResponse(updated, destination?.type === 'HTTP');
  }

  async delete(projectKey: string, id: string, version: number): Promise<SubscriptionResponseDto> {
    const deleted = UUID.test(id) ? await this.subscriptions.delete(projectKey, id, version) : undefined;
    if (deleted) return toResponse(deleted, false);
    throw DomainError.concurrentModification((await this.find(projectKey, id)).version);
  }

  async health(projectKey: string, id: string): Promise<SubscriptionHealthDto> {
    await this.find(projectKey, id);
    const row = await this.subscriptions.health(id);
    const health: SubscriptionHealthDto = {
      status: row.misconfigured > 0 ? 'ConfigurationError' : row.failing > 0 ? 'TemporaryError' : 'Healthy',
      pending: row.pending,
    };
    if (row.oldestPendingAt) health.oldestPendingAt = row.oldestPendingAt;
    if (row.lastDeliveredAt) health.lastDeliveredAt = row.lastDeliveredAt;
    if (row.lastErrorAt && row.lastError) health.lastError = { at: row.lastErrorAt, message: shownReason(row.lastError) };
    return health;
  }

  private async find(projectKey: string, id: string): Promise<StoredSubscription> {
    const stored = UUID.test(id) ? await this.subscriptions.findById(projectKey, id) : undefined;
    if (!stored) throw SubscriptionErrors.notFound(id);
    return stored;
  }

  /** The host check (before any connection), then the test notification: 400 with the reason, one of a fixed list. */
  private async testDestination(projectKey: string, subscriptionId: string, target: DestinationTarget, format: NotificationFormat): Promise<void> {
    if (!this.destinations.supports(target.type)) throw SubscriptionErrors.unsupported(target.type);
    const refusal = await this.destinations.refusal(target);
    if (refusal) throw SubscriptionErrors.hostRefused(refusal.message);
    const test = renderTestNotification(format, { id: randomUUID(), projectKey, subscriptionId, time: new Date().toISOString() }, this.config.cloudEventsNamespace);
    try {
      await this.destinations.deliver(target, test, true);
    } catch (error) {
      throw SubscriptionErrors.testRefused(asDeliveryError(error).message);
    }
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function toFormat(format: SubscriptionDraftDto['format']): NotificationFormat {
  return format?.type === 'CloudEvents' ? { type: 'CloudEvents', cloudEventsVersion: '1.0' } : { type: 'Platform' };
}

/** A validated destination as stored: what may be answered, and the credentials that may not. */
function toTarget(destination: Destination): DestinationTarget {
  switch (destination.type) {
    case 'HTTP':
      return { type: 'HTTP', destination: { type: 'HTTP', url: destination.url }, credentials: { secret: generateWebhookSecret() } };
    case 'RabbitMQ': {
      const shown: Record<string, string> = { type: 'RabbitMQ', uri: withoutPassword(destination.uri), exchange: destination.exchange };
      if (destination.routingKey !== undefined) shown.routingKey = destination.routingKey;
      return { type: 'RabbitMQ', destination: shown, credentials: { uri: destination.uri } };
    }
    case 'NATS':
      return { type: 'NATS', destination: { type: 'NATS', url: withoutPassword(destination.url), subject: destination.subject }, credentials: { url: destination.url } };
  }
}

function withoutPassword(uri: string): string {
  const url = new URL(uri);
  if (!url.password) return uri;
  url.password = '';
  return url.toString();
}

/** The answer: listed fields only; the webhook secret whole only right after it was made (`secretShown`). */
function toResponse(s: StoredSubscription, secretShown: boolean): SubscriptionResponseDto {
  const destination: Record<string, unknown> = { ...s.destination };
  if (s.destination.type === 'HTTP' && s.credentials.secret) {
    destination.secret = secretShown ? s.credentials.secret : maskWebhookSecret(s.credentials.secret);
  }
  return {
    id: s.id,
    version: s.version,
    ...(s.key !== null ? { key: s.key } : {}),
    destination,
    messages: s.messages,
    changes: s.changes,
    format: s.format,
    createdAt: s.createdAt,
    lastModifiedAt: s.lastModifiedAt,
  };
}
