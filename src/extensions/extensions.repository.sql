-- The statements of extensions/extensions.repository.ts, rendered by `npm run sql`: edit the repository, not this file.

-- EXTENSIONS_SQL.bumpRevision
INSERT INTO
  extension_revision AS v (project_key, revision)
VALUES
  ($1, 1)
ON CONFLICT (project_key) DO UPDATE
SET
  revision = v.revision + 1,
  changed_at = now();

-- EXTENSIONS_SQL.insert: extension_insert (:id, :projectKey, :key, :destination, :triggers, :timeoutInMs, :limit)
INSERT INTO
  extension AS e (
    id,
    project_key,
    key,
    destination,
    triggers,
    timeout_in_ms
  )
SELECT
  :id::uuid,
  :projectKey::varchar,
  :key::varchar,
  :destination::jsonb,
  :triggers::jsonb,
  :timeoutInMs::integer
WHERE
  (
    SELECT
      count(*)
    FROM
      extension
    WHERE
      project_key = :projectKey
  ) < :limit
RETURNING
  e.id,
  e.project_key AS "projectKey",
  e.key,
  e.version,
  e.destination,
  e.triggers,
  e.timeout_in_ms AS "timeoutInMs",
  to_char(
    e.created_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "createdAt",
  to_char(
    e.last_modified_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "lastModifiedAt";

-- EXTENSIONS_SQL.count: extension_count
SELECT
  count(*)::integer AS n
FROM
  extension
WHERE
  project_key = $1;

-- EXTENSIONS_SQL.byId: extension_by_id
SELECT
  e.id,
  e.project_key AS "projectKey",
  e.key,
  e.version,
  e.destination,
  e.triggers,
  e.timeout_in_ms AS "timeoutInMs",
  to_char(
    e.created_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "createdAt",
  to_char(
    e.last_modified_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "lastModifiedAt"
FROM
  extension e
WHERE
  e.id = $1
  AND e.project_key = $2;

-- EXTENSIONS_SQL.byKey: extension_by_key
SELECT
  e.id,
  e.project_key AS "projectKey",
  e.key,
  e.version,
  e.destination,
  e.triggers,
  e.timeout_in_ms AS "timeoutInMs",
  to_char(
    e.created_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "createdAt",
  to_char(
    e.last_modified_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "lastModifiedAt"
FROM
  extension e
WHERE
  e.project_key = $1
  AND e.key = $2;

-- EXTENSIONS_SQL.page: extension_page
SELECT
  e.id,
  e.project_key AS "projectKey",
  e.key,
  e.version,
  e.destination,
  e.triggers,
  e.timeout_in_ms AS "timeoutInMs",
  to_char(
    e.created_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "createdAt",
  to_char(
    e.last_modified_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "lastModifiedAt"
FROM
  extension e
WHERE
  e.project_key = $1
ORDER BY
  e.created_at,
  e.id
LIMIT
  $2
OFFSET
  $3;

-- EXTENSIONS_SQL.project: extension_project
SELECT
  v.revision::text AS revision,
  e.id,
  e.project_key AS "projectKey",
  e.key,
  e.version,
  e.destination,
  e.triggers,
  e.timeout_in_ms AS "timeoutInMs",
  to_char(
    e.created_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "createdAt",
  to_char(
    e.last_modified_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "lastModifiedAt"
FROM
  (
    SELECT
      COALESCE(
        (
          SELECT
            revision
          FROM
            extension_revision
          WHERE
            project_key = $1
        ),
        0
      ) AS revision
  ) v
  LEFT JOIN extension e ON e.project_key = $1
ORDER BY
  e.created_at,
  e.id;

-- EXTENSIONS_SQL.changedSince: extension_changed_since
SELECT
  project_key AS "projectKey",
  revision::text AS revision
FROM
  extension_revision
WHERE
  changed_at > now() - make_interval(secs => $1);

-- EXTENSIONS_SQL.update: extension_update (:id, :projectKey, :version, :keySet, :key, :destination, :triggers, :timeoutInMs)
WITH
  w AS (
    UPDATE extension e
    SET
      key = CASE
        WHEN :keySet::boolean THEN :key::varchar
        ELSE e.key
      END,
      destination = COALESCE(:destination::jsonb, e.destination),
      triggers = COALESCE(:triggers::jsonb, e.triggers),
      timeout_in_ms = COALESCE(:timeoutInMs::integer, e.timeout_in_ms),
      version = e.version + 1,
      last_modified_at = now()
    WHERE
      e.id = :id
      AND e.project_key = :projectKey
      AND e.version = :version
    RETURNING
      e.id,
      e.project_key AS "projectKey",
      e.key,
      e.version,
      e.destination,
      e.triggers,
      e.timeout_in_ms AS "timeoutInMs",
      to_char(
        e.created_at AT TIME ZONE 'UTC',
        'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
      ) AS "createdAt",
      to_char(
        e.last_modified_at AT TIME ZONE 'UTC',
        'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
      ) AS "lastModifiedAt"
  ),
  bumped AS (
    INSERT INTO
      extension_revision AS v (project_key, revision)
    SELECT
      :projectKey::varchar,
      1
    FROM
      w
    LIMIT
      1
    ON CONFLICT (project_key) DO UPDATE
    SET
      revision = v.revision + 1,
      changed_at = now()
  )
SELECT
  *
FROM
  w;

-- EXTENSIONS_SQL.delete: extension_delete
WITH
  w AS (
    DELETE FROM extension e
    WHERE
      e.id = $1
      AND e.project_key = $2
      AND e.version = $3
    RETURNING
      e.id,
      e.project_key AS "projectKey",
      e.key,
      e.version,
      e.destination,
      e.triggers,
      e.timeout_in_ms AS "timeoutInMs",
      to_char(
        e.created_at AT TIME ZONE 'UTC',
        'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
      ) AS "createdAt",
      to_char(
        e.last_modified_at AT TIME ZONE 'UTC',
        'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
      ) AS "lastModifiedAt"
  ),
  bumped AS (
    INSERT INTO
      extension_revision AS v (project_key, revision)
    SELECT
      $2::varchar,
      1
    FROM
      w
    LIMIT
      1
    ON CONFLICT (project_key) DO UPDATE
    SET
      revision = v.revision + 1,
      changed_at = now()
  )
SELECT
  *
FROM
  w;
