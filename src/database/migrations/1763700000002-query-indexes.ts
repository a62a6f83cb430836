import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes of the query endpoint (sorted-query-parameters), per project: one btree for each scalar
 * field the predicates compare and `sort` orders by, ending with `id` so that the tie-break (`id asc`)
 * and the paging pattern (`id > "<last id>"`, `sort=id asc`) are index scans. Strings are ordered
 * byte-wise (COLLATE "C"), as the queries compare them. Equality on `key` uses the unique constraint;
 * `createdAt` uses resource_project_created_idx (both from the first migration).
 */
const INDEXES: Array<[name: string, columns: string]> = [
  ['resource_project_id_idx', '"project_key", "id"'],
  ['resource_project_key_c_idx', '"project_key", "key" COLLATE "C", "id"'],
  ['resource_project_version_idx', '"project_key", "version", "id"'],
  ['resource_project_modified_idx', '"project_key", "last_modified_at", "id"'],
  ['resource_project_published_idx', '"project_key", "published", "id"'],
  ['resource_project_some_property_idx', '"project_key", "some_property" COLLATE "C", "id"'],
  ['resource_project_second_property_idx', '"project_key", "second_property_to_update" COLLATE "C", "id"'],
];

const PROJECT_DOCUMENT_INDEX = 'resource_project_document_idx';

export class QueryIndexes1763700000002 implements MigrationInterface {
  name = 'QueryIndexes1763700000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [name, columns] of INDEXES) {
      await queryRunner.query(`CREATE INDEX "${name}" ON "resource" (${columns})`);
    }
    // The document tagged with its project, `{"<projectKey>": objectTypeProperty}`: containment queries of
    // the predicates (`=`, `in`, `contains any/all` on the arrays, equalities in arrayOfObjectType(…)) find
    // only the project's resources in it, instead of every project's and filtering afterwards.
    await queryRunner.query(
      `CREATE INDEX "${PROJECT_DOCUMENT_INDEX}" ON "resource" USING gin ((jsonb_set('{}'::jsonb, ARRAY["project_key"::text], "object_type_property")) jsonb_path_ops)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "${PROJECT_DOCUMENT_INDEX}"`);
    for (const [name] of [...INDEXES].reverse()) {
      await queryRunner.query(`DROP INDEX "${name}"`);
    }
  }
}
