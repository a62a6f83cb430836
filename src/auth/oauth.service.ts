import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { pathOf } from '../common/error-envelope.filter.js';
import { ErrorCode } from '../common/error-code.js';
import { KeyedSemaphores, Semaphore, SemaphoreRefusal } from '../common/semaphore.js';
import { authConfig, type AuthConfig } from './auth.config.js';
import { oauthError, rateLimited } from './auth.errors.js';
import { RateLimiter } from './rate-limiter.js';
import { ApiClientsService } from './api-clients.service.js';
import type { StoredApiClient } from './api-clients.repository.js';
import { CUSTOMER_SCOPE, invalidCustomerScope, splitScopes } from './scopes.js';
import { SigningKeysService } from './signing-keys.service.js';
import { type IssuedToken, TokenService } from './token.service.js';

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
  basic: boolean;
}

/** The routes of this service that check a client secret. */
const OAUTH_PATHS = new Set(['/oauth/token', '/oauth/introspect']);

/** Secret checks that may wait for a hashing slot, per slot; past them → 429 at once. */
const HASH_QUEUE_PER_SLOT = 32;
/** Secret checks one remote address, and one client id, may have under way at once; and waiting. */
const ADDRESS_HASHES = 2;
const CLIENT_HASHES = 1;
const KEY_QUEUE = 16;

/**
 * The token and introspection endpoints. Both are public and each checks a client secret with scrypt
 * (about 50 ms of a libuv thread), so both are bounded before any hashing: requests per minute per
 * remote address and per client id (`RATE_LIMIT_TOKEN_PER_MINUTE`, 429 with Retry-After), and
 * `AUTH_HASH_CONCURRENCY` hashes at once (the others wait in turn; a full queue → 429), which leaves
 * the rest of libuv's pool to everything else. One address has at most ADDRESS_HASHES, one client id
 * CLIENT_HASHES, checks under way or queued for a slot (KEY_QUEUE more wait; past them → 429), so a
 * flood from one address or for one client id queues at most that many hashes before anyone else's:
 * the per-minute allowance cannot be spent in one burst that stalls every other client's token.
 * One scrypt per request, known id or not.
 */
@Injectable()
export class OAuthService {
  private readonly limiter: RateLimiter;
  private readonly hashes: Semaphore;
  private readonly perAddress = new KeyedSemaphores(ADDRESS_HASHES, KEY_QUEUE);
  private readonly perClient = new KeyedSemaphores(CLIENT_HASHES, KEY_QUEUE);

  constructor(
    private readonly clients: ApiClientsService,
    private readonly tokens: TokenService,
    private readonly keys: SigningKeysService,
    @Inject(authConfig.KEY) config: AuthConfig,
  ) {
    this.limiter = new RateLimiter(config.rateLimitTokenPerMinute);
    this.hashes = new Semaphore(config.hashConcurrency, config.hashConcurrency * HASH_QUEUE_PER_SLOT);
  }

  /**
   * A Fastify `onRequest` hook: the per-address limit of the two endpoints, checked before the body is
   * read or anything of Nest runs, so that the 429s of a flood cost as little as they can.
   */
  addressLimit(): (request: FastifyRequest) => Promise<void> {
    return async (request) => {
      if (request.method === 'POST' && OAUTH_PATHS.has(pathOf(request.url))) this.limit(`address ${request.ip}`);
    };
  }

