import { applyDecorators } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';

/** The OpenAPI description of the `projectKey` path parameter, for every controller under `/{projectKey}/…`. */
export const ApiProjectKeyParam = (): ClassDecorator & MethodDecorator =>
  applyDecorators(ApiParam({ name: 'projectKey', description: '2–36 characters of a-z, 0-9 and -.' }));
