/**
 * A Server-Sent Events client for tests: a real HTTP request (Node's fetch) whose answer is parsed as the
 * text/event-stream format as it arrives (events, ids, comments), with waits on what came.
 */

export interface StreamEvent {
  id?: string;
  event: string;
  data: string;
}

export class EventStreamClient {
  readonly events: StreamEvent[] = [];
  comments: string[] = [];
  status = 0;
  headers?: Headers;
  /** The answer's body when it was not a stream (an error envelope). */
  body?: string;
  ended = false;
  private readonly abort = new AbortController();
  private readonly done: Promise<void>;
  private wakers: Array<() => void> = [];

  constructor(url: string, headers: Record<string, string> = {}) {
    this.done = this.read(url, headers);
  }

  /** Resolves once the status and headers arrived. */
  async opened(timeoutMs = 10_000): Promise<this> {
    await this.until(() => this.status !== 0, timeoutMs, 'the answer');
    return this;
  }

  messages(): StreamEvent[] {
    return this.events.filter((e) => e.event === 'message');
  }

  /** Waits until `count` message events arrived. */
  async waitMessages(count: number, timeoutMs = 15_000): Promise<StreamEvent[]> {
    await this.until(() => this.messages().length >= count, timeoutMs, `${count} messages (got ${this.messages().length})`);
    return this.messages();
  }

  async until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; events: ${JSON.stringify(this.events).slice(0, 2000)}`);
      if (this.ended && !check()) throw new Error(`stream ended before ${what}; events: ${JSON.stringify(this.events).slice(0, 2000)}; body: ${this.body}`);
      await new Promise<void>((resolve) => {
        this.wakers.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  close(): Promise<void> {
    this.abort.abort();
    return this.done;
  }

  private notify(): void {
    const wakers = this.wakers;
    this.wakers = [];
    for (const wake of wakers) wake();
  }

  private async read(url: string, headers: Record<string, string>): Promise<void> {
    try {
      const res = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: this.abort.signal });
      this.headers = res.headers;
      this.status = res.status;
      this.notify();
      if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        this.body = await res.text();
        return;
      }
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          this.parse(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
        this.notify();
      }
    } catch (error) {
      if ((error as Error).name !== 'AbortError') this.body = `${this.body ?? ''}${String(error)}`;
    } finally {
      this.ended = true;
      this.notify();
    }
  }

  private parse(block: string): void {
    const event: StreamEvent = { event: 'message', data: '' };
    const data: string[] = [];
    let fields = 0;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        this.comments.push(line.slice(1).trim());
        continue;
      }
      const colon = line.indexOf(':');
      const name = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      fields++;
      if (name === 'id') event.id = value;
      else if (name === 'event') event.event = value;
      else if (name === 'data') data.push(value);
    }
    if (fields === 0) return;
    event.data = data.join('\n');
    this.events.push(event);
  }
}
