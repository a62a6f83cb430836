import { Logger } from '@nestjs/common';
import pg, { type Pool, type QueryResultRow } from 'pg';
import { isDatabaseUnavailable } from '../common/database-errors.js';
import { APPLICATION_NAME, poolOptions } from './data-source-options.js';
import type { DatabaseConfig } from './database.config.js';
import { serverName } from './database.config.js';
import { PoolQueryable, type Queryable, type Statement } from './queryable.js';
import { heldAsOf, PrimaryPositions, type ReplicaReading } from './replica-lag.js';

/** How often the primary's position and each replica's replay are read: at most once a second each. */
const LAG_CHECK_INTERVAL_MS = 1_000;

/** One statement, one round trip, on the replica; `paused` only informs (see replica-lag.ts). */
const READ_LAG: Statement = {
  name: 'replica_lag',
  text: `SELECT pg_is_in_recovery() AS standby,
                (pg_last_wal_replay_lsn() - '0/0')::text AS replayed,
                (extract(epoch FROM now() - pg_last_xact_replay_timestamp()) * 1000)::float8 AS replay_age_ms,
                CASE WHEN pg_is_in_recovery() THEN pg_is_wal_replay_paused() END AS paused`,
};

const READ_PRIMARY_POSITION = `SELECT (pg_current_wal_lsn() - '0/0')::text AS lsn`;

/**
 * Errors after which a read is sent again to the primary (besides the replica being unreachable or going
 * away mid-statement): the replica cancelled the statement for a conflict with the WAL it replays (40001;
 * 40P01 for a buffer pin; 57P04 for a dropped database), or does not know a table, column, function or
 * type the statement names (42P01, 42703, 42883, 42704: a migration applied on the primary within the
 * bound that the replica has not replayed yet). Every statement the reader runs is read-only, so running
 * it again is safe.
 */
const RETRIED_ON_PRIMARY = new Set(['40001', '40P01', '57P04', '42P01', '42703', '42883', '42704']);

type ReplicaState = 'up' | 'lagging' | 'down' | 'not-standby' | 'unknown';

export interface ReplicaStatus {
  /** Position in DATABASE_REPLICA_URLS, from 1. */
  index: number;
  /** `host:port/database`, never the credentials. */
  name: string;
  /**
   * up: answers the reads; lagging: behind by more than DATABASE_REPLICA_MAX_LAG_MS (or by an unknown
   * amount); down: unreachable at its last check or read; not-standby: not in recovery (promoted, or not a
   * replica at all); unknown: not checked yet. Every state but up sends the reads to the primary.
   */
  state: ReplicaState;
  /** How far behind it is at most, in ms, now; null when unknown. */
  lagMs: number | null;
  /** Replay paused (`pg_wal_replay_pause()`), as of its last check. */
  replayPaused: boolean;
  /** List reads it answered, and list reads that failed on it and were answered by the primary instead. */
  reads: number;
  retries: number;
  pool: Pool;
}

class Replica {
  readonly pool: Pool;
  readonly db: PoolQueryable;
  reading?: ReplicaReading;
  held?: number;
  paused = false;
  /** Why it is down (its last check, or a read, failed to reach it); cleared by the next good check. */
  failure?: string;
  reads = 0;
  retries = 0;
  reported?: ReplicaState;
  /** The check in flight. */
  checking?: Promise<void>;

  constructor(
    readonly index: number,
    readonly name: string,
    url: string,
    config: DatabaseConfig,
  ) {
    this.pool = new pg.Pool({ connectionString: url, application_name: APPLICATION_NAME, ...poolOptions(config) });
    // An idle connection the replica ends (stopped, restarted) is dropped by the pool; without a listener
    // the 'error' event would end the process. Whether the replica is still there is the next check's business.
    this.pool.on('error', () => undefined);
    this.db = new PoolQueryable(this.pool, true);
  }
}

