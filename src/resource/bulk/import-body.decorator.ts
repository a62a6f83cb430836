import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { ImportRequestBody } from './import.service.js';

/**
 * The body of POST /{projectKey}/resource/import, not read yet: the body parser hands this route the
 * request stream whatever its type (src/common/body-parsers.ts), and the import reads it line by line.
 */
export const ImportBody = createParamDecorator((_data: unknown, context: ExecutionContext): ImportRequestBody => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  const type = request.headers['content-type'];
  const length = Number(request.headers['content-length']);
  const body = request.body as Readable | undefined;
  return {
    contentType: type === undefined || type.trim() === '' ? undefined : type,
    contentLength: Number.isSafeInteger(length) && length >= 0 ? length : undefined,
    stream: body && typeof body.read === 'function' ? body : undefined,
  };
});
