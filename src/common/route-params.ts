import { applyDecorators, SetMetadata } from '@nestjs/common';
import { DeclareRoute } from './route-config.js';

/** Route metadata: path parameters that must match a pattern for the route to match at all. */
const ROUTE_PARAM_PATTERNS = Symbol('ROUTE_PARAM_PATTERNS');

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Route paths cannot constrain a parameter, so `/{projectKey}/resource/{id}` would match a segment
 * such as `images` if no static route took it first. With this, a value that fails its pattern
 * makes the request match no route: 404 ResourceNotFound before any token check, like any unknown path.
 */
export const ParamPatterns = (patterns: Record<string, RegExp>): ClassDecorator & MethodDecorator =>
  applyDecorators(SetMetadata(ROUTE_PARAM_PATTERNS, patterns), DeclareRoute({ patterns }));
