import { Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { isDatabaseUnavailable } from './database-errors.js';

/** The longest wait between rounds while they fail, unless the interval itself is longer. */
export const MAX_BACKOFF_MS = 5_000;

export interface PollingOptions {
  /** The logger's context. */
  name: string;
  /** The wait between rounds while they succeed. */
  intervalMs: number;
  /**
   * `after-round`: the next round starts `intervalMs` after the last one ended. `every-interval`: a poll
   * every `intervalMs` whether a round runs or not; a poll (or a `wake`) during a round makes that round
   * go round again once it ends, so nothing that arrived during it waits a whole interval.
   */
  cadence: 'after-round' | 'every-interval';
  /** What the log lines call the work: "<round> round failed", "database unavailable, <waiting> wait until it answers", "database answers again, <resuming>". */
  round: string;
  waiting: string;
  resuming: string;
}

/**
 * A background worker that polls the database: every server process runs one of each kind, and they
 * share the work through the database (claims, locks). This class holds what they have in common:
 *
 * - **Schedule**: rounds one at a time (`PollingOptions.cadence`), on timers that never keep the process alive.
 * - **Back-off**: after a failed round the wait doubles, from `intervalMs` up to MAX_BACKOFF_MS (or the
 *   interval, when that is longer); the first round that succeeds goes back to `intervalMs`. An unreachable
 *   database is then asked about a few times a second at most, not at every short poll.
 * - **Logs**: a failed round is a warning; an unreachable database fails every round the same way, so
 *   that is logged once, and once more when it answers again.
 * - **Stop**: on module destroy no new round starts, and the one under way is awaited; a round's loops
 *   check `stopped` between their steps so that it ends soon.
 *
 * A subclass writes only its round.
 */
export abstract class PollingWorker implements OnApplicationBootstrap, OnModuleDestroy {
  protected readonly logger: Logger;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private polled = false;
  private failures = 0;
  private databaseDown = false;
  private stopping = false;

  constructor(private readonly polling: PollingOptions) {
    this.logger = new Logger(polling.name);
  }

  /**
   * One round's work; `polled`: a poll (the interval) asked for it, not only a `wake`. A round that
   * throws is logged and makes the next one wait longer.
   */
  protected abstract round(polled: boolean): Promise<void>;

  onApplicationBootstrap(): void {
    this.arm();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Stopping: no new round starts, and loops within a round end at their next step. */
  get stopped(): boolean {
    return this.stopping;
  }

  /** The round under way, if any (settles when it ends; it never rejects). */
  protected get roundUnderWay(): Promise<void> | undefined {
    return this.running;
  }

  /** A round now, or, while one runs, that one goes round again when it ends. */
  protected wake(): void {
    if (this.stopping) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.roundsUntilIdle().finally(() => {
      this.running = undefined;
      if (this.polling.cadence === 'after-round') this.arm();
    });
  }

  /** Logs a failure of the worker's work outside a round (the same lines as a failed round's, no back-off). */
  protected failed(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    if (!isDatabaseUnavailable(error)) return this.logger.warn(`${this.polling.round} round failed: ${message}`);
    if (!this.databaseDown) this.logger.warn(`database unavailable, ${this.polling.waiting} wait until it answers: ${message}`);
    this.databaseDown = true;
  }

  /** The wait before the next poll: the interval, doubled for each round that failed in a row. */
  protected get nextWaitMs(): number {
    const { intervalMs } = this.polling;
    if (this.failures === 0) return intervalMs;
    return Math.min(intervalMs * 2 ** this.failures, Math.max(intervalMs, MAX_BACKOFF_MS));
  }

  private async roundsUntilIdle(): Promise<void> {
    do {
      this.again = false;
      const polled = this.polled;
      this.polled = false;
      try {
        await this.round(polled);
        this.failures = 0;
        this.answered();
      } catch (error) {
        // Capped well below 2^31 ms; the exponent stops growing once the cap is reached.
        this.failures = Math.min(this.failures + 1, 30);
        this.failed(error);
      }
    } while (this.again && !this.stopping);
  }

  private answered(): void {
    if (!this.databaseDown) return;
    this.databaseDown = false;
    this.logger.log(`database answers again, ${this.polling.resuming}`);
  }

  private arm(): void {
    if (this.stopping) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.polled = true;
      if (this.polling.cadence === 'every-interval') this.arm();
      this.wake();
    }, this.nextWaitMs);
    this.timer.unref();
  }
}
