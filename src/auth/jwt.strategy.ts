import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { JwtPayload } from 'jsonwebtoken';
import { ExtractJwt, type SecretOrKeyProvider, Strategy } from 'passport-jwt';
import type { FastifyRequest } from 'fastify';
import { routeDeclaration } from '../common/route-config.js';
import { queryAccessToken } from './request-authenticator.js';
import { ACCEPTED_ALGORITHMS, CLOCK_TOLERANCE_SECONDS, JwtVerifier, type VerifiedToken } from './jwt-verifier.js';

/**
 * Passport's JWT strategy: the bearer token's signature, expiry and claims, checked by the rules of
 * `JwtVerifier` (this server's RS256 keys, or the external issuer's JWKS). Stateless: no session.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(private readonly verifier: JwtVerifier) {
    super({
      // The query's `access_token` only where the route declares it (`queryToken`; checked by the authenticator).
      jwtFromRequest: ExtractJwt.fromExtractors([
        ExtractJwt.fromAuthHeaderAsBearerToken(),
        (request: FastifyRequest) => (routeDeclaration(request).queryToken && !request.headers.authorization ? (queryAccessToken(request) ?? null) : null),
      ]),
      // jsonwebtoken verifies with a KeyObject too; the typings name only string and Buffer.
      secretOrKeyProvider: verifier.keyProvider as SecretOrKeyProvider,
      algorithms: ACCEPTED_ALGORITHMS,
      ignoreExpiration: false,
      jsonWebTokenOptions: { clockTolerance: CLOCK_TOLERANCE_SECONDS },
    });
  }

  validate(payload: JwtPayload): VerifiedToken {
    return this.verifier.toVerified(payload);
  }
}
