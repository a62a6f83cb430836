import { Injectable } from '@nestjs/common';
import { ErrorCode } from '../common/error-code.js';
import { oauthError } from './auth.errors.js';
import { ApiClientsService } from './api-clients.service.js';
import type { StoredApiClient } from './api-clients.repository.js';
import { CUSTOMER_SCOPE, splitScopes } from './scopes.js';
import { SigningKeysService } from './signing-keys.service.js';
import { IssuedToken, TokenService } from './token.service.js';

export interface Introspection {
  active: boolean;
  scope?: string;
  client_id?: string;
  sub?: string;
  exp?: number;
  iat?: number;
  iss?: string;
  token_type?: string;
}

interface Credentials {
  id: string;
  secret: string;
  /** Alternative reading of Basic credentials (form-urlencoded per RFC 6749 §2.3.1). */
  decoded?: { id: string; secret: string };
  basic: boolean;
}

@Injectable()
export class OAuthService {
  constructor(
    private readonly clients: ApiClientsService,
    private readonly tokens: TokenService,
    private readonly keys: SigningKeysService,
  ) {}

  async issueToken(authorization: string | undefined, body: unknown): Promise<IssuedToken> {
    const form = asForm(body);
    const credentials = readCredentials(authorization, form);
    if (form.grant_type === undefined) throw oauthError(ErrorCode.InvalidRequest, 'grant_type is required.');
    if (form.grant_type !== 'client_credentials') {
      throw oauthError(ErrorCode.UnsupportedGrantType, `The grant type '${form.grant_type}' is not supported; use client_credentials.`);
    }
    const client = await this.authenticate(credentials);
    const allowed = splitScopes(client.scope);
    // A customer-bound client's tokens always carry its customer scope, so asking for exactly that
    // one is allowed (and redundant); any other customer_id_test scope is beyond the client's.
    const ownCustomer = client.customerId ? `${CUSTOMER_SCOPE}:${client.customerId}` : undefined;
    const requested = form.scope === undefined ? allowed : splitScopes(form.scope).filter((s) => s !== ownCustomer);
    const beyond = requested.filter((s) => !allowed.includes(s));
    if (beyond.length > 0) throw oauthError(ErrorCode.InvalidScope, `The client may not request: ${beyond.join(' ')}.`);
    if (requested.length === 0) throw oauthError(ErrorCode.InvalidScope, 'At least one scope must be requested.');
    return this.tokens.issue(client, [...new Set(requested)]);
  }

  /** RFC 7662; the caller authenticates as a client and may introspect tokens of its own project. */
  async introspect(authorization: string | undefined, body: unknown): Promise<Introspection> {
    const form = asForm(body);
    const caller = await this.authenticate(readCredentials(authorization, form));
    if (typeof form.token !== 'string' || form.token === '') throw oauthError(ErrorCode.InvalidRequest, 'token is required.');
    const token = await this.tokens.inspect(form.token);
    if (!token || !token.local || token.projectKey !== caller.projectKey) return { active: false };
    return {
      active: true,
      scope: token.scopes.join(' '),
      client_id: token.clientId,
      sub: token.clientId,
      exp: token.exp,
      iat: token.iat,
      token_type: 'Bearer',
    };
  }

  jwks(): { keys: object[] } {
    return this.keys.jwks();
  }

  private async authenticate(credentials: Credentials): Promise<StoredApiClient> {
    let client = await this.clients.authenticate(credentials.id, credentials.secret);
    if (!client && credentials.decoded) client = await this.clients.authenticate(credentials.decoded.id, credentials.decoded.secret);
    if (!client) throw oauthError(ErrorCode.InvalidClient, 'Client authentication failed.', credentials.basic);
    return client;
  }
}

function asForm(body: unknown): Record<string, string | undefined> {
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw oauthError(ErrorCode.InvalidRequest, 'The request body must be form-urlencoded parameters.');
  }
  const form: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(body)) {
    if (typeof value !== 'string') throw oauthError(ErrorCode.InvalidRequest, `The parameter ${key} must be a string.`);
    form[key] = value;
  }
  return form;
}

function readCredentials(authorization: string | undefined, form: Record<string, string | undefined>): Credentials {
  if (authorization !== undefined) {
    const match = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(authorization);
    const text = match ? Buffer.from(match[1], 'base64').toString('utf8') : '';
    const colon = text.indexOf(':');
    if (colon <= 0) throw oauthError(ErrorCode.InvalidClient, 'Malformed HTTP Basic credentials.', true);
    const id = text.slice(0, colon);
    const secret = text.slice(colon + 1);
    return { id, secret, decoded: formDecoded(id, secret), basic: true };
  }
  if (form.client_id && form.client_secret) return { id: form.client_id, secret: form.client_secret, basic: false };
  throw oauthError(ErrorCode.InvalidClient, 'Client credentials are required (HTTP Basic or client_id and client_secret).', true);
}

function formDecoded(id: string, secret: string): { id: string; secret: string } | undefined {
  try {
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    const decoded = { id: decode(id), secret: decode(secret) };
    return decoded.id !== id || decoded.secret !== secret ? decoded : undefined;
  } catch {
    return undefined;
  }
}
