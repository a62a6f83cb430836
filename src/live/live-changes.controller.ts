import { Controller, createParamDecorator, type ExecutionContext, Get, Headers, Query, Res } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import { RouteConstraints } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import { RequireScope } from '../auth/access.decorator.js';
import type { RequestWithToken } from '../auth/jwt-verifier.js';
import { MESSAGE_SCOPES } from '../change-log/messages.dto.js';
import { ProjectKey } from '../common/project-key.js';
import { DeclareRoute } from '../common/route-config.js';
import { QueryVariables } from '../query-language/predicate-query.dto.js';
import type { Variables } from '../query-language/where-sql.js';
import { LiveChangesService } from './live-changes.service.js';
import { LIVE_STREAM } from './live-stream-constraint.js';
import { LiveQueryDto } from './live.dto.js';

/** When the request's token expires (seconds since the epoch). */
const TokenExpiry = createParamDecorator((_data: unknown, context: ExecutionContext): number => context.switchToHttp().getRequest<RequestWithToken>().user!.exp);

/**
 * GET /{projectKey}/messages with `Accept: text/event-stream`: the live stream (docs/live-changes.md). The
 * same path and scopes as the page (messages.controller.ts), chosen by the `liveStream` route constraint;
 * documented on the page's operation (`ApiLiveChanges`). The token may come as `access_token` in the query
 * on this route alone (`queryToken`).
 */
@Controller(':projectKey/messages')
export class LiveChangesController {
  constructor(private readonly live: LiveChangesService) {}

  @Get()
  @RouteConstraints({ liveStream: LIVE_STREAM })
  @RequireScope(MESSAGE_SCOPES)
  @DeclareRoute({ queryToken: true })
  @ApiExcludeEndpoint()
  streamMessages(
    @ProjectKey() projectKey: string,
    @Query() query: LiveQueryDto,
    @QueryVariables() variables: Variables,
    @Headers('last-event-id') lastEventId: string | undefined,
    @TokenExpiry() tokenExpiresAt: number,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.live.open({ projectKey, query, variables, lastEventId, tokenExpiresAt }, reply);
  }
}
