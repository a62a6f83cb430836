import type { ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { ROUTE_PARAM_PATTERNS } from '../common/route-params.js';
import { ACCESS_RULE } from './access.decorator.js';
import type { AccessRule } from './scopes.js';

export interface RouteAccess {
  /** The route's access rule; undefined → refused (default deny). */
  rule?: AccessRule;
  /** Path parameters that must match for the route to match at all. */
  patterns?: [string, RegExp][];
}

/** Route metadata never changes: read once per handler, not on every request. */
const cache = new WeakMap<object, RouteAccess>();

export function routeAccess(reflector: Reflector, context: ExecutionContext): RouteAccess {
  const handler = context.getHandler();
  let access = cache.get(handler);
  if (!access) {
    const targets = [handler, context.getClass()];
    const patterns = reflector.getAllAndOverride<Record<string, RegExp> | undefined>(ROUTE_PARAM_PATTERNS, targets);
    access = {
      rule: reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, targets),
      patterns: patterns && Object.entries(patterns),
    };
    cache.set(handler, access);
  }
  return access;
}
