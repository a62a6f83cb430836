import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import pg from 'pg';
import { APPLICATION_NAME, poolOptions } from '../database/data-source-options.js';
import { HORIZON_MARGIN_MS } from '../database/commit-horizon.js';
import { databaseConfig, type DatabaseConfig } from '../database/database.config.js';
import { OpenedDatabaseInfo } from '../database/database.module.js';
import { subscriptionsConfig, type SubscriptionsConfig } from '../subscriptions/subscriptions.config.js';
import { cursorBefore, type LiveCursor } from './live-cursor.js';
import { LiveChangesRepository, type LiveMessage } from './live-changes.repository.js';
import { liveConfig, type LiveConfig } from './live.config.js';
import { eventsText, type LiveFilter, type LiveStream } from './live-stream.js';

/** The channel the `message` trigger notifies (migration 1763700000017). */
const CHANNEL = 'live_messages';
/** A catch-up reads the change log this many messages at a time. */
const CATCH_UP_CHUNK = 500;
/** After a notification, the reader waits this long for more commits to read them in one window. */
const WAKE_DELAY_MS = 5;
/** How long the listening connection waits before it connects again after losing its connection. */
const RELISTEN_DELAY_MS = 1_000;

/**
 * The one reader of the change log for every live stream of this server process (docs/live-changes.md).
 *
 * Its `position` is a time: every stream it serves live has been sent every matching message whose
 * stream position (live-cursor.ts) lies before it. A window reads, in one statement for every project with
 * a stream, the messages from the position up to the commit horizon (database/commit-horizon.ts), read just
 * before: no message can still appear there, so a message committed late is read when the horizon passes
 * its stamp, never skipped, and every server process reads the same windows. Then each distinct filter of
 * the streams (`where`) is evaluated once over the window's messages (`id = ANY (…) AND (<where>)`), each
 * message is rendered once, and the position moves to the horizon.
 *
 * Woken by the commits of writes (`NOTIFY live_messages` from a trigger on `message`; on the embedded
 * database the notification comes back on the connection that committed), and every
 * `LIVE_POLL_INTERVAL_MS` besides (a commit made through another connection, a lost notification). While
 * visible messages wait behind the horizon (a transaction still open), it reads again shortly.
 *
 * Streams with the same filter form a group: a window's matches of a filter are rendered once, as one
 * chunk, and each stream of the group gets that chunk in one write.
 *
 * A stream that resumes (`Last-Event-ID`) first catches up by itself, chunk by chunk, up to the position,
 * then joins the live ones. A stream skips what it was sent already, so joining while a window is read
 * neither loses nor repeats anything.
 */
@Injectable()
export class LiveChangesReader implements OnModuleDestroy {
  private readonly logger = new Logger('LiveChanges');
  /** The streams served live, by filter (`LiveFilter.key`). */
  private readonly live = new Map<string, { filter: LiveFilter; streams: Set<LiveStream> }>();
  /** Every open stream (catching up or live), for keep-alives and the shutdown. */
  private readonly streams = new Set<LiveStream>();
  /** Open streams by project (the per-project limit). */
  private readonly perProject = new Map<string, number>();
  private position?: number;
  private starting?: Promise<number>;
  private running = false;
  private again = false;
  /** When the last window started (performance.now()). */
  private windowStartedAt = -Infinity;
  /** The window being read: the projects it reads, once its statement was sent, and its end. */
  private windowProjects?: Set<string>;
  private windowDone?: Promise<void>;
  private wakeTimer?: NodeJS.Timeout;
  private pollTimer?: NodeJS.Timeout;
  private keepAliveTimer?: NodeJS.Timeout;
  private listener?: pg.Client;
  private listening = false;
  stopped = false;
  private failing = false;
  /** Events written since start (metrics). */
  sent = 0;

  constructor(
    private readonly repository: LiveChangesRepository,
    private readonly opened: OpenedDatabaseInfo,
    @Inject(liveConfig.KEY) private readonly config: LiveConfig,
    @Inject(databaseConfig.KEY) private readonly database: DatabaseConfig,
    @Inject(subscriptionsConfig.KEY) private readonly subscriptions: SubscriptionsConfig,
  ) {}

  get openStreams(): number {
    return this.streams.size;
  }

  /** Open streams of one project. */
  projectStreams(projectKey: string): number {
    return this.perProject.get(projectKey) ?? 0;
  }

