-- The statements of subscriptions/notification-queue.repository.ts, rendered by `npm run sql`: edit the repository, not this file.

-- NOTIFICATION_QUEUE_SQL.begin
BEGIN;

SET
  LOCAL enable_seqscan = off;

SET
  LOCAL enable_hashjoin = off;

SET
  LOCAL enable_bitmapscan = off;

-- NOTIFICATION_QUEUE_SQL.lockPosition
SELECT
  scanned_to AS "scannedTo",
  greatest(
    now() - make_interval(secs => $2),
    least(
      statement_timestamp(),
      (
        SELECT
          min(least(a.xact_start, a.query_start))
        FROM
          pg_stat_activity a
        WHERE
          a.datname = current_database()
          AND a.pid <> pg_backend_pid()
          AND a.backend_type = 'client backend'
          AND (
            a.xact_start IS NOT NULL
            OR a.state = 'active'
          )
      )
    ) - make_interval(secs => $3)
  ) AS horizon,
  coalesce(
    sweep_cursor,
    CASE
      WHEN swept_at <= now() - make_interval(secs => $1) THEN now() - make_interval(secs => $2)
    END
  ) AS "sweepFrom",
  sweep_cursor IS NULL
  AND swept_at <= now() - make_interval(secs => $1) AS "sweepBegins"
FROM
  subscription_dispatch
WHERE
  id = 1
FOR UPDATE
  SKIP LOCKED;

