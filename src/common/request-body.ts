import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { RequestWithBody } from './body-parsers.js';
import { DomainError } from './domain-error.js';
import { ErrorCode } from './error-code.js';

const FORM_TYPE = /^application\/x-www-form-urlencoded\b/i;

function bodyOf(context: ExecutionContext, jsonOnly: boolean): unknown {
  const request = context.switchToHttp().getRequest<RequestWithBody>();
  if (request.bodyError) throw request.bodyError;
  if (jsonOnly && FORM_TYPE.test(request.headers['content-type'] ?? '')) {
    throw DomainError.of(ErrorCode.UnsupportedMediaType, 'This endpoint reads application/json bodies only.');
  }
  return request.body;
}

/**
 * The parsed JSON request body, or the error the body parser recorded for it (malformed JSON, too
 * large, unsupported media type); a form body is a 415. Parameters resolve after the guards, so a
 * request without a valid token gets 401 whatever its body, and one without the scope 403. A DTO-typed
 * parameter is then validated by the global pipe.
 */
export const RequestBody = createParamDecorator((_data: unknown, context: ExecutionContext): unknown => bodyOf(context, true));

/** The OAuth endpoints' body: a form (RFC 6749) or JSON, as the body parser read it. */
export const FormBody = createParamDecorator((_data: unknown, context: ExecutionContext): unknown => bodyOf(context, false));
