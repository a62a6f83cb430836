-- The statements of resource/resource.repository.ts, rendered by `npm run sql`: edit the repository, not this file.

-- RESOURCE_SQL.byId: resource_by_id (:id, :projectKey)
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
  )::text AS json
FROM
  resource r
WHERE
  r.id = :id
  AND r.project_key = :projectKey;

-- RESOURCE_SQL.byKey: resource_by_key (:projectKey, :key)
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
  )::text AS json
FROM
  resource r
WHERE
  r.project_key = :projectKey
  AND r.key = :key;

-- RESOURCE_SQL.stateById: resource_state_by_id (:id, :projectKey)
SELECT
  r.version,
  r.created_by ->> 'customerId' AS "customerId",
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
  )::text AS json
FROM
  resource r
WHERE
  r.id = :id
  AND r.project_key = :projectKey;

-- RESOURCE_SQL.statesById: resource_states_by_id (:ids, :projectKey)
SELECT
  r.id,
  r.version,
  r.created_by ->> 'customerId' AS "customerId",
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
  )::text AS json
FROM
  resource r
WHERE
  r.id = ANY (:ids::uuid[])
  AND r.project_key = :projectKey;

-- RESOURCE_SQL.stateByKey: resource_state_by_key (:projectKey, :key)
SELECT
  r.version,
  r.created_by ->> 'customerId' AS "customerId"
FROM
  resource r
WHERE
  r.project_key = :projectKey
  AND r.key = :key;

-- RESOURCE_SQL.upsert: resource_upsert (:id, :projectKey, :key, :by, :publish, :document, :expected, :owner, :publishGiven)
WITH
  o AS (
    SELECT
      r.id,
      r.published
    FROM
      resource r
    WHERE
      r.project_key = :projectKey
      AND r.key = :key
    FOR UPDATE
  ),
  u AS (
    UPDATE resource r
    SET
      object_type_property = :document::text::jsonb,
      published = CASE
        WHEN :publishGiven::boolean THEN :publish::boolean
        ELSE r.published
      END,
      version = r.version + 1,
      last_modified_at = now(),
      last_modified_by = :by::jsonb,
      message_sequence = r.message_sequence + CASE
        WHEN (
          :publishGiven::boolean
          AND o.published IS DISTINCT FROM :publish::boolean
        ) THEN 2
        ELSE 1
      END
    FROM
      o
    WHERE
      r.id = o.id
      AND (
        :expected::integer IS NULL
        OR r.version = :expected::integer
      )
      AND (
        :owner::text IS NULL
        OR r.created_by ->> 'customerId' = :owner::text
      )
    RETURNING
      r.id,
      r.project_key,
      r.key,
      r.version,
      r.last_modified_at AS changed_at,
      r.last_modified_by AS changed_by,
      r.message_sequence - (
        CASE
          WHEN (
            :publishGiven::boolean
            AND o.published IS DISTINCT FROM :publish::boolean
          ) THEN 2
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
      (
        :publishGiven::boolean
        AND o.published IS DISTINCT FROM :publish::boolean
      ) AS flag_changed,
      r.published
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
      :id,
      :projectKey,
      :key,
      1,
      now(),
      now(),
      :by::jsonb,
      :by::jsonb,
      :publish,
      :document::text::jsonb,
      NULL,
      NULL,
      1
    WHERE
      NOT EXISTS (
        SELECT
        FROM
          o
      )
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
      r.published
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
      1 AS n,
      CASE
        WHEN w.created THEN 'ResourceCreated'
        ELSE 'ObjectTypePropertySet'
      END AS type,
      CASE
        WHEN w.created THEN '"representation":' || w.json
        ELSE '"objectTypeProperty":' || :document::text
      END AS payload
    FROM
      w
    UNION ALL
    SELECT
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
      w,
      c
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
        ORDER BY
          c.n
      ),
      w.json
    FROM
      w
  )
SELECT
  w.id,
  w.created,
  w.json
FROM
  w;

