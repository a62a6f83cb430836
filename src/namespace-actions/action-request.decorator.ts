import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { RequestWithBody } from '../common/body-parsers.js';
import type { RequestWithPrincipal } from '../common/principal.js';
import { rawQueryOf } from './backend-url.js';
import type { ActionRequest } from './namespace-actions.service.js';

/**
 * What a namespace action may use of the request: the JSON body (or the error the body parser
 * recorded for it, raised here, after the auth guards), the query string as sent, the headers, and
 * the caller as the access token names it.
 */
export const CurrentActionRequest = createParamDecorator((_data: unknown, context: ExecutionContext): ActionRequest => {
  const request = context.switchToHttp().getRequest<FastifyRequest & RequestWithBody & RequestWithPrincipal>();
  if (request.bodyError) throw request.bodyError;
  if (!request.principal) throw new Error('CurrentActionRequest used on a route without a scope rule');
  return { body: request.body, queryString: rawQueryOf(request.url), headers: request.headers, principal: request.principal };
});
