/** The declaration of server-env.mjs, for the TypeScript that starts server processes (the tests). */
export declare const SERVER_ENV: Readonly<{ MALLOC_ARENA_MAX: string; MALLOC_MMAP_THRESHOLD_: string; NODE_OPTIONS: string }>;