-- RESOURCE_SQL.createMany: resource_create_many (:projectKey, :ids, :by, :publish, :documents)
WITH
  t AS (
    SELECT
      *
    FROM
      unnest(
        :ids::uuid[],
        :by::text[],
        :publish::boolean[],
        :documents::text[]
      ) WITH ORDINALITY AS t (id, by_json, publish, document, n)
  ),
  w AS (
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
      t.id,
      :projectKey,
      NULL,
      1,
      now(),
      now(),
      t.by_json::jsonb,
      t.by_json::jsonb,
      t.publish,
      t.document::jsonb,
      NULL,
      NULL,
      1
    FROM
      t
    ORDER BY
      t.n
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
      )::text AS json
  ),
  c AS (
    SELECT
      w.id AS resource_id,
      1 AS n,
      'ResourceCreated' AS type,
      '"representation":' || w.json AS payload
    FROM
      w
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
  w.id,
  w.json
FROM
  w;

-- RESOURCE_SQL.createComplete: resource_create_complete (:id, :projectKey, :key, :by, :publish, :document, :some, :second, :count, :messages)
WITH
  w AS (
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
      :id,
      :projectKey,
      :key,
      1,
      now(),
      now(),
      :by::jsonb,
      :by::jsonb,
      :publish,
      :document::text::jsonb,
      :some,
      :second,
      :count::integer
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
      )::text AS json
  ),
  c AS (
    SELECT
      1 AS n,
      'ResourceCreated' AS type,
      '"representation":' || w.json AS payload
    FROM
      w
    UNION ALL
    SELECT
      1 + x.n,
      x.e ->> 't',
      x.e ->> 'p'
    FROM
      w,
      json_array_elements(:messages::json) WITH ORDINALITY AS x (e, n)
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
      w,
      c
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
        ORDER BY
          c.n
      ),
      w.json
    FROM
      w
  )
SELECT
  w.id,
  w.json
FROM
  w;

