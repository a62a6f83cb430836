import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';

interface WrittenRecord {
  revision: number;
  created: boolean;
  /** Records under this uriParameterOne/uriParameterTwo once the write is done. */
  count: number;
}

export const COMPLEX_PATH_SQL = {
  // Create or replace in one statement (`xmax = 0` tells an insert). The count is read in the same
  // statement, whose snapshot does not see the row just inserted: hence `+ 1` on create.
  upsert: {
    name: 'complex_path_upsert',
    text: `WITH written AS (
             INSERT INTO complex_path_record AS r (project_key, uri_parameter_one, uri_parameter_two, record_id,
               revision, body, created_at, last_modified_at)
             VALUES ($1, $2, $3, $4, 1, $5::jsonb, now(), now())
             ON CONFLICT (project_key, uri_parameter_one, uri_parameter_two, record_id) DO UPDATE SET
               body = EXCLUDED.body, revision = r.revision + 1, last_modified_at = now()
             RETURNING r.revision, (r.xmax = 0) AS created
           )
           SELECT w.revision, w.created,
             (SELECT count(*)::integer FROM complex_path_record c
              WHERE c.project_key = $1 AND c.uri_parameter_one = $2 AND c.uri_parameter_two = $3)
             + CASE WHEN w.created THEN 1 ELSE 0 END AS count
           FROM written w`,
  },
};
const SQL = COMPLEX_PATH_SQL;

/** Records of the complex-path POST (table `complex_path_record`). */
@Injectable()
export class ComplexPathRepository {
  constructor(private readonly db: Database) {}

  async upsert(projectKey: string, uriParameterOne: string, uriParameterTwo: string, id: string, bodyJson: string): Promise<WrittenRecord> {
    return (await this.db.one<WrittenRecord>(SQL.upsert, [projectKey, uriParameterOne, uriParameterTwo, id, bodyJson], projectKey))!;
  }
}
