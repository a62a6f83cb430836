import { KeyedSemaphores, Semaphore, SemaphoreRefusal } from './semaphore.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Semaphore', () => {
  it('runs at most `size` tasks at once, the others in arrival order', async () => {
    const semaphore = new Semaphore(2);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        semaphore.run(async () => {
          running++;
          peak = Math.max(peak, running);
          await sleep(10);
          order.push(i);
          running--;
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect([semaphore.running, semaphore.queued]).toEqual([0, 0]);
  });

  it('refuses a task at once when maxWaiting others wait', async () => {
    const semaphore = new Semaphore(1, 1);
    const first = semaphore.run(() => sleep(30));
    const second = semaphore.run(() => sleep(1));
    await expect(semaphore.run(() => sleep(1))).rejects.toEqual(new SemaphoreRefusal('full'));
    await Promise.all([first, second]);
  });

  it('refuses a task that waited longer than waitMs, and its slot is not lost', async () => {
    const semaphore = new Semaphore(1);
    const first = semaphore.run(() => sleep(50));
    await expect(semaphore.run(() => sleep(1), 10)).rejects.toMatchObject({ reason: 'timeout' });
    await first;
    await expect(semaphore.run(async () => 'ran', 10)).resolves.toBe('ran');
    expect([semaphore.running, semaphore.queued]).toEqual([0, 0]);
  });

  it('a failing task releases its slot', async () => {
    const semaphore = new Semaphore(1);
    await expect(semaphore.run(() => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await expect(semaphore.run(async () => 1)).resolves.toBe(1);
  });
});

describe('KeyedSemaphores', () => {
  it('bounds each key on its own and forgets idle keys', async () => {
    const keyed = new KeyedSemaphores(1, 0);
    const a = keyed.run('a', () => sleep(20));
    await expect(keyed.run('a', async () => 1)).rejects.toMatchObject({ reason: 'full' });
    await expect(keyed.run('b', async () => 2)).resolves.toBe(2);
    await a;
    await expect(keyed.run('a', async () => 3)).resolves.toBe(3);
    expect((keyed as unknown as { semaphores: Map<string, unknown> }).semaphores.size).toBe(0);
  });
});
