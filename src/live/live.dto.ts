import { applyDecorators } from '@nestjs/common';
import { ApiHeader, ApiProduces, ApiQuery, ApiResponse } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { ErrorResponseDto } from '../common/error.dto.js';
import { Optional, QueryString, Repeatable } from '../common/validation/decorators.js';
import { AtMost, PREDICATE_LIMITS } from '../query-language/predicate-query.dto.js';

/** The page's parameters, which a stream has no use for: given with the stream → 400 InvalidInput. */
export const PAGE_PARAMETERS = ['limit', 'offset', 'sort', 'withTotal'] as const;

/**
 * The query of a live stream: `where` (and `var.<name>`) as for the page, where to resume, and the token
 * of a browser's EventSource. The page's own parameters are kept to be refused by name.
 */
export class LiveQueryDto {
  @Optional()
  @Repeatable()
  @AtMost(PREDICATE_LIMITS.maxWhere)
  where?: string[];

  /** The cursor to resume after when there is no `Last-Event-ID` header. */
  @Optional()
  @QueryString()
  lastEventId?: string;

  /** Read by the authentication (RFC 6750, section 2.3); declared so that a repeated one is refused. */
  @Optional()
  @QueryString()
  access_token?: string;

  @Allow() limit?: unknown;
  @Allow() offset?: unknown;
  @Allow() sort?: unknown;
  @Allow() withTotal?: unknown;
}

export const LIVE_EVENT_EXAMPLE =
  'id: 00019ab3c4d2e-8d5b1f0e6c1a4f3ebb0a1d2e3f4a5b6c-00000002\nevent: message\ndata: {"id":"2f1c7a52-…","version":1,"sequenceNumber":2,…}\n\n';

/**
 * The OpenAPI of the live form of GET /{projectKey}/messages, on the page's operation (one path and method,
 * two answers chosen by `Accept`).
 */
export const ApiLiveChanges = (): MethodDecorator =>
  applyDecorators(
    ApiProduces('application/json', 'text/event-stream'),
    ApiHeader({
      name: 'Last-Event-ID',
      required: false,
      description: 'With `Accept: text/event-stream`: resume after this event id (EventSource sends it by itself when it reconnects). Malformed → 400.',
    }),
    ApiQuery({ name: 'lastEventId', required: false, type: String, description: 'With `Accept: text/event-stream`: as `Last-Event-ID`, when the header cannot be sent (the header wins).' }),
    ApiQuery({
      name: 'access_token',
      required: false,
      type: String,
      description: 'With `Accept: text/event-stream` only (RFC 6750, section 2.3): the bearer token, for a browser\'s EventSource, which cannot send headers. Never logged.',
    }),
    ApiResponse({
      status: 200,
      description:
        '**With `Accept: text/event-stream`: the live stream** instead of a page. Each message committed after the stream opened ' +
        '(or after `Last-Event-ID`) that matches `where` comes once, in commit order (a resource\'s in `sequenceNumber` order): ' +
        '`id: <cursor>`, `event: message`, `data: <the message as GET /messages/{id} answers it>`. `event: gap` with ' +
        '`{"oldestAvailableAt"}` when the cursor is older than the retained messages; `event: end` with `{"reason":"token_expired"}` when the token ' +
        'expires; `: keep-alive` every 15 s. `limit`, `offset`, `sort` and `withTotal` are refused (400 InvalidInput).',
      content: { 'text/event-stream': { schema: { type: 'string', example: LIVE_EVENT_EXAMPLE } } },
    }),
    ApiResponse({
      status: 503,
      type: ErrorResponseDto,
      description: 'With `Accept: text/event-stream`: LIVE_MAX_STREAMS or LIVE_MAX_STREAMS_PER_PROJECT streams are open on this server process (ServiceUnavailable, Retry-After).',
    }),
  );
