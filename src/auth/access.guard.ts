import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { APP_CONFIG, AppConfig } from '../config/app-config.js';
import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import type { RequestWithPrincipal } from '../common/principal.js';
import { assertProjectKey } from '../common/project-key.js';
import { ROUTE_PARAM_PATTERNS } from '../common/route-params.js';
import { pathOf } from '../common/error-envelope.filter.js';
import { ACCESS_RULE } from './access.decorator.js';
import { RateLimiter } from './rate-limiter.js';
import { AccessRule, describeRule, grant } from './scopes.js';
import { invalidToken, quotable, TokenService } from './token.service.js';

const BEARER = /^Bearer +([A-Za-z0-9\-_.~+/]+=*) *$/i;

/**
 * The one global guard (CONTRACT.md §7, §10). Order: route parameter patterns (404, as for an
 * unknown path) → route rule (none → 403, default deny) → token (401) → project key format (400) →
 * rate limit (429) → scope (403).
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly limiter: RateLimiter;
  /** Route metadata never changes: read once per handler, not on every request. */
  private readonly metadata = new WeakMap<object, RouteMetadata>();

  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokenService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.limiter = new RateLimiter(config.auth.rateLimitPerMinute);
  }

  private metadataOf(context: ExecutionContext): RouteMetadata {
    const handler = context.getHandler();
    let metadata = this.metadata.get(handler);
    if (!metadata) {
      const targets = [handler, context.getClass()];
      const patterns = this.reflector.getAllAndOverride<Record<string, RegExp> | undefined>(ROUTE_PARAM_PATTERNS, targets);
      metadata = {
        rule: this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, targets),
        patterns: patterns && Object.entries(patterns),
      };
      this.metadata.set(handler, metadata);
    }
    return metadata;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const { rule, patterns } = this.metadataOf(context);
    const request = context.switchToHttp().getRequest<RequestWithPrincipal>();
    if (patterns && patterns.some(([name, pattern]) => !pattern.test(String((request.params as Record<string, string>)[name])))) {
      throw DomainError.notFound(`No route matches ${request.method} ${pathOf(request.url)}.`);
    }
    if (!rule) throw insufficientScope('This route declares no access rule.');
    if (rule.public) return true;
    const header = request.headers.authorization;
    if (!header) throw invalidToken('An access token is required (Authorization: Bearer <token>).');
    const match = BEARER.exec(header);
    if (!match) throw invalidToken('The Authorization header must be "Bearer <token>".');
    const token = await this.tokens.verify(match[1]);
    const projectKey = assertProjectKey(String((request.params as Record<string, string>).projectKey ?? ''));
    const wait = this.limiter.take(token.clientId);
    if (wait !== undefined) {
      throw Object.assign(DomainError.of(ErrorCode.TooManyRequests, `Rate limit exceeded; retry in ${wait} s.`), {
        headers: { 'Retry-After': String(wait) },
      });
    }
    const granted = grant(rule, token.scopeSet, projectKey);
    if (!granted) throw insufficientScope(`This request requires the scope ${describeRule(rule, projectKey)}.`, describeRule(rule, projectKey));
    request.principal = {
      clientId: token.clientId,
      customerId: token.customerId,
      customerOnly: granted.customerOnly,
    };
    return true;
  }
}

interface RouteMetadata {
  rule?: AccessRule;
  patterns?: [string, RegExp][];
}

function insufficientScope(description: string, scope?: string): DomainError {
  return Object.assign(DomainError.of(ErrorCode.InsufficientScope, description), {
    headers: { 'WWW-Authenticate': `Bearer realm="resource-api", error="insufficient_scope"${scope ? `, scope="${quotable(scope)}"` : ''}` },
    extra: { error: 'insufficient_scope', error_description: description },
  });
}
