import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';

export interface StoredApiClient {
  id: string;
  projectKey: string;
  name: string;
  secretHash: string;
  scope: string;
  customerId: string | null;
  createdAt: string;
  lastUsedAt: string | null;
}

const TIMESTAMP = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const COLUMNS = `id, project_key AS "projectKey", name, secret_hash AS "secretHash", scope, customer_id AS "customerId",
  to_char(created_at AT TIME ZONE 'UTC', ${TIMESTAMP}) AS "createdAt",
  to_char(last_used_at AT TIME ZONE 'UTC', ${TIMESTAMP}) AS "lastUsedAt"`;

export const API_CLIENTS_SQL = {
  /** Inserts the client unless one with that id exists. */
  insert: `INSERT INTO api_client (id, project_key, name, secret_hash, scope, customer_id) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (id) DO NOTHING RETURNING ${COLUMNS}`,
  byId: `SELECT ${COLUMNS} FROM api_client WHERE id = $1`,
  exists: { name: 'api_client_exists', text: 'SELECT 1 FROM api_client WHERE id = $1' },
  page: `SELECT ${COLUMNS} FROM api_client WHERE project_key = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3`,
  total: 'SELECT count(*)::integer AS total FROM api_client WHERE project_key = $1',
  delete: `DELETE FROM api_client WHERE id = $1 AND project_key = $2 RETURNING ${COLUMNS}`,
  touch: 'UPDATE api_client SET last_used_at = now() WHERE id = $1',
  count: 'SELECT count(*)::integer AS n FROM api_client',
};
const SQL = API_CLIENTS_SQL;

@Injectable()
export class ApiClientsRepository {
  constructor(private readonly db: Database) {}

  /** Inserts the client unless one with that id exists; answers the inserted client, or undefined. */
  async insert(client: Omit<StoredApiClient, 'createdAt' | 'lastUsedAt'>): Promise<StoredApiClient | undefined> {
    return this.db.one<StoredApiClient>(
      SQL.insert,
      [client.id, client.projectKey, client.name, client.secretHash, client.scope, client.customerId],
      client.projectKey,
    );
  }

  findById(id: string): Promise<StoredApiClient | undefined> {
    return this.db.one<StoredApiClient>(SQL.byId, [id]);
  }

  async exists(id: string): Promise<boolean> {
    return (await this.db.one(SQL.exists, [id])) !== undefined;
  }

  async list(projectKey: string, limit: number, offset: number): Promise<{ results: StoredApiClient[]; total: number }> {
    const [results, count] = await Promise.all([
      this.db.query<StoredApiClient>(
        SQL.page,
        [projectKey, limit, offset],
        projectKey,
      ),
      this.db.one<{ total: number }>(SQL.total, [projectKey], projectKey),
    ]);
    return { results, total: count!.total };
  }

  delete(projectKey: string, id: string): Promise<StoredApiClient | undefined> {
    return this.db.one<StoredApiClient>(SQL.delete, [id, projectKey], projectKey);
  }

  async touch(id: string): Promise<void> {
    await this.db.query(SQL.touch, [id]);
  }

  async count(): Promise<number> {
    return (await this.db.one<{ n: number }>(SQL.count))!.n;
  }
}
