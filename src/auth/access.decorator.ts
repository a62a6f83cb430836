import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiResponse, ApiSecurity } from '@nestjs/swagger';
import { ErrorResponseDto } from '../common/error.dto.js';
import { DeclareRoute } from '../common/route-config.js';
import type { AccessRule, ScopeName } from './scopes.js';

/**
 * Route metadata read by the global guards (AuthenticationGuard, ScopeGuard) and, through the route's
 * config, by the authentication that runs before the body is read. A route without it is refused
 * (default deny).
 */
export const ACCESS_RULE = Symbol('ACCESS_RULE');

const responses = [
  ApiResponse({ status: 401, description: 'Missing, malformed or expired token (invalid_token), answered before the body is read.', type: ErrorResponseDto }),
  ApiResponse({ status: 403, description: 'Token lacks the scope or names another project (insufficient_scope).', type: ErrorResponseDto }),
  ApiResponse({ status: 429, description: 'Rate limit of the client, or of the remote address for requests that fail to authenticate, exceeded (TooManyRequests, Retry-After).', type: ErrorResponseDto }),
];

/**
 * Declares who may call a route: any of `scopes` for the path's project (`manage_test` also
 * satisfies `view_test`). Writes the OpenAPI security requirement and the 401/403/429 responses too.
 */
export function RequireScope(scopes: ScopeName[], options: Pick<AccessRule, 'customerBound'> = {}): MethodDecorator & ClassDecorator {
  const rule: AccessRule = { scopes, ...options };
  const listed = scopes.map((s) => `${s}:{projectKey}`);
  if (options.customerBound) listed.push(`${options.customerBound}:{projectKey}`, 'customer_id_test:{id}');
  return applyDecorators(SetMetadata(ACCESS_RULE, rule), DeclareRoute({ access: rule }), ApiSecurity('oauth2', listed), ApiSecurity('bearer', []), ...responses);
}

/** Declares a route open to anyone (health, docs, the token endpoint, image bytes). */
export function Public(): MethodDecorator & ClassDecorator {
  const rule: AccessRule = { public: true };
  return applyDecorators(SetMetadata(ACCESS_RULE, rule), DeclareRoute({ access: rule }));
}
