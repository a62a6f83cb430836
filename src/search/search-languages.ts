import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { searchConfig, type SearchConfig } from './search.config.js';
import { Database } from '../database/database.js';
import { FALLBACK_CONFIG } from './text-search.js';

/** Any constant: replicas starting together queue on it while one re-indexes. */
const SEARCH_LANGUAGES_LOCK_ID = 7_316_200_143;

/**
 * Makes the indexed configurations (`search_language`, migration 1763700000008) those of
 * SEARCH_LANGUAGES, plus `simple`, before the server answers: a language added is indexed for every
 * existing resource, a language removed has its rows deleted. Nothing happens when they already agree.
 *
 * The change runs in one transaction that holds a SHARE lock on `resource`: writes wait for it (every
 * replica must share one SEARCH_LANGUAGES), and none can be written between the list and the rows.
 * Replicas starting together take turns on an advisory lock; the later ones find nothing to do.
 */
@Injectable()
export class SearchLanguages implements OnModuleInit {
  private readonly logger = new Logger('Search');

  constructor(
    private readonly database: Database,
    @Inject(searchConfig.KEY) private readonly config: SearchConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    const wanted = new Set([...this.config.configs, FALLBACK_CONFIG]);
    const client = await this.database.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [SEARCH_LANGUAGES_LOCK_ID]);
      try {
        const { rows } = await client.query<{ config: string }>('SELECT "config" FROM "search_language"');
        const current = new Set(rows.map((row) => row.config));
        const added = [...wanted].filter((config) => !current.has(config));
        const removed = [...current].filter((config) => !wanted.has(config));
        if (added.length === 0 && removed.length === 0) return;
        const started = Date.now();
        await client.query('BEGIN');
        try {
          await client.query('SET LOCAL statement_timeout = 0');
          await client.query('LOCK TABLE "resource" IN SHARE MODE');
          for (const config of removed) {
            await client.query('DELETE FROM "search_language" WHERE "config" = $1', [config]);
            await client.query('SELECT "search_unindex_language"($1)', [config]);
          }
          for (const config of added) {
            await client.query('INSERT INTO "search_language" ("config") VALUES ($1)', [config]);
            await client.query('SELECT "search_index_language"($1)', [config]);
          }
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
        const changes = [...added.map((c) => `+${c}`), ...removed.map((c) => `-${c}`)].join(' ');
        this.logger.log(`search languages now ${[...wanted].join(', ')} (${changes}, ${Date.now() - started} ms)`);
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [SEARCH_LANGUAGES_LOCK_ID]);
      }
    } finally {
      client.release();
    }
  }
}
