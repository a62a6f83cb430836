import { Inject, Injectable } from '@nestjs/common';
import { PollingWorker } from '../common/polling-worker.js';
import { changeLogConfig, type ChangeLogConfig } from '../change-log/change-log.config.js';
import { asDeliveryError } from './delivery-error.js';
import { DestinationClient } from './destination-client.js';
import { renderNotification } from './notification-format.js';
import { retryDelay } from './retry-delay.js';
import { type AcceptedNotification, type ClaimedNotification, NotificationQueueRepository, type StatusUpdate } from './notification-queue.repository.js';
import { SubscriptionMetrics } from './subscription.metrics.js';
import { subscriptionsConfig, type SubscriptionsConfig } from './subscriptions.config.js';
import type { DestinationTarget } from './transports/transport.js';

/** How often the dispatcher counts the pending notifications for /metrics. */
const PENDING_COUNT_INTERVAL_MS = 2_000;
/** How often a busy dispatcher records the subscriptions' last error (their last delivery is recorded by the statement that removes what was delivered). */
const STATUS_SAVE_INTERVAL_MS = 250;

/**
 * Delivers the change log to the subscriptions (docs/change-log-and-subscriptions.md#subscriptions). Every server process runs one; they
 * share the work through the database:
 *
 * 1. **Queuing** (every poll, one process at a time: the `subscription_dispatch` row is locked with
 *    `SKIP LOCKED`): new messages of subscribed projects become rows of `subscription_notification`
 *    (notification-queue.repository.ts, FAN_OUT). The position is kept in that row across restarts.
 *
 *    *Late commits.* A position on `created_at` (or any sequence) alone would skip a message whose
 *    transaction started before the position but committed after the scan. So the position only decides
 *    which *resources* to look at; what to queue for a (subscription, resource) is "every message above
 *    the last sequence number queued for it" (`subscription_progress`), and a resource's messages commit
 *    in sequence order. The position itself is a horizon: before each scan, the start of the oldest
 *    transaction still running in the database (pg_stat_activity; a write stamps its messages with its
 *    transaction's start), less 50 ms. Every message older than that was committed or rolled back before
 *    the scan's snapshot, so the next scan starts there and each message is scanned about once (a fixed
 *    lookback behind the newest message scanned each message many times over: docs/performance.md#subscriptions).
 *
 *    *The sweep* looks `SUBSCRIPTION_LOOKBACK_MS` (60 s) back, longer than any write may take to commit (a
 *    write is one statement, bounded by the statement timeout, 10 s by default), for what the horizon
 *    cannot see: backends of another role without `pg_read_all_stats`. A pass begins every
 *    `SUBSCRIPTION_SWEEP_INTERVAL_MS` (60 s; or when the last one ends, if later) and goes over the
 *    lookback in slices, oldest first, one per round beside the frequent scan, each `lookback × poll
 *    interval / sweep interval` long (100 ms by default); its cursor is kept with the position, so that no
 *    round rescans the whole lookback while every notification waits for it. Such a late message is delivered at most about two sweep intervals
 *    later, never skipped, and nothing is added to the write path: no trigger, no NOTIFY, no extra index
 *    on `message`.
 *
 * 2. **Delivery**: up to `SUBSCRIPTION_CONCURRENCY` notifications at a time, each the first of its
 *    (subscription, resource) stream (CLAIM), so streams go out in parallel and each in order: the next
 *    notification of a resource is claimable only once the previous one was accepted and deleted. Up to
 *    as many again are claimed ahead and start as slots free (`ready`); given back when they waited
 *    longer than a delivery timeout, and on stopping. A
 *    claim is a lease (`due_at` moved 2 × the delivery timeout + 5 s ahead), so a crashed process's work is taken
 *    over when it lapses. A failure is retried after 1 s doubling to 10 min, with jitter; its kind
 *    (TemporaryError, ConfigurationError) feeds the health answer. A notification is dropped only when
 *    its message's retention (MESSAGES_RETENTION_DAYS) ends, by the sweep.
 *
 * Waking: the queue is polled every `SUBSCRIPTION_POLL_INTERVAL_MS` (100 ms), on PostgreSQL and on the
 * embedded database alike, and a stream's next notification is claimed as soon as the previous one
 * was accepted. While no project has a subscription, a poll only asks whether one exists (`subscribed`).
 * LISTEN/NOTIFY would need a NOTIFY in every write (its cost is on the measured path and it serialises
 * commits on a global lock), for a latency the short poll already gives. A wake by this process's own
 * writes improved the median latency but not the tail, and cost the writes more: not kept
 * (docs/performance.md#subscriptions).
 *
 * Schedule, stop, back-off and the logs of failed rounds are the polling worker's (common/polling-worker.ts).
 *
 * Stopping: no new claims; deliveries in flight finish (bounded by the delivery timeout); their
 * outcome and the status are saved.
 *
 * Its statements run on `DispatchDatabase` (dispatch-database.ts): on PostgreSQL, commits that do not wait
 * for the disk, which at-least-once delivery can afford.
 */
