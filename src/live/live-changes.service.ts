import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { changeLogConfig, type ChangeLogConfig } from '../change-log/change-log.config.js';
import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import { MESSAGE_CATALOGUE } from '../query-language/message.catalogue.js';
import { predicatePlan } from '../query-language/predicate-query.js';
import type { Variables } from '../query-language/where-sql.js';
import { LiveChangesReader } from './live-changes.reader.js';
import { LiveChangesRepository } from './live-changes.repository.js';
import { parseCursor, type LiveCursor } from './live-cursor.js';
import { LiveStream, type LiveFilter } from './live-stream.js';
import { liveConfig, type LiveConfig } from './live.config.js';
import { PAGE_PARAMETERS, type LiveQueryDto } from './live.dto.js';

const DAY_MS = 86_400_000;
/** Retry-After of a stream refused for the limits, in seconds: a client retries soon, maybe on another replica. */
const RETRY_AFTER_SECONDS = '5';

/** What a request for a stream brings: its project, query, variables, `Last-Event-ID` and its token's expiry (s). */
export interface LiveRequest {
  projectKey: string;
  query: LiveQueryDto;
  variables: Variables;
  lastEventId?: string;
  tokenExpiresAt: number;
}

/**
 * Opens live streams (docs/live-changes.md): checks the request (the page's parameters, the cursor, `where`
 * through the message catalogue as the page does, the limits), answers the stream's headers, sends
 * `event: gap` when the cursor is older than the retained messages, and hands the stream to the reader.
 */
@Injectable()
export class LiveChangesService {
  constructor(
    private readonly reader: LiveChangesReader,
    private readonly repository: LiveChangesRepository,
    @Inject(liveConfig.KEY) private readonly config: LiveConfig,
    @Inject(changeLogConfig.KEY) private readonly changeLog: ChangeLogConfig,
  ) {}

  async open(request: LiveRequest, reply: FastifyReply): Promise<void> {
    const given = PAGE_PARAMETERS.filter((name) => request.query[name] !== undefined);
    if (given.length > 0) throw DomainError.invalidInput(`${given.join(', ')}: not allowed with Accept: text/event-stream (a live stream has no pages).`);
    const cursorText = request.lastEventId ?? request.query.lastEventId;
    let cursor: LiveCursor | undefined;
    if (cursorText !== undefined) {
      cursor = parseCursor(cursorText.trim());
      if (!cursor) throw DomainError.invalidInput(`Malformed Last-Event-ID '${cursorText.slice(0, 100)}': resume with the id of an event of this stream.`);
    }
    const filter = this.filter(request);
    this.checkLimits(request.projectKey);
    const gap = cursor ? await this.gap(request.projectKey, cursor) : undefined;
    // Checked again: another stream may have opened while the gap was looked for.
    this.checkLimits(request.projectKey);

    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      'X-Accel-Buffering': 'no',
      // The connection ends with the stream: kept alive after it, it would hold the server's close until the
      // keep-alive timeout (the client reconnects with a new request anyway).
      Connection: 'close',
    });
    const stream = new LiveStream(filter, raw, this.config.maxBufferedBytes, (s) => this.reader.remove(s));
    raw.write(': stream open\n\n');
    if (gap !== undefined) stream.event('gap', { oldestAvailableAt: new Date(gap).toISOString() });
    stream.endAt(request.tokenExpiresAt * 1000);
    this.reader.add(stream, cursor).catch(() => stream.end());
  }

  /** The stream's `where`, translated as the page translates it (400 InvalidInput with line and column). */
  private filter({ projectKey, query, variables }: LiveRequest): LiveFilter {
    const where = query.where ?? [];
    const plan = predicatePlan(MESSAGE_CATALOGUE, { where, limit: 0, offset: 0, withTotal: false }, variables, projectKey);
    return {
      projectKey,
      all: where.length === 0,
      where: plan.where,
      values: plan.values,
      key: `${projectKey}\u0000${plan.where}\u0000${JSON.stringify(plan.values)}`,
    };
  }

  private checkLimits(projectKey: string): void {
    if (this.reader.stopped) throw unavailable('This server is shutting down; reconnect to resume.');
    if (this.reader.openStreams >= this.config.maxStreams) throw unavailable(`This server holds its maximum of ${this.config.maxStreams} live streams (LIVE_MAX_STREAMS); retry later.`);
    if (this.reader.projectStreams(projectKey) >= this.config.maxStreamsPerProject) {
      throw unavailable(`This project has its maximum of ${this.config.maxStreamsPerProject} live streams on this server (LIVE_MAX_STREAMS_PER_PROJECT); retry later.`);
    }
  }

  /**
   * When the messages after `cursor` may have been deleted by the retention (it is older than
   * MESSAGES_RETENTION_DAYS) and the oldest the project still has is after it: that oldest one's time (now
   * when none is left). Undefined: nothing was lost.
   */
  private async gap(projectKey: string, cursor: LiveCursor): Promise<number | undefined> {
    if (cursor.at >= Date.now() - this.changeLog.messagesRetentionDays * DAY_MS) return undefined;
    const oldest = await this.repository.oldest(projectKey);
    if (oldest !== undefined && oldest <= cursor.at) return undefined;
    return oldest ?? Date.now();
  }
}

function unavailable(message: string): DomainError {
  return Object.assign(DomainError.of(ErrorCode.ServiceUnavailable, message), { headers: { 'Retry-After': RETRY_AFTER_SECONDS } });
}
