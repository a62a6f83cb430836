import { SemaphoreRefusal } from './semaphore.js';

/** Bytes held under a key of a `ByteBudget`, until `release` (or, in part, `shrink`). */
export interface Reservation {
  /** Bytes held now. */
  readonly bytes: number;
  /** Keeps `bytes` (fewer than held) and gives the rest back. */
  shrink(bytes: number): void;
  /** Gives every byte back; later calls do nothing. */
  release(): void;
}

interface Waiter {
  bytes: number;
  grant: () => void;
  timer: NodeJS.Timeout;
}

interface Account {
  used: number;
  waiting: Waiter[];
}

/**
 * At most `size` bytes reserved per key (a project) at once. A reservation that fits in what the key
 * has free is granted at once; one that does not waits, and waiters are granted in arrival order, each
 * as soon as its bytes are free: one waiting for many bytes does not hold up a later one that needs few.
 * One that waits longer than its `waitMs` is refused then (`SemaphoreRefusal`, `timeout`). A key is
 * forgotten when nothing is reserved or waiting under it.
 */
export class ByteBudget {
  private readonly accounts = new Map<string, Account>();

  constructor(readonly size: number) {}

  /** Bytes reserved under `key` now. */
  used(key: string): number {
    return this.accounts.get(key)?.used ?? 0;
  }

  /** Reservations waiting under `key` now. */
  waiting(key: string): number {
    return this.accounts.get(key)?.waiting.length ?? 0;
  }

  /** Keys with something reserved or waiting. */
  get keys(): number {
    return this.accounts.size;
  }

  acquire(key: string, bytes: number, waitMs: number): Promise<Reservation> {
    if (!(bytes > 0 && bytes <= this.size)) throw new RangeError(`A reservation of ${bytes} bytes cannot be held in ${this.size}.`);
    let account = this.accounts.get(key);
    if (!account) {
      account = { used: 0, waiting: [] };
      this.accounts.set(key, account);
    }
    if (account.used + bytes <= this.size) {
      account.used += bytes;
      return Promise.resolve(this.reservation(key, account, bytes));
    }
    const waiting = account;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        bytes,
        grant: () => resolve(this.reservation(key, waiting, bytes)),
        timer: setTimeout(() => {
          waiting.waiting.splice(waiting.waiting.indexOf(waiter), 1);
          this.forgetIfIdle(key, waiting);
          reject(new SemaphoreRefusal('timeout'));
        }, waitMs),
      };
      waiting.waiting.push(waiter);
    });
  }

  private reservation(key: string, account: Account, bytes: number): Reservation {
    let held = bytes;
    const giveBack = (kept: number) => {
      account.used -= held - kept;
      held = kept;
      this.grantWaiters(account);
      this.forgetIfIdle(key, account);
    };
    return {
      get bytes() {
        return held;
      },
      shrink: (kept: number) => {
        if (kept < held) giveBack(Math.max(0, kept));
      },
      release: () => {
        if (held > 0) giveBack(0);
      },
    };
  }

  private grantWaiters(account: Account): void {
    for (let i = 0; i < account.waiting.length; ) {
      const waiter = account.waiting[i];
      if (account.used + waiter.bytes > this.size) {
        i++;
        continue;
      }
      account.waiting.splice(i, 1);
      clearTimeout(waiter.timer);
      account.used += waiter.bytes;
      waiter.grant();
    }
  }

  private forgetIfIdle(key: string, account: Account): void {
    if (account.used === 0 && account.waiting.length === 0 && this.accounts.get(key) === account) this.accounts.delete(key);
  }
}
