import { Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import { predicatePlan } from '../../query-language/predicate-query.js';
import { RESOURCE_CATALOGUE } from '../../query-language/resource.catalogue.js';
import type { Variables } from '../../query-language/where-sql.js';
import { FIRST_ID } from '../resource.repository.js';
import { BulkRepository, type ExportPage } from './bulk.repository.js';
import { ExportQueryDto } from './bulk.dto.js';

/** Resources per page of an export: about 1 MB of JSON for 1 KB resources. */
export const EXPORT_PAGE_SIZE = 1_000;

type Filter = { where: string; values: unknown[] };

/**
 * GET /{projectKey}/resource/export (CONTRACT.md §13): the matching resources in id order, one per line as
 * GET by id answers them, then `{"summary":{"count":N}}`. Pages are read by keyset on id (`id > last`), one
 * statement each, only when the client has taken the previous one (a Readable's `_read`): memory holds at
 * most the page being sent and the next one, whatever the count and however slowly the client reads.
 *
 * Each page is its own statement on `Database.reader()`, so with read replicas consecutive pages may come
 * from different replicas (each within DATABASE_REPLICA_MAX_LAG_MS). Keyset paging keeps that sound: every
 * page asks for the ids after the last one sent, so no resource is sent twice or out of order, and a
 * resource left unchanged since before the export began (by more than the lag bound) is sent exactly once.
 * An export is not a snapshot: a write made while it runs may or may not show, as with paging by hand. One
 * transaction over the whole export would be a snapshot, but it would hold back vacuum on the primary for
 * as long as the slowest client reads, be cancelled on a replica by the WAL it replays, and on the
 * embedded database, where every connection shares one session, take every other request into it.
 */
@Injectable()
export class ExportService {
  constructor(private readonly bulk: BulkRepository) {}

  /**
   * The export as a stream of NDJSON text. A malformed `where` is refused, and the first page read, before
   * anything is answered: an error there is an ordinary error answer, and only a failure of a later page
   * cuts the stream (without its summary line).
   */
  async export(projectKey: string, query: ExportQueryDto, variables: Variables): Promise<Readable> {
    const plan = predicatePlan(RESOURCE_CATALOGUE, { where: query.where, limit: EXPORT_PAGE_SIZE, offset: 0, withTotal: false }, variables, projectKey);
    const filter = { where: plan.where, values: plan.values };
    const first = await this.bulk.exportPage(projectKey, filter, FIRST_ID, EXPORT_PAGE_SIZE);
    return new ExportStream((after) => this.bulk.exportPage(projectKey, filter, after, EXPORT_PAGE_SIZE), first);
  }
}

/** Pushes one page per `_read`, reading the next one meanwhile; the summary after the last. */
class ExportStream extends Readable {
  private count = 0;
  private next?: Promise<ExportPage>;
  private done = false;

  constructor(
    private readonly readPage: (after: string) => Promise<ExportPage>,
    first: ExportPage,
  ) {
    super();
    this.next = Promise.resolve(first);
  }

  override _read(): void {
    const next = this.next;
    if (!next) return;
    this.next = undefined;
    next.then(
      (page) => {
        if (this.destroyed) return;
        this.count += page.count;
        const last = page.count < EXPORT_PAGE_SIZE || page.last === null;
        // Read ahead: the next page is fetched while this one is sent.
        if (!last) this.next = this.readPage(page.last!);
        if (page.lines !== null) this.push(`${page.lines}\n`);
        if (last && !this.done) {
          this.done = true;
          this.push(`{"summary":{"count":${this.count}}}\n`);
          this.push(null);
        }
      },
      (error: unknown) => this.destroy(error instanceof Error ? error : new Error(String(error))),
    );
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // A page still being read settles on its own; its result is dropped.
    this.next?.catch(() => undefined);
    this.next = undefined;
    callback(error);
  }
}
