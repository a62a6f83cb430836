/**
 * The environment the server starts with (`npm start`, the container, the benchmarks, the tests' server
 * processes): settings that glibc and Node read when a process starts, so they are set in the environment of
 * the server's process, not by the server. An operator's own values win.
 *
 * glibc's allocator: each scrypt hash (a client secret checked at `/oauth/token`) takes 16 MB in a thread of
 * libuv's pool. With glibc's defaults that memory stays in one arena per thread after the hash: the embedded
 * server's resident memory rose from about 300 MB to 360–380 MB with eight token requests. With at most two
 * arenas and large blocks always returned to the system, it stays at 265–280 MB (docs/performance.md#memory).
 *
 * V8's young generation (`--max-semi-space-size`, MB; V8's default on 64-bit is 16): a request's objects die
 * young, and every scavenge of the young generation costs the event loop. With 32 a create cost the server
 * 165–190 µs of CPU instead of 199–218 and a GET 70–72 instead of 71–80, for 22–36 MB more resident memory at
 * the peak under load (bench/README, "A larger young generation").
 */
export const SERVER_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072', NODE_OPTIONS: '--max-semi-space-size=32' };