-- NOTIFICATION_QUEUE_SQL.fanOut
WITH
  subs AS MATERIALIZED (
    SELECT
      s.id,
      s.project_key,
      s.created_at,
      EXISTS (
        SELECT
          1
        FROM
          jsonb_array_elements(s.messages) e
        WHERE
          e ->> 'resourceTypeId' = 'resource'
          AND NOT (e ? 'types')
      ) AS all_messages,
      ARRAY(
        SELECT
          jsonb_array_elements_text(e -> 'types')
        FROM
          jsonb_array_elements(s.messages) e
        WHERE
          e ->> 'resourceTypeId' = 'resource'
          AND e ? 'types'
      ) AS message_types,
      EXISTS (
        SELECT
          1
        FROM
          jsonb_array_elements(s.changes) e
        WHERE
          e ->> 'resourceTypeId' = 'resource'
      ) AS changes
    FROM
      subscription s
  ),
  found AS (
    SELECT DISTINCT
      sp.project_key,
      w.resource_id
    FROM
      (
        SELECT DISTINCT
          s.project_key
        FROM
          subs s
      ) sp
      CROSS JOIN LATERAL (
        SELECT
          m.resource_id
        FROM
          message m
        WHERE
          m.project_key = sp.project_key
          AND m.created_at >= $1
        UNION ALL
        SELECT
          m.resource_id
        FROM
          message m
        WHERE
          m.project_key = sp.project_key
          AND m.created_at >= $2
          AND m.created_at < $3
      ) w
  ),
  fresh AS MATERIALIZED (
    SELECT
      s.id AS sub_id,
      s.all_messages
      OR m.type = ANY (s.message_types) AS sub_message,
      s.changes AS sub_changes,
      m.*
    FROM
      found f
      JOIN subs s ON s.project_key = f.project_key
      LEFT JOIN LATERAL (
        SELECT
          p.last_sequence
        FROM
          subscription_progress p
        WHERE
          p.subscription_id = s.id
          AND p.resource_id = f.resource_id
        LIMIT
          1
      ) p ON true
      JOIN message m ON m.resource_id = f.resource_id
      AND m.sequence_number > coalesce(p.last_sequence, 0)
      -- A new stream starts with the writes after the subscription; a started one takes every later message.
      AND (
        p.last_sequence IS NOT NULL
        OR m.created_at >= s.created_at
      )
  ),
  queued_messages AS (
    INSERT INTO
      subscription_notification (
        subscription_id,
        resource_id,
        ordinal,
        id,
        type,
        sequence_number,
        created_at,
        payload
      )
    SELECT
      m.sub_id,
      m.resource_id,
      m.sequence_number::bigint * 2,
      m.id,
      'message.' || m.type,
      m.sequence_number,
      m.created_at,
      '{"notificationType":"Message","projectKey":' || to_json(m.project_key)::text || ',' || substr(
        CASE
          WHEN m.payload = '' THEN json_strip_nulls(
            json_build_object(
              'id',
              m.id,
              'version',
              1,
              'sequenceNumber',
              m.sequence_number,
              'resource',
              json_build_object('typeId', 'resource', 'id', m.resource_id),
              'resourceVersion',
              m.resource_version,
              'resourceUserProvidedIdentifiers',
              json_build_object('key', m.resource_key),
              'type',
              m.type,
              'createdAt',
              to_char(
                m.created_at AT TIME ZONE 'UTC',
                'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
              ),
              'lastModifiedAt',
              to_char(
                m.created_at AT TIME ZONE 'UTC',
                'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
              ),
              'createdBy',
              m.created_by,
              'lastModifiedBy',
              m.created_by
            )
          )::text
          ELSE left(
            json_strip_nulls(
              json_build_object(
                'id',
                m.id,
                'version',
                1,
                'sequenceNumber',
                m.sequence_number,
                'resource',
                json_build_object('typeId', 'resource', 'id', m.resource_id),
                'resourceVersion',
                m.resource_version,
                'resourceUserProvidedIdentifiers',
                json_build_object('key', m.resource_key),
                'type',
                m.type,
                'createdAt',
                to_char(
                  m.created_at AT TIME ZONE 'UTC',
                  'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
                ),
                'lastModifiedAt',
                to_char(
                  m.created_at AT TIME ZONE 'UTC',
                  'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
                ),
                'createdBy',
                m.created_by,
                'lastModifiedBy',
                m.created_by
              )
            )::text,
            -1
          ) || ',' || m.payload || '}'
        END,
        2
      )
    FROM
      fresh m
    WHERE
      m.sub_message
    ON CONFLICT DO NOTHING
    RETURNING
      1
  ),
  writes AS (
    SELECT
      m.sub_id,
      m.project_key,
      m.resource_id,
      m.change_id,
      max(m.sequence_number) AS last_sequence,
      max(m.created_at) AS created_at,
      max(m.resource_version) AS resource_version,
      bool_or(m.type = 'ResourceCreated') AS created,
      bool_or(m.type = 'ResourceDeleted') AS deleted,
      (
        array_agg(
          m.resource_key
          ORDER BY
            m.sequence_number DESC
        )
      ) [1] AS resource_key
    FROM
      fresh m
    WHERE
      m.sub_changes
    GROUP BY
      m.sub_id,
      m.project_key,
      m.resource_id,
      m.change_id
  ),
  queued_changes AS (
    INSERT INTO
      subscription_notification (
        subscription_id,
        resource_id,
        ordinal,
        id,
        type,
        sequence_number,
        created_at,
        payload
      )
    SELECT
      w.sub_id,
      w.resource_id,
      w.last_sequence::bigint * 2 + 1,
      w.change_id,
      'change.' || k.kind,
      w.last_sequence,
      w.created_at,
      json_strip_nulls(
        json_build_object(
          'notificationType',
          'Resource' || k.kind,
          'projectKey',
          w.project_key,
          'resource',
          json_build_object('typeId', 'resource', 'id', w.resource_id),
          'resourceUserProvidedIdentifiers',
          CASE
            WHEN w.resource_key IS NULL THEN '{}'::json
            ELSE json_build_object('key', w.resource_key)
          END,
          'version',
          CASE
            WHEN w.deleted THEN w.resource_version - 1
            ELSE w.resource_version
          END,
          'oldVersion',
          CASE
            WHEN k.kind = 'Updated' THEN w.resource_version - 1
          END,
          'modifiedAt',
          to_char(
            w.created_at AT TIME ZONE 'UTC',
            'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
          )
        )
      )::text
    FROM
      writes w
      CROSS JOIN LATERAL (
        SELECT
          CASE
            WHEN w.created THEN 'Created'
            WHEN w.deleted THEN 'Deleted'
            ELSE 'Updated'
          END AS kind
      ) k
    ON CONFLICT DO NOTHING
    RETURNING
      1
  ),
  progress AS (
    INSERT INTO
      subscription_progress (subscription_id, resource_id, last_sequence)
    SELECT
      m.sub_id,
      m.resource_id,
      max(m.sequence_number)
    FROM
      fresh m
    GROUP BY
      m.sub_id,
      m.resource_id
    ON CONFLICT (subscription_id, resource_id) DO UPDATE
    SET
      last_sequence = greatest(
        subscription_progress.last_sequence,
        excluded.last_sequence
      )
    RETURNING
      1
  ),
  moved AS (
    UPDATE subscription_dispatch
    SET
      scanned_to = greatest(scanned_to, $4),
      sweep_cursor = $5,
      swept_at = CASE
        WHEN $6 THEN now()
        ELSE swept_at
      END
    WHERE
      id = 1
    RETURNING
      1
  )
SELECT
  (
    (
      SELECT
        count(*)
      FROM
        queued_messages
    ) + (
      SELECT
        count(*)
      FROM
        queued_changes
    )
  )::integer AS queued,
  EXISTS (
    SELECT
      1
    FROM
      subscription
  ) AS subscribed;

-- NOTIFICATION_QUEUE_SQL.expire
DELETE FROM subscription_notification
WHERE
  created_at < now() - make_interval(days => $1);

-- NOTIFICATION_QUEUE_SQL.claim
WITH
  heads AS (
    SELECT
      n.subscription_id,
      n.resource_id,
      n.ordinal
    FROM
      subscription_notification n
    WHERE
      n.due_at <= now()
      AND NOT EXISTS (
        SELECT
          1
        FROM
          subscription_notification p
        WHERE
          p.subscription_id = n.subscription_id
          AND p.resource_id = n.resource_id
          AND p.ordinal < n.ordinal
      )
    ORDER BY
      n.due_at
    LIMIT
      $1
    FOR UPDATE OF
      n SKIP LOCKED
  )
