import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';
import type { FastifyRequest } from 'fastify';
import type { AccessRule } from '../auth/scopes.js';
import type { DomainError } from './domain-error.js';

/**
 * What a route declares about itself that the server needs before Nest runs: Fastify hands a route's
 * `config` to every hook (`request.routeOptions.config`), so the access rule and the path parameters'
 * patterns can be checked in `onRequest`, before the body is read.
 */
export interface RouteDeclaration {
  access?: AccessRule;
  patterns?: Record<string, RegExp>;
  /** Which security headers the answers carry (observability/security-headers.ts). */
  securityHeaders?: string;
  /**
   * How the route's errors are answered, whatever raised them (a hook, the body parser, a guard, the
   * handler, the database): the error-envelope filter answers `answerError(error)` instead of `error`.
   */
  answerError?: (error: DomainError) => DomainError;
  /**
   * The bearer token may also come as the query parameter `access_token` (RFC 6750, section 2.3): only for
   * a browser's EventSource, which cannot send headers (the live stream). The request log never shows a query.
   */
  queryToken?: boolean;
}

/**
 * Records `declaration` in the route config of a handler (merged with what it declares already, unlike
 * Nest's `@RouteConfig`, which replaces it), or of every handler of a controller that does
 * not declare the same thing itself (a method's declaration wins over its class's, as Nest's
 * `getAllAndOverride` reads them). Nest's Fastify adapter passes a handler's config to its route.
 */
export function DeclareRoute(declaration: RouteDeclaration): ClassDecorator & MethodDecorator {
  return (target: object, _key?: string | symbol, descriptor?: PropertyDescriptor): void => {
    if (descriptor) return merge(descriptor.value as object, declaration, true);
    const prototype = (target as { prototype: object }).prototype;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const method = Object.getOwnPropertyDescriptor(prototype, name)?.value as unknown;
      if (name !== 'constructor' && typeof method === 'function') merge(method, declaration, false);
    }
  };
}

function merge(handler: object, declaration: RouteDeclaration, override: boolean): void {
  const current = (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) ?? {}) as RouteDeclaration;
  Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG_METADATA, override ? { ...current, ...declaration } : { ...declaration, ...current }, handler);
}

/** The declaration of the route a request matched; empty for Fastify's own routes and unknown paths. */
export function routeDeclaration(request: FastifyRequest): RouteDeclaration {
  return (request.routeOptions.config ?? {}) as RouteDeclaration;
}
