import { configSection } from '../config/env-reader.js';

/** Live changes (docs/live-changes.md): the streams of GET /{projectKey}/messages with `Accept: text/event-stream`. */
export interface LiveConfig {
  /** LIVE_MAX_STREAMS: open streams per server process; past it → 503 with Retry-After. */
  maxStreams: number;
  /** LIVE_MAX_STREAMS_PER_PROJECT: open streams of one project per server process; past it → 503. */
  maxStreamsPerProject: number;
  /** LIVE_KEEP_ALIVE_MS: how often an idle stream gets a `: keep-alive` comment. */
  keepAliveMs: number;
  /** LIVE_POLL_INTERVAL_MS: how often the reader reads the change log when no commit woke it (the fallback of NOTIFY). */
  pollIntervalMs: number;
  /**
   * LIVE_WINDOW_INTERVAL_MS: the least time between two reads of the change log for the streams; each stream gets
   * one write per read, however many messages it holds.
   */
  windowIntervalMs: number;
  /** LIVE_MAX_BUFFERED_BYTES: a stream whose client reads slower than its events come is closed past this much unsent (it resumes by reconnecting). */
  maxBufferedBytes: number;
}

export const liveConfig = configSection('live', (read): LiveConfig => ({
  maxStreams: read.int('LIVE_MAX_STREAMS', 2_000, 0, 1_000_000),
  maxStreamsPerProject: read.int('LIVE_MAX_STREAMS_PER_PROJECT', 200, 0, 1_000_000),
  keepAliveMs: read.int('LIVE_KEEP_ALIVE_MS', 15_000, 100, 600_000),
  pollIntervalMs: read.int('LIVE_POLL_INTERVAL_MS', 1_000, 10, 60_000),
  windowIntervalMs: read.int('LIVE_WINDOW_INTERVAL_MS', 50, 0, 10_000),
  maxBufferedBytes: read.int('LIVE_MAX_BUFFERED_BYTES', 1_048_576, 65_536, 1_073_741_824),
}));
