import { BodyInterruptedError, ndjsonLines, NdjsonSplitter, type NdjsonEnd, type NdjsonLine } from './ndjson-lines.js';

async function collect(chunks: Array<string | Buffer>, limits = { maxLineBytes: 10, maxBytes: 1_000 }): Promise<{ lines: NdjsonLine[]; end: NdjsonEnd }> {
  async function* body() {
    for (const chunk of chunks) yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
  }
  const lines: NdjsonLine[] = [];
  const it = ndjsonLines(body(), limits);
  for (;;) {
    const step = await it.next();
    if (step.done) return { lines, end: step.value };
    lines.push(step.value);
  }
}

describe('ndjsonLines', () => {
  it('numbers every line, skips blank ones, strips \\r, keeps a last line without newline', async () => {
    const { lines, end } = await collect(['a\n\n  \nb\r', '\nc']);
    expect(lines).toEqual([
      { number: 1, text: 'a', bytes: 1 },
      { number: 4, text: 'b', bytes: 2 },
      { number: 5, text: 'c', bytes: 1 },
    ]);
    expect(end).toEqual({ reason: 'end' });
  });

  it('joins a line split across chunks, multi-byte characters included', async () => {
    const euro = Buffer.from('€');
    const { lines } = await collect([Buffer.concat([Buffer.from('x'), euro.subarray(0, 1)]), Buffer.concat([euro.subarray(1), Buffer.from('y\n')])]);
    expect(lines).toEqual([{ number: 1, text: 'x€y', bytes: 5 }]);
  });

  it('reports a line longer than maxLineBytes without its text, however it is split, and goes on', async () => {
    const { lines } = await collect(['0123456789A', 'BCDEF', '\nok\n', 'x'.repeat(30), '\n']);
    expect(lines).toEqual([
      { number: 1, text: undefined, bytes: 16 },
      { number: 2, text: 'ok', bytes: 2 },
      { number: 3, text: undefined, bytes: 30 },
    ]);
  });

  it('stops at maxBytes: the lines whose newline came before it, then `limit`', async () => {
    const { lines, end } = await collect(['aa\nbb\ncc\n', 'dd\n'], { maxLineBytes: 10, maxBytes: 7 });
    expect(lines.map((l) => l.text)).toEqual(['aa', 'bb']);
    expect(end).toEqual({ reason: 'limit', lastLine: 2 });
  });

  it('no chunk for idleTimeoutMs while one is awaited: the lines so far, then `stalled`; a slow but steady body is read whole', async () => {
    async function* stalling() {
      yield Buffer.from('a\nb\n');
      await new Promise(() => undefined);
    }
    const lines: string[] = [];
    const it = ndjsonLines(stalling(), { maxLineBytes: 10, maxBytes: 1_000, idleTimeoutMs: 50 });
    let step = await it.next();
    for (; !step.done; step = await it.next()) lines.push(step.value.text ?? '');
    expect([lines, step.value]).toEqual([['a', 'b'], { reason: 'stalled', lastLine: 2 }]);

    async function* steady() {
      for (const text of ['c\n', 'd\n', 'e']) {
        await new Promise((resolve) => setTimeout(resolve, 30));
        yield Buffer.from(text);
      }
    }
    const steadyLines: string[] = [];
    const again = ndjsonLines(steady(), { maxLineBytes: 10, maxBytes: 1_000, idleTimeoutMs: 50 });
    let next = await again.next();
    for (; !next.done; next = await again.next()) steadyLines.push(next.value.text ?? '');
    expect([steadyLines, next.value]).toEqual([['c', 'd', 'e'], { reason: 'end' }]);
  });

  it('a body cut by the network rejects, without the line it cut', async () => {
    async function* body() {
      yield Buffer.from('a\nb');
      throw new Error('aborted');
    }
    const it = ndjsonLines(body(), { maxLineBytes: 10, maxBytes: 100 });
    expect((await it.next()).value).toEqual({ number: 1, text: 'a', bytes: 1 });
    await expect(it.next()).rejects.toBeInstanceOf(BodyInterruptedError);
  });

  it('the splitter alone: a line exactly maxLineBytes long is kept', () => {
    const splitter = new NdjsonSplitter(3);
    expect(splitter.push(Buffer.from('abc\nabcd\n'))).toEqual([
      { number: 1, text: 'abc', bytes: 3 },
      { number: 2, text: undefined, bytes: 4 },
    ]);
  });
});
