import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the JavaScript heap grow past what the last full collection kept, in percent. V8's own
 * factor depends on how fast it collects and reaches 4×; under load, requests that wait for a database
 * connection or their project's turn outlive two young collections, so their garbage is promoted and the
 * old generation grew to several times its live size before a full collection. V8 reads the factor at
 * every full collection, so setting it at start suffices.
 *
 * - `SERVER`, on PostgreSQL: 2×. `npm run bench`, PostgreSQL mode, 8 s per run: peak RSS 202–260 MB (create)
 *   and 154–259 MB (update) with V8's factor, 179–192 MB with 2× and 166–173 MB with 1.5×. GET kept its rate
 *   at 2× and lost about a sixth at 1.5× (bench/README.md).
 * - `EMBEDDED`, with the database in the process: 1.5×. Peak RSS 357–398 MB with V8's factor, 290–320 MB with
 *   this one, at the same throughput.
 */
export const HEAP_GROWING_PERCENT = { SERVER: 100, EMBEDDED: 50 } as const;

export function limitHeapGrowth(percent: number): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}
