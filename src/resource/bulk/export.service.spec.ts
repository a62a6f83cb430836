import type { Readable } from 'node:stream';
import type { BulkRepository, ExportFilter, ExportPage } from './bulk.repository.js';
import type { ExportQueryDto } from './bulk.dto.js';
import { EXPORT_CHUNK_ROWS } from './bulk.repository.js';
import { EXPORT_PAGE_SIZE, ExportService } from './export.service.js';

/** Ids that sort as PostgreSQL sorts uuids. */
const idOf = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/**
 * The repository's two reads over an in-memory id list, as the SQL answers them: `boundary` is the
 * `size`-th id after `after`, a page the first `limit` ids in `(after, upTo]`. `onBoundary` runs after a
 * boundary is read and before its page is, as a concurrent write would.
 */
class IdTable {
  ids: number[];
  inFlight = 0;
  maxInFlight = 0;
  /** The reads running at once as each read starts, in order. */
  inFlightAtStart: number[] = [];
  pagesRead = 0;
  failPage?: number;
  onBoundary?: (after: number, upTo: number | null) => void;

  constructor(count: number, step = 10) {
    this.ids = Array.from({ length: count }, (_, i) => (i + 1) * step);
  }

  private static num(id: string): number {
    return parseInt(id.slice(24), 16);
  }

  private async slow<T>(work: () => T): Promise<T> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    this.inFlightAtStart.push(this.inFlight);
    await new Promise((resolve) => setTimeout(resolve, 1));
    this.inFlight--;
    return work();
  }

  repository(): BulkRepository {
    return {
      exportPage: (_pk: string, _filter: ExportFilter, after: string, upTo: string | null, limit: number): Promise<ExportPage> =>
        this.slow(() => {
          if (++this.pagesRead === this.failPage) throw new Error('connection lost');
          const from = IdTable.num(after);
          const to = upTo === null ? Infinity : IdTable.num(upTo);
          const rows = this.ids.filter((n) => n > from && n <= to).slice(0, limit);
          return rows.length === 0
            ? { count: 0, last: null, chunks: [] }
            : { count: rows.length, last: idOf(rows[rows.length - 1]), chunks: chunksOf(rows) };
        }),
      exportBoundary: (_pk: string, _filter: ExportFilter, after: string, size: number): Promise<string | null> =>
        this.slow(() => {
          const from = IdTable.num(after);
          const rest = this.ids.filter((n) => n > from);
          const end = rest.length >= size ? rest[size - 1] : null;
          this.onBoundary?.(from, end);
          return end === null ? null : idOf(end);
        }),
    } as unknown as BulkRepository;
  }

  /**
   * Resolves once no read has run for a few milliseconds: a client that waits for this after each chunk
   * is slower than the reads however the process is scheduled (a client pausing a fixed time was not, on
   * a loaded machine: a stall longer than its pause let it ask before a page was read).
   */
  async idle(): Promise<void> {
    do await new Promise((resolve) => setTimeout(resolve, 3));
    while (this.inFlight > 0);
  }

  insert(numbers: number[]): void {
    this.ids = [...new Set([...this.ids, ...numbers])].sort((a, b) => a - b);
  }
}

/** A resource's line, about as long as the bench's resources (a page is more than a stream's buffer holds). */
const lineOf = (n: number) => `{"id":"${idOf(n)}","text":"${'x'.repeat(800)}"}\n`;

/** A page's lines in chunks of EXPORT_CHUNK_ROWS, as the SQL answers them. */
function chunksOf(rows: number[]): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < rows.length; i += EXPORT_CHUNK_ROWS) chunks.push(rows.slice(i, i + EXPORT_CHUNK_ROWS).map(lineOf).join(''));
  return chunks;
}

async function exportOf(table: IdTable): Promise<Readable> {
  return new ExportService(table.repository()).export('p', {} as ExportQueryDto, new Map());
}

/** Reads the stream to its end; `pause`, when given, is awaited after each chunk (a slow client). */
async function readAll(stream: Readable, pause?: () => Promise<void>): Promise<string[]> {
  let text = '';
  for await (const chunk of stream) {
    text += chunk;
    if (pause) await pause();
  }
  return text.split('\n').filter(Boolean);
}

const idsIn = (lines: string[]) => lines.slice(0, -1).map((l) => (JSON.parse(l) as { id: string }).id);

describe('ExportService (pages read ahead by id ranges)', () => {
  it('sends every id once, in order, then the summary; a client that waits for pages gets two read at once', async () => {
    const table = new IdTable(8 * EXPORT_PAGE_SIZE + 17);
    const lines = await readAll(await exportOf(table));
    expect(idsIn(lines)).toEqual(table.ids.map(idOf));
    expect(lines[lines.length - 1]).toBe(`{"summary":{"count":${table.ids.length}}}`);
    expect(table.maxInFlight).toBe(2);
  });

  it('a client slower than the reads gets one page read ahead, after the first pages', async () => {
    const table = new IdTable(12 * EXPORT_PAGE_SIZE + 17);
    const lines = await readAll(await exportOf(table), () => table.idle());
    expect(idsIn(lines)).toEqual(table.ids.map(idOf));
    expect(lines[lines.length - 1]).toBe(`{"summary":{"count":${table.ids.length}}}`);
    // Two reads per page (its boundary, then the page): from the fourth page on, one read at a time.
    expect(Math.max(...table.inFlightAtStart.slice(8))).toBe(1);
    expect(table.maxInFlight).toBeLessThanOrEqual(2);
  });

  it('an exact multiple of the page size, a single page and an empty table end with their summary', async () => {
    for (const count of [2 * EXPORT_PAGE_SIZE, EXPORT_PAGE_SIZE, 3, 0]) {
      const table = new IdTable(count);
      const lines = await readAll(await exportOf(table));
      expect(idsIn(lines)).toEqual(table.ids.map(idOf));
      expect(lines[lines.length - 1]).toBe(`{"summary":{"count":${count}}}`);
    }
  });

  it('a range that receives more ids than one read takes is read to its end before the next one', async () => {
    const table = new IdTable(4 * EXPORT_PAGE_SIZE, 10_000);
    let filled = false;
    table.onBoundary = (after, upTo) => {
      if (filled || upTo === null || after === 0) return;
      filled = true;
      // 2,500 writes land in this range between its boundary read and its page read.
      table.insert(Array.from({ length: 2_500 }, (_, i) => after + 1 + i));
    };
    const lines = await readAll(await exportOf(table));
    expect(filled).toBe(true);
    const sent = idsIn(lines);
    expect(sent).toEqual(table.ids.map(idOf));
    expect(new Set(sent).size).toBe(sent.length);
  });

  it('a write before the boundary of the open last range is sent too; nothing is sent twice', async () => {
    const table = new IdTable(EXPORT_PAGE_SIZE + 500, 10);
    table.onBoundary = (_after, upTo) => {
      if (upTo === null) table.insert([table.ids[table.ids.length - 1] + 5]);
    };
    const sent = idsIn(await readAll(await exportOf(table)));
    expect(sent).toEqual(table.ids.map(idOf));
  });

  it('a page that fails cuts the stream: an error, no summary', async () => {
    const table = new IdTable(4 * EXPORT_PAGE_SIZE);
    table.failPage = 3;
    const stream = await exportOf(table);
    await expect(readAll(stream)).rejects.toThrow('connection lost');
  });
});
