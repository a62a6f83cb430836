/** Why a `Semaphore` refused a task: its queue was full, or the task waited longer than allowed. */
export class SemaphoreRefusal extends Error {
  constructor(readonly reason: 'full' | 'timeout') {
    super(reason === 'full' ? 'too many tasks are waiting' : 'waited too long');
  }
}

/**
 * A counting semaphore: at most `size` tasks run at once; the others wait in arrival order. A task
 * that finds `maxWaiting` others waiting is refused at once (`full`), one that waits longer than its
 * `waitMs` is refused then (`timeout`): an overload answers quickly rather than piling up.
 */
export class Semaphore {
  private free: number;
  private readonly waiting: { grant: () => void; timer?: NodeJS.Timeout }[] = [];

  constructor(
    readonly size: number,
    private readonly maxWaiting = Infinity,
  ) {
    this.free = size;
  }

  /** Tasks running now. */
  get running(): number {
    return this.size - this.free;
  }

  /** Tasks waiting now. */
  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>, waitMs?: number): Promise<T> {
    await this.acquire(waitMs);
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private acquire(waitMs?: number): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.maxWaiting) return Promise.reject(new SemaphoreRefusal('full'));
    return new Promise<void>((resolve, reject) => {
      const entry: { grant: () => void; timer?: NodeJS.Timeout } = { grant: resolve };
      if (waitMs !== undefined) {
        entry.timer = setTimeout(() => {
          const index = this.waiting.indexOf(entry);
          if (index !== -1) this.waiting.splice(index, 1);
          reject(new SemaphoreRefusal('timeout'));
        }, waitMs);
      }
      this.waiting.push(entry);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (!next) {
      this.free++;
      return;
    }
    if (next.timer) clearTimeout(next.timer);
    next.grant();
  }
}

/**
 * A `Semaphore` per key (a client id, an address), made on first use and dropped when idle: bounds
 * what one key may run at once without a table that grows with every key ever seen.
 */
export class KeyedSemaphores {
  private readonly semaphores = new Map<string, Semaphore>();

  constructor(
    private readonly size: number,
    private readonly maxWaiting: number,
  ) {}

  async run<T>(key: string, task: () => Promise<T>, waitMs?: number): Promise<T> {
    let semaphore = this.semaphores.get(key);
    if (!semaphore) {
      semaphore = new Semaphore(this.size, this.maxWaiting);
      this.semaphores.set(key, semaphore);
    }
    try {
      return await semaphore.run(task, waitMs);
    } finally {
      if (semaphore.running === 0 && semaphore.queued === 0) this.semaphores.delete(key);
    }
  }
}
