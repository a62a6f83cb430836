import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { RequestWithBody } from '../common/body-parsers.js';
import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';

const FORM_TYPE = /^application\/x-www-form-urlencoded\b/i;

/**
 * Like `@RequestBody()`, for routes that read JSON only: a form body (which the body parser reads
 * for the OAuth endpoints) is a 415 here. Validated against the parameter's DTO by the global pipe.
 */
export const JsonRequestBody = createParamDecorator((_data: unknown, context: ExecutionContext): unknown => {
  const request = context.switchToHttp().getRequest<RequestWithBody>();
  if (request.bodyError) throw request.bodyError;
  if (FORM_TYPE.test(request.headers['content-type'] ?? '')) {
    throw DomainError.of(ErrorCode.UnsupportedMediaType, 'This endpoint reads application/json bodies only.');
  }
  return request.body;
});
