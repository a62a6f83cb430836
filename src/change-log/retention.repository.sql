-- The statements of change-log/retention.repository.ts, rendered by `npm run sql`: edit the repository, not this file.

-- RETENTION_SQL.lock
SELECT
  pg_try_advisory_xact_lock($1) AS locked;

-- RETENTION_SQL.deleteExpired, built from ["messages"]
DELETE FROM message
WHERE
  ctid = ANY (
    ARRAY(
      SELECT
        t.ctid
      FROM
        message t
      WHERE
        t.created_at < now() - make_interval(days => $1)
      LIMIT
        1000
    )
  )
RETURNING
  resource_id;

-- RETENTION_SQL.deleteExpired, built from ["versions"]
DELETE FROM resource_version
WHERE
  ctid = ANY (
    ARRAY(
      SELECT
        t.ctid
      FROM
        resource_version t
      WHERE
        t.modified_at < now() - make_interval(days => $1)
      LIMIT
        1000
    )
  )
RETURNING
  NULL AS resource_id;

-- RETENTION_SQL.pruneProgress
DELETE FROM subscription_progress p
WHERE
  p.resource_id = ANY ($1::uuid[])
  AND NOT EXISTS (
    SELECT
      1
    FROM
      message m
    WHERE
      m.resource_id = p.resource_id
  );