-- RESOURCE_SQL.createManyComplete: resource_create_many_complete (:projectKey, :ids, :by, :publish, :documents, :keys, :some, :second, :counts, :messages)
WITH
  t AS (
    SELECT
      *
    FROM
      unnest(
        :ids::uuid[],
        :by::text[],
        :publish::boolean[],
        :documents::text[],
        :keys::text[],
        :some::text[],
        :second::text[],
        :counts::integer[],
        :messages::text[]
      ) WITH ORDINALITY AS t (
        id,
        by_json,
        publish,
        document,
        key,
        some_value,
        second_value,
        message_count,
        messages,
        n
      )
  ),
  w AS (
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
      t.id,
      :projectKey,
      t.key,
      1,
      now(),
      now(),
      t.by_json::jsonb,
      t.by_json::jsonb,
      t.publish,
      t.document::jsonb,
      t.some_value,
      t.second_value,
      t.message_count
    FROM
      t
    ORDER BY
      t.n
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
      )::text AS json
  ),
  c AS (
    SELECT
      w.id AS resource_id,
      1 AS n,
      'ResourceCreated' AS type,
      '"representation":' || w.json AS payload
    FROM
      w
    UNION ALL
    SELECT
      w.id,
      1 + x.n,
      x.e ->> 't',
      x.e ->> 'p'
    FROM
      w
      JOIN t ON t.id = w.id,
      json_array_elements(t.messages::json) WITH ORDINALITY AS x (e, n)
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
  w.id,
  w.json
FROM
  w;

-- RESOURCE_SQL.replaceByKey: resource_replace_by_key (:projectKey, :key, :document, :by, :publish, :publishGiven, :expected)
WITH
  o AS (
    SELECT
      r.id,
      r.published
    FROM
      resource r
    WHERE
      r.project_key = :projectKey
      AND r.key = :key
    FOR UPDATE
  ),
  w AS (
    UPDATE resource r
    SET
      object_type_property = :document::text::jsonb,
      published = CASE
        WHEN :publishGiven::boolean THEN :publish::boolean
        ELSE r.published
      END,
      version = r.version + 1,
      last_modified_at = now(),
      last_modified_by = :by::jsonb,
      message_sequence = r.message_sequence + CASE
        WHEN (
          :publishGiven::boolean
          AND o.published IS DISTINCT FROM :publish::boolean
        ) THEN 2
        ELSE 1
      END
    FROM
      o
    WHERE
      r.id = o.id
      AND (
        :expected::integer IS NULL
        OR r.version = :expected::integer
      )
      AND (
        NULL::text IS NULL
        OR r.created_by ->> 'customerId' = NULL::text
      )
    RETURNING
      r.id,
      r.project_key,
      r.key,
      r.version,
      r.last_modified_at AS changed_at,
      r.last_modified_by AS changed_by,
      r.message_sequence - (
        CASE
          WHEN (
            :publishGiven::boolean
            AND o.published IS DISTINCT FROM :publish::boolean
          ) THEN 2
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
      (
        :publishGiven::boolean
        AND o.published IS DISTINCT FROM :publish::boolean
      ) AS flag_changed,
      r.published
  ),
  c AS (
    SELECT
      1 AS n,
      CASE
        WHEN w.created THEN 'ResourceCreated'
        ELSE 'ObjectTypePropertySet'
      END AS type,
      CASE
        WHEN w.created THEN '"representation":' || w.json
        ELSE '"objectTypeProperty":' || :document::text
      END AS payload
    FROM
      w
    UNION ALL
    SELECT
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
      w,
      c
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
        ORDER BY
          c.n
      ),
      w.json
    FROM
      w
  )
SELECT
  w.id,
  w.json
FROM
  w;

-- RESOURCE_SQL.update: resource_update (:id, :projectKey, :expected, :by, :someSet, :some, :secondSet, :second, :keySet, :key, :documentSet, :document, :published, :publishImages, :count, :messages)
WITH
  o AS (
    SELECT
      r.id,
      r.some_property,
      r.key
    FROM
      resource r
    WHERE
      r.id = :id
      AND r.project_key = :projectKey
    FOR UPDATE
  ),
  w AS (
    UPDATE resource r
    SET
      some_property = CASE
        WHEN :someSet::boolean THEN :some::text
        ELSE r.some_property
      END,
      second_property_to_update = CASE
        WHEN :secondSet::boolean THEN :second::text
        ELSE r.second_property_to_update
      END,
      key = CASE
        WHEN :keySet::boolean THEN :key::varchar
        ELSE r.key
      END,
      object_type_property = CASE
        WHEN :documentSet::boolean THEN :document::jsonb
        ELSE r.object_type_property
      END,
      published = COALESCE(:published::boolean, r.published),
      images = CASE
        WHEN :publishImages::boolean THEN (
          SELECT
            COALESCE(
              jsonb_agg(
                i.image || '{"staged": false}'
                ORDER BY
                  i.n
              ),
              '[]'::jsonb
            )
          FROM
            jsonb_array_elements(r.images) WITH ORDINALITY AS i (image, n)
        )
        ELSE r.images
      END,
      version = r.version + 1,
      last_modified_at = now(),
      last_modified_by = :by::jsonb,
      message_sequence = r.message_sequence + :count::integer
    FROM
      o
    WHERE
      r.id = o.id
      AND r.version = :expected
    RETURNING
      r.id,
      r.project_key,
      r.key,
      r.version,
      r.last_modified_at AS changed_at,
      r.last_modified_by AS changed_by,
      r.message_sequence - (:count::integer) + 1 AS first_sequence,
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
      o.some_property AS old_some_property,
      o.key AS old_key
  ),
  c AS (
    SELECT
      x.n,
      x.e ->> 't' AS type,
      concat_ws(
        ',',
        NULLIF(x.e ->> 'p', ''),
        CASE x.e ->> 'o'
          WHEN 'someProperty' THEN '"oldSomeProperty":' || to_json(w.old_some_property)::text
          WHEN 'key' THEN '"oldKey":' || to_json(w.old_key)::text
        END
      ) AS payload
    FROM
      w,
      json_array_elements(:messages::json) WITH ORDINALITY AS x (e, n)
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
      w,
      c
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
        ORDER BY
          c.n
      ),
      w.json
    FROM
      w
  )
SELECT
  w.json
FROM
  w;

