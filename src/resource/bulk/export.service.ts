import { Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import { predicatePlan } from '../../query-language/predicate-query.js';
import { RESOURCE_CATALOGUE } from '../../query-language/resource.catalogue.js';
import type { Variables } from '../../query-language/where-sql.js';
import { FIRST_ID } from './bulk.repository.js';
import { BulkRepository, type ExportFilter, type ExportPage } from './bulk.repository.js';
import { ExportQueryDto } from './bulk.dto.js';

/**
 * Resources per page of an export: about 200 KB of JSON for 800-byte resources. A page stays in memory from
 * its read until the client takes it, and the longer data lives, the more of it V8 moves to its old
 * generation, which only a full collection frees. During an export of 50,000 such resources to a slow
 * reader on PostgreSQL, the server's memory grew by 13–42 MB with pages of 1,000 and 13–30 MB with pages
 * of 250; a fast client exported as fast with either (about 32,000 resources/s end to end).
 */
export const EXPORT_PAGE_SIZE = 250;

/**
 * Pages read at once, besides the one being sent, while the client waits for pages. Building a page's JSON
 * is PostgreSQL's work; two pages on two connections use two cores of it (with pages of 1,000, an export
 * ran at 28,000 resources/s with one page read ahead, 45,000–55,000/s with two). A client that reads more
 * slowly than one page ahead keeps up with gets one page ahead: more would only be held in memory.
 */
const PAGES_AHEAD = 2;

/**
 * A page whose range received more than this many resources between the boundary read and the page read
 * (writes meanwhile) is read in more than one statement.
 */
const PAGE_LIMIT = 2 * EXPORT_PAGE_SIZE;

/**
 * GET /{projectKey}/resource/export (docs/bulk-and-cli.md): the matching resources in id order, one per line as
 * GET by id answers them, then `{"summary":{"count":N}}`.
 *
 * The export is cut into ranges of ids, `(after, upTo]`, each found by a cheap read of the id index (the
 * id `EXPORT_PAGE_SIZE` matches further) before its page is built, so that up to `PAGES_AHEAD` pages are
 * read at once, each its own statement on `Database.reader()`. Pages are sent in order, and read only while
 * the client takes them (a Readable's `_read`): memory holds at most the page being sent and the pages
 * ahead, whatever the count and however slowly the client reads. How many pages are read ahead follows the
 * client: `PAGES_AHEAD` while it asks for pages that are not read yet, one while the next page is ready
 * before it asks.
 *
 * Ranges are disjoint and cover every id, so no resource is sent twice or out of order, and a resource left
 * unchanged since before the export began is sent exactly once, also when pages come from different read
 * replicas (each within DATABASE_REPLICA_MAX_LAG_MS). An export is not a snapshot: a write made while it
 * runs may or may not show, as with paging by hand. One transaction over the whole export would be a
 * snapshot, but it would hold back vacuum on the primary for as long as the slowest client reads, be
 * cancelled on a replica by the WAL it replays, and on the embedded database, where every connection
 * shares one session, take every other request into it.
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
    const filter: ExportFilter = { where: plan.where, values: plan.values };
    const first = await this.bulk.exportPage(projectKey, filter, FIRST_ID, null, EXPORT_PAGE_SIZE);
    return new ExportStream(
      {
        page: (after, upTo) => this.bulk.exportPage(projectKey, filter, after, upTo, PAGE_LIMIT),
        boundary: (after) => this.bulk.exportBoundary(projectKey, filter, after, EXPORT_PAGE_SIZE),
      },
      first,
    );
  }
}

interface PageReader {
  page(after: string, upTo: string | null): Promise<ExportPage>;
  boundary(after: string): Promise<string | null>;
}

/** A page on its way: its range's end (null: to the last id), the page once read, and whether it is. */
interface Pending {
  upTo: string | null;
  page: Promise<ExportPage>;
  ready: boolean;
}

/**
 * Pushes one page per `_read`, in id order, with up to `ahead` reads (a range's boundary, then its page)
 * running meanwhile, and at most `ahead + 1` pages held.
 */
class ExportStream extends Readable {
  private count = 0;
  private readonly queue: Pending[] = [];
  /** Where the next range starts; null once the last range is queued; a promise while its start is read. */
  private nextStart: string | null | Promise<unknown>;
  /** Ranges queued whose page is not read yet. */
  private reading = 0;
  /** Reads ahead allowed now: PAGES_AHEAD while the client waits for pages, 1 while pages wait for it. */
  private ahead = 1;
  private sending = false;
  private done = false;

  constructor(
    private readonly reader: PageReader,
    first: ExportPage,
  ) {
    super();
    this.queue.push({ upTo: first.last, page: Promise.resolve(first), ready: true });
    this.nextStart = first.count < EXPORT_PAGE_SIZE ? null : first.last;
  }

  /** Queues the next ranges while fewer than `ahead` reads run and the queue has room. */
  private readAhead(): void {
    while (typeof this.nextStart === 'string' && this.reading < this.ahead && this.queue.length <= this.ahead && !this.destroyed) {
      const after = this.nextStart;
      const upTo = this.reader.boundary(after);
      const pending = this.start(null, upTo.then((end) => this.reader.page(after, end)));
      this.queue.push(pending);
      this.nextStart = upTo.then(
        (end) => {
          pending.upTo = end;
          this.nextStart = end;
          this.readAhead();
        },
        () => (this.nextStart = null),
      );
    }
  }

  /** A page read counted while it runs; when it ends, it is ready and the next one may start. */
  private start(upTo: string | null, page: Promise<ExportPage>): Pending {
    const pending: Pending = { upTo, page, ready: false };
    this.reading++;
    const settled = () => {
      this.reading--;
      pending.ready = true;
      this.readAhead();
    };
    page.then(settled, settled); // a failure is taken where the page is awaited, or dropped with the stream
    return pending;
  }

  override _read(): void {
    if (this.sending || this.done) return;
    const head = this.queue[0];
    if (!head) return;
    this.sending = true;
    // The client asks for a page: when it is not read yet, the client waits for us, and more pages are read
    // at once; when it is, the client is the slower side, and one page ahead keeps up with it.
    this.ahead = head.ready ? 1 : PAGES_AHEAD;
    this.readAhead();
    head.page.then(
      (page) => {
        this.sending = false;
        if (this.destroyed) return;
        // More matches arrived in the range than one statement reads: the rest of the range comes next.
        if (page.count === PAGE_LIMIT && page.last !== null && (head.upTo === null || page.last < head.upTo)) {
          this.queue[0] = this.start(head.upTo, this.reader.page(page.last, head.upTo));
        } else {
          this.queue.shift();
        }
        this.count += page.count;
        const last = this.queue.length === 0 && this.nextStart === null;
        if (last) this.done = true;
        let more = true;
        for (const chunk of page.chunks) more = this.push(chunk);
        if (last) {
          this.push(`{"summary":{"count":${this.count}}}\n`);
          this.push(null);
        } else if (more) {
          this._read();
        }
      },
      (error: unknown) => this.destroy(error instanceof Error ? error : new Error(String(error))),
    );
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // Reads still running settle on their own; their results are dropped.
    this.queue.length = 0;
    this.nextStart = null;
    callback(error);
  }
}