  /**
   * Serves `stream`: from `after` (a resumed stream: every retained message after it first), or from
   * now. Resolves once the stream is live (or closed).
   */
  async add(stream: LiveStream, after?: LiveCursor): Promise<void> {
    const project = stream.filter.projectKey;
    this.streams.add(stream);
    this.perProject.set(project, this.projectStreams(project) + 1);
    this.startTimers();
    void this.listen();
    stream.cursor = after;
    let from = after?.at;
    while (!stream.closed && !this.stopped) {
      const position = this.position ?? (await this.start());
      from ??= position;
      if (from >= position) {
        // A window in flight that does not read this project: its messages from `from` are read once it is done.
        if (!this.windowProjects || this.windowProjects.has(project)) break;
        await this.windowDone;
        continue;
      }
      // One chunk: the next CATCH_UP_CHUNK messages by stamp, or up to the position.
      const end = await this.repository.chunkEnd(stream.filter.projectKey, from, CATCH_UP_CHUNK);
      const to = Math.min(position, Math.max(end ?? position, from + 1));
      const window = await this.repository.window([stream.filter.projectKey], from, to, from === after?.at ? after : undefined, {
        end: to,
        lookbackMs: this.subscriptions.lookbackMs,
      });
      const matches = await this.matches(window.messages, [stream.filter]);
      this.sendTo(stream, window.messages.filter(matches.get(stream.filter.key)!));
      from = to;
    }
    if (stream.closed || this.stopped) return;
    // Synchronously after the check above: the next window starts at the position this stream reached.
    let group = this.live.get(stream.filter.key);
    if (!group) this.live.set(stream.filter.key, (group = { filter: stream.filter, streams: new Set() }));
    group.streams.add(stream);
  }

  remove(stream: LiveStream): void {
    if (!this.streams.delete(stream)) return;
    const project = stream.filter.projectKey;
    const count = this.projectStreams(project) - 1;
    if (count > 0) this.perProject.set(project, count);
    else this.perProject.delete(project);
    const group = this.live.get(stream.filter.key);
    group?.streams.delete(stream);
    if (group?.streams.size === 0) this.live.delete(stream.filter.key);
    if (this.streams.size === 0) this.idle();
  }

  /** Wakes the reader (a commit was notified): a window soon, several commits together, one window at a time. */
  wake(): void {
    if (this.running) this.again = true;
    else this.schedule(WAKE_DELAY_MS);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    // The clients reconnect (to another process, or to this one once it is back) and resume from their last id.
    for (const stream of [...this.streams]) stream.end();
    this.idle();
    await this.listener?.end().catch(() => undefined);
  }

  /** The first position: the horizon now (a stream without a cursor gets what commits from then on). */
  private start(): Promise<number> {
    this.starting ??= this.repository
      .horizon(this.subscriptions.lookbackMs)
      .then((horizon) => {
        this.position ??= horizon;
        return this.position;
      })
      .finally(() => (this.starting = undefined));
    return this.starting;
  }

  /** No stream left: nothing is read until the next one opens. */
  private idle(): void {
    this.position = undefined;
    for (const timer of [this.pollTimer, this.keepAliveTimer, this.wakeTimer]) if (timer) clearInterval(timer);
    this.pollTimer = this.keepAliveTimer = this.wakeTimer = undefined;
  }

  private startTimers(): void {
    if (this.pollTimer || this.stopped) return;
    this.pollTimer = setInterval(() => this.run(), this.config.pollIntervalMs);
    this.keepAliveTimer = setInterval(() => {
      for (const stream of this.streams) stream.keepAlive();
    }, this.config.keepAliveMs);
    this.pollTimer.unref();
    this.keepAliveTimer.unref();
  }