-- RESOURCE_SQL.updateMany: resource_update_many (:projectKey, :ids, :expected, :by, :someSet, :some, :secondSet, :second, :keySet, :key, :documentSet, :document, :published, :publishImages, :count, :messages)
WITH
  t AS (
    SELECT
      *
    FROM
      unnest(
        :ids::uuid[],
        :expected::integer[],
        :by::text[],
        :someSet::boolean[],
        :some::text[],
        :secondSet::boolean[],
        :second::text[],
        :keySet::boolean[],
        :key::text[],
        :documentSet::boolean[],
        :document::text[],
        :published::boolean[],
        :publishImages::boolean[],
        :count::integer[],
        :messages::text[]
      ) WITH ORDINALITY AS t (
        id,
        expected,
        by_json,
        some_set,
        some_value,
        second_set,
        second_value,
        key_set,
        key_value,
        document_set,
        document_value,
        published,
        publish_images,
        message_count,
        messages,
        n
      )
  ),
  o AS MATERIALIZED (
    SELECT
      r.id,
      r.some_property,
      r.key
    FROM
      resource r
    WHERE
      r.id = ANY (:ids::uuid[])
      AND r.project_key = :projectKey
    ORDER BY
      r.id
    FOR UPDATE
  ),
  w AS (
    UPDATE resource r
    SET
      some_property = CASE
        WHEN t.some_set THEN t.some_value
        ELSE r.some_property
      END,
      second_property_to_update = CASE
        WHEN t.second_set THEN t.second_value
        ELSE r.second_property_to_update
      END,
      key = CASE
        WHEN t.key_set THEN t.key_value::varchar
        ELSE r.key
      END,
      object_type_property = CASE
        WHEN t.document_set THEN t.document_value::jsonb
        ELSE r.object_type_property
      END,
      published = COALESCE(t.published, r.published),
      images = CASE
        WHEN t.publish_images THEN (
          SELECT
            COALESCE(
              jsonb_agg(
                i.image || '{"staged": false}'
                ORDER BY
                  i.n
              ),
              '[]'::jsonb
            )
          FROM
            jsonb_array_elements(r.images) WITH ORDINALITY AS i (image, n)
        )
        ELSE r.images
      END,
      version = r.version + 1,
      last_modified_at = now(),
      last_modified_by = t.by_json::jsonb,
      message_sequence = r.message_sequence + t.message_count
    FROM
      o
      JOIN t ON t.id = o.id
    WHERE
      r.id = o.id
      AND r.version = t.expected
    RETURNING
      r.id,
      r.project_key,
      r.key,
      r.version,
      r.last_modified_at AS changed_at,
      r.last_modified_by AS changed_by,
      r.message_sequence - (t.message_count) + 1 AS first_sequence,
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
      o.some_property AS old_some_property,
      o.key AS old_key,
      t.messages,
      t.n
  ),
  c AS (
    SELECT
      w.id AS resource_id,
      x.n,
      x.e ->> 't' AS type,
      concat_ws(
        ',',
        NULLIF(x.e ->> 'p', ''),
        CASE x.e ->> 'o'
          WHEN 'someProperty' THEN '"oldSomeProperty":' || to_json(w.old_some_property)::text
          WHEN 'key' THEN '"oldKey":' || to_json(w.old_key)::text
        END
      ) AS payload
    FROM
      w,
      json_array_elements(w.messages::json) WITH ORDINALITY AS x (e, n)
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
  w.n::integer AS n,
  w.json
FROM
  w;

-- RESOURCE_SQL.delete: resource_delete (:id, :projectKey, :expected, :by)
WITH
  w AS (
    DELETE FROM resource r
    WHERE
      r.id = :id
      AND r.project_key = :projectKey
      AND (
        :expected::integer IS NULL
        OR r.version = :expected
      )
    RETURNING
      r.id,
      r.project_key,
      r.key,
      r.version + 1 AS version,
      now() AS changed_at,
      :by::jsonb AS changed_by,
      r.message_sequence + 1 AS first_sequence,
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
      )::text AS json
  ),
  c AS (
    SELECT
      1 AS n,
      'ResourceDeleted' AS type,
      '' AS payload
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
      w,
      c
  )
