/** The declaration of malloc-env.mjs, for the TypeScript that starts server processes (the tests). */
export declare const MALLOC_ENV: Readonly<{ MALLOC_ARENA_MAX: string; MALLOC_MMAP_THRESHOLD_: string }>;
