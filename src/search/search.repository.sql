-- The statements of search/search.repository.ts, rendered by `npm run sql`: edit the repository, not this file.

-- SEARCH_SQL.neighbours: search_neighbours
SELECT
  q.i,
  w.word
FROM
  (
    SELECT
      q.i,
      q.word,
      q.k,
      q.indexed,
      CASE
        WHEN q.indexed THEN (
          (q.trigrams - 3 * q.k)::float8 / (q.trigrams + 3 * q.k) - 1e-6
        )::text
        ELSE '1'
      END AS threshold
    FROM
      (
        SELECT
          q.i,
          q.word,
          q.k,
          cardinality(show_trgm (q.word)) AS trigrams,
          q.word ~ '^[a-z]+$'
          AND cardinality(show_trgm (q.word)) - 3 * q.k >= 2 AS indexed
        FROM
          unnest($2::text[], $3::integer[]) WITH ORDINALITY AS q (word, k, i)
      ) q
  ) q
  CROSS JOIN LATERAL (
    SELECT
      c.word
    FROM
      (
        SELECT
          s.word,
          levenshtein_less_equal (s.word, q.word, q.k) AS distance
        FROM
          search_word s
        WHERE
          s.project_key = $1
          AND q.indexed
          AND (
            SELECT
              set_config('pg_trgm.similarity_threshold', q.threshold, true)
          ) IS NOT NULL
          AND s.word % q.word
          AND s.word <> q.word
          AND levenshtein_less_equal (s.word, q.word, q.k) <= q.k
        UNION
        SELECT
          s.word,
          levenshtein_less_equal (s.word, q.word, q.k) AS distance
        FROM
          search_word s
        WHERE
          s.project_key = $1
          AND q.indexed
          AND s.word !~ '^[a-z]+$'
          AND char_length(s.word) BETWEEN char_length(q.word) - q.k AND char_length(q.word) + q.k
          AND s.word <> q.word
          AND levenshtein_less_equal (s.word, q.word, q.k) <= q.k
        UNION
        SELECT
          s.word,
          levenshtein_less_equal (s.word, q.word, q.k) AS distance
        FROM
          search_word s
        WHERE
          s.project_key = $1
          AND NOT q.indexed
          AND char_length(s.word) BETWEEN char_length(q.word) - q.k AND char_length(q.word) + q.k
          AND s.word <> q.word
          AND levenshtein_less_equal (s.word, q.word, q.k) <= q.k
      ) c
    ORDER BY
      c.distance,
      c.word COLLATE "C"
    LIMIT
      20
  ) w;

-- SEARCH_SQL.search, example 1
WITH
  base AS MATERIALIZED (
    SELECT
      *
    FROM
      (
        SELECT
          s.resource_id AS id,
          s.key,
          s.created_at,
          s.published,
          s.array_of_int_example,
          0::real AS score
        FROM
          resource_search s
        WHERE
          s.config = 'values'
          AND s.project_key = $1::text
          AND s.published
      ) r
    WHERE
      r.published = ANY ($5::boolean[])
  ),
  res AS NOT MATERIALIZED (
    SELECT
      *
    FROM
      base r
    WHERE
      (
        CASE
          WHEN $2::numeric <= $3::numeric THEN numrange ($2::numeric, $3::numeric, '[]')
        END
      ) @> ANY (r.array_of_int_example)
  ),
  fac AS NOT MATERIALIZED (
    SELECT
      *
    FROM
      base
  )
