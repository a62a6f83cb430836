import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { DomainError } from '../common/domain-error.js';
import { jest } from '@jest/globals';
import { RATE_GRACE_MS, readLimited } from './image-upload.js';
import { UploadSlots } from './upload-slots.js';

/** Reading an upload within its limits, and the slots that bound concurrent uploads. */

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function failure(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a failure');
}

describe('readLimited', () => {
  const limits = { maxBytes: 100, idleTimeoutMs: 1_000, minBytesPerSecond: 0 };

  it('reads a body in pieces and hashes it', async () => {
    const body = Buffer.from('x'.repeat(100));
    const stream = new PassThrough();
    const read = readLimited(stream, limits);
    stream.write(body.subarray(0, 30));
    stream.write(body.subarray(30, 99));
    stream.end(body.subarray(99));
    const { bytes, sha256: hash } = await read;
    expect(bytes.equals(body)).toBe(true);
    expect(hash).toBe(sha256(body));
  });

  it('an empty body is zero bytes with the hash of nothing', async () => {
    const stream = new PassThrough();
    const read = readLimited(stream, limits);
    stream.end();
    const { bytes, sha256: hash } = await read;
    expect(bytes.length).toBe(0);
    expect(hash).toBe(sha256(Buffer.alloc(0)));
  });

  it('413 as soon as the limit is passed, without waiting for the end', async () => {
    const stream = new PassThrough();
    const read = readLimited(stream, limits);
    stream.write(Buffer.alloc(60));
    stream.write(Buffer.alloc(41));
    const error = await failure(read);
    expect(error.status).toBe(413);
    expect(stream.writableEnded).toBe(false);
  });

  it('400 when, after the first seconds, the body arrives slower than the minimum rate; not before', async () => {
    jest.useFakeTimers({ now: 0 });
    try {
      const stream = new PassThrough();
      const read = readLimited(stream, { maxBytes: 1_000_000, idleTimeoutMs: 60_000, minBytesPerSecond: 100 });
      let settled = false;
      void read.then(() => (settled = true), () => (settled = true));
      for (let second = 1; second < RATE_GRACE_MS / 1000; second++) {
        stream.write(Buffer.alloc(1));
        await jest.advanceTimersByTimeAsync(1_000);
      }
      expect(settled).toBe(false);
      await jest.advanceTimersByTimeAsync(2_000);
      const error = await failure(read);
      expect(error.status).toBe(400);
      expect(error.message).toMatch(/too slow: it must send at least 100 bytes a second/);
    } finally {
      jest.useRealTimers();
    }
  });

  it('a body at the minimum rate is read to its end', async () => {
    jest.useFakeTimers({ now: 0 });
    try {
      const stream = new PassThrough();
      const read = readLimited(stream, { maxBytes: 1_000_000, idleTimeoutMs: 60_000, minBytesPerSecond: 100 });
      for (let second = 0; second < 10; second++) {
        stream.write(Buffer.alloc(100));
        await jest.advanceTimersByTimeAsync(1_000);
      }
      stream.end();
      expect((await read).bytes.length).toBe(1_000);
    } finally {
      jest.useRealTimers();
    }
  });

  it('400 when the stream fails or closes before its end', async () => {
    const broken = new PassThrough();
    const read = readLimited(broken, limits);
    broken.destroy(new Error('socket hang up'));
    expect((await failure(read)).status).toBe(400);
    const closed = new PassThrough();
    const read2 = readLimited(closed, limits);
    closed.write(Buffer.alloc(10));
    closed.destroy();
    expect((await failure(read2)).status).toBe(400);
  });

  it('400 when nothing arrives for the idle timeout', async () => {
    const stream = new PassThrough();
    const read = readLimited(stream, { maxBytes: 100, idleTimeoutMs: 50, minBytesPerSecond: 0 });
    stream.write(Buffer.alloc(10));
    const error = await failure(read);
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/stalled/);
  });

  it('property: accepts exactly the bodies of at most maxBytes, whatever the chunking', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 8 }), async (pieces) => {
        const body = Buffer.concat(pieces.map((p) => Buffer.from(p)));
        const stream = new PassThrough();
        const read = readLimited(stream, limits).then(
          (result) => result,
          (error: DomainError) => error,
        );
        for (const piece of pieces) stream.write(Buffer.from(piece));
        stream.end();
        const result = await read;
        if (body.length > limits.maxBytes) return result instanceof DomainError && result.status === 413;
        return !(result instanceof DomainError) && result.bytes.equals(body) && result.sha256 === sha256(body);
      }),
    );
  });
});

describe('UploadSlots', () => {
  it('runs at most `size` tasks at once, in arrival order, and frees a slot on failure', async () => {
    const slots = new UploadSlots(2);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const task = (n: number, fail = false) =>
      slots.run(async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push(n);
        running--;
        if (fail) throw new Error('boom');
        return n;
      });
    const results = await Promise.allSettled([task(1), task(2, true), task(3), task(4), task(5)]);
    expect(peak).toBe(2);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(order.slice(2).sort()).toEqual([3, 4, 5]);
    expect(await task(6)).toBe(6);
  });
});
