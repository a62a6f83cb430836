/**
 * How stale a streaming replica may be, from two facts read in the background (read-replicas.ts), as an
 * instant of this process's clock (`performance.now()`): the replica holds every write acknowledged
 * before it. A replica answers a read at `now` only while `now − heldAsOf ≤ DATABASE_REPLICA_MAX_LAG_MS`.
 *
 * 1. **The primary's position.** Each second the primary's `pg_current_wal_lsn()` is read; `at` is taken
 *    before the query is sent. A commit acknowledged before `at` was flushed below that position (with
 *    `synchronous_commit` on, PostgreSQL's default), so a replica whose replay position has reached it
 *    holds that commit: it holds everything acknowledged before `at`. This is exact when the primary is
 *    idle (the positions are equal, however long ago the last write was), and it needs no clock but ours.
 *    It also sees a replica that receives nothing (its WAL stream is cut off): it stays behind a primary
 *    that moves on, where `pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn()` would call it caught up.
 * 2. **The last replayed commit's time.** `now() − pg_last_xact_replay_timestamp()` on the replica bounds
 *    its staleness from above whenever it is behind: every commit it has not replayed was written after
 *    that one, and acknowledged later still. This refines (1) between two readings of the primary on a
 *    busy one (a replica a few milliseconds behind is not a second behind). It reads the primary's clock
 *    against the replica's: keep the servers' clocks in sync (NTP). Alone it would misjudge an idle
 *    primary (the last commit is old, yet nothing is missing).
 *
 * A replica whose replay is paused gets nothing new replayed: as soon as the primary writes, (1) stays at
 * the last position it had reached and (2) grows with the time since the last replayed commit, so it
 * counts as lagging once the bound has passed. Paused while the primary is idle, it misses nothing, and
 * answers.
 */

/** The primary's WAL positions (bytes from 0/0) and when they were read, for as long as they can matter. */
export class PrimaryPositions {
  private readonly samples: { at: number; lsn: bigint }[] = [];

  /** `keepMs`: how far back a position is still worth knowing (the lag bound and a margin). */
  constructor(private readonly keepMs: number) {}

  /** `at`: the instant before the position was asked for. */
  add(at: number, lsn: bigint): void {
    const last = this.samples.at(-1);
    // A position behind the last one: DATABASE_URL now reaches another server (a failover); start over.
    if (last && lsn < last.lsn) this.samples.length = 0;
    const latest = this.samples.at(-1);
    // Unchanged (an idle primary): the later instant says more.
    if (latest && latest.lsn === lsn) latest.at = at;
    else this.samples.push({ at, lsn });
    while (this.samples.length > 1 && this.samples[0].at < at - this.keepMs) this.samples.shift();
  }

  /** The latest instant before which every acknowledged commit lies at or below `lsn`; undefined if none known. */
  coveredUntil(lsn: bigint): number | undefined {
    for (let i = this.samples.length - 1; i >= 0; i--) {
      if (this.samples[i].lsn <= lsn) return this.samples[i].at;
    }
    return undefined;
  }
}

/** One lag check of a replica (READ_LAG in read-replicas.ts). */
export interface ReplicaReading {
  /** The instant before the check was sent. */
  sentAt: number;
  /** `pg_is_in_recovery()`: false on a primary (a promoted replica, or a wrong URL). */
  standby: boolean;
  /** `pg_last_wal_replay_lsn()` in bytes from 0/0. */
  replayedLsn: bigint | null;
  /** `now() − pg_last_xact_replay_timestamp()` in ms; null until the replica has replayed a transaction. */
  replayAgeMs: number | null;
}

/** The instant before which the replica holds every acknowledged write; undefined when that is unknown. */
export function heldAsOf(reading: ReplicaReading, primary: PrimaryPositions): number | undefined {
  if (!reading.standby || reading.replayedLsn === null) return undefined;
  const byPosition = primary.coveredUntil(reading.replayedLsn);
  // sentAt is before the replica read its clock: the bound stays on the safe side.
  const byCommitTime = reading.replayAgeMs === null ? undefined : reading.sentAt - Math.max(0, reading.replayAgeMs);
  if (byPosition === undefined) return byCommitTime;
  if (byCommitTime === undefined) return byPosition;
  return Math.max(byPosition, byCommitTime);
}
