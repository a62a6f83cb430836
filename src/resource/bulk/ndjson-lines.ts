/**
 * Splits an NDJSON body into its lines as it arrives, in bounded memory: a line is held until its
 * newline (at most `maxLineBytes` of it; a longer one is dropped as it streams and reported too long),
 * and no more than `maxBytes` of the body is ever read.
 */

/** One non-blank line of the body. */
export interface NdjsonLine {
  /** 1-based, counting every line of the body, blank ones included. */
  number: number;
  /** The line's text (without its `\n` or `\r\n`); absent when the line was longer than `maxLineBytes`. */
  text?: string;
  /** The line's length in bytes. */
  bytes: number;
}

/** Where the body stopped: at its end, or at `maxBytes` (the rest was not read, the line cut there dropped). */
export type NdjsonEnd = { reason: 'end' } | { reason: 'limit' | 'stalled'; lastLine: number };

interface NdjsonLimits {
  maxLineBytes: number;
  maxBytes: number;
  /** No chunk for this long while one is awaited ends the lines (`stalled`); absent: no bound. */
  idleTimeoutMs?: number;
}

/** The body ended before its end: the client went away, or the connection broke. */
export class BodyInterruptedError extends Error {
  constructor(cause: unknown) {
    super('The request body was interrupted.', { cause });
  }
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** Splits chunks into lines; `push` and `finish` return the complete non-blank lines. */
export class NdjsonSplitter {
  private parts: Buffer[] = [];
  private held = 0;
  private length = 0;
  private number = 1;

  constructor(private readonly maxLineBytes: number) {}

  /** The number of the line being read (the next one to complete). */
  get current(): number {
    return this.number;
  }

  push(chunk: Buffer): NdjsonLine[] {
    const lines: NdjsonLine[] = [];
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      this.hold(chunk.subarray(start, end));
      const line = this.complete();
      if (line) lines.push(line);
      start = end + 1;
    }
    if (start < chunk.length) this.hold(chunk.subarray(start));
    return lines;
  }

  /** The last line when the body ends without a newline. */
  finish(): NdjsonLine | undefined {
    return this.length > 0 ? this.complete() : undefined;
  }

  private hold(part: Buffer): void {
    this.length += part.length;
    if (this.held + part.length <= this.maxLineBytes + 1) {
      // Copied: the chunk's memory is not kept alive by a slice of it.
      this.parts.push(Buffer.from(part));
      this.held += part.length;
    } else {
      this.parts = [];
      this.held = this.maxLineBytes + 2;
    }
  }

  private complete(): NdjsonLine | undefined {
    const number = this.number++;
    const bytes = this.length;
    let text: string | undefined;
    if (this.held <= this.maxLineBytes + 1) {
      let buffer = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts);
      if (buffer.length > 0 && buffer[buffer.length - 1] === CARRIAGE_RETURN) buffer = buffer.subarray(0, -1);
      text = buffer.length > this.maxLineBytes ? undefined : buffer.toString('utf8');
    }
    this.parts = [];
    this.held = 0;
    this.length = 0;
    if (text !== undefined && text.trim() === '') return undefined;
    return { number, text, bytes };
  }
}

/**
 * The lines of `body` as they arrive, then how it ended. Reading stops at `maxBytes`: the lines whose
 * newline came before it are yielded, and the end says `limit`. No chunk for `idleTimeoutMs` while one is
 * awaited ends it the same way with `stalled`. A body cut by the network rejects with
 * BodyInterruptedError (the line it cut is not yielded).
 */
export async function* ndjsonLines(body: AsyncIterable<Buffer>, limits: NdjsonLimits): AsyncGenerator<NdjsonLine, NdjsonEnd> {
  const splitter = new NdjsonSplitter(limits.maxLineBytes);
  const chunks = body[Symbol.asyncIterator]();
  let read = 0;
  for (;;) {
    let step: IteratorResult<Buffer> | typeof STALLED;
    try {
      step = await nextChunk(chunks, limits.idleTimeoutMs);
    } catch (error) {
      throw new BodyInterruptedError(error);
    }
    // The body is left as it is: the answer ends first, then the connection closes (body-parsers.ts).
    if (step === STALLED) return { reason: 'stalled', lastLine: splitter.current - 1 };
    if (step.done) break;
    const chunk = step.value;
    const room = limits.maxBytes - read;
    read += chunk.length;
    if (chunk.length > room) {
      yield* splitter.push(chunk.subarray(0, room));
      return { reason: 'limit', lastLine: splitter.current - 1 };
    }
    yield* splitter.push(chunk);
  }
  const last = splitter.finish();
  if (last) yield last;
  return { reason: 'end' };
}

const STALLED = Symbol('stalled');

/** The next chunk, or STALLED when none came within `timeoutMs`. */
async function nextChunk(chunks: AsyncIterator<Buffer>, timeoutMs: number | undefined): Promise<IteratorResult<Buffer> | typeof STALLED> {
  if (timeoutMs === undefined) return chunks.next();
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<typeof STALLED>((resolve) => (timer = setTimeout(resolve, timeoutMs, STALLED)));
  try {
    return await Promise.race([chunks.next(), stalled]);
  } finally {
    clearTimeout(timer);
  }
}
