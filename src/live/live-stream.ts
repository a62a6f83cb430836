import type { ServerResponse } from 'node:http';
import { formatCursor, type LiveCursor } from './live-cursor.js';
import type { LiveMessage } from './live-changes.repository.js';

/**
 * Which messages a stream wants: its project's, matching `where` (as SQL of the message catalogue, values
 * from `$2`). Streams with the same `key` are given the same answer, evaluated once per window.
 */
export interface LiveFilter {
  projectKey: string;
  key: string;
  /** No `where`: every message of the project. */
  all: boolean;
  where: string;
  values: unknown[];
}

/** Why a stream ended: sent as `event: end` when the client should know. */
export type EndReason = 'token_expired';

/**
 * One open stream: the answer of one request, written as Server-Sent Events (docs/live-changes.md). Holds
 * its socket, filter, the last position it sent and its token's expiry timer; nothing else (the messages
 * are read once per window for all streams).
 */
export class LiveStream {
  /** The position of the last message sent (or the one the stream resumed after). */
  cursor?: LiveCursor;
  closed = false;
  private expiry?: NodeJS.Timeout;

  constructor(
    readonly filter: LiveFilter,
    private readonly raw: ServerResponse,
    private readonly maxBufferedBytes: number,
    private readonly onClose: (stream: LiveStream) => void,
  ) {
    raw.once('close', () => this.close());
  }

  /** Ends the stream with `event: end` when the token expires (`expiresAt`: ms since the epoch). */
  endAt(expiresAt: number): void {
    const wait = Math.max(0, expiresAt - Date.now());
    // setTimeout holds at most 2^31 - 1 ms (24.8 days); a token living longer is checked again then.
    this.expiry = setTimeout(() => (wait > 2_147_483_647 ? this.endAt(expiresAt) : this.end('token_expired')), Math.min(wait, 2_147_483_647));
    this.expiry.unref();
  }

  /**
   * Sends a window's (or a catch-up chunk's) `messages`, in stream order, in one write: `events` is their
   * text (`eventsText`), built once for every stream given the same messages.
   */
  send(messages: readonly LiveMessage[], events: Buffer): void {
    const last = messages.at(-1)!;
    this.cursor = { at: last.at, resourceId: last.resourceId, sequenceNumber: last.sequenceNumber };
    this.write(events);
  }

  event(name: string, data: unknown): void {
    this.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  keepAlive(): void {
    this.write(': keep-alive\n\n');
  }

  /** Ends the stream; with a reason, tells the client why first. */
  end(reason?: EndReason): void {
    if (this.closed) return;
    if (reason) this.event('end', { reason });
    // Its socket too, once the end is written: a client that half-closed its side would otherwise keep it open.
    this.raw.end(() => this.raw.destroy());
    this.close();
  }

  private write(text: string | Buffer): void {
    if (this.closed) return;
    this.raw.write(text);
    // A client that reads slower than its events come: closed, it reconnects and resumes from its last id.
    if (this.raw.writableLength > this.maxBufferedBytes) {
      this.raw.destroy();
      this.close();
    }
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    // The client went away without the answer ending: its half-closed connection would hold the server's close.
    if (!this.raw.writableEnded) this.raw.destroy();
    if (this.expiry) clearTimeout(this.expiry);
    this.onClose(this);
  }
}

/** The events of `messages` as one chunk of the stream; each message's event text is built once and kept on it. */
export function eventsText(messages: readonly LiveMessage[]): Buffer {
  return Buffer.from(messages.map(eventText).join(''));
}

function eventText(message: LiveMessage): string {
  return (message.event ??= `id: ${formatCursor(message)}\nevent: message\ndata: ${dataLines(message.json)}\n\n`);
}

/** JSON text on `data:` lines: a line break inside (whitespace of a stored payload) continues on the next `data:` line. */
function dataLines(json: string): string {
  return /[\r\n]/.test(json) ? json.replace(/\r\n|\r|\n/g, '\ndata: ') : json;
}
