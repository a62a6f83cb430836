import type { ChangeLogConfig } from '../change-log/change-log.config.js';
import type { DestinationClient } from './destination-client.js';
import type { ClaimedNotification, NotificationQueueRepository } from './notification-queue.repository.js';
import { SubscriptionDispatcher } from './subscription.dispatcher.js';
import type { SubscriptionMetrics } from './subscription.metrics.js';
import type { SubscriptionsConfig } from './subscriptions.config.js';

/*
 * The dispatcher's delivery slots, against an in-memory queue and destination: what it claims ahead,
 * when a claimed notification starts, and what it gives back. The database side (claims, order per
 * resource, leases across processes) is proven end to end in test/e2e/subscriptions-*.e2e-spec.ts.
 */

function notification(i: number): ClaimedNotification {
  return {
    id: `n-${i}`,
    subscriptionId: 's-1',
    resourceId: `r-${i}`,
    ordinal: String(2 * i + 1),
    type: 'change.Created',
    sequenceNumber: 1,
    createdAt: '2026-11-27T10:00:00.000Z',
    projectKey: 'demo',
    payload: '{}',
    attempts: 0,
    destination: { type: 'HTTP', url: 'http://receiver.example/' },
    credentials: {},
    format: { type: 'Platform' },
  };
}

class Deferred {
  resolve!: () => void;
  readonly promise = new Promise<void>((resolve) => (this.resolve = resolve));
}

function setUp(concurrency: number, deliveryTimeoutMs = 10_000) {
  const claims: number[] = [];
  const released: string[] = [];
  const delivered: string[] = [];
  const pending = new Map<string, Deferred>();
  let queued = Array.from({ length: 10 }, (_, i) => notification(i));
  const queue = {
    claim: async (limit: number) => {
      claims.push(limit);
      const taken = queued.slice(0, limit);
      queued = queued.slice(limit);
      return taken;
    },
    delivered: async () => undefined,
    saveStatus: async () => undefined,
    failed: async () => undefined,
    release: async (list: ClaimedNotification[]) => void released.push(...list.map((n) => n.id)),
  } as unknown as NotificationQueueRepository;
  const destinations = {
    deliver: (_target: unknown, rendered: { id: string }) => {
      delivered.push(rendered.id);
      const done = new Deferred();
      pending.set(rendered.id, done);
      return done.promise;
    },
  } as unknown as DestinationClient;
  const metrics = { delivered: () => undefined, failed: () => undefined } as unknown as SubscriptionMetrics;
  const config = { concurrency, deliveryTimeoutMs, pollIntervalMs: 60_000, lookbackMs: 60_000, sweepIntervalMs: 60_000, retryBaseMs: 1_000, retryMaxMs: 60_000, cloudEventsNamespace: 'ns' } as SubscriptionsConfig;
  const dispatcher = new SubscriptionDispatcher(queue, destinations, metrics, config, { messagesRetentionDays: 15 } as ChangeLogConfig);
  /** One round (remove the accepted, claim, save the status), as a poll or a finished delivery starts it. */
  const round = async () => {
    (dispatcher as unknown as { wake(): void }).wake();
    await (dispatcher as unknown as { roundUnderWay?: Promise<void> }).roundUnderWay;
  };
  const finish = async (id: string) => {
    pending.get(id)!.resolve();
    await new Promise((resolve) => setImmediate(resolve));
  };
  /** Stops the dispatcher, letting every delivery under way finish. */
  const stop = async () => {
    const stopping = dispatcher.onModuleDestroy();
    for (const done of pending.values()) done.resolve();
    await stopping;
  };
  return { dispatcher, claims, released, delivered, round, finish, stop };
}

