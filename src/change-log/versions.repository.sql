-- The statements of change-log/versions.repository.ts, rendered by `npm run sql`: edit the repository, not this file.

-- VERSIONS_SQL.page: versions_page
SELECT
  count(*)::integer AS count,
  '[' || coalesce(
    string_agg(
      json_strip_nulls(
        json_build_object(
          'version',
          v.version,
          'modifiedAt',
          to_char(
            v.modified_at AT TIME ZONE 'UTC',
            'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
          ),
          'modifiedBy',
          v.modified_by,
          'types',
          v.types
        )
      )::text,
      ','
      ORDER BY
        v.version DESC
    ),
    ''
  ) || ']' AS results,
  (
    SELECT
      count(*)
    FROM
      resource_version v
    WHERE
      v.resource_id = $1
      AND v.project_key = $2
  )::integer AS total
FROM
  (
    SELECT
      v.*
    FROM
      resource_version v
    WHERE
      v.resource_id = $1
      AND v.project_key = $2
    ORDER BY
      v.version DESC
    LIMIT
      $3
    OFFSET
      $4
  ) v;

-- VERSIONS_SQL.pages: versions_pages
SELECT
  i.id::text AS id,
  p.count,
  p.results,
  p.total
FROM
  unnest($1::uuid[]) AS i (id)
  CROSS JOIN LATERAL (
    SELECT
      count(*)::integer AS count,
      '[' || coalesce(
        string_agg(
          json_strip_nulls(
            json_build_object(
              'version',
              v.version,
              'modifiedAt',
              to_char(
                v.modified_at AT TIME ZONE 'UTC',
                'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
              ),
              'modifiedBy',
              v.modified_by,
              'types',
              v.types
            )
          )::text,
          ','
          ORDER BY
            v.version DESC
        ),
        ''
      ) || ']' AS results,
      (
        SELECT
          count(*)
        FROM
          resource_version w
        WHERE
          w.resource_id = i.id
          AND w.project_key = $2
      )::integer AS total
    FROM
      (
        SELECT
          v.*
        FROM
          resource_version v
        WHERE
          v.resource_id = i.id
          AND v.project_key = $2
        ORDER BY
          v.version DESC
        LIMIT
          $3
        OFFSET
          $4
      ) v
  ) p;

-- VERSIONS_SQL.representation: versions_representation
SELECT
  v.representation
FROM
  resource_version v
WHERE
  v.resource_id = $1
  AND v.version = $2
  AND v.project_key = $3;
