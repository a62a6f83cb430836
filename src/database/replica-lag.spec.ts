import { heldAsOf, PrimaryPositions, type ReplicaReading } from './replica-lag.js';

/** Instants are ms of this process's clock; positions bytes of WAL. */
function positions(...samples: [at: number, lsn: number][]): PrimaryPositions {
  const p = new PrimaryPositions(60_000);
  for (const [at, lsn] of samples) p.add(at, BigInt(lsn));
  return p;
}

function reading(sentAt: number, replayed: number | null, replayAgeMs: number | null, standby = true): ReplicaReading {
  return { sentAt, standby, replayedLsn: replayed === null ? null : BigInt(replayed), replayAgeMs };
}

describe('PrimaryPositions', () => {
  it('gives the latest instant whose position the replay has reached', () => {
    const p = positions([1_000, 100], [2_000, 200], [3_000, 300]);
    expect(p.coveredUntil(99n)).toBeUndefined();
    expect(p.coveredUntil(100n)).toBe(1_000);
    expect(p.coveredUntil(250n)).toBe(2_000);
    expect(p.coveredUntil(300n)).toBe(3_000);
    expect(p.coveredUntil(10_000n)).toBe(3_000);
  });

  it('keeps the later instant of an unchanged position (an idle primary)', () => {
    const p = positions([1_000, 100], [2_000, 100], [3_000, 100]);
    expect(p.coveredUntil(100n)).toBe(3_000);
  });

  it('starts over when the position goes back (DATABASE_URL reaches another server)', () => {
    const p = positions([1_000, 500], [2_000, 100]);
    expect(p.coveredUntil(400n)).toBe(2_000);
    expect(p.coveredUntil(99n)).toBeUndefined();
  });

  it('forgets positions older than it keeps, but never the latest', () => {
    const p = new PrimaryPositions(5_000);
    p.add(1_000, 100n);
    p.add(2_000, 200n);
    p.add(10_000, 300n);
    expect(p.coveredUntil(250n)).toBeUndefined();
    expect(p.coveredUntil(300n)).toBe(10_000);
    p.add(100_000, 300n);
    expect(p.coveredUntil(300n)).toBe(100_000);
  });
});

describe('heldAsOf', () => {
  it.each<[string, PrimaryPositions, ReplicaReading, number | undefined]>([
    // Idle primary, replica caught up long after the last commit: fresh as of the last reading of the
    // primary, although its last replayed commit is a minute old.
    ['idle primary, caught up', positions([1_000, 100], [5_000, 100]), reading(5_010, 100, 60_000), 5_000],
    // A busy primary: a replica a few ms behind is not a reading interval behind.
    ['busy primary, replica 15 ms behind', positions([4_000, 100], [5_000, 200]), reading(5_010, 150, 15), 4_995],
    // Replay paused after position 100, the primary wrote on: fresh only as of the last reading it reached,
    // and by commit time as of its last replayed commit, whichever is later.
    ['replay paused while the primary writes', positions([1_000, 100], [2_000, 200], [9_000, 900]), reading(9_010, 100, 8_500), 1_000],
    ['replay paused, commit time later than positions', positions([1_000, 100], [2_000, 200], [9_000, 900]), reading(9_010, 150, 7_500), 1_510],
    // Paused while the primary is idle: it misses nothing.
    ['replay paused, primary idle', positions([1_000, 100], [9_000, 100]), reading(9_010, 100, 20_000), 9_000],
    // Cut off from the primary (receives nothing), which writes on: ages, although receive = replay.
    ['WAL stream cut off', positions([1_000, 100], [9_000, 400]), reading(9_010, 100, 8_200), 1_000],
    // No transaction replayed since the replica started, nothing known by position either.
    ['nothing known', positions([1_000, 500]), reading(1_010, 100, null), undefined],
    ['no commit time, caught up', positions([1_000, 500]), reading(1_010, 500, null), 1_000],
    // The replica's clock ahead of the primary's: a negative age counts as zero, not as the future.
    ['negative replay age', positions([1_000, 500]), reading(1_010, 100, -40), 1_010],
    ['not a standby', positions([1_000, 100]), reading(1_010, null, null, false), undefined],
  ])('%s', (_name, primary, r, expected) => {
    expect(heldAsOf(r, primary)).toBe(expected);
  });
});
