import { Module } from '@nestjs/common';
import { OutboundModule } from '../outbound/outbound.module.js';
import { DestinationClient } from './destination-client.js';
import { NotificationQueueRepository } from './notification-queue.repository.js';
import { SubscriptionDispatcher } from './subscription.dispatcher.js';
import { SubscriptionMetrics } from './subscription.metrics.js';
import { SubscriptionsController } from './subscriptions.controller.js';
import { SubscriptionsRepository } from './subscriptions.repository.js';
import { SubscriptionsService } from './subscriptions.service.js';

/** Subscriptions: their API, and the dispatcher delivering the change log to them (docs/change-log-and-subscriptions.md#subscriptions). */
@Module({
  imports: [OutboundModule],
  controllers: [SubscriptionsController],
  providers: [SubscriptionsRepository, SubscriptionsService, DestinationClient, NotificationQueueRepository, SubscriptionMetrics, SubscriptionDispatcher],
})
export class SubscriptionsModule {}
