import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { authConfig, type AuthConfig } from './auth.config.js';
import { assertProjectKey } from '../common/project-key.js';
import { routeDeclaration } from '../common/route-config.js';
import { insufficientScope, rateLimited } from './auth.errors.js';
import type { RequestWithToken } from './jwt-verifier.js';
import { RateLimiter } from './rate-limiter.js';
import { describeRule, grant } from './scopes.js';

/**
 * The second global guard, after `AuthenticationGuard`: the path's project key format (400) → the
 * client's rate limit (429) → the route's scopes among the token's `<scope>:<projectKey>` claims (403).
 * Records who is calling for `@CurrentPrincipal()`.
 */
@Injectable()
export class ScopeGuard implements CanActivate {
  private readonly limiter: RateLimiter;

  constructor(@Inject(authConfig.KEY) config: AuthConfig) {
    this.limiter = new RateLimiter(config.rateLimitPerMinute);
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<RequestWithToken>();
    const rule = routeDeclaration(request).access;
    if (!rule || rule.public) return true;
    const token = request.user!;
    const projectKey = assertProjectKey(String((request.params as Record<string, string>).projectKey ?? ''));
    const wait = this.limiter.take(token.clientId);
    if (wait !== undefined) throw rateLimited(wait);
    const granted = grant(rule, token.scopeSet, projectKey);
    if (!granted) throw insufficientScope(`This request requires the scope ${describeRule(rule, projectKey)}.`, describeRule(rule, projectKey));
    request.principal = { clientId: token.clientId, customerId: token.customerId, customerOnly: granted.customerOnly, scopeSet: token.scopeSet };
    return true;
  }
}