  /**
   * A window in `delay` ms, or once LIVE_WINDOW_INTERVAL_MS have passed since the last one started: under a
   * steady write load each stream gets one write per window holding all its messages, not one per commit.
   */
  private schedule(delay: number): void {
    if (this.wakeTimer || this.live.size === 0 || this.stopped) return;
    const wait = Math.max(delay, this.windowStartedAt + this.config.windowIntervalMs - performance.now());
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      this.run();
    }, wait);
  }

  /** Reads one window; asked again meanwhile, the next one follows it. */
  private run(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.wakeTimer);
    this.wakeTimer = undefined;
    this.running = true;
    this.again = false;
    this.windowStartedAt = performance.now();
    this.windowDone = this.readWindow()
      .then(
        (pending) => {
          if (this.failing) this.logger.log('the change log answers again');
          this.failing = false;
          return pending;
        },
        (error: unknown) => {
          if (!this.failing) this.logger.warn(`reading the change log failed, retrying: ${error instanceof Error ? error.message : String(error)}`);
          this.failing = true;
          return false;
        },
      )
      .then((pending) => {
        this.running = false;
        this.windowProjects = this.windowDone = undefined;
        if (this.again) this.schedule(0);
        // Visible messages wait behind the horizon: read again once it has likely passed them.
        else if (pending) this.schedule(HORIZON_MARGIN_MS);
      });
  }

  /** Reads the next window and sends it to the live streams; whether messages wait behind the horizon. */
  private async readWindow(): Promise<boolean> {
    const from = this.position;
    if (from === undefined || this.live.size === 0) return false;
    const horizon = await this.repository.horizon(this.subscriptions.lookbackMs);
    if (horizon <= from) return true;
    this.windowProjects = new Set([...this.live.values()].map((group) => group.filter.projectKey));
    const window = await this.repository.window([...this.windowProjects], from, horizon, undefined);
    const matches = new Map<string, (message: LiveMessage) => boolean>();
    // Streams that joined meanwhile with another filter are evaluated too, before anything is sent.
    let filters: LiveFilter[];
    while ((filters = [...this.live.values()].map((group) => group.filter).filter((f) => !matches.has(f.key))).length > 0) {
      for (const [key, match] of await this.matches(window.messages, filters)) matches.set(key, match);
    }
    if (this.position !== from) return window.pending;
    for (const { filter, streams } of this.live.values()) {
      const messages = window.messages.filter(matches.get(filter.key)!);
      if (messages.length === 0) continue;
      const events = eventsText(messages);
      for (const stream of streams) this.sendTo(stream, messages, events);
    }
    // A stream closed meanwhile may have been the last one: then nothing is read until the next one opens.
    if (this.position === from) this.position = horizon;
    return window.pending;
  }

  /** For each filter (by key), whether a message of `messages` matches it: one statement per filter with a `where`. */
  private async matches(messages: LiveMessage[], filters: LiveFilter[]): Promise<Map<string, (message: LiveMessage) => boolean>> {
    const result = new Map<string, (message: LiveMessage) => boolean>();
    await Promise.all(
      filters.map(async (filter) => {
        const ids = messages.filter((m) => m.projectKey === filter.projectKey).map((m) => m.id);
        if (filter.all || ids.length === 0) {
          result.set(filter.key, (m) => m.projectKey === filter.projectKey);
          return;
        }
        const matching = await this.repository.matching(filter.projectKey, filter.where, filter.values, ids);
        result.set(filter.key, (m) => matching.has(m.id));
      }),
    );
    return result;
  }

  /**
   * Sends `messages` (in stream order; `events`: their text when already built) but those the stream was
   * sent already (it resumed after a cursor this process had not reached).
   */
  private sendTo(stream: LiveStream, messages: LiveMessage[], events?: Buffer): void {
    const cursor = stream.cursor;
    if (cursor && messages.length > 0 && !cursorBefore(cursor, messages[0])) {
      messages = messages.filter((message) => cursorBefore(cursor, message));
      events = undefined;
    }
    if (messages.length === 0) return;
    stream.send(messages, events ?? eventsText(messages));
    this.sent += messages.length;
  }

  /**
   * LISTEN once, on the first stream. PostgreSQL: a connection of its own, opened again when it is lost
   * (the poll covers the gap). Embedded: the one session listens, and the notification comes back on the
   * pool's connection that committed.
   */
  private async listen(): Promise<void> {
    if (this.listening || this.stopped) return;
    this.listening = true;
    try {
      if (this.opened.embedded) {
        const pool = this.repository.pool;
        pool.on('connect', (client) => this.hear(client));
        const client = await pool.connect();
        try {
          this.hear(client);
          await client.query(`LISTEN ${CHANNEL}`);
        } finally {
          client.release();
        }
        return;
      }
      const options = poolOptions(this.database);
      const client = new pg.Client({ connectionString: this.database.url, application_name: APPLICATION_NAME, connectionTimeoutMillis: options.connectionTimeoutMillis });
      this.listener = client;
      client.on('notification', () => this.wake());
      client.on('error', () => undefined);
      client.on('end', () => {
        if (this.listener !== client || this.stopped) return;
        this.listener = undefined;
        this.listening = false;
        setTimeout(() => {
          this.wake();
          void this.listen();
        }, RELISTEN_DELAY_MS).unref();
      });
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      this.logger.warn(`LISTEN ${CHANNEL} failed, streams are read every ${this.config.pollIntervalMs} ms: ${error instanceof Error ? error.message : String(error)}`);
      await this.listener?.end().catch(() => undefined);
      this.listener = undefined;
      this.listening = false;
    }
  }

  private readonly heard = new WeakSet<pg.ClientBase>();

  private hear(client: pg.ClientBase): void {
    if (this.heard.has(client)) return;
    this.heard.add(client);
    client.on('notification', (n) => {
      if (n.channel === CHANNEL) this.wake();
    });
  }
}
