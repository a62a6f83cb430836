/** One submitted item and the promise of its own outcome. */
interface Pending<I, O> {
  item: I;
  /** When it was submitted (performance.now()). */
  at: number;
  resolve: (outcome: O) => void;
  reject: (error: unknown) => void;
}

interface Lane<I, O> {
  running: number;
  queue: Pending<I, O>[];
}

export interface CoalescerOptions<I, O> {
  /** Batches of one key that run at once; items arriving meanwhile wait and go together in the next. */
  inFlight: number;
  /** At most this many items in one batch. */
  maxItems: number;
  /** At most this much weight in one batch (a batch holds at least one item, whatever its weight). */
  maxWeight: number;
  weigh: (item: I) => number;
  /** Items with the same identity never share a batch: a batch ends before the second one. */
  identify?: (item: I) => string;
  /** Runs one batch, all or nothing: an outcome per item, in the items' order (an `Error`: that item failed alone). */
  run: (key: string, items: I[]) => Promise<(O | Error)[]>;
  /** Whether a batch that failed with `error` is run again item by item, so that one item cannot fail the others. */
  retryAlone: (error: unknown) => boolean;
  /**
   * An item that has waited this long when a batch is taken is refused with `expired()` instead of
   * running: an overload answers rather than piling up.
   */
  maxWaitMs?: number;
  expired?: () => unknown;
}

/**
 * Merges concurrent work of one key into batches ("natural batching"): an item that finds fewer than
 * `inFlight` batches of its key running starts one at once, alone, so nothing waits at low load; items
 * arriving while `inFlight` run wait and leave together in the next batch, as soon as one ends. Each
 * item is settled by its own outcome. A batch is all or nothing (one statement): when it fails and
 * `retryAlone` says the failure may be one item's, each item runs again on its own, so an item fails
 * only for itself; otherwise (the database unavailable, a timeout) every item gets that error.
 */
export class Coalescer<I, O> {
  private readonly lanes = new Map<string, Lane<I, O>>();

  constructor(private readonly options: CoalescerOptions<I, O>) {}

  submit(key: string, item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      let lane = this.lanes.get(key);
      if (!lane) {
        lane = { running: 0, queue: [] };
        this.lanes.set(key, lane);
      }
      lane.queue.push({ item, at: performance.now(), resolve, reject });
      this.pump(key, lane);
    });
  }

  private pump(key: string, lane: Lane<I, O>): void {
    this.refuseExpired(lane);
    while (lane.running < this.options.inFlight && lane.queue.length > 0) {
      const batch = this.take(lane);
      lane.running++;
      void this.runBatch(key, batch).finally(() => {
        lane.running--;
        if (lane.queue.length > 0) this.pump(key, lane);
        if (lane.running === 0 && lane.queue.length === 0) this.lanes.delete(key);
      });
    }
  }

  private refuseExpired(lane: Lane<I, O>): void {
    const { maxWaitMs, expired } = this.options;
    if (maxWaitMs === undefined || !expired) return;
    const since = performance.now() - maxWaitMs;
    // The queue is in arrival order: the expired are at its head.
    let count = 0;
    while (count < lane.queue.length && lane.queue[count].at <= since) count++;
    for (const p of lane.queue.splice(0, count)) p.reject(expired());
  }

  private take(lane: Lane<I, O>): Pending<I, O>[] {
    const { weigh, identify, maxItems, maxWeight } = this.options;
    const identities = identify && new Set([identify(lane.queue[0].item)]);
    let count = 1;
    let weight = weigh(lane.queue[0].item);
    while (count < lane.queue.length && count < maxItems) {
      const item = lane.queue[count].item;
      const next = weigh(item);
      if (weight + next > maxWeight) break;
      if (identities) {
        const identity = identify!(item);
        if (identities.has(identity)) break;
        identities.add(identity);
      }
      weight += next;
      count++;
    }
    return lane.queue.splice(0, count);
  }

  private async runBatch(key: string, batch: Pending<I, O>[]): Promise<void> {
    let outcomes: (O | Error)[];
    try {
      outcomes = await this.options.run(key, batch.map((p) => p.item));
    } catch (error) {
      if (batch.length === 1 || !this.options.retryAlone(error)) {
        for (const p of batch) p.reject(error);
        return;
      }
      // Side by side: each still takes a turn of its key's fair share in the database (Database.query).
      await Promise.all(batch.map((p) => this.runAlone(key, p)));
      return;
    }
    settle(batch, outcomes);
  }

  private async runAlone(key: string, p: Pending<I, O>): Promise<void> {
    let outcomes: (O | Error)[];
    try {
      outcomes = await this.options.run(key, [p.item]);
    } catch (error) {
      p.reject(error);
      return;
    }
    settle([p], outcomes);
  }
}

function settle<I, O>(batch: Pending<I, O>[], outcomes: (O | Error)[]): void {
  batch.forEach((p, i) => {
    const outcome = outcomes[i];
    if (outcome instanceof Error) p.reject(outcome);
    else p.resolve(outcome);
  });
}
