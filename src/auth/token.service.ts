import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { authConfig, type AuthConfig } from './auth.config.js';
import { invalidToken } from './auth.errors.js';
import { ApiClientsRepository, type StoredApiClient } from './api-clients.repository.js';
import { JwtVerifier, type VerifiedToken } from './jwt-verifier.js';
import { SigningKeysService } from './signing-keys.service.js';

export interface IssuedToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

const TOKEN_CACHE_SIZE = 10_000;

/**
 * Issues RS256 access tokens (jsonwebtoken, the library passport-jwt verifies them with) and keeps
 * the verified ones in memory until they expire, so a request with a known token pays one map lookup
 * instead of an RSA verification. Whether a token's client still exists is re-checked at most every
 * AUTH_CLIENT_CHECK_SECONDS (a deleted client's tokens fail within that time on every replica).
 */
@Injectable()
export class TokenService {
  private readonly verified = new Map<string, VerifiedToken>();
  private readonly clientSeen = new Map<string, number>();

  constructor(
    @Inject(authConfig.KEY) private readonly config: AuthConfig,
    private readonly keys: SigningKeysService,
    private readonly clients: ApiClientsRepository,
    private readonly verifier: JwtVerifier,
  ) {}

  issue(client: StoredApiClient, scopes: string[]): IssuedToken {
    const key = this.keys.signingKey;
    const ttl = this.config.tokenTtlSeconds;
    const scope = client.customerId ? [...scopes, `customer_id_test:${client.customerId}`] : scopes;
    const token = jwt.sign({ scope: scope.join(' '), client_id: client.id, project_key: client.projectKey }, key.privateKey, {
      algorithm: 'RS256',
      keyid: key.kid,
      issuer: this.config.issuer,
      audience: this.config.issuer,
      subject: client.id,
      expiresIn: ttl,
      jwtid: randomUUID(),
    });
    return { access_token: token, token_type: 'Bearer', expires_in: ttl, scope: scope.join(' ') };
  }

  /** A token verified before and not yet expired. */
  cached(token: string): VerifiedToken | undefined {
    const verified = this.verified.get(token);
    if (verified && verified.exp <= Date.now() / 1000) {
      this.verified.delete(token);
      return undefined;
    }
    return verified;
  }

  remember(token: string, verified: VerifiedToken): void {
    if (this.verified.size >= TOKEN_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, verified);
  }

  /** 401 when the API client of a token this server issued no longer exists. */
  async assertClientExists(token: VerifiedToken): Promise<void> {
    if (!token.local) return;
    const now = Date.now() / 1000;
    const seen = this.clientSeen.get(token.clientId);
    if (seen !== undefined && now - seen < this.config.clientCheckSeconds) return;
    if (!(await this.clients.exists(token.clientId))) {
      this.clientSeen.delete(token.clientId);
      throw invalidToken('The API client of this token no longer exists.');
    }
    this.clientSeen.set(token.clientId, now);
  }

  /** The token's claims if it is valid now and its client exists; undefined otherwise (introspection). */
  async inspect(token: string): Promise<VerifiedToken | undefined> {
    try {
      const verified = this.cached(token) ?? (await this.verifier.verify(token));
      await this.assertClientExists(verified);
      return verified;
    } catch {
      return undefined;
    }
  }
}
