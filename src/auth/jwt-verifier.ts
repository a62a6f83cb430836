import { Inject, Injectable } from '@nestjs/common';
import jwt from 'jsonwebtoken';
import { passportJwtSecret } from 'jwks-rsa';
import type { KeyObject } from 'node:crypto';
import { authConfig, type AuthConfig } from './auth.config.js';
import type { Principal, RequestWithPrincipal } from '../common/principal.js';
import { customerOf, splitScopes } from './scopes.js';
import { SigningKeysService } from './signing-keys.service.js';

export interface VerifiedToken extends Principal {
  projectKey?: string;
  scopes: string[];
  /** `scopes` as a set, built once per verified token. */
  scopeSet: ReadonlySet<string>;
  /** Seconds since the epoch. */
  exp: number;
  iat?: number;
  /** Whether this server issued the token (as opposed to the external issuer). */
  local: boolean;
}

/** A request once `AuthenticationGuard` verified its token (Passport's `user`). */
export type RequestWithToken = RequestWithPrincipal & { user?: VerifiedToken };

type KeyCallback = (error: Error | null, key?: string | Buffer | KeyObject) => void;
type SecretProvider = (request: unknown, rawJwtToken: string, done: KeyCallback) => void;

export const CLOCK_TOLERANCE_SECONDS = 5;
const EXTERNAL_ALGORITHMS: jwt.Algorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384'];
/** Accepted by the strategy; which one a token may use is decided by the key chosen for it. */
export const ACCEPTED_ALGORITHMS: jwt.Algorithm[] = EXTERNAL_ALGORITHMS;

/**
 * The rules of a valid access token, in one place for the Passport strategy and introspection:
 * which key verifies a token (this server's keys by `kid`, RS256 only; the external issuer's JWKS
 * through jwks-rsa when AUTH_JWKS_URL is set and the token names that issuer) and which claims it
 * must carry (`iss`, `aud`, `exp`).
 */
@Injectable()
export class JwtVerifier {
  private readonly externalSecret?: SecretProvider;

  constructor(
    @Inject(authConfig.KEY) private readonly config: AuthConfig,
    private readonly keys: SigningKeysService,
  ) {
    const external = config.external;
    if (external) {
      this.externalSecret = passportJwtSecret({
        jwksUri: external.jwksUrl,
        cache: true,
        cacheMaxAge: 10 * 60_000,
        rateLimit: true,
        jwksRequestsPerMinute: 10,
        timeout: 5_000,
      }) as SecretProvider;
    }
  }

  /** The Passport strategy's `secretOrKeyProvider`. */
  readonly keyProvider: SecretProvider = (request, rawJwtToken, done) => {
    const decoded = jwt.decode(rawJwtToken, { complete: true });
    if (!decoded || typeof decoded.payload !== 'object') return done(new Error('malformed token'));
    if (this.externalSecret && decoded.payload.iss === this.config.external?.issuer) {
      return this.externalSecret(request, rawJwtToken, done);
    }
    const { alg, kid } = decoded.header;
    if (alg !== 'RS256' || typeof kid !== 'string') return done(new Error('unexpected algorithm or key id'));
    this.keys.find(kid).then(
      (key) => (key ? done(null, key.publicKey) : done(new Error('unknown key'))),
      (error: Error) => done(error),
    );
  };

  /** The Passport strategy's `validate`: the claims of a token whose signature checked out. */
  toVerified(payload: jwt.JwtPayload): VerifiedToken {
    const external = this.config.external;
    const local = payload.iss === this.config.issuer;
    const audience = local ? this.config.issuer : external && payload.iss === external.issuer ? external.audience : undefined;
    const audiences = [payload.aud].flat();
    if (audience === undefined || !audiences.includes(audience)) throw new Error('unexpected issuer or audience');
    if (payload.exp === undefined) throw new Error('no expiry');
    const scopes = typeof payload.scope === 'string' ? splitScopes(payload.scope) : Array.isArray(payload.scp) ? payload.scp.map(String) : [];
    return {
      clientId: String(payload.client_id ?? payload.azp ?? payload.sub ?? 'unknown'),
      customerId: customerOf(scopes),
      projectKey: typeof payload.project_key === 'string' ? payload.project_key : undefined,
      scopes,
      scopeSet: new Set(scopes),
      exp: payload.exp,
      iat: payload.iat,
      local,
    };
  }

  /** Verifies a token outside a request (introspection), by the same rules as the strategy. */
  verify(token: string): Promise<VerifiedToken> {
    return new Promise((resolve, reject) => {
      this.keyProvider(undefined, token, (keyError, key) => {
        if (keyError || !key) return reject(keyError ?? new Error('no key'));
        jwt.verify(token, key, { algorithms: ACCEPTED_ALGORITHMS, clockTolerance: CLOCK_TOLERANCE_SECONDS }, (error, payload) => {
          if (error || typeof payload !== 'object' || payload === null) return reject(error ?? new Error('no payload'));
          try {
            resolve(this.toVerified(payload));
          } catch (invalid) {
            reject(invalid);
          }
        });
      });
    });
  }
}
