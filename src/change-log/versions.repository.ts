import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import { isoTimestampSql } from '../query-language/catalogue.js';
import type { QueryPage } from '../query-language/predicate-query.js';

/** A version as the versions list shows it; json_strip_nulls also writes the JSON compactly. */
const VERSION_JSON = `json_strip_nulls(json_build_object('version', v.version, 'modifiedAt', ${isoTimestampSql('v.modified_at')},
  'modifiedBy', v.modified_by, 'types', v.types))::text`;

export const VERSIONS_SQL = {
  page: {
    name: 'versions_page',
    text: `SELECT count(*)::integer AS count, '[' || coalesce(string_agg(${VERSION_JSON}, ',' ORDER BY v.version DESC), '') || ']' AS results,
             (SELECT count(*) FROM resource_version v WHERE v.resource_id = $1 AND v.project_key = $2)::integer AS total
           FROM (SELECT v.* FROM resource_version v WHERE v.resource_id = $1 AND v.project_key = $2
                 ORDER BY v.version DESC LIMIT $3 OFFSET $4) v`,
  },
  /** The same page for each of several resources, in one statement (GraphQL's `versions` of a page of resources). */
  pages: {
    name: 'versions_pages',
    text: `SELECT i.id::text AS id, p.count, p.results, p.total FROM unnest($1::uuid[]) AS i(id) CROSS JOIN LATERAL (
             SELECT count(*)::integer AS count, '[' || coalesce(string_agg(${VERSION_JSON}, ',' ORDER BY v.version DESC), '') || ']' AS results,
               (SELECT count(*) FROM resource_version w WHERE w.resource_id = i.id AND w.project_key = $2)::integer AS total
             FROM (SELECT v.* FROM resource_version v WHERE v.resource_id = i.id AND v.project_key = $2
                   ORDER BY v.version DESC LIMIT $3 OFFSET $4) v) p`,
  },
  representation: {
    name: 'versions_representation',
    text: 'SELECT v.representation FROM resource_version v WHERE v.resource_id = $1 AND v.version = $2 AND v.project_key = $3',
  },
};

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
      VERSIONS_SQL.page,
      [id, projectKey, limit, offset],
      projectKey,
    ))!;
  }

  /** `findPage` for each of `ids` (UUIDs), in one statement, by id. */
  async findPages(projectKey: string, ids: readonly string[], limit: number, offset: number): Promise<Map<string, Required<QueryPage>>> {
    const rows = await this.db.reader().query<Required<QueryPage> & { id: string }>(VERSIONS_SQL.pages, [ids, projectKey, limit, offset], projectKey);
    return new Map(rows.map(({ id, ...page }) => [id, page]));
  }

  /** The representation of one version: JSON text exactly as GET by id answered it. */
  async findRepresentation(projectKey: string, id: string, version: number): Promise<string | undefined> {
    const row = await this.db.one<{ representation: string }>(
      VERSIONS_SQL.representation,
      [id, version, projectKey],
      projectKey,
    );
    return row?.representation;
  }
}
