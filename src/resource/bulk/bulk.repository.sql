-- The statements of resource/bulk/bulk.repository.ts, rendered by `npm run sql`: edit the repository, not this file.

-- BULK_SQL.importBatch: bulk_import_batch (:projectKey, :by, :lines, :keys, :documents, :publish, :expected, :newIds)
WITH
  t AS (
    SELECT
      *
    FROM
      unnest(
        :lines::integer[],
        :keys::text[],
        :documents::text[],
        :publish::boolean[],
        :expected::integer[],
        :newIds::uuid[]
      ) AS t (n, key, document, publish, expected, new_id)
  ),
  o AS MATERIALIZED (
    SELECT
      r.id,
      r.key,
      r.version,
      r.published,
      r.object_type_property AS document
    FROM
      resource r
    WHERE
      r.project_key = :projectKey
      AND r.key = ANY (:keys::text[])
    ORDER BY
      r.id
    FOR UPDATE
  ),
  d AS MATERIALIZED (
    SELECT
      t.n,
      t.key,
      t.document,
      t.publish,
      t.new_id,
      o.id AS old_id,
      o.version AS old_version,
      o.published IS DISTINCT FROM t.publish AS flag_changed,
      CASE
        WHEN o.id IS NULL THEN 'create'
        WHEN o.document = t.document::jsonb
        AND o.published = t.publish THEN 'unchanged'
        WHEN t.expected IS NOT NULL
        AND t.expected <> o.version THEN 'conflict'
        ELSE 'update'
      END AS action
    FROM
      t
      LEFT JOIN o ON o.key = t.key
  ),
  u AS (
    UPDATE resource r
    SET
      object_type_property = d.document::jsonb,
      published = d.publish,
      version = r.version + 1,
      last_modified_at = now(),
      last_modified_by = :by::jsonb,
      message_sequence = r.message_sequence + CASE
        WHEN d.flag_changed THEN 2
        ELSE 1
      END
    FROM
      d
    WHERE
      d.action = 'update'
      AND r.id = d.old_id
    RETURNING
      r.id,
      r.project_key,
      r.key,
      r.version,
      r.last_modified_at AS changed_at,
      r.last_modified_by AS changed_by,
      r.message_sequence - (
        CASE
          WHEN d.flag_changed THEN 2
          ELSE 1
        END
      ) + 1 AS first_sequence,
      gen_random_uuid() AS change_id,
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
      )::text AS json,
      false AS created,
      d.flag_changed,
      r.published,
      d.document
  ),
  i AS (
    INSERT INTO
      resource AS r (
        id,
        project_key,
        key,
        version,
        created_at,
        last_modified_at,
        created_by,
        last_modified_by,
        published,
        object_type_property,
        some_property,
        second_property_to_update,
        message_sequence
      )
    SELECT
      d.new_id,
      :projectKey,
      d.key,
      1,
      now(),
      now(),
      :by::jsonb,
      :by::jsonb,
      d.publish,
      d.document::jsonb,
      NULL,
      NULL,
      1
    FROM
      d
    WHERE
      d.action = 'create'
    ON CONFLICT (project_key, key) DO NOTHING
    RETURNING
      r.id,
      r.project_key,
      r.key,
      r.version,
      r.last_modified_at AS changed_at,
      r.last_modified_by AS changed_by,
      r.message_sequence - (r.message_sequence) + 1 AS first_sequence,
      gen_random_uuid() AS change_id,
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
      )::text AS json,
      true AS created,
      false AS flag_changed,
      r.published,
      NULL::text AS document
  ),
  w AS (
    SELECT
      *
    FROM
      i
    UNION ALL
    SELECT
      *
    FROM
      u
  ),
  c AS (
    SELECT
      w.id AS resource_id,
      1 AS n,
      CASE
        WHEN w.created THEN 'ResourceCreated'
        ELSE 'ObjectTypePropertySet'
      END AS type,
      CASE
        WHEN w.created THEN '"representation":' || w.json
        ELSE '"objectTypeProperty":' || w.document
      END AS payload
    FROM
      w
    UNION ALL
    SELECT
      w.id AS resource_id,
      2,
      CASE
        WHEN w.published THEN 'ResourcePublished'
        ELSE 'ResourceUnpublished'
      END,
      ''
    FROM
      w
    WHERE
      w.flag_changed
  ),
  logged_messages AS (
    INSERT INTO
      message (
        id,
        project_key,
        resource_id,
        resource_version,
        sequence_number,
        resource_key,
        type,
        created_at,
        created_by,
        payload,
        change_id
      )
    SELECT
      gen_random_uuid(),
      w.project_key,
      w.id,
      w.version,
      w.first_sequence + c.n - 1,
      w.key,
      c.type,
      w.changed_at,
      w.changed_by,
      c.payload,
      w.change_id
    FROM
      w
      JOIN c ON c.resource_id = w.id
  ),
  logged_version AS (
    INSERT INTO
      resource_version (
        resource_id,
        version,
        project_key,
        modified_at,
        modified_by,
        types,
        representation
      )
    SELECT
      w.id,
      w.version,
      w.project_key,
      w.changed_at,
      w.changed_by,
      ARRAY(
        SELECT
          c.type
        FROM
          c
        WHERE
          c.resource_id = w.id
        ORDER BY
          c.n
      ),
      w.json
    FROM
      w
  )
