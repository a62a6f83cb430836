-- The statements of namespace-actions/action-store.repository.ts, rendered by `npm run sql`: edit the repository, not this file.

-- ACTION_STORE_SQL.write: action_store_write
INSERT INTO
  action_store_entry AS e (
    project_key,
    key,
    value,
    version,
    created_at,
    last_modified_at
  )
VALUES
  ($1, $2, $3::jsonb, 1, now(), now())
ON CONFLICT (project_key, key) DO UPDATE
SET
  value = EXCLUDED.value,
  version = e.version + 1,
  last_modified_at = now()
RETURNING
  e.value::text AS json,
  e.version;

-- ACTION_STORE_SQL.read: action_store_read
SELECT
  e.value::text AS json,
  e.version
FROM
  action_store_entry e
WHERE
  e.project_key = $1
  AND e.key = $2;
