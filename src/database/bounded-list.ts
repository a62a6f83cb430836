import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';

/**
 * Bytes of a page's items per row of its answer. A page is answered in rows of about this size (an item
 * is never split), so neither the database nor the driver holds the page as one value: built as one,
 * a 75 MB page cost PGlite about 610 MB of memory it keeps (the aggregate's buffer doubles, the
 * concatenation and the protocol message copy it again), built in rows of this size about 150 MB
 * (docs/performance.md#memory). A page within the first bound of `ListAnswers` (1 MiB) is one or two rows.
 */
const CHUNK_BYTES = 1_048_576;

/**
 * SQL of a list answer's items as JSON text, never built past `max` bytes (the bound `ListAnswers`
 * passes: at most `HTTP_MAX_RESPONSE_BYTES`, docs/rules.md#limits). `rows` is a query with the columns `j`
 * (one item's JSON text) and `n` (its position). A running sum of the items' sizes marks those past the
 * bound; only the others are aggregated, so neither the database nor this process ever holds more than
 * `max` bytes of the page. Answers one row per `CHUNK_BYTES` of items, each with `chunk` (its place),
 * `results` (its items joined by commas; NULL in every row when the page is larger than `max`) and `count`
 * (the items of the whole page); an empty page is one row with `results` ''. `joinChunks` makes them one page.
 */
export function boundedItems(rows: string, max: string): string {
  return `SELECT coalesce(sum(g.count) OVER (), 0)::integer AS count,
            CASE WHEN bool_or(g.past) OVER () THEN NULL ELSE coalesce(g.items, '') END AS results,
            coalesce(g.chunk, 0)::integer AS chunk
          FROM (SELECT 1) one
          LEFT JOIN (SELECT w.chunk, count(*) AS count, bool_or(w.past) AS past,
                            string_agg(w.j, ',' ORDER BY w.n) FILTER (WHERE NOT w.past) AS items
                     FROM (SELECT y.j, y.n, y.upto > ${max} AS past, (y.upto - octet_length(y.j) - 1) / ${CHUNK_BYTES} AS chunk
                           FROM (SELECT x.j, x.n, sum(octet_length(x.j) + 1) OVER (ORDER BY x.n) AS upto FROM (${rows}) x) y) w
                     GROUP BY w.chunk) g ON true`;
}

/** A row of `boundedItems`, with whatever else its statement selects. */
export interface ItemChunk {
  count: number;
  results: string | null;
  chunk: number;
}

/**
 * The rows of a `boundedItems` statement as one page: the first row's other columns, and `results` the
 * items' JSON array (`[…]`), or null when the page is larger than its bound.
 */
export function joinChunks<R extends ItemChunk>(rows: R[]): Omit<R, 'chunk'> {
  const { chunk: _chunk, ...first } = rows[0];
  if (first.results === null) return first;
  const texts = rows.length === 1 ? [first.results] : [...rows].sort((a, b) => a.chunk - b.chunk).map((row) => row.results);
  return { ...first, results: `[${texts.join(',')}]` };
}

/**
 * 400 InvalidInput: an answer that would pass `maxBytes`, the bound it was built under. `ListAnswers`
 * tells it from other errors: under its small first bound, it builds the answer again under the full one.
 */
export class AnswerTooLarge extends DomainError {
  constructor(
    readonly maxBytes: number,
    remedy: string,
  ) {
    super([{ code: ErrorCode.InvalidInput, message: `The answer would be larger than ${maxBytes} bytes (HTTP_MAX_RESPONSE_BYTES): ${remedy}.` }]);
  }
}

/** An answer (a page's items, by default) that would pass `maxBytes`, and what to ask instead. */
export function tooLarge(maxBytes: number, remedy = 'ask for a smaller limit, and page through the results'): AnswerTooLarge {
  return new AnswerTooLarge(maxBytes, remedy);
}
