-- The statements of complex-path/complex-path.repository.ts, rendered by `npm run sql`: edit the repository, not this file.

-- COMPLEX_PATH_SQL.upsert: complex_path_upsert
WITH
  written AS (
    INSERT INTO
      complex_path_record AS r (
        project_key,
        uri_parameter_one,
        uri_parameter_two,
        record_id,
        revision,
        body,
        created_at,
        last_modified_at
      )
    VALUES
      ($1, $2, $3, $4, 1, $5::jsonb, now(), now())
    ON CONFLICT (
      project_key,
      uri_parameter_one,
      uri_parameter_two,
      record_id
    ) DO UPDATE
    SET
      body = EXCLUDED.body,
      revision = r.revision + 1,
      last_modified_at = now()
    RETURNING
      r.revision,
      (r.xmax = 0) AS created
  )
SELECT
  w.revision,
  w.created,
  (
    SELECT
      count(*)::integer
    FROM
      complex_path_record c
    WHERE
      c.project_key = $1
      AND c.uri_parameter_one = $2
      AND c.uri_parameter_two = $3
  ) + CASE
    WHEN w.created THEN 1
    ELSE 0
  END AS count
FROM
  written w;