UPDATE subscription_notification n
SET
  due_at = now() + make_interval(secs => $2)
FROM
  heads h,
  subscription s
WHERE
  n.subscription_id = h.subscription_id
  AND n.resource_id = h.resource_id
  AND n.ordinal = h.ordinal
  AND s.id = n.subscription_id
RETURNING
  n.subscription_id AS "subscriptionId",
  n.resource_id AS "resourceId",
  n.ordinal::text AS ordinal,
  n.id,
  n.type,
  n.sequence_number AS "sequenceNumber",
  to_char(
    n.created_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "createdAt",
  n.payload,
  n.attempts,
  s.project_key AS "projectKey",
  s.destination,
  s.credentials,
  s.format;

-- NOTIFICATION_QUEUE_SQL.delivered: subscription_notification_delivered
WITH
  d AS (
    SELECT
      *
    FROM
      unnest(
        $1::uuid[],
        $2::uuid[],
        $3::bigint[],
        $4::timestamptz[]
      ) AS d (
        subscription_id,
        resource_id,
        ordinal,
        delivered_at
      )
  ),
  removed AS (
    DELETE FROM subscription_notification n USING d
    WHERE
      n.subscription_id = d.subscription_id
      AND n.resource_id = d.resource_id
      AND n.ordinal = d.ordinal
    RETURNING
      n.subscription_id,
      n.last_error_at,
      n.last_error
  ),
  errors AS (
    SELECT
      r.subscription_id,
      max(r.last_error_at) AS error_at,
      (
        array_agg(
          r.last_error
          ORDER BY
            r.last_error_at DESC
        )
      ) [1] AS error
    FROM
      removed r
    WHERE
      r.last_error_at IS NOT NULL
    GROUP BY
      r.subscription_id
  )
INSERT INTO
  subscription_status (
    subscription_id,
    last_delivered_at,
    last_error_at,
    last_error
  )
SELECT
  l.subscription_id,
  l.delivered_at,
  e.error_at,
  e.error
FROM
  (
    SELECT
      d.subscription_id,
      max(d.delivered_at) AS delivered_at
    FROM
      d
    GROUP BY
      d.subscription_id
  ) l
  LEFT JOIN errors e ON e.subscription_id = l.subscription_id
WHERE
  EXISTS (
    SELECT
      1
    FROM
      subscription s
    WHERE
      s.id = l.subscription_id
  )
  -- In one order in every process: two replicas' statements never wait for each other's rows in turn.
ORDER BY
  l.subscription_id
ON CONFLICT (subscription_id) DO UPDATE
SET
  last_delivered_at = greatest(
    subscription_status.last_delivered_at,
    excluded.last_delivered_at
  ),
  last_error = CASE
    WHEN excluded.last_error_at > coalesce(subscription_status.last_error_at, '-infinity') THEN excluded.last_error
    ELSE subscription_status.last_error
  END,
  last_error_at = greatest(
    subscription_status.last_error_at,
    excluded.last_error_at
  );

-- NOTIFICATION_QUEUE_SQL.release: subscription_notification_release
UPDATE subscription_notification n
SET
  due_at = now()
FROM
  unnest($1::uuid[], $2::uuid[], $3::bigint[]) AS d (subscription_id, resource_id, ordinal)
WHERE
  n.subscription_id = d.subscription_id
  AND n.resource_id = d.resource_id
  AND n.ordinal = d.ordinal;

-- NOTIFICATION_QUEUE_SQL.failed: subscription_notification_failed
UPDATE subscription_notification
SET
  attempts = attempts + 1,
  due_at = now() + make_interval(secs => $4),
  last_error = $5,
  last_error_at = now(),
  error_kind = $6
WHERE
  subscription_id = $1
  AND resource_id = $2
  AND ordinal = $3;

-- NOTIFICATION_QUEUE_SQL.saveStatus
INSERT INTO
  subscription_status (subscription_id, last_error_at, last_error)
SELECT
  u.id,
  u.error_at,
  u.error
FROM
  unnest($1::uuid[], $2::timestamptz[], $3::text[]) AS u (id, error_at, error)
WHERE
  EXISTS (
    SELECT
      1
    FROM
      subscription s
    WHERE
      s.id = u.id
  )
ON CONFLICT (subscription_id) DO UPDATE
SET
  last_error = CASE
    WHEN excluded.last_error_at > coalesce(subscription_status.last_error_at, '-infinity') THEN excluded.last_error
    ELSE subscription_status.last_error
  END,
  last_error_at = greatest(
    subscription_status.last_error_at,
    excluded.last_error_at
  );

-- NOTIFICATION_QUEUE_SQL.any: subscription_any
SELECT
  EXISTS (
    SELECT
      1
    FROM
      subscription
  ) AS any;

-- NOTIFICATION_QUEUE_SQL.pending
SELECT
  count(*)::integer AS n
FROM
  subscription_notification;
