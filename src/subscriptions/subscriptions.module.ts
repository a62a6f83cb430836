import { Module, type OnApplicationShutdown } from '@nestjs/common';
import { Database } from '../database/database.js';
import { OutboundModule } from '../outbound/outbound.module.js';
import { DestinationClient } from './destination-client.js';
import { DispatchDatabase, dispatchDatabaseProvider } from './dispatch-database.js';
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
  providers: [dispatchDatabaseProvider, SubscriptionsRepository, SubscriptionsService, DestinationClient, NotificationQueueRepository, SubscriptionMetrics, SubscriptionDispatcher],
})
export class SubscriptionsModule implements OnApplicationShutdown {
  constructor(
    private readonly db: Database,
    private readonly dispatchDb: DispatchDatabase,
  ) {}

  /** Closes the dispatcher's own pool (the app's `Database` is the database module's to close). */
  async onApplicationShutdown(): Promise<void> {
    if (this.dispatchDb !== this.db) await this.dispatchDb.pool.end();
  }
}
