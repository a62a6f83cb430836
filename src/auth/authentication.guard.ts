import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { DomainError } from '../common/domain-error.js';
import { bearerToken } from '../common/bearer-token.js';
import { pathOf } from '../common/error-envelope.filter.js';
import { insufficientScope, invalidToken } from './auth.errors.js';
import type { RequestWithToken, VerifiedToken } from './jwt-verifier.js';
import { routeAccess } from './route-access.js';
import { TokenService } from './token.service.js';

const MAX_TOKEN_LENGTH = 8_192;

/**
 * The first global guard (CONTRACT.md §7, §10): route parameter patterns (404, as for an unknown path)
 * → route rule (none → 403, default deny; public → open) → bearer token (401). A token verified
 * before costs a map lookup; a new one goes through Passport's JWT strategy. Then `ScopeGuard`.
 */
@Injectable()
export class AuthenticationGuard extends AuthGuard('jwt') {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokenService,
  ) {
    super({ session: false });
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const { rule, patterns } = routeAccess(this.reflector, context);
    const request = context.switchToHttp().getRequest<RequestWithToken>();
    if (patterns && patterns.some(([name, pattern]) => !pattern.test(String((request.params as Record<string, string>)[name])))) {
      throw DomainError.notFound(`No route matches ${request.method} ${pathOf(request.url)}.`);
    }
    if (!rule) throw insufficientScope('This route declares no access rule.');
    if (rule.public) return true;
    const header = request.headers.authorization;
    if (!header) throw invalidToken('An access token is required (Authorization: Bearer <token>).');
    const token = bearerToken(header);
    if (token === undefined) throw invalidToken('The Authorization header must be "Bearer <token>".');
    if (token.length > MAX_TOKEN_LENGTH) throw invalidToken('The access token is too long.');
    const known = this.tokens.cached(token);
    if (known) {
      request.user = known;
    } else {
      await super.canActivate(context);
      this.tokens.remember(token, request.user!);
    }
    await this.tokens.assertClientExists(request.user!);
    return true;
  }

  /** Passport's outcome: the verified token, or 401 `invalid_token` saying why. */
  override handleRequest<T = VerifiedToken>(error: unknown, user: T | false, info: unknown): T {
    if (error instanceof DomainError) throw error;
    if (user) return user;
    const name = (info as Error | undefined)?.name ?? (error as Error | undefined)?.name;
    const message = (info as Error | undefined)?.message ?? '';
    if (name === 'TokenExpiredError') throw invalidToken('The access token has expired.');
    if (/malformed/i.test(message)) throw invalidToken('The access token is malformed.');
    throw invalidToken('The access token is invalid.');
  }
}