describe('SubscriptionDispatcher delivery slots', () => {
  it('claims up to twice its concurrency ahead and starts a claimed one as soon as a slot frees', async () => {
    const t = setUp(2);
    await t.round();
    expect(t.claims).toEqual([4]);
    expect(t.delivered).toEqual(['n-0', 'n-1']);

    await t.finish('n-0');
    // Started from what was claimed ahead; the round that follows tops the claims up again.
    expect(t.delivered).toEqual(['n-0', 'n-1', 'n-2']);
    expect(t.claims.slice(1).every((limit) => limit <= 1)).toBe(true);

    for (const id of ['n-1', 'n-2', 'n-3']) await t.finish(id);
    await t.round();
    expect(t.delivered.slice(0, 5)).toEqual(['n-0', 'n-1', 'n-2', 'n-3', 'n-4']);
    await t.stop();
  });

  it('gives back what it claimed and did not start when it stops', async () => {
    const t = setUp(2);
    await t.round();
    await t.stop();
    expect(t.delivered).toEqual(['n-0', 'n-1']);
    expect(t.released).toEqual(['n-2', 'n-3']);
  });

  it('gives back a claimed notification that waited longer than a delivery timeout instead of sending it', async () => {
    const t = setUp(1, 50);
    await t.round();
    expect(t.claims).toEqual([2]);
    await new Promise((resolve) => setTimeout(resolve, 80));
    await t.finish('n-0');
    expect(t.released).toContain('n-1');
    expect(t.delivered).not.toContain('n-1');
    await t.stop();
  });
});

describe('SubscriptionDispatcher polls', () => {
  /** A dispatcher whose polls record what they ran: `exists` answers whether a subscription exists. */
  function polling(sweepIntervalMs: number) {
    const ran: string[] = [];
    let exists = false;
    /** False: another process holds the queuing turn (queueMessages cannot tell whether subscriptions exist). */
    let turn = true;
    const queue = {
      anySubscription: async () => (ran.push('any?'), exists),
      claim: async () => (ran.push('claim'), []),
      pendingCount: async () => 0,
      delivered: async () => undefined,
      saveStatus: async () => undefined,
      release: async () => undefined,
    } as unknown as NotificationQueueRepository;
    const metrics = { pending: () => undefined } as unknown as SubscriptionMetrics;
    const config = { concurrency: 2, deliveryTimeoutMs: 10_000, pollIntervalMs: 60_000, lookbackMs: 60_000, sweepIntervalMs, retryBaseMs: 1_000, retryMaxMs: 60_000, cloudEventsNamespace: 'ns' } as SubscriptionsConfig;
    const dispatcher = new SubscriptionDispatcher(queue, {} as DestinationClient, metrics, config, { messagesRetentionDays: 15 } as ChangeLogConfig);
    const internals = dispatcher as unknown as {
      wake(): void;
      roundUnderWay?: Promise<void>;
      polled: boolean;
      queueMessages(): Promise<{ queued: number; subscribed?: boolean }>;
    };
    internals.queueMessages = async () => (ran.push('queue'), { queued: 0, subscribed: turn ? exists : undefined });
    const poll = async () => {
      ran.length = 0;
      internals.polled = true;
      internals.wake();
      await internals.roundUnderWay;
      return [...ran];
    };
    return { poll, subscribe: () => (exists = true), unsubscribe: () => (exists = false), turnElsewhere: () => (turn = false) };
  }

  it('without any subscription asks only that, and queues (moving the position) once per sweep interval', async () => {
    const t = polling(60_000);
    // At start it assumes a subscription: the queuing statement answers there is none.
    expect(await t.poll()).toEqual(['queue']);
    expect(await t.poll()).toEqual(['any?']);
    expect(await t.poll()).toEqual(['any?']);
  });

  it('with a subscription queues and claims at every poll without asking first, and stops when the last one goes', async () => {
    const t = polling(60_000);
    await t.poll();
    t.subscribe();
    expect(await t.poll()).toEqual(['any?', 'queue', 'claim']);
    expect(await t.poll()).toEqual(['queue', 'claim']);
    t.unsubscribe();
    expect(await t.poll()).toEqual(['queue']);
    expect(await t.poll()).toEqual(['any?']);
  });

  it('asks whether subscriptions exist when another process held the queuing turn', async () => {
    const t = polling(60_000);
    t.subscribe();
    t.turnElsewhere();
    expect(await t.poll()).toEqual(['queue', 'any?', 'claim']);
    t.unsubscribe();
    expect(await t.poll()).toEqual(['queue', 'any?']);
  });

  it('queues again once a sweep interval has passed without subscriptions', async () => {
    // An interval long enough that the second poll comes within it on a loaded machine.
    const t = polling(1_000);
    expect(await t.poll()).toEqual(['queue']);
    expect(await t.poll()).toEqual(['any?']);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await t.poll()).toEqual(['any?', 'queue']);
  });
});