/**
 * The streaming replicas of DATABASE_REPLICA_URLS: one `pg` pool each (sized and bounded like the
 * primary's), their lag checked in the background (never per request), and the reader the read-only list
 * endpoints run on (`Database.reader()`): a replica known to hold every write acknowledged more than
 * DATABASE_REPLICA_MAX_LAG_MS ago (replica-lag.ts), in turn, else the primary. A read that fails on a
 * replica because it is unreachable (or for one of RETRIED_ON_PRIMARY's reasons) is answered by the
 * primary: no request fails because a replica does.
 */
export class ReadReplicas {
  private readonly logger = new Logger('ReadReplicas');
  private readonly replicas: Replica[];
  private readonly positions: PrimaryPositions;
  private loop?: Loop;
  private readonly maxLagMs: number;
  private next = 0;
  /** List reads the primary answered: no replica was usable, or the chosen one failed. */
  primaryReads = 0;

  constructor(
    config: DatabaseConfig,
    private readonly primaryPool: Pool,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.replicas = config.replicaUrls.map((url, i) => new Replica(i + 1, serverName(url)!, url, config));
    this.positions = new PrimaryPositions(config.replicaMaxLagMs + 10 * LAG_CHECK_INTERVAL_MS);
    this.maxLagMs = config.replicaMaxLagMs;
  }

  /**
   * Starts the background checks, once a second: the primary's position, then each replica's replay
   * (read right after it, so that a replica a moment behind is judged against the position just read).
   */
  start(): void {
    this.loop ??= new Loop(() => this.round());
  }

  /** Stops the checks and closes the replicas' pools (the primary's is not this class's). */
  async close(): Promise<void> {
    await this.loop?.stop();
    await Promise.all(this.replicas.map((replica) => replica.checking));
    await Promise.all(this.replicas.map((replica) => replica.pool.end().catch(() => undefined)));
  }

  /** The reader of `Database.reader()`: the same `query`/`one` as the primary's Database. */
  reader(primary: Queryable): Queryable {
    return new ReplicaReader(this, primary);
  }

  status(): ReplicaStatus[] {
    const now = this.clock();
    return this.replicas.map((replica) => ({
      index: replica.index,
      name: replica.name,
      state: this.state(replica, now),
      lagMs: replica.failure === undefined && replica.held !== undefined ? Math.max(0, Math.round(now - replica.held)) : null,
      replayPaused: replica.paused,
      reads: replica.reads,
      retries: replica.retries,
      pool: replica.pool,
    }));
  }

  /** The next usable replica in turn, or undefined when none is. */
  pick(): Replica | undefined {
    const now = this.clock();
    for (let i = 0; i < this.replicas.length; i++) {
      const replica = this.replicas[(this.next + i) % this.replicas.length];
      if (this.state(replica, now) === 'up') {
        this.next = replica.index % this.replicas.length;
        return replica;
      }
    }
    return undefined;
  }

  /** A read failed on `replica` and goes to the primary; unreachable, it is skipped until it answers a check. */
  readFailed(replica: Replica, error: unknown): void {
    replica.retries++;
    if (isDatabaseUnavailable(error)) {
      replica.failure = describe(error);
      this.report(replica);
    }
  }

  private state(replica: Replica, now: number): ReplicaState {
    if (replica.failure !== undefined) return 'down';
    if (replica.reading === undefined) return 'unknown';
    if (!replica.reading.standby) return 'not-standby';
    if (replica.held === undefined || now - replica.held > this.maxLagMs) return 'lagging';
    return 'up';
  }

