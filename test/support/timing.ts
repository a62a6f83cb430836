export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A timeout for `Promise.race` that does not keep the process alive once the race is decided. */
export const deadline = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());
