import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';

/**
 * SQL of a list answer's items joined into one JSON array text that is never built past `max` bytes
 * (the bound `ListAnswers` passes: at most `HTTP_MAX_RESPONSE_BYTES`, docs/rules.md#limits). `rows` is a query with the
 * columns `j` (one item's JSON text) and `n` (its position). A running sum of the items' sizes marks
 * those past the bound; only the others are aggregated, so neither PostgreSQL nor this process ever
 * holds more than `max` bytes of the page. Answers `count` (the items of the page) and `results`: `[…]`, or NULL when the page is larger
 * than `max` (`tooLarge` is the error to answer then).
 */
export function boundedItems(rows: string, max: string): string {
  return `SELECT count(*)::integer AS count,
            CASE WHEN bool_or(w.past) THEN NULL
                 ELSE '[' || coalesce(string_agg(w.j, ',' ORDER BY w.n) FILTER (WHERE NOT w.past), '') || ']' END AS results
          FROM (SELECT x.j, x.n, sum(octet_length(x.j) + 1) OVER (ORDER BY x.n) > ${max} AS past FROM (${rows}) x) w`;
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
