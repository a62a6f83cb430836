/**
 * The commit horizon (docs/change-log-and-subscriptions.md#subscriptions): a time before which every message
 * of the change log that will ever exist is already visible. A write stamps its messages with its
 * transaction's start (`now()`), so a message older than the start of the oldest transaction still running
 * in the database was committed (or rolled back) before the statement that reads the horizon; any later
 * statement sees it. Read by the subscription dispatcher and by the live changes' reader.
 *
 * `query_start` counts too: a statement's start time is taken just before its transaction shows its
 * `xact_start`. HORIZON_MARGIN_MS is taken off: `created_at` keeps milliseconds (rounded), and a
 * transaction's start is taken a moment before the backend shows it. Never more than the lookback ago: an
 * idle transaction left open would hold it back forever. Backends of other roles are not shown without
 * `pg_read_all_stats`; the server processes connect as one role. (The embedded database runs one
 * transaction at a time: there the horizon is the statement's own start, less the margin.)
 */
export const HORIZON_MARGIN_MS = 50;

/**
 * The SQL expression of the horizon; `lookbackSeconds` and `marginSeconds` are the placeholders (`$2`…)
 * of those values in seconds.
 */
export function commitHorizonSql(lookbackSeconds: string, marginSeconds: string): string {
  return `greatest(now() - make_interval(secs => ${lookbackSeconds}),
                   least(statement_timestamp(),
                         (SELECT min(least(a.xact_start, a.query_start)) FROM pg_stat_activity a
                          WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()
                            AND a.backend_type = 'client backend' AND (a.xact_start IS NOT NULL OR a.state = 'active')))
                   - make_interval(secs => ${marginSeconds}))`;
}
