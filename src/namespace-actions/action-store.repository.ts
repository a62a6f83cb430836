import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';

/** One value of a project's key-value store: its JSON text (as PostgreSQL writes jsonb) and version. */
export interface StoredValue {
  json: string;
  version: number;
}

export const ACTION_STORE_SQL = {
  // Insert or replace in one statement: concurrent writers serialise on the row, each gets its own
  // version (1, 2, 3, …) and the value left is that of the highest version. No write is lost.
  write: {
    name: 'action_store_write',
    text: `INSERT INTO action_store_entry AS e (project_key, key, value, version, created_at, last_modified_at)
           VALUES ($1, $2, $3::jsonb, 1, now(), now())
           ON CONFLICT (project_key, key) DO UPDATE SET
             value = EXCLUDED.value, version = e.version + 1, last_modified_at = now()
           RETURNING e.value::text AS json, e.version`,
  },
  read: {
    name: 'action_store_read',
    text: `SELECT e.value::text AS json, e.version FROM action_store_entry e WHERE e.project_key = $1 AND e.key = $2`,
  },
};
const SQL = ACTION_STORE_SQL;

/** The namespace actions' key-value store (table `action_store_entry`), one namespace per project. */
@Injectable()
export class ActionStoreRepository {
  constructor(private readonly db: Database) {}

  async write(projectKey: string, key: string, json: string): Promise<StoredValue> {
    return (await this.db.one<StoredValue>(SQL.write, [projectKey, key, json], projectKey))!;
  }

  read(projectKey: string, key: string): Promise<StoredValue | undefined> {
    return this.db.one<StoredValue>(SQL.read, [projectKey, key], projectKey);
  }
}