  async issueToken(authorization: string | undefined, body: unknown, address: string): Promise<IssuedToken> {
    const form = asForm(body);
    const credentials = readCredentials(authorization, form);
    if (form.grant_type === undefined) throw oauthError(ErrorCode.InvalidRequest, 'grant_type is required.');
    if (form.grant_type !== 'client_credentials') {
      throw oauthError(ErrorCode.UnsupportedGrantType, `The grant type '${form.grant_type}' is not supported; use client_credentials.`);
    }
    const client = await this.authenticate(credentials, address);
    // A customer-bound client stored with a scope that lifts its customer restriction (manage_test,
    // manage_api_clients: refused on create since) never gets a token holding it.
    const allowed = splitScopes(client.scope).filter((s) => !client.customerId || !invalidCustomerScope(s));
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
  async introspect(authorization: string | undefined, body: unknown, address: string): Promise<Introspection> {
    const form = asForm(body);
    const caller = await this.authenticate(readCredentials(authorization, form), address);
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

  private async authenticate(credentials: Credentials, address: string): Promise<StoredApiClient> {
    this.limit(`client ${credentials.id}`);
    const hashing = <T>(task: () => Promise<T>) =>
      this.perAddress.run(address, () => this.perClient.run(credentials.id, () => this.hashes.run(task)));
    const client = await this.clients.authenticate(credentials.id, credentials.secret, hashing).catch((error: unknown) => {
      if (error instanceof SemaphoreRefusal) throw rateLimited(1);
      throw error;
    });
    if (!client) throw oauthError(ErrorCode.InvalidClient, 'Client authentication failed.', credentials.basic);
    return client;
  }

  /** Counts a request against `key`'s minute; 429 with Retry-After when it is used up. */
  private limit(key: string): void {
    const wait = this.limiter.take(key);
    if (wait !== undefined) throw rateLimited(wait);
  }
}

/**
 * The request's parameters: each given once (RFC 6749, section 3.2; the form parser keeps a repeated one as an
 * array of its values), as a string without NUL characters.
 */
function asForm(body: unknown): Record<string, string | undefined> {
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw oauthError(ErrorCode.InvalidRequest, 'The request body must be form-urlencoded parameters.');
  }
  const form: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(body)) {
    const name = showingNul(key);
    if (Array.isArray(value) && value.length > 1 && value.every((v) => typeof v === 'string')) {
      throw oauthError(ErrorCode.InvalidRequest, `The parameter ${name} is given more than once.`);
    }
    if (typeof value !== 'string') throw oauthError(ErrorCode.InvalidRequest, `The parameter ${name} must be a string.`);
    if (name !== key || value.includes('\0')) throw oauthError(ErrorCode.InvalidRequest, `The parameter ${name} holds a NUL character.`);
    form[key] = value;
  }
  return form;
}

/** `text` with its NUL characters shown as `\0`, for messages. */
function showingNul(text: string): string {
  return text.replace(/\0/g, '\\0');
}

function readCredentials(authorization: string | undefined, form: Record<string, string | undefined>): Credentials {
  if (authorization !== undefined) {
    const match = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(authorization);
    const text = match ? Buffer.from(match[1], 'base64').toString('utf8') : '';
    const colon = text.indexOf(':');
    if (colon <= 0) throw oauthError(ErrorCode.InvalidClient, 'Malformed HTTP Basic credentials.', true);
    const id = text.slice(0, colon);
    const secret = text.slice(colon + 1);
    const credentials = formDecoded(id, secret) ?? { id, secret };
    if (`${credentials.id}:${credentials.secret}`.includes('\0')) throw oauthError(ErrorCode.InvalidRequest, 'The HTTP Basic credentials hold a NUL character.');
    return { ...credentials, basic: true };
  }
  if (form.client_id && form.client_secret) return { id: form.client_id, secret: form.client_secret, basic: false };
  throw oauthError(ErrorCode.InvalidClient, 'Client credentials are required (HTTP Basic or client_id and client_secret).', true);
}

/**
 * Basic credentials read form-urlencoded (RFC 6749, section 2.3.1) when they hold a percent escape (`%XX`)
 * and decode as a whole; read raw otherwise. One reading, so one scrypt: a raw secret rarely holds a
 * valid escape, while an encoded one has one for every character beyond letters, digits and `-._*`.
 * (A `+` alone stays a `+`: raw base64 secrets have many; a space must then be sent as `%20`.)
 */
function formDecoded(id: string, secret: string): { id: string; secret: string } | undefined {
  if (!/%[0-9A-Fa-f]{2}/.test(`${id}:${secret}`)) return undefined;
  try {
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: decode(id), secret: decode(secret) };
  } catch {
    return undefined;
  }
}
