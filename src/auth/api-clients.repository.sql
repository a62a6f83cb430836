-- The statements of auth/api-clients.repository.ts, rendered by `npm run sql`: edit the repository, not this file.

-- API_CLIENTS_SQL.insert
INSERT INTO
  api_client (
    id,
    project_key,
    name,
    secret_hash,
    scope,
    customer_id
  )
VALUES
  ($1, $2, $3, $4, $5, $6)
ON CONFLICT (id) DO NOTHING
RETURNING
  id,
  project_key AS "projectKey",
  name,
  secret_hash AS "secretHash",
  scope,
  customer_id AS "customerId",
  to_char(
    created_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "createdAt",
  to_char(
    last_used_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "lastUsedAt";

-- API_CLIENTS_SQL.byId
SELECT
  id,
  project_key AS "projectKey",
  name,
  secret_hash AS "secretHash",
  scope,
  customer_id AS "customerId",
  to_char(
    created_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "createdAt",
  to_char(
    last_used_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "lastUsedAt"
FROM
  api_client
WHERE
  id = $1;

-- API_CLIENTS_SQL.exists: api_client_exists
SELECT
  1
FROM
  api_client
WHERE
  id = $1;

-- API_CLIENTS_SQL.page
SELECT
  id,
  project_key AS "projectKey",
  name,
  secret_hash AS "secretHash",
  scope,
  customer_id AS "customerId",
  to_char(
    created_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "createdAt",
  to_char(
    last_used_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "lastUsedAt"
FROM
  api_client
WHERE
  project_key = $1
ORDER BY
  created_at,
  id
LIMIT
  $2
OFFSET
  $3;

-- API_CLIENTS_SQL.total
SELECT
  count(*)::integer AS total
FROM
  api_client
WHERE
  project_key = $1;

-- API_CLIENTS_SQL.delete
DELETE FROM api_client
WHERE
  id = $1
  AND project_key = $2
RETURNING
  id,
  project_key AS "projectKey",
  name,
  secret_hash AS "secretHash",
  scope,
  customer_id AS "customerId",
  to_char(
    created_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "createdAt",
  to_char(
    last_used_at AT TIME ZONE 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
  ) AS "lastUsedAt";

-- API_CLIENTS_SQL.touch
UPDATE api_client
SET
  last_used_at = now()
WHERE
  id = $1;

-- API_CLIENTS_SQL.count
SELECT
  count(*)::integer AS n
FROM
  api_client;
