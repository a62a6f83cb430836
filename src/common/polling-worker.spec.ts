import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { MAX_BACKOFF_MS, PollingWorker, type PollingOptions } from './polling-worker.js';

/*
 * The shape every polling worker shares, driven by a worker whose round is a script: each round takes the
 * next step (succeed, fail, or wait for the test), and records when it ran and whether a poll asked for it.
 */

type Step = 'ok' | 'down' | 'broken' | Deferred;

class Deferred {
  resolve!: () => void;
  readonly promise = new Promise<void>((resolve) => (this.resolve = resolve));
}

class ScriptedWorker extends PollingWorker {
  readonly rounds: Array<{ at: number; polled: boolean; stoppedAtEnd?: boolean }> = [];
  readonly lines: Array<[level: 'log' | 'warn', message: string]> = [];

  constructor(
    private readonly steps: Step[],
    options: Partial<PollingOptions> = {},
  ) {
    super({ name: 'Scripted', intervalMs: 100, cadence: 'after-round', round: 'scripted', waiting: 'scripted jobs', resuming: 'running scripted jobs', ...options });
    this.logger.log = (message: unknown) => void this.lines.push(['log', String(message)]);
    this.logger.warn = (message: unknown) => void this.lines.push(['warn', String(message)]);
  }

  protected async round(polled: boolean): Promise<void> {
    const record: (typeof this.rounds)[number] = { at: Date.now(), polled };
    this.rounds.push(record);
    const step = this.steps.shift() ?? 'ok';
    if (step instanceof Deferred) await step.promise;
    record.stoppedAtEnd = this.stopped;
    if (step === 'down') throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    if (step === 'broken') throw new Error('column "x" does not exist');
  }

  /** A round asked for by the worker itself (not by a poll), as a finished delivery asks. */
  ask(): void {
    this.wake();
  }

  get waitMs(): number {
    return this.nextWaitMs;
  }
}

/** Lets the timers due within `ms` fire, and the rounds they start settle. */
const advance = (ms: number) => jest.advanceTimersByTimeAsync(ms);

describe('PollingWorker', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('runs a round every interval after the last one ended, each asked for by a poll', async () => {
    const worker = new ScriptedWorker([]);
    worker.onApplicationBootstrap();
    await advance(99);
    expect(worker.rounds).toEqual([]);
    await advance(1);
    await advance(300);
    expect(worker.rounds.map((r) => r.at)).toEqual([100, 200, 300, 400]);
    expect(worker.rounds.every((r) => r.polled)).toBe(true);
    await worker.onModuleDestroy();
  });

  it('on stop, starts no new round and waits for the one under way, which sees that it is stopping', async () => {
    const slow = new Deferred();
    const worker = new ScriptedWorker([slow]);
    worker.onApplicationBootstrap();
    await advance(100);
    expect(worker.rounds).toHaveLength(1);

    let stopped = false;
    const stopping = worker.onModuleDestroy().then(() => (stopped = true));
    await advance(1_000);
    expect(stopped).toBe(false);
    expect(worker.stopped).toBe(true);

    slow.resolve();
    await stopping;
    expect(worker.rounds).toEqual([{ at: 100, polled: true, stoppedAtEnd: true }]);
    await advance(10_000);
    expect(worker.rounds).toHaveLength(1);
    worker.ask();
    await advance(0);
    expect(worker.rounds).toHaveLength(1);
  });

  it('backs off after a failed round, doubling the wait up to its bound, and polls at the interval again after a success', async () => {
    const worker = new ScriptedWorker(['down', 'broken', 'down', 'down', 'down', 'down', 'down', 'down', 'ok']);
    expect(worker.waitMs).toBe(100);
    worker.onApplicationBootstrap();
    await advance(30_000);
    const gaps = worker.rounds.slice(1, 11).map((r, i) => r.at - worker.rounds[i].at);
    // Failed rounds 1 to 8, then the success (round 9), then the interval again.
    expect(gaps).toEqual([200, 400, 800, 1_600, 3_200, MAX_BACKOFF_MS, MAX_BACKOFF_MS, MAX_BACKOFF_MS, 100, 100]);
    await worker.onModuleDestroy();
  });

  it('backs off no further than its interval when the interval is longer than the bound', async () => {
    const worker = new ScriptedWorker(['broken', 'broken', 'broken'], { intervalMs: 60_000 });
    worker.onApplicationBootstrap();
    await advance(60_000 * 4);
    expect(worker.rounds.map((r) => r.at)).toEqual([60_000, 120_000, 180_000, 240_000]);
    expect(worker.waitMs).toBe(60_000);
    await worker.onModuleDestroy();
  });

  it('logs an unreachable database once however many rounds fail, and once when it answers again', async () => {
    const worker = new ScriptedWorker(['down', 'down', 'down', 'ok', 'ok', 'down', 'ok']);
    worker.onApplicationBootstrap();
    await advance(30_000);
    expect(worker.rounds.length).toBeGreaterThanOrEqual(8);
    expect(worker.lines).toEqual([
      ['warn', 'database unavailable, scripted jobs wait until it answers: connect ECONNREFUSED 127.0.0.1:5432'],
      ['log', 'database answers again, running scripted jobs'],
      ['warn', 'database unavailable, scripted jobs wait until it answers: connect ECONNREFUSED 127.0.0.1:5432'],
      ['log', 'database answers again, running scripted jobs'],
    ]);
    await worker.onModuleDestroy();
  });

  it('logs every round that fails for another reason, and nothing when the database had not been down', async () => {
    const worker = new ScriptedWorker(['broken', 'broken', 'ok']);
    worker.onApplicationBootstrap();
    await advance(2_000);
    expect(worker.lines).toEqual([
      ['warn', 'scripted round failed: column "x" does not exist'],
      ['warn', 'scripted round failed: column "x" does not exist'],
    ]);
    await worker.onModuleDestroy();
  });

  it('every-interval: polls while a round runs, and a poll or a wake during a round makes it go round once more', async () => {
    const slow = new Deferred();
    const worker = new ScriptedWorker([slow], { cadence: 'every-interval' });
    worker.onApplicationBootstrap();
    await advance(100);
    expect(worker.rounds).toEqual([{ at: 100, polled: true }]);
    // Three polls and a wake arrive during the round: one more round, for all of them.
    await advance(300);
    worker.ask();
    expect(worker.rounds).toHaveLength(1);
    slow.resolve();
    await advance(0);
    expect(worker.rounds.map(({ at, polled }) => ({ at, polled }))).toEqual([
      { at: 100, polled: true },
      { at: 400, polled: true },
    ]);
    // The polls go on at their own pace; a wake between them is a round that no poll asked for.
    await advance(50);
    worker.ask();
    await advance(50);
    expect(worker.rounds.slice(2).map(({ at, polled }) => ({ at, polled }))).toEqual([
      { at: 450, polled: false },
      { at: 500, polled: true },
    ]);
    await worker.onModuleDestroy();
  });
});