  /**
   * One round of checks. A replica whose last check has not answered yet (a connection attempt waits up
   * to 5 s) is skipped, and does not hold up the others.
   */
  private async round(): Promise<void> {
    const at = this.clock();
    try {
      const { rows } = await this.primaryPool.query<{ lsn: string }>(READ_PRIMARY_POSITION);
      this.positions.add(at, BigInt(rows[0].lsn));
    } catch {
      // The primary is unreachable (its requests answer 503 meanwhile): no new position, so the replicas
      // age past the bound and the reads go to the primary too. Nothing is known to be fresh.
    }
    for (const replica of this.replicas) {
      replica.checking ??= this.check(replica).finally(() => (replica.checking = undefined));
    }
  }

  private async check(replica: Replica): Promise<void> {
    const sentAt = this.clock();
    try {
      const row = (await replica.db.one<{ standby: boolean; replayed: string | null; replay_age_ms: number | null; paused: boolean | null }>(READ_LAG))!;
      replica.reading = {
        sentAt,
        standby: row.standby,
        replayedLsn: row.replayed === null ? null : BigInt(row.replayed),
        replayAgeMs: row.replay_age_ms,
      };
      replica.paused = row.paused === true;
      replica.failure = undefined;
    } catch (error) {
      replica.failure = describe(error);
    }
    if (replica.reading) replica.held = heldAsOf(replica.reading, this.positions);
    this.report(replica);
  }

  /** One log line per change of a replica's state. */
  private report(replica: Replica): void {
    const now = this.clock();
    const state = this.state(replica, now);
    if (state === replica.reported) return;
    replica.reported = state;
    const who = `replica ${replica.index} (${replica.name})`;
    const behind = replica.held === undefined ? 'an unknown amount' : `${Math.round(now - replica.held)} ms`;
    switch (state) {
      case 'up':
        return this.logger.log(`${who} answers list reads (behind by at most ${behind})`);
      case 'lagging':
        return this.logger.warn(`${who} may be behind by up to ${behind}, more than DATABASE_REPLICA_MAX_LAG_MS (${this.maxLagMs}): the primary answers its reads${replica.paused ? ' (its replay is paused)' : ''}`);
      case 'down':
        return this.logger.warn(`${who} is unreachable (${replica.failure}): the primary answers its reads`);
      case 'not-standby':
        return this.logger.warn(`${who} is not a standby (pg_is_in_recovery() is false): not used`);
      case 'unknown':
        return;
    }
  }
}

/** `Database.reader()` with replicas: a usable replica, else the primary; a replica's failure retried on the primary. */
class ReplicaReader implements Queryable {
  constructor(
    private readonly replicas: ReadReplicas,
    private readonly primary: Queryable,
  ) {}

  async query<R extends QueryResultRow>(statement: Statement | string, values: unknown[] = [], project?: string): Promise<R[]> {
    const replica = this.replicas.pick();
    if (replica) {
      try {
        const rows = await replica.db.query<R>(statement, values);
        replica.reads++;
        return rows;
      } catch (error) {
        if (!isDatabaseUnavailable(error) && !RETRIED_ON_PRIMARY.has((error as { code?: string }).code ?? '')) throw error;
        this.replicas.readFailed(replica, error);
      }
    }
    this.replicas.primaryReads++;
    return this.primary.query<R>(statement, values, project);
  }

  async one<R extends QueryResultRow>(statement: Statement | string, values: unknown[] = [], project?: string): Promise<R | undefined> {
    return (await this.query<R>(statement, values, project))[0];
  }
}

/** Runs `round` now and then at most once per LAG_CHECK_INTERVAL_MS, never two at once, until stopped. */
class Loop {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(private readonly round: () => Promise<void>) {
    this.run();
  }

  private run(): void {
    if (this.stopped) return;
    const started = performance.now();
    this.running = this.round().finally(() => {
      if (this.stopped) return;
      this.timer = setTimeout(() => this.run(), Math.max(0, LAG_CHECK_INTERVAL_MS - (performance.now() - started)));
      this.timer.unref();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }
}

function describe(error: unknown): string {
  const e = error as { code?: string; message?: string };
  return [e?.code, e?.message].filter(Boolean).join(' ') || String(error);
}
