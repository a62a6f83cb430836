-- The statements of change-log/messages.repository.ts, rendered by `npm run sql`: edit the repository, not this file.

-- MESSAGES_SQL.page, built from [{"where":"m.resource_id = $2","orderBy":"m.created_at ASC, m.sequence_number ASC, m.id ASC","withTotal":true,"valueCount":1}]
SELECT
  b.count,
  b.results,
  b.chunk,
  (
    SELECT
      count(*)
    FROM
      message m
    WHERE
      m.project_key = $1
      AND (m.resource_id = $2)
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
                      END AS j,
                      row_number() OVER (
                        ORDER BY
                          m.created_at ASC,
                          m.sequence_number ASC,
                          m.id ASC
                      ) AS n
                    FROM
                      (
                        SELECT
                          m.*
                        FROM
                          message m
                        WHERE
                          m.project_key = $1
                          AND (m.resource_id = $2)
                        ORDER BY
                          m.created_at ASC,
                          m.sequence_number ASC,
                          m.id ASC
                        LIMIT
                          $3::integer
                        OFFSET
                          $4::integer
                      ) m
                  ) x
              ) y
          ) w
        GROUP BY
          w.chunk
      ) g ON true
  ) b;

-- MESSAGES_SQL.byId: messages_by_id
SELECT
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
  END AS json
FROM
  message m
WHERE
  m.id = $1
  AND m.project_key = $2;
