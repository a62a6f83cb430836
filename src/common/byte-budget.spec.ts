import { ByteBudget, type Reservation } from './byte-budget.js';
import { SemaphoreRefusal } from './semaphore.js';

/** Whether `promise` has settled after the tasks queued now have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('ByteBudget', () => {
  it('grants what fits at once; a reservation that would pass the size waits until enough is released', async () => {
    const budget = new ByteBudget(100);
    const a = await budget.acquire('p', 60, 1_000);
    const b = await budget.acquire('p', 40, 1_000);
    expect(budget.used('p')).toBe(100);
    const c = budget.acquire('p', 50, 1_000);
    expect(await settled(c)).toBe(false);
    b.release();
    expect(await settled(c)).toBe(false); // 40 free, 50 needed
    a.release();
    const granted = await c;
    expect(granted.bytes).toBe(50);
    expect(budget.used('p')).toBe(50);
    granted.release();
    expect(budget.used('p')).toBe(0);
  });

  it('grants waiters in arrival order', async () => {
    const budget = new ByteBudget(10);
    const holder = await budget.acquire('p', 10, 1_000);
    const order: number[] = [];
    const waiters = [1, 2, 3].map((i) => budget.acquire('p', 10, 1_000).then((r) => (order.push(i), r)));
    holder.release();
    for (const waiter of waiters) (await waiter).release();
    expect(order).toEqual([1, 2, 3]);
  });

  it('a waiter for many bytes does not hold up a later one that needs few, which then waits its own turn', async () => {
    const budget = new ByteBudget(100);
    const holder = await budget.acquire('p', 90, 1_000);
    const large = budget.acquire('p', 100, 1_000);
    const small = await budget.acquire('p', 10, 1_000);
    const another = budget.acquire('p', 10, 1_000);
    expect(await settled(another)).toBe(false);
    holder.release();
    // 90 free: the large waiter (first) does not fit, the later small one does.
    expect(await settled(another)).toBe(true);
    expect(await settled(large)).toBe(false);
    small.release();
    (await another).release();
    expect((await large).bytes).toBe(100);
  });

  it('refuses a reservation that waited longer than waitMs (SemaphoreRefusal timeout); what it waited for is not lost', async () => {
    const budget = new ByteBudget(10);
    const holder = await budget.acquire('p', 10, 1_000);
    const started = Date.now();
    await expect(budget.acquire('p', 5, 50)).rejects.toEqual(new SemaphoreRefusal('timeout'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(budget.waiting('p')).toBe(0);
    holder.release();
    (await budget.acquire('p', 10, 0)).release();
  });

  it('shrink gives back the bytes above what is kept and wakes waiters; release after it gives back the rest, once', async () => {
    const budget = new ByteBudget(100);
    const held = await budget.acquire('p', 100, 1_000);
    const waiter = budget.acquire('p', 70, 1_000);
    held.shrink(30);
    expect(held.bytes).toBe(30);
    const granted: Reservation = await waiter;
    expect(budget.used('p')).toBe(100);
    held.shrink(50); // more than held: nothing changes
    expect(held.bytes).toBe(30);
    held.release();
    held.release();
    expect(budget.used('p')).toBe(70);
    granted.release();
    expect(budget.used('p')).toBe(0);
  });

  it('keys are bounded on their own: one key at its size does not make another wait', async () => {
    const budget = new ByteBudget(10);
    const a = await budget.acquire('a', 10, 1_000);
    const b = budget.acquire('b', 10, 1_000);
    expect(await settled(b)).toBe(true);
    (await b).release();
    a.release();
  });

  it('forgets a key once nothing is reserved or waiting under it, also after a timeout', async () => {
    const budget = new ByteBudget(10);
    const a = await budget.acquire('a', 10, 1_000);
    const refused = budget.acquire('a', 10, 10).catch((error: unknown) => error);
    const b = await budget.acquire('b', 4, 1_000);
    b.shrink(0);
    expect(budget.keys).toBe(1);
    expect(await refused).toBeInstanceOf(SemaphoreRefusal);
    expect(budget.keys).toBe(1);
    a.release();
    expect(budget.keys).toBe(0);
  });

  it.each([0, -1, 11, Number.NaN])('a reservation of %s bytes (none, or more than the size) is a programming error', (bytes) => {
    expect(() => new ByteBudget(10).acquire('p', bytes, 1_000)).toThrow(RangeError);
  });
});