SELECT
  w.json
FROM
  w;

-- RESOURCE_SQL.merge, built from ["r.some_property = $2","$3"]
WITH
  m AS (
    SELECT
      r.object_type_property AS o,
      row_number() OVER (
        ORDER BY
          r.created_at,
          r.id
      ) AS n
    FROM
      resource r
    WHERE
      r.project_key = $1
      AND r.some_property = $2
    ORDER BY
      r.created_at,
      r.id
    LIMIT
      500
  ),
  merged AS (
    SELECT
      json_strip_nulls(
        json_build_object(
          'arrayOfIntExample',
          COALESCE(
            (
              SELECT
                jsonb_agg(
                  x.e
                  ORDER BY
                    m.n,
                    x.i
                )
              FROM
                m,
                jsonb_array_elements(m.o -> 'arrayOfIntExample') WITH ORDINALITY AS x (e, i)
            ),
            '[]'::jsonb
          ),
          'arrayOfUniqueIntExample',
          COALESCE(
            (
              SELECT
                jsonb_agg(
                  u.e
                  ORDER BY
                    u.first
                )
              FROM
                (
                  SELECT
                    x.e,
                    min(ARRAY[m.n, x.i]) AS first
                  FROM
                    m,
                    jsonb_array_elements(m.o -> 'arrayOfUniqueIntExample') WITH ORDINALITY AS x (e, i)
                  GROUP BY
                    x.e
                ) u
            ),
            '[]'::jsonb
          ),
          'arrayOfTwonumbersExample',
          (
            SELECT
              CASE
                WHEN count(*) = 0 THEN '[]'::jsonb
                ELSE jsonb_build_array(min((x.e)::numeric), max((x.e)::numeric))
              END
            FROM
              m,
              jsonb_array_elements(m.o -> 'arrayOfTwonumbersExample') WITH ORDINALITY AS x (e, i)
          ),
          'arrayOfFloatExample',
          COALESCE(
            (
              SELECT
                jsonb_agg(
                  x.e
                  ORDER BY
                    m.n,
                    x.i
                )
              FROM
                m,
                jsonb_array_elements(m.o -> 'arrayOfFloatExample') WITH ORDINALITY AS x (e, i)
            ),
            '[]'::jsonb
          ),
          'arrayOfNumberNoDefaultsExample',
          COALESCE(
            (
              SELECT
                jsonb_agg(
                  x.e
                  ORDER BY
                    m.n,
                    x.i
                )
              FROM
                m,
                jsonb_array_elements(m.o -> 'arrayOfNumberNoDefaultsExample') WITH ORDINALITY AS x (e, i)
            ),
            '[]'::jsonb
          ),
          'arrayOfStringExample',
          COALESCE(
            (
              SELECT
                jsonb_agg(
                  x.e
                  ORDER BY
                    m.n,
                    x.i
                )
              FROM
                m,
                jsonb_array_elements(m.o -> 'arrayOfStringExample') WITH ORDINALITY AS x (e, i)
            ),
            '[]'::jsonb
          ),
          'arrayOfObjectType',
          COALESCE(
            (
              SELECT
                jsonb_agg(
                  x.e
                  ORDER BY
                    m.n,
                    x.i
                )
              FROM
                m,
                jsonb_array_elements(m.o -> 'arrayOfObjectType') WITH ORDINALITY AS x (e, i)
            ),
            '[]'::jsonb
          )
        )
      )::text AS json
  )
SELECT
  (
    SELECT
      count(*)
    FROM
      resource r
    WHERE
      r.project_key = $1
      AND r.some_property = $2
  )::integer AS total,
  CASE
    WHEN octet_length(merged.json) > $3::bigint THEN NULL
    ELSE merged.json
  END AS json
FROM
  merged;

-- RESOURCE_SQL.exists, built from ["r.some_property = $2"]
SELECT
  EXISTS (
    SELECT
      1
    FROM
      resource r
    WHERE
      r.project_key = $1
      AND r.some_property = $2
  ) AS found;
