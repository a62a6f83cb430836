import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { RequestWithBody } from './body-parsers.js';

/**
 * The parsed request body, or the error the body parser recorded for it (malformed JSON, too large,
 * unsupported media type). Parameters resolve after the guards, so a request without a valid token
 * gets 401 whatever its body, and one without the scope 403.
 */
export const RequestBody = createParamDecorator((_data: unknown, context: ExecutionContext): unknown => {
  const request = context.switchToHttp().getRequest<RequestWithBody>();
  if (request.bodyError) throw request.bodyError;
  return request.body;
});