SELECT
  p.count,
  p.results,
  p.chunk,
  '{"limit":' || $6::integer || ',"offset":' || $7::integer || ',"count":' || p.count || ',"total":' || (
    SELECT
      count(*)
    FROM
      res
  ) || ',"results":' AS head,
  ',"facets":' || (
    json_build_object(
      $4::text,
      (
        WITH
          top AS (
            SELECT
              x.v,
              count(*) AS c
            FROM
              (
                SELECT
                  r.id,
                  r.key AS v
                FROM
                  fac r
                WHERE
                  r.key IS NOT NULL
              ) x
            GROUP BY
              1
            ORDER BY
              count(*) DESC,
              x.v COLLATE "C"
            LIMIT
              200
          )
        SELECT
          json_build_object(
            'type',
            'terms',
            'dataType',
            'text',
            'missing',
            t.missing,
            'total',
            t.total,
            'other',
            t.total - coalesce(
              (
                SELECT
                  sum(g.c)
                FROM
                  top g
              ),
              0
            ),
            'terms',
            coalesce(
              (
                SELECT
                  json_agg(
                    json_build_object('term', g.v, 'count', g.c)
                    ORDER BY
                      g.c DESC,
                      g.v COLLATE "C"
                  )
                FROM
                  top g
              ),
              '[]'
            )
          )
        FROM
          (
            SELECT
              count(*) FILTER (
                WHERE
                  NOT (r.key IS NOT NULL)
              ) AS missing,
              count(r.key) AS total
            FROM
              fac r
          ) t
      )
    )
  )::text || '}' AS tail
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
              y.upto > $10::bigint AS past,
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
                      p.n
                    FROM
                      (
                        SELECT
                          q.id,
                          row_number() OVER () AS n
                        FROM
                          (
                            SELECT
                              r.id
                            FROM
                              res r
                            ORDER BY
                              r.created_at DESC,
                              r.id ASC
                            LIMIT
                              $8::integer
                            OFFSET
                              $9::integer
                          ) q
                      ) p
                      JOIN resource r ON r.id = p.id
                  ) x
              ) y
          ) w
        GROUP BY
          w.chunk
      ) g ON true
  ) p;

-- SEARCH_SQL.search, example 2
WITH
  base AS MATERIALIZED (
    SELECT
      t0.id,
      t0.key,
      t0.created_at,
      t0.published,
      (t0.score)::real AS score
    FROM
      (
        SELECT
          s.resource_id AS id,
          s.key,
          s.created_at,
          s.published,
          ts_rank(
            s.vector,
            (
              plainto_tsquery('english'::regconfig, $2::text) || plainto_tsquery('english'::regconfig, $3::text)
            ) && (plainto_tsquery('english'::regconfig, $4::text))
          ) AS score
        FROM
          resource_search s
        WHERE
          s.config = 'english'
          AND s.project_key = $1::text
          AND s.published
          AND s.vector @@ (
            (
              plainto_tsquery('english'::regconfig, $2::text) || plainto_tsquery('english'::regconfig, $3::text)
            ) && (plainto_tsquery('english'::regconfig, $4::text))
          )
      ) t0
  ),
  res AS NOT MATERIALIZED (
    SELECT
      *
    FROM
      base r
    WHERE
      TRUE
  ),
  fac AS NOT MATERIALIZED (
    SELECT
      *
    FROM
      base
  )
SELECT
  p.count,
  p.results,
  p.chunk,
  '{"limit":' || $5::integer || ',"offset":' || $6::integer || ',"count":' || p.count || ',"total":' || (
    SELECT
      count(*)
    FROM
      res
  ) || ',"results":' AS head,
  ',"facets":' || ('{}'::json)::text || '}' AS tail
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
              y.upto > $9::bigint AS past,
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
                      p.n
                    FROM
                      (
                        SELECT
                          q.id,
                          row_number() OVER () AS n
                        FROM
                          (
                            SELECT
                              r.id
                            FROM
                              res r
                            ORDER BY
                              r.score DESC,
                              r.id ASC
                            LIMIT
                              $7::integer
                            OFFSET
                              $8::integer
                          ) q
                      ) p
                      JOIN resource r ON r.id = p.id
                  ) x
              ) y
          ) w
        GROUP BY
          w.chunk
      ) g ON true
  ) p;
