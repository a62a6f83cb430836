import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import passport from 'passport';
import { BEARER_TOKEN, bearerToken } from '../common/bearer-token.js';
import { DomainError } from '../common/domain-error.js';
import { pathOf } from '../common/error-envelope.filter.js';
import { routeDeclaration, type RouteDeclaration } from '../common/route-config.js';
import { authConfig, type AuthConfig } from './auth.config.js';
import { insufficientScope, invalidToken, rateLimited } from './auth.errors.js';
import type { RequestWithToken, VerifiedToken } from './jwt-verifier.js';
import { RateLimiter } from './rate-limiter.js';
import { TokenService } from './token.service.js';

const MAX_TOKEN_LENGTH = 8_192;

/** A request whose route is known to Nest: its parameters, as Fastify matched them. */
type Request = RequestWithToken & { params: unknown };

/**
 * Who is calling, decided once per request before its body is read (a Fastify `onRequest` hook), so
 * that a stranger's body is never parsed: route parameter patterns (404, as for an unknown path) →
 * the route's rule (none → 403, default deny; public → open) → the bearer token (401). A token verified
 * before costs a map lookup; a new one goes through Passport's JWT strategy. Requests that fail to
 * authenticate are counted per remote address (`RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE`); past the limit
 * they are answered 429 instead of 401 (a valid token from that address still gets through).
 * `AuthenticationGuard` runs the same checks for a request the hook did not see.
 */
@Injectable()
export class RequestAuthenticator {
  private readonly strangers: RateLimiter;

  constructor(
    private readonly tokens: TokenService,
    @Inject(authConfig.KEY) config: AuthConfig,
  ) {
    this.strangers = new RateLimiter(config.rateLimitUnauthenticatedPerMinute);
  }

  /** The `onRequest` hook. Fastify's own routes (docs, CORS preflights) and unknown paths declare nothing. */
  hook(): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
    return async (request) => {
      const declaration = routeDeclaration(request);
      if (declaration.access || declaration.patterns) await this.admit(request as Request, declaration);
    };
  }

  /** The checks in their order; sets `request.user` on a route that needs a token. */
  async admit(request: Request, declaration: RouteDeclaration): Promise<void> {
    const { access, patterns } = declaration;
    const params = (request.params ?? {}) as Record<string, string>;
    if (patterns && Object.entries(patterns).some(([name, pattern]) => !pattern.test(String(params[name])))) {
      throw DomainError.notFound(`No route matches ${request.method} ${pathOf(request.url)}.`);
    }
    if (!access) throw insufficientScope('This route declares no access rule.');
    if (access.public || request.user) return;
    try {
      request.user = await this.verify(request, declaration.queryToken === true);
    } catch (error) {
      const wait = this.strangers.take(request.ip);
      throw wait === undefined ? error : rateLimited(wait);
    }
    await this.tokens.assertClientExists(request.user).catch((error: unknown) => {
      this.strangers.take(request.ip);
      throw error;
    });
  }

  private async verify(request: Request, queryToken: boolean): Promise<VerifiedToken> {
    const header = request.headers.authorization;
    const inQuery = queryToken && !header ? queryAccessToken(request) : undefined;
    if (!header && inQuery === undefined) throw invalidToken('An access token is required (Authorization: Bearer <token>).');
    const token = inQuery ?? bearerToken(header!);
    if (token === undefined) throw invalidToken('The Authorization header must be "Bearer <token>".');
    if (token.length > MAX_TOKEN_LENGTH) throw invalidToken('The access token is too long.');
    const known = this.tokens.cached(token);
    if (known) return known;
    const verified = await passportJwt(request);
    this.tokens.remember(token, verified);
    return verified;
  }
}

/**
 * The `access_token` query parameter (RFC 6750, section 2.3), on the routes that declare `queryToken`: given
 * once, as a b64token, or the request is refused like a malformed header.
 */
export function queryAccessToken(request: FastifyRequest): string | undefined {
  const value = (request.query as Record<string, unknown> | undefined)?.access_token;
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !BEARER_TOKEN.test(value)) throw invalidToken('The access_token parameter must be one bearer token.');
  return value;
}

/** Passport's JWT strategy (jwt.strategy.ts) on the request's headers: the verified token, or 401 saying why. */
function passportJwt(request: Request): Promise<VerifiedToken> {
  return new Promise((resolve, reject) => {
    const outcome = (error: unknown, user: VerifiedToken | false, info: unknown) => {
      if (error instanceof DomainError) return reject(error);
      if (user) return resolve(user);
      reject(whyInvalid(error, info));
    };
    passport.authenticate('jwt', { session: false }, outcome)(request, undefined, (error: unknown) => reject(whyInvalid(error, undefined)));
  });
}

function whyInvalid(error: unknown, info: unknown): DomainError {
  const name = (info as Error | undefined)?.name ?? (error as Error | undefined)?.name;
  const message = (info as Error | undefined)?.message ?? '';
  if (name === 'TokenExpiredError') return invalidToken('The access token has expired.');
  if (/malformed/i.test(message)) return invalidToken('The access token is malformed.');
  return invalidToken('The access token is invalid.');
}
