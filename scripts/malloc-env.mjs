/**
 * glibc's allocator settings the server runs with (`npm start`, the container, the benchmarks). glibc reads
 * them when a process starts, so they are set in the environment of the server's process, not by the server.
 *
 * Each scrypt hash (a client secret checked at `/oauth/token`) takes 16 MB in a thread of libuv's pool. With
 * glibc's defaults that memory stays in one arena per thread after the hash: the embedded server's resident
 * memory rose from about 300 MB to 360–380 MB with eight token requests. With at most two arenas and large
 * blocks always returned to the system, it stays at 265–280 MB (README, "The embedded database").
 */
export const MALLOC_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' };
