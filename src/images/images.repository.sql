-- The statements of images/images.repository.ts, rendered by `npm run sql`: edit the repository, not this file.

-- IMAGES_SQL.resourceIdByKey: images_resource_id_by_key (:projectKey, :key)
SELECT
  r.id
FROM
  resource r
WHERE
  r.project_key = :projectKey
  AND r.key = :key;

-- IMAGES_SQL.attachNow: images_attach_now (:resourceId, :projectKey, :image, :by, :imageId, :sha256, :contentType, :size, :createdAt)
WITH
  w AS (
    UPDATE resource r
    SET
      images = r.images || jsonb_build_array(:image::text::jsonb),
      version = r.version + 1,
      last_modified_at = now(),
      last_modified_by = :by::jsonb,
      message_sequence = r.message_sequence + 1
    WHERE
      r.id = :resourceId
      AND r.project_key = :projectKey
      AND NOT r.images @> jsonb_build_array(jsonb_build_object('id', :imageId::text))
    RETURNING
      r.id,
      r.project_key,
      r.key,
      r.version,
      r.last_modified_at AS changed_at,
      r.last_modified_by AS changed_by,
      r.message_sequence - (1) + 1 AS first_sequence,
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
      'ImageAdded' AS type,
      '"image":' || :image::text AS payload
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
  ),
  saved AS (
    INSERT INTO
      image (
        id,
        project_key,
        resource_id,
        sha256,
        content_type,
        size,
        image,
        created_at
      )
    SELECT
      :imageId::uuid,
      :projectKey::varchar,
      w.id,
      :sha256::text,
      :contentType::text,
      :size::integer,
      :image::text::jsonb,
      :createdAt::timestamptz
    FROM
      w
  )
SELECT
  w.json
FROM
  w;

-- IMAGES_SQL.enqueue: images_enqueue (:resourceId, :projectKey, :image, :by, :imageId, :sha256, :contentType, :size, :createdAt)
WITH
  target AS (
    SELECT
      r.id
    FROM
      resource r
    WHERE
      r.id = :resourceId
      AND r.project_key = :projectKey
  ),
  saved AS (
    INSERT INTO
      image (
        id,
        project_key,
        resource_id,
        sha256,
        content_type,
        size,
        image,
        created_at
      )
    SELECT
      :imageId::uuid,
      :projectKey::varchar,
      target.id,
      :sha256::text,
      :contentType::text,
      :size::integer,
      :image::text::jsonb,
      :createdAt::timestamptz
    FROM
      target
    RETURNING
      id
  )
INSERT INTO
  image_job (image_id, project_key, resource_id, modified_by)
SELECT
  saved.id,
  :projectKey::varchar,
  :resourceId::uuid,
  :by::jsonb
FROM
  saved
RETURNING
  image_id AS id;

-- IMAGES_SQL.find: images_find (:id, :projectKey)
SELECT
  i.sha256,
  i.content_type AS "contentType",
  i.size,
  i.image ->> 'filename' AS filename
FROM
  image i
WHERE
  i.id = :id
  AND i.project_key = :projectKey;

-- IMAGES_SQL.claimJob: images_claim_job ()
SELECT
  j.image_id AS "imageId",
  j.project_key AS "projectKey",
  j.resource_id AS "resourceId",
  j.modified_by::text AS "modifiedBy",
  i.image::text AS image,
  j.attempts
FROM
  image_job j
  JOIN image i ON i.id = j.image_id
WHERE
  j.run_after <= now()
ORDER BY
  j.run_after,
  j.created_at
LIMIT
  1
FOR UPDATE OF
  j SKIP LOCKED;

-- IMAGES_SQL.attachJob: images_attach_job (:resourceId, :projectKey, :image, :by, :imageId)
WITH
  w AS (
    UPDATE resource r
    SET
      images = r.images || jsonb_build_array(:image::text::jsonb),
      version = r.version + 1,
      last_modified_at = now(),
      last_modified_by = :by::jsonb,
      message_sequence = r.message_sequence + 1
    WHERE
      r.id = :resourceId
      AND r.project_key = :projectKey
      AND NOT r.images @> jsonb_build_array(jsonb_build_object('id', :imageId::text))
    RETURNING
      r.id,
      r.project_key,
      r.key,
      r.version,
      r.last_modified_at AS changed_at,
      r.last_modified_by AS changed_by,
      r.message_sequence - (1) + 1 AS first_sequence,
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
      'ImageAdded' AS type,
      '"image":' || :image::text AS payload
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
  w.id
FROM
  w;

-- IMAGES_SQL.resourceExists: images_resource_exists (:resourceId, :projectKey)
SELECT
  1
FROM
  resource r
WHERE
  r.id = :resourceId
  AND r.project_key = :projectKey;

-- IMAGES_SQL.deleteImage: images_delete_image (:imageId)
DELETE FROM image
WHERE
  id = :imageId;

-- IMAGES_SQL.deleteJob: images_delete_job (:imageId)
DELETE FROM image_job
WHERE
  image_id = :imageId;

-- IMAGES_SQL.postponeJob: images_postpone_job (:imageId, :error)
UPDATE image_job
SET
  attempts = attempts + 1,
  last_error = left(:error, 1000),
  run_after = now() + make_interval(secs => least(power(2, attempts), 300))
WHERE
  image_id = :imageId;