SELECT
  d.n,
  d.action,
  w.id IS NOT NULL AS written,
  COALESCE(w.id, d.old_id) AS id,
  COALESCE(w.version, d.old_version) AS version
FROM
  d
  LEFT JOIN w ON w.key = d.key
ORDER BY
  d.n;

-- BULK_SQL.importCurrent: bulk_import_current (:projectKey, :keys, :documents, :publish)
SELECT
  t.n::integer AS n,
  r.version,
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
  )::text AS json,
  (
    r.object_type_property = t.document::jsonb
    AND r.published = t.publish
  ) AS unchanged
FROM
  unnest(
    :keys::text[],
    :documents::text[],
    :publish::boolean[]
  ) WITH ORDINALITY AS t (key, document, publish, n)
  JOIN resource r ON r.project_key = :projectKey
  AND r.key = t.key;

-- BULK_SQL.exportPage, built from ["r.some_property = $2","$3","$4","$5::integer"]
SELECT
  count(*)::integer AS count,
  (
    array_agg(
      q.id
      ORDER BY
        q.id DESC
    )
  ) [1]::text AS last,
  string_agg(
    q.json || E'\n',
    ''
    ORDER BY
      q.id
  ) AS lines
FROM
  (
    SELECT
      p.id,
      p.json,
      (
        row_number() OVER (
          ORDER BY
            p.id
        ) - 1
      ) / 50 AS chunk
    FROM
      (
        SELECT
          r.id,
          COALESCE(
            (
              SELECT
                v.representation
              FROM
                resource_version v
              WHERE
                v.resource_id = r.id
                AND v.version = r.version
            ),
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
            )::text
          ) AS json
        FROM
          resource r
        WHERE
          r.project_key = $1
          AND r.id > $3::uuid
          AND (
            $4::uuid IS NULL
            OR r.id <= $4::uuid
          )
          AND (r.some_property = $2)
        ORDER BY
          r.id
        LIMIT
          $5::integer
      ) p
  ) q
GROUP BY
  q.chunk
ORDER BY
  q.chunk;

-- BULK_SQL.exportBoundary, built from ["r.some_property = $2","$3","$4::integer"]
SELECT
  r.id::text AS id
FROM
  resource r
WHERE
  r.project_key = $1
  AND r.id > $3::uuid
  AND (r.some_property = $2)
ORDER BY
  r.id
OFFSET
  $4::integer - 1
LIMIT
  1;

-- BULK_SQL.analyze
ANALYZE resource,
resource_search,
message,
resource_version;
