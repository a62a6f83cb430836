// What the bench sends and seeds; shared by run.mjs and seed-embedded.mjs.

/** A valid ArrayTestType of about 1 KB (docs/rules.md#addressing-and-input) as JSON text, with exact 64-bit integers. */
function objectTypePropertyJson() {
  const value = {
    arrayOfIntExample: Array.from({ length: 24 }, (_, i) => (i - 12) * 7919),
    arrayOfUniqueIntExample: Array.from({ length: 24 }, (_, i) => 1000 + i * 3),
    arrayOfTwonumbersExample: [1.5, 2500.25],
    arrayOfFloatExample: Array.from({ length: 12 }, (_, i) => i + 0.125),
    arrayOfNumberNoDefaultsExample: [1500, 3.14159, 42, -7.5],
    arrayOfStringExample: ['test', 'alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliett', 'kilo'],
    arrayOfObjectType: [
      { integerExample: 'INT64_MAX', integerExampleInt32: 2147483647 },
      { integerExample: 'INT64_MIN', integerExampleInt32: -2147483648 },
      ...Array.from({ length: 6 }, (_, i) => ({ integerExample: 1_000_000_007 * (i + 1), integerExampleInt32: i * 1000 })),
    ],
  };
  return JSON.stringify(value).replace('"INT64_MAX"', '9223372036854775807').replace('"INT64_MIN"', '-9223372036854775808');
}

export const PROJECT = 'bench';
export const OTHER_PROJECT = 'bench-other';
export const SEED_COUNT = 10_000;
export const OTP_JSON = objectTypePropertyJson();
/** The POST /resource body: an ObjectTestTypeDraft of about 1 KB. */
export const CREATE_BODY = `{"objectTypeProperty":${OTP_JSON}}`;

/** Seeds `SEED_COUNT` resources (keys k1…k10000) in `project`; params [project, objectTypePropertyJson]. */
export const SEED_SQL = `INSERT INTO resource (id, project_key, key, version, created_at, last_modified_at, created_by, last_modified_by, published, object_type_property)
  SELECT gen_random_uuid(), $1, 'k' || g, 1, now(), now(), '{"clientId":"seed"}', '{"clientId":"seed"}', true, $2::jsonb
  FROM generate_series(1, ${SEED_COUNT}) g
  ON CONFLICT (project_key, key) DO NOTHING`;

/** The seeded resources of `project` ($1) with their current versions. */
export const SEEDED_SQL = `SELECT id::text AS id, version FROM resource WHERE project_key = $1 AND key ~ '^k[0-9]+$' ORDER BY key LIMIT ${SEED_COUNT}`;

/** Seeds both projects through a pg-compatible `query(text, values)`; returns the bench ids and versions. */
export async function seed(db) {
  for (const project of [PROJECT, OTHER_PROJECT]) await db.query(SEED_SQL, [project, OTP_JSON]);
  await db.query('ANALYZE resource');
  const { rows } = await db.query(SEEDED_SQL, [PROJECT]);
  return rows;
}
