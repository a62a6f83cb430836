-- The statements of resource/resource-query.repository.ts, rendered by `npm run sql`: edit the repository, not this file.

-- RESOURCE_QUERY_SQL.page, built from [{"where":"r.some_property = $2","orderBy":"r.created_at ASC, r.id ASC","matchesFirst":false,"withTotal":true,"valueCount":1}]
SELECT
  b.count,
  b.results,
  b.chunk,
  (
    SELECT
      count(*)
    FROM
      resource r
    WHERE
      r.project_key = $1
      AND (r.some_property = $2)
  )::integer AS total
FROM
  (
    SELECT
      coalesce(sum(g.count) OVER (), 0)::integer AS count,
      CASE
        WHEN bool_or(g.past) OVER () THEN NULL
        ELSE coalesce(g.items, '')
      END AS results,
      coalesce(g.chunk, 0)::integer AS chunk
    FROM
      (
        SELECT
          1
      ) one
      LEFT JOIN (
        SELECT
          w.chunk,
          count(*) AS count,
          bool_or(w.past) AS past,
          string_agg(
            w.j,
            ','
            ORDER BY
              w.n
          ) FILTER (
            WHERE
              NOT w.past
          ) AS items
        FROM
          (
            SELECT
              y.j,
              y.n,
              y.upto > $5::bigint AS past,
              (y.upto - octet_length(y.j) - 1) / 1048576 AS chunk
            FROM
              (
                SELECT
                  x.j,
                  x.n,
                  sum(octet_length(x.j) + 1) OVER (
                    ORDER BY
                      x.n
                  ) AS upto
                FROM
                  (
                    SELECT
                      json_strip_nulls(
                        json_build_object(
                          'id',
                          r.id,
                          'key',
                          r.key,
                          'version',
                          r.version,
                          'createdAt',
                          to_char(
                            r.created_at AT TIME ZONE 'UTC',
                            'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
                          ),
                          'lastModifiedAt',
                          to_char(
                            r.last_modified_at AT TIME ZONE 'UTC',
                            'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
                          ),
                          'createdBy',
                          r.created_by,
                          'lastModifiedBy',
                          r.last_modified_by,
                          'published',
                          r.published,
                          'objectTypeProperty',
                          json_build_object(
                            'arrayOfIntExample',
                            r.object_type_property -> 'arrayOfIntExample',
                            'arrayOfUniqueIntExample',
                            r.object_type_property -> 'arrayOfUniqueIntExample',
                            'arrayOfTwonumbersExample',
                            r.object_type_property -> 'arrayOfTwonumbersExample',
                            'arrayOfFloatExample',
                            r.object_type_property -> 'arrayOfFloatExample',
                            'arrayOfNumberNoDefaultsExample',
                            r.object_type_property -> 'arrayOfNumberNoDefaultsExample',
                            'arrayOfStringExample',
                            r.object_type_property -> 'arrayOfStringExample',
                            'arrayOfObjectType',
                            r.object_type_property -> 'arrayOfObjectType'
                          ),
                          'someProperty',
                          r.some_property,
                          'secondPropertyToUpdate',
                          r.second_property_to_update,
                          'images',
                          r.images
                        )
                      )::text AS j,
                      row_number() OVER (
                        ORDER BY
                          r.created_at ASC,
                          r.id ASC
                      ) AS n
                    FROM
                      (
                        SELECT
                          r.*
                        FROM
                          resource r
                        WHERE
                          r.project_key = $1
                          AND (r.some_property = $2)
                        ORDER BY
                          r.created_at ASC,
                          r.id ASC
                        LIMIT
                          $3::integer
                        OFFSET
                          $4::integer
                      ) r
                  ) x
              ) y
          ) w
        GROUP BY
          w.chunk
      ) g ON true
  ) b;

-- RESOURCE_QUERY_SQL.page, built from [{"where":"r.object_type_property @> $2::jsonb","orderBy":"r.key DESC, r.id ASC","matchesFirst":true,"withTotal":true,"valueCount":1}]
WITH
  m AS MATERIALIZED (
    SELECT
      r.id,
      r.key,
      r.version,
      r.created_at,
      r.last_modified_at,
      r.published,
      r.some_property,
      r.second_property_to_update
    FROM
      resource r
    WHERE
      r.project_key = $1
      AND (r.object_type_property @> $2::jsonb)
  ),
  p AS (
    SELECT
      r.id
    FROM
      m r
    ORDER BY
      r.key DESC,
      r.id ASC
    LIMIT
      $3::integer
    OFFSET
      $4::integer
  )
SELECT
  b.count,
  b.results,
  b.chunk,
  (
    SELECT
      count(*)
    FROM
      m
  )::integer AS total
FROM
  (
    SELECT
      coalesce(sum(g.count) OVER (), 0)::integer AS count,
      CASE
        WHEN bool_or(g.past) OVER () THEN NULL
        ELSE coalesce(g.items, '')
      END AS results,
      coalesce(g.chunk, 0)::integer AS chunk
    FROM
      (
        SELECT
          1
      ) one
      LEFT JOIN (
        SELECT
          w.chunk,
          count(*) AS count,
          bool_or(w.past) AS past,
          string_agg(
            w.j,
            ','
            ORDER BY
              w.n
          ) FILTER (
            WHERE
              NOT w.past
          ) AS items
        FROM
          (
            SELECT
              y.j,
              y.n,
              y.upto > $5::bigint AS past,
              (y.upto - octet_length(y.j) - 1) / 1048576 AS chunk
            FROM
              (
                SELECT
                  x.j,
                  x.n,
                  sum(octet_length(x.j) + 1) OVER (
                    ORDER BY
                      x.n
                  ) AS upto
                FROM
                  (
                    SELECT
                      json_strip_nulls(
                        json_build_object(
                          'id',
                          r.id,
                          'key',
                          r.key,
                          'version',
                          r.version,
                          'createdAt',
                          to_char(
                            r.created_at AT TIME ZONE 'UTC',
                            'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
                          ),
                          'lastModifiedAt',
                          to_char(
                            r.last_modified_at AT TIME ZONE 'UTC',
                            'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
                          ),
                          'createdBy',
                          r.created_by,
                          'lastModifiedBy',
                          r.last_modified_by,
                          'published',
                          r.published,
                          'objectTypeProperty',
                          json_build_object(
                            'arrayOfIntExample',
                            r.object_type_property -> 'arrayOfIntExample',
                            'arrayOfUniqueIntExample',
                            r.object_type_property -> 'arrayOfUniqueIntExample',
                            'arrayOfTwonumbersExample',
                            r.object_type_property -> 'arrayOfTwonumbersExample',
                            'arrayOfFloatExample',
                            r.object_type_property -> 'arrayOfFloatExample',
                            'arrayOfNumberNoDefaultsExample',
                            r.object_type_property -> 'arrayOfNumberNoDefaultsExample',
                            'arrayOfStringExample',
                            r.object_type_property -> 'arrayOfStringExample',
                            'arrayOfObjectType',
                            r.object_type_property -> 'arrayOfObjectType'
                          ),
                          'someProperty',
                          r.some_property,
                          'secondPropertyToUpdate',
                          r.second_property_to_update,
                          'images',
                          r.images
                        )
                      )::text AS j,
                      row_number() OVER (
                        ORDER BY
                          r.key DESC,
                          r.id ASC
                      ) AS n
                    FROM
                      resource r
                    WHERE
                      r.project_key = $1
                      AND r.id IN (
                        SELECT
                          p.id
                        FROM
                          p
                      )
                  ) x
              ) y
          ) w
        GROUP BY
          w.chunk
      ) g ON true
  ) b;
