-- The statements of subscriptions/subscriptions.repository.ts, rendered by `npm run sql`: edit the repository, not this file.

-- SUBSCRIPTIONS_SQL.projectLock
SELECT
  pg_advisory_xact_lock(hashtext ('subscription:' || $1));

-- SUBSCRIPTIONS_SQL.insert: subscription_insert (:id, :projectKey, :key, :destination, :credentials, :messages, :changes, :format, :limit)
INSERT INTO
  subscription AS s (
    id,
    project_key,
    key,
    destination,
    credentials,
    messages,
    changes,
    format
  )
SELECT
  :id::uuid,
  :projectKey::varchar,
  :key::varchar,
  :destination::jsonb,
  :credentials::jsonb,
  :messages::jsonb,
  :changes::jsonb,
  :format::jsonb
WHERE
  (
    SELECT
      count(*)
    FROM
      subscription
    WHERE
      project_key = :projectKey
  ) < :limit
RETURNING
  s.id,
  s.project_key AS "projectKey",
  s.key,
  s.version,
  s.destination,
  s.credentials,
  s.messages,
  s.changes,
  s.format,
  to_char(
    s.created_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "createdAt",
  to_char(
    s.last_modified_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "lastModifiedAt";

-- SUBSCRIPTIONS_SQL.count: subscription_count
SELECT
  count(*)::integer AS n
FROM
  subscription
WHERE
  project_key = $1;

-- SUBSCRIPTIONS_SQL.byId: subscription_by_id
SELECT
  s.id,
  s.project_key AS "projectKey",
  s.key,
  s.version,
  s.destination,
  s.credentials,
  s.messages,
  s.changes,
  s.format,
  to_char(
    s.created_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "createdAt",
  to_char(
    s.last_modified_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "lastModifiedAt"
FROM
  subscription s
WHERE
  s.id = $1
  AND s.project_key = $2;

-- SUBSCRIPTIONS_SQL.byKey: subscription_by_key
SELECT
  s.id,
  s.project_key AS "projectKey",
  s.key,
  s.version,
  s.destination,
  s.credentials,
  s.messages,
  s.changes,
  s.format,
  to_char(
    s.created_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "createdAt",
  to_char(
    s.last_modified_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "lastModifiedAt"
FROM
  subscription s
WHERE
  s.project_key = $1
  AND s.key = $2;

-- SUBSCRIPTIONS_SQL.page: subscription_page
SELECT
  s.id,
  s.project_key AS "projectKey",
  s.key,
  s.version,
  s.destination,
  s.credentials,
  s.messages,
  s.changes,
  s.format,
  to_char(
    s.created_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "createdAt",
  to_char(
    s.last_modified_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "lastModifiedAt"
FROM
  subscription s
WHERE
  s.project_key = $1
ORDER BY
  s.created_at,
  s.id
LIMIT
  $2
OFFSET
  $3;

-- SUBSCRIPTIONS_SQL.update: subscription_update (:id, :projectKey, :version, :keySet, :key, :destination, :credentials, :messages, :changes, :format)
UPDATE subscription s
SET
  key = CASE
    WHEN :keySet::boolean THEN :key::varchar
    ELSE s.key
  END,
  destination = COALESCE(:destination::jsonb, s.destination),
  credentials = COALESCE(:credentials::jsonb, s.credentials),
  messages = COALESCE(:messages::jsonb, s.messages),
  changes = COALESCE(:changes::jsonb, s.changes),
  format = COALESCE(:format::jsonb, s.format),
  version = s.version + 1,
  last_modified_at = now()
WHERE
  s.id = :id
  AND s.project_key = :projectKey
  AND s.version = :version
RETURNING
  s.id,
  s.project_key AS "projectKey",
  s.key,
  s.version,
  s.destination,
  s.credentials,
  s.messages,
  s.changes,
  s.format,
  to_char(
    s.created_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "createdAt",
  to_char(
    s.last_modified_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "lastModifiedAt";

-- SUBSCRIPTIONS_SQL.delete: subscription_delete
DELETE FROM subscription s
WHERE
  s.id = $1
  AND s.project_key = $2
  AND s.version = $3
RETURNING
  s.id,
  s.project_key AS "projectKey",
  s.key,
  s.version,
  s.destination,
  s.credentials,
  s.messages,
  s.changes,
  s.format,
  to_char(
    s.created_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "createdAt",
  to_char(
    s.last_modified_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "lastModifiedAt";

-- SUBSCRIPTIONS_SQL.health: subscription_health
SELECT
  q.pending,
  to_char(
    q.oldest AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "oldestPendingAt",
  q.failing,
  q.misconfigured,
  to_char(
    st.last_delivered_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "lastDeliveredAt",
  to_char(
    coalesce(q.last_error_at, st.last_error_at) AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "lastErrorAt",
  CASE
    WHEN q.last_error_at IS NOT NULL THEN q.last_error
    ELSE st.last_error
  END AS "lastError"
FROM
  (
    SELECT
      count(*)::integer AS pending,
      min(n.created_at) AS oldest,
      count(*) FILTER (
        WHERE
          n.attempts > 0
      )::integer AS failing,
      count(*) FILTER (
        WHERE
          n.attempts > 0
          AND n.error_kind = 'ConfigurationError'
      )::integer AS misconfigured,
      max(n.last_error_at) AS last_error_at,
      (
        array_agg(
          n.last_error
          ORDER BY
            n.last_error_at DESC
        ) FILTER (
          WHERE
            n.last_error_at IS NOT NULL
        )
      ) [1] AS last_error
    FROM
      subscription_notification n
    WHERE
      n.subscription_id = $1
  ) q
  LEFT JOIN subscription_status st ON st.subscription_id = $1;
