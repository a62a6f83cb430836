-- The statements of live/live-changes.repository.ts, rendered by `npm run sql`: edit the repository, not this file.

-- LIVE_SQL.horizon: live_horizon
SELECT
  floor(
    extract(
      epoch
      FROM
        greatest(
          now() - make_interval(secs => $1),
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
          ) - make_interval(secs => $2)
        )
    ) * 1000
  )::float8 AS h;

-- LIVE_SQL.window: live_window
WITH
  a AS (
    SELECT
      m.resource_id,
      min(m.sequence_number) AS first_sequence
    FROM
      message m
    WHERE
      m.project_key = ANY ($1::text[])
      AND m.created_at >= $2::timestamptz
    GROUP BY
      m.resource_id
  ),
  s AS (
    SELECT
      m.*,
      max(m.created_at) OVER (
        PARTITION BY
          m.resource_id
        ORDER BY
          m.sequence_number
      ) AS at
    FROM
      a
      CROSS JOIN LATERAL (
        SELECT
          *
        FROM
          message m
        WHERE
          m.resource_id = a.resource_id
          AND m.sequence_number >= a.first_sequence
        OFFSET
          0
      ) m
  )
SELECT
  (
    round(
      extract(
        epoch
        FROM
          m.at
      ) * 1000
    )
  )::float8 AS at,
  m.resource_id AS "resourceId",
  m.sequence_number AS "sequenceNumber",
  m.id,
  m.project_key AS "projectKey",
  CASE
    WHEN m.at < $3::timestamptz THEN CASE
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
    END
  END AS json
FROM
  s m
WHERE
  m.at >= $2::timestamptz
  AND (
    $4::timestamptz IS NULL
    OR (m.at, m.resource_id, m.sequence_number) > ($4::timestamptz, $5::uuid, $6::integer)
  )
ORDER BY
  m.at,
  m.resource_id,
  m.sequence_number;

-- LIVE_SQL.windowChunk: live_window_chunk
WITH
  a AS (
    SELECT
      m.resource_id,
      min(m.sequence_number) AS first_sequence
    FROM
      message m
    WHERE
      m.project_key = ANY ($1::text[])
      AND m.created_at >= $2::timestamptz
      AND m.created_at < $7::timestamptz
    GROUP BY
      m.resource_id
  ),
  s AS (
    SELECT
      m.*,
      max(m.created_at) OVER (
        PARTITION BY
          m.resource_id
        ORDER BY
          m.sequence_number
      ) AS at
    FROM
      a
      CROSS JOIN LATERAL (
        SELECT
          *
        FROM
          message m
        WHERE
          m.resource_id = a.resource_id
          AND m.sequence_number >= a.first_sequence
          AND m.created_at < $8::timestamptz
        OFFSET
          0
      ) m
  )
SELECT
  (
    round(
      extract(
        epoch
        FROM
          m.at
      ) * 1000
    )
  )::float8 AS at,
  m.resource_id AS "resourceId",
  m.sequence_number AS "sequenceNumber",
  m.id,
  m.project_key AS "projectKey",
  CASE
    WHEN m.at < $3::timestamptz THEN CASE
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
    END
  END AS json
FROM
  s m
WHERE
  m.at >= $2::timestamptz
  AND (
    $4::timestamptz IS NULL
    OR (m.at, m.resource_id, m.sequence_number) > ($4::timestamptz, $5::uuid, $6::integer)
  )
ORDER BY
  m.at,
  m.resource_id,
  m.sequence_number;

-- LIVE_SQL.chunkEnd: live_chunk_end
SELECT
  (
    round(
      extract(
        epoch
        FROM
          m.created_at
      ) * 1000
    )
  )::float8 AS at
FROM
  message m
WHERE
  m.project_key = $1
  AND m.created_at >= $2::timestamptz
ORDER BY
  m.created_at
OFFSET
  $3
LIMIT
  1;

-- LIVE_SQL.matching, built from ["m.resource_id = $2","$3"]
SELECT
  m.id
FROM
  message m
WHERE
  m.id = ANY ($3::uuid[])
  AND m.project_key = $1
  AND (m.resource_id = $2);

-- LIVE_SQL.oldest: live_oldest
SELECT
  (
    round(
      extract(
        epoch
        FROM
          min(m.created_at)
      ) * 1000
    )
  )::float8 AS at
FROM
  message m
WHERE
  m.project_key = $1;