@Injectable()
export class SubscriptionDispatcher extends PollingWorker {
  private readonly leaseSeconds: number;
  private readonly sweepSliceMs: number;
  private pendingCountedAt = 0;
  /**
   * Whether a subscription existed at the last poll (asked, or answered by the queuing statement). Without
   * one, a poll is that one question: queuing (four statements, one of them a write) runs only every
   * `sweepIntervalMs`, to keep the position near now for the first subscription's scan, and nothing is
   * claimed: a full round every poll slowed the creates of a server without subscriptions
   * (docs/performance.md#subscriptions).
   */
  private subscribed = true;
  private queuedAt = 0;
  private readonly inFlight = new Set<Promise<void>>();
  /**
   * Notifications claimed ahead, waiting for a delivery slot, with when they were claimed. A round claims
   * up to twice `SUBSCRIPTION_CONCURRENCY` less what is held, so a finished delivery starts the next one at
   * once instead of leaving its slot empty until the next round's statements return (the process idled
   * for a large share of a drain otherwise: docs/performance.md#subscriptions).
   */
  private ready: Array<{ notification: ClaimedNotification; claimedAt: number }> = [];
  /**
   * Notifications their destination accepted, removed from the queue together at the start of the next
   * round, by the statement that records their subscriptions' last delivery (their health).
   */
  private accepted: AcceptedNotification[] = [];
  private status = new Map<string, StatusUpdate>();
  private statusSavedAt = 0;

  constructor(
    private readonly queue: NotificationQueueRepository,
    private readonly destinations: DestinationClient,
    private readonly metrics: SubscriptionMetrics,
    @Inject(subscriptionsConfig.KEY) private readonly config: SubscriptionsConfig,
    @Inject(changeLogConfig.KEY) private readonly changeLog: ChangeLogConfig,
  ) {
    super({ name: 'SubscriptionDispatcher', intervalMs: config.pollIntervalMs, cadence: 'every-interval', round: 'subscription', waiting: 'notifications', resuming: 'delivering notifications' });
    // Longer than an attempt can take (the host check, then the transport within the delivery timeout).
    this.leaseSeconds = (2 * config.deliveryTimeoutMs) / 1000 + 5;
    // A pass of the sweep over the lookback takes about a sweep interval of polls.
    this.sweepSliceMs = Math.max(1, Math.ceil((config.lookbackMs * config.pollIntervalMs) / config.sweepIntervalMs));
  }

  override async onModuleDestroy(): Promise<void> {
    await super.onModuleDestroy();
    await Promise.allSettled([...this.inFlight]);
    await this.release(this.ready.splice(0).map((r) => r.notification));
    await this.removeAccepted().catch(() => undefined);
    await this.saveStatus(true).catch(() => undefined);
  }

  /**
   * One round: queue new messages (when a poll asked), claim what is due, save the status. A poll comes
   * every `pollIntervalMs` whether a round runs or not, and a finished delivery asks for a round too: either,
   * during a round, makes that round go round again. (Polled only once a round ended, the poll waited while
   * deliveries finishing one after the other kept a round going.)
   */
  protected async round(polled: boolean): Promise<void> {
    if (polled) {
      // While subscriptions exist, the queuing statement answers whether they still do.
      if (!this.subscribed) this.subscribed = await this.queue.anySubscription();
      if (this.subscribed || Date.now() - this.queuedAt >= this.config.sweepIntervalMs) {
        this.queuedAt = Date.now();
        this.subscribed = (await this.queueMessages()).subscribed ?? (await this.queue.anySubscription());
      }
      await this.countPending();
    }
    await this.removeAccepted();
    if (this.subscribed) await this.claim();
    await this.saveStatus();
  }

  /**
   * Queues the messages written since the position (one process at a time): how many notifications, and
   * whether any subscription exists (undefined when another process held the turn).
   */
  private async queueMessages(): Promise<{ queued: number; subscribed?: boolean }> {
    const { sweepIntervalMs, lookbackMs } = this.config;
    const retentionDays = this.changeLog.messagesRetentionDays;
    const { expired, ...result } = await this.queue.queueMessages({ sweepIntervalMs, lookbackMs, sweepSliceMs: this.sweepSliceMs, retentionDays });
    if (expired > 0) this.logger.warn(`${expired} notifications dropped undelivered: their messages are past MESSAGES_RETENTION_DAYS (${retentionDays})`);
    return result;
  }

