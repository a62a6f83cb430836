import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, JWTPayload, jwtVerify, SignJWT } from 'jose';
import { APP_CONFIG, AppConfig } from '../config/app-config.js';
import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import type { Principal } from '../common/principal.js';
import { ApiClientsRepository, StoredApiClient } from './api-clients.repository.js';
import { customerOf, splitScopes } from './scopes.js';
import { SigningKeysService } from './signing-keys.service.js';

export interface IssuedToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

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

const MAX_TOKEN_LENGTH = 8_192;
const TOKEN_CACHE_SIZE = 10_000;
const CLOCK_TOLERANCE_SECONDS = 5;

/**
 * Issues RS256 access tokens and verifies bearer tokens. Verified tokens are cached in memory until
 * they expire, so a request pays one map lookup instead of an RSA verification; whether the client
 * still exists is re-checked at most every AUTH_CLIENT_CHECK_SECONDS (a deleted client's tokens
 * fail within that time on every replica).
 */
@Injectable()
export class TokenService {
  private readonly verified = new Map<string, VerifiedToken>();
  private readonly clientSeen = new Map<string, number>();
  private readonly externalKeys?: ReturnType<typeof createRemoteJWKSet>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: SigningKeysService,
    private readonly clients: ApiClientsRepository,
  ) {
    const external = config.auth.external;
    if (external) this.externalKeys = createRemoteJWKSet(new URL(external.jwksUrl), { timeoutDuration: 5_000, cooldownDuration: 30_000 });
  }

  async issue(client: StoredApiClient, scopes: string[]): Promise<IssuedToken> {
    const key = this.keys.signingKey;
    const ttl = this.config.auth.tokenTtlSeconds;
    const scope = client.customerId ? [...scopes, `customer_id_test:${client.customerId}`] : scopes;
    const token = await new SignJWT({ scope: scope.join(' '), client_id: client.id, project_key: client.projectKey })
      .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
      .setIssuer(this.config.auth.issuer)
      .setAudience(this.config.auth.issuer)
      .setSubject(client.id)
      .setIssuedAt()
      .setExpirationTime(`${ttl}s`)
      .setJti(randomUUID())
      .sign(key.privateKey);
    return { access_token: token, token_type: 'Bearer', expires_in: ttl, scope: scope.join(' ') };
  }

  /** The caller of a bearer token, or a 401 `invalid_token` error. */
  async verify(token: string): Promise<VerifiedToken> {
    const now = Date.now() / 1000;
    let verified = this.verified.get(token);
    if (verified && verified.exp <= now) {
      this.verified.delete(token);
      verified = undefined;
    }
    if (!verified) {
      verified = await this.verifySignature(token);
      if (this.verified.size >= TOKEN_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, verified);
    }
    if (verified.local) await this.assertClientExists(verified.clientId, now);
    return verified;
  }

  /** Like `verify`, but answers undefined instead of throwing (introspection). */
  async inspect(token: string): Promise<VerifiedToken | undefined> {
    try {
      return await this.verify(token);
    } catch {
      return undefined;
    }
  }

  private async assertClientExists(clientId: string, now: number): Promise<void> {
    const seen = this.clientSeen.get(clientId);
    if (seen !== undefined && now - seen < this.config.auth.clientCheckSeconds) return;
    if (!(await this.clients.exists(clientId))) {
      this.clientSeen.delete(clientId);
      throw invalidToken('The API client of this token no longer exists.');
    }
    this.clientSeen.set(clientId, now);
  }

  private async verifySignature(token: string): Promise<VerifiedToken> {
    if (token.length > MAX_TOKEN_LENGTH) throw invalidToken('The access token is too long.');
    let header: ReturnType<typeof decodeProtectedHeader>;
    let claims: JWTPayload;
    try {
      header = decodeProtectedHeader(token);
      claims = decodeJwt(token);
    } catch {
      throw invalidToken('The access token is malformed.');
    }
    const external = this.config.auth.external;
    try {
      if (external && this.externalKeys && claims.iss === external.issuer) {
        const { payload } = await jwtVerify(token, this.externalKeys, {
          issuer: external.issuer,
          audience: external.audience,
          algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384'],
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
        });
        return toVerified(payload, false);
      }
      if (header.alg !== 'RS256' || typeof header.kid !== 'string') throw new Error('unexpected algorithm or key id');
      const key = await this.keys.find(header.kid);
      if (!key) throw new Error('unknown key');
      const { payload } = await jwtVerify(token, key.publicKey, {
        issuer: this.config.auth.issuer,
        audience: this.config.auth.issuer,
        algorithms: ['RS256'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      });
      return toVerified(payload, true);
    } catch (error) {
      const expired = (error as { code?: string }).code === 'ERR_JWT_EXPIRED';
      throw invalidToken(expired ? 'The access token has expired.' : 'The access token is invalid.');
    }
  }
}

/** RFC 7235 quoted-string content: no double quotes or backslashes. */
export function quotable(text: string): string {
  return text.replace(/["\\]/g, "'");
}

function toVerified(payload: JWTPayload, local: boolean): VerifiedToken {
  const scopes = typeof payload.scope === 'string' ? splitScopes(payload.scope) : Array.isArray(payload.scp) ? payload.scp.map(String) : [];
  const clientId = String(payload.client_id ?? payload.azp ?? payload.sub ?? 'unknown');
  if (payload.exp === undefined) throw new Error('no expiry');
  return {
    clientId,
    customerId: customerOf(scopes),
    projectKey: typeof payload.project_key === 'string' ? payload.project_key : undefined,
    scopes,
    scopeSet: new Set(scopes),
    exp: payload.exp,
    iat: payload.iat,
    local,
  };
}

export function invalidToken(description: string): DomainError {
  return Object.assign(DomainError.of(ErrorCode.InvalidToken, description), {
    headers: { 'WWW-Authenticate': `Bearer realm="resource-api", error="invalid_token", error_description="${quotable(description)}"` },
    extra: { error: 'invalid_token', error_description: description },
  });
}
