/**
 * A counting semaphore: at most `size` uploads read and store their bytes at once; the others wait
 * (their clients' bytes wait in TCP buffers), so the memory held by image bodies stays below
 * `size` × the largest image whatever the number of concurrent uploads.
 */
export class UploadSlots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    this.free = size;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