  /** Refreshes the pending gauge every PENDING_COUNT_INTERVAL_MS (a count of the queue: cheap, not free). */
  private async countPending(): Promise<void> {
    if (Date.now() - this.pendingCountedAt < PENDING_COUNT_INTERVAL_MS) return;
    this.pendingCountedAt = Date.now();
    this.metrics.pending(await this.queue.pendingCount().catch(() => undefined));
  }

  private async claim(): Promise<void> {
    const wanted = 2 * this.config.concurrency - this.inFlight.size - this.ready.length;
    if (wanted <= 0 || this.stopped) return;
    const claimedAt = Date.now();
    for (const notification of await this.queue.claim(wanted, this.leaseSeconds)) this.ready.push({ notification, claimedAt });
    this.startDeliveries();
  }

  /**
   * Starts claimed notifications while slots are free. One that waited longer than a delivery timeout is
   * released instead: what is left of its lease might not cover an attempt, and a lease that lapses during
   * one lets another process send the notification again, possibly after its successor.
   */
  private startDeliveries(): void {
    const stale: ClaimedNotification[] = [];
    while (!this.stopped && this.inFlight.size < this.config.concurrency && this.ready.length > 0) {
      const { notification, claimedAt } = this.ready.shift()!;
      if (Date.now() - claimedAt > this.config.deliveryTimeoutMs) {
        stale.push(notification);
        continue;
      }
      const delivery = this.deliver(notification).finally(() => {
        this.inFlight.delete(delivery);
        if (this.stopped) return;
        this.startDeliveries();
        // The stream's next notification is claimable once this one is removed: the next round.
        this.wake();
      });
      this.inFlight.add(delivery);
    }
    if (stale.length > 0) void this.release(stale);
  }

  /** Gives claimed notifications back to the queue (due now), for this or another process to claim. */
  private async release(notifications: ClaimedNotification[]): Promise<void> {
    if (notifications.length === 0) return;
    await this.queue.release(notifications).catch((error: unknown) => this.failed(error));
  }

  private async deliver(n: ClaimedNotification): Promise<void> {
    const target: DestinationTarget = { type: n.destination.type as DestinationTarget['type'], destination: n.destination, credentials: n.credentials };
    const started = Date.now();
    try {
      await this.destinations.deliver(target, renderNotification(n.format, n, this.config.cloudEventsNamespace));
    } catch (thrown) {
      const error = asDeliveryError(thrown);
      const retryInMs = retryDelay(n.attempts + 1, this.config.retryBaseMs, this.config.retryMaxMs);
      this.metrics.failed(target.type, error.kind);
      this.status.set(n.subscriptionId, { error: { at: new Date(), message: error.message } });
      if (n.attempts === 0) {
        this.logger.warn(`subscription ${n.subscriptionId}: notification ${n.id} not delivered (${error.kind}: ${error.message}${error.detail ? `; ${error.detail}` : ''}); retrying`);
      }
      await this.queue.failed(n, retryInMs, error.kind, error.message).catch((e: unknown) => this.failed(e));
      return;
    }
    this.metrics.delivered(target.type, Date.now() - Date.parse(n.createdAt), Date.now() - started);
    this.accepted.push({ ...n, acceptedAt: new Date() });
  }

  /**
   * Removes the accepted notifications from the queue, one statement for all of them. Until then a
   * stream's next notification is not claimable, and a process that dies first leaves them to lapse and
   * go out again: at least once.
   */
  private async removeAccepted(): Promise<void> {
    if (this.accepted.length === 0) return;
    const batch = this.accepted;
    this.accepted = [];
    try {
      await this.queue.delivered(batch);
    } catch (error) {
      this.accepted.push(...batch);
      throw error;
    }
  }

  /** At most every STATUS_SAVE_INTERVAL_MS (a statement per round would cost a busy dispatcher as much as its deliveries), or now. */
  private async saveStatus(now = false): Promise<void> {
    if (this.status.size === 0 || (!now && Date.now() - this.statusSavedAt < STATUS_SAVE_INTERVAL_MS)) return;
    this.statusSavedAt = Date.now();
    const updates = this.status;
    this.status = new Map();
    try {
      await this.queue.saveStatus(updates);
    } catch (error) {
      // An error recorded since is newer: it stays.
      for (const [id, update] of updates) if (!this.status.has(id)) this.status.set(id, update);
      throw error;
    }
  }
}
