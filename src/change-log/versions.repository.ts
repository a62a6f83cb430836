import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import { isoTimestampSql } from '../query-language/catalogue.js';
import type { QueryPage } from '../query-language/predicate-query.js';

/** A version as the versions list shows it; json_strip_nulls also writes the JSON compactly. */
const VERSION_JSON = `json_strip_nulls(json_build_object('version', v.version, 'modifiedAt', ${isoTimestampSql('v.modified_at')},
  'modifiedBy', v.modified_by, 'types', v.types))::text`;

/**
 * The SQL of GET /{projectKey}/resource/{id}/versions[/{version}]: the `resource_version` rows of one
 * resource, read through its primary key (resource_id, version), the project always named.
 */
@Injectable()
export class VersionsRepository {
  constructor(private readonly db: Database) {}

  /** A page of the versions, newest first; `total` 0 when the project holds no version of that id. */
  async findPage(projectKey: string, id: string, limit: number, offset: number): Promise<Required<QueryPage>> {
    return (await this.db.reader().one<Required<QueryPage>>(
      {
        name: 'versions_page',
        text: `SELECT count(*)::integer AS count, '[' || coalesce(string_agg(${VERSION_JSON}, ',' ORDER BY v.version DESC), '') || ']' AS results,
                 (SELECT count(*) FROM resource_version v WHERE v.resource_id = $1 AND v.project_key = $2)::integer AS total
               FROM (SELECT v.* FROM resource_version v WHERE v.resource_id = $1 AND v.project_key = $2
                     ORDER BY v.version DESC LIMIT $3 OFFSET $4) v`,
      },
      [id, projectKey, limit, offset],
      projectKey,
    ))!;
  }

  /** The representation of one version: JSON text exactly as GET by id answered it. */
  async findRepresentation(projectKey: string, id: string, version: number): Promise<string | undefined> {
    const row = await this.db.one<{ representation: string }>(
      {
        name: 'versions_representation',
        text: 'SELECT v.representation FROM resource_version v WHERE v.resource_id = $1 AND v.version = $2 AND v.project_key = $3',
      },
      [id, version, projectKey],
      projectKey,
    );
    return row?.representation;
  }
}
