import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the JavaScript heap grow past what the last full collection kept, in percent. V8's own
 * factor depends on how fast it collects and reaches 4×; under load, requests that wait for a database
 * connection or their project's turn outlive two young collections, so their garbage is promoted and the
 * old generation grew to several times its live size before a full collection. V8 reads the factor at
 * every full collection, so setting it at start suffices.
 *
 * - `SERVER`, on PostgreSQL: 2×: the peak memory of writes falls, and reads keep their rate (at 1.5× they
 *   lost some).
 * - `EMBEDDED`, with the database in the process: 1.5×: less peak memory at the same throughput.
 *
 * The figures: docs/performance.md#memory.
 */
export const HEAP_GROWING_PERCENT = { SERVER: 100, EMBEDDED: 50 } as const;

export function limitHeapGrowth(percent: number): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}
