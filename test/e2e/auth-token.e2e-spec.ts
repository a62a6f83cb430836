import { createPublicKey, verify as cryptoVerify, type JsonWebKey } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClientsService, OPERATOR } from '../../src/auth/api-clients.service.js';
import { failLikeShutdown } from '../support/database-faults.js';
import { createTestApp, onPostgres, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { draft } from '../support/fixtures.js';
import { expectErrorEnvelope } from '../support/expect-error.js';
import { basic } from '../support/auth.js';
import { awayFromMinuteBoundary } from '../support/timing.js';
import { Database } from '../../src/database/database.js';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { listenOnFreePort } from '../support/listening-app.js';

/*
 * POST /oauth/token, POST /oauth/introspect and GET /.well-known/jwks.json: tokens, introspection, and
 * their error answers (the envelope plus OAuth's error and error_description, whatever the cause).
 */

type Res = { status: number; headers: Record<string, string>; body: any; text?: string };

/** RFC 6749, section 2.3.1 / appendix B: application/x-www-form-urlencoded (space → '+'). */
function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, '+');
}

/**
 * Envelope {statusCode, message, errors:[{code}]} plus the OAuth fields error (`error`, by default the
 * code itself) and error_description; nothing internal.
 */
function expectOAuthError(res: Res, status: number, code: string, error = code): void {
  const body = res.body as Record<string, unknown> & { errors?: Array<{ code?: string }> };
  expectErrorEnvelope(res, status, code);
  expect({ status: res.status, code: body?.errors?.[0]?.code, error: body?.error }).toEqual({ status, code, error });
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(body.statusCode).toBe(status);
  expect(typeof body.message).toBe('string');
  expect(typeof body.error_description).toBe('string');
  expect((body.error_description as string).length).toBeGreaterThan(0);
}

function decodeSegment(segment: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as Record<string, unknown>;
}

function jwtParts(token: string): { header: Record<string, unknown>; payload: Record<string, unknown>; signingInput: string; signature: Buffer } {
  const parts = token.split('.');
  expect(parts).toHaveLength(3);
  return {
    header: decodeSegment(parts[0]),
    payload: decodeSegment(parts[1]),
    signingInput: `${parts[0]}.${parts[1]}`,
    signature: Buffer.from(parts[2], 'base64url'),
  };
}

/** Verifies an RS256 JWT against a JWKS with node:crypto only (independent of the server's jose). */
function verifyWithJwks(token: string, jwks: { keys: Array<Record<string, unknown>> }): boolean {
  const { header, signingInput, signature } = jwtParts(token);
  const jwk = jwks.keys.find((k) => k.kid === header.kid);
  if (!jwk) return false;
  const { kid: _kid, alg: _alg, use: _use, ...material } = jwk;
  const key = createPublicKey({ key: material as JsonWebKey, format: 'jwk' });
  return cryptoVerify('RSA-SHA256', Buffer.from(signingInput), key, signature);
}

async function newClient(t: TestApp, scopeNames: string, options: { projectKey?: string; secret?: string; id?: string; customerId?: string } = {}) {
  const pk = options.projectKey ?? t.projectKey;
  const scope = scopeNames.split(' ').map((n) => `${n}:${pk}`).join(' ');
  return t.app.get(ApiClientsService).create(pk, { name: 'token-test', scope, secret: options.secret, id: options.id, customerId: options.customerId }, OPERATOR);
}

describe('POST /oauth/token', () => {
  let t: TestApp;
  let client: { id: string; secret: string };
  beforeAll(async () => {
    t = await createTestApp();
    client = await newClient(t, 'manage_test view_test');
  });
  afterAll(() => t.close());

  it('issues a token for HTTP Basic raw credentials: {access_token, token_type: Bearer, expires_in: 172800, scope}, no refresh_token', async () => {
    const res = await t.http.post('/oauth/token').set('Authorization', basic(client.id, client.secret)).type('form').send('grant_type=client_credentials');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(res.body.token_type).toBe('Bearer');
    expect(res.body.expires_in).toBe(172800);
    expect(typeof res.body.expires_in).toBe('number');
    expect(res.body.refresh_token).toBeUndefined();
    expect(res.body.scope.split(' ').sort()).toEqual([`manage_test:${t.projectKey}`, `view_test:${t.projectKey}`]);
    expect(typeof res.body.access_token).toBe('string');
    // RFC 6749, section 5.1: token responses must not be cached.
    expect(res.headers['cache-control']).toMatch(/no-store/);
    const write = await t.http.post(`/${t.projectKey}/resource`).set('Authorization', `Bearer ${res.body.access_token}`).send(draft());
    expect(write.status).toBe(201);
  });

  it('accepts HTTP Basic credentials that are form-urlencoded (RFC 6749, section 2.3.1) as well as raw ones, for a secret with + % : / and a space', async () => {
    const secret = 'Se cr+et%2F:with/odd+chars%';
    const c = await newClient(t, 'view_test', { secret });
    const encoded = await t.http
      .post('/oauth/token')
      .set('Authorization', `Basic ${Buffer.from(`${formEncode(c.id)}:${formEncode(secret)}`).toString('base64')}`)
      .type('form')
      .send('grant_type=client_credentials');
    expect(encoded.status).toBe(200);
    expect(encoded.body.scope).toBe(`view_test:${t.projectKey}`);
    const raw = await t.http.post('/oauth/token').set('Authorization', basic(c.id, secret)).type('form').send('grant_type=client_credentials');
    expect(raw.status).toBe(200);
    expect(raw.body.token_type).toBe('Bearer');
  });

  it('accepts the credentials as form fields client_id and client_secret', async () => {
    const res = await t.http
      .post('/oauth/token')
      .type('form')
      .send(`grant_type=client_credentials&client_id=${formEncode(client.id)}&client_secret=${formEncode(client.secret)}`);
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('Bearer');
    expect(res.body.expires_in).toBe(172800);
  });

  it('accepts a form body whose scope holds unencoded spaces (commercetools SDK) and grants that subset', async () => {
    const pk = t.projectKey;
    const res = await t.http
      .post('/oauth/token')
      .set('Authorization', basic(client.id, client.secret))
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(`grant_type=client_credentials&scope=view_test:${pk} manage_test:${pk}`);
    expect(res.status).toBe(200);
    expect(res.body.scope.split(' ').sort()).toEqual([`manage_test:${pk}`, `view_test:${pk}`]);
  });

  it('grants a requested subset of the client\'s scopes, and the token carries only that subset', async () => {
    const res = await t.http
      .post('/oauth/token')
      .set('Authorization', basic(client.id, client.secret))
      .type('form')
      .send(`grant_type=client_credentials&scope=${formEncode(`view_test:${t.projectKey}`)}`);
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe(`view_test:${t.projectKey}`);
    expect(jwtParts(res.body.access_token).payload.scope).toBe(`view_test:${t.projectKey}`);
    const bearer = `Bearer ${res.body.access_token}`;
    const read = await t.http.get(`/${t.projectKey}/resource`).set('Authorization', bearer);
    expect(read.status).toBe(200);
    const write = await t.http.post(`/${t.projectKey}/resource`).set('Authorization', bearer).send(draft());
    expect(write.status).toBe(403);
    expect(write.body.errors[0].code).toBe('insufficient_scope');
  });

  it('answers 400 invalid_scope for a scope beyond the client\'s', async () => {
    for (const scope of [`manage_products:${t.projectKey}`, `view_test:${t.otherProjectKey}`, `view_test:${t.projectKey} manage_api_clients:${t.projectKey}`]) {
      const res = await t.http
        .post('/oauth/token')
        .set('Authorization', basic(client.id, client.secret))
        .type('form')
        .send(`grant_type=client_credentials&scope=${formEncode(scope)}`);
      expectOAuthError(res, 400, 'invalid_scope');
      expect(res.body.access_token).toBeUndefined();
    }
  });

  it('answers 401 invalid_client for an unknown client or a bad secret (Basic and form fields)', async () => {
    const cases = [
      t.http.post('/oauth/token').set('Authorization', basic('no-such-client', 'whatever-secret')).type('form').send('grant_type=client_credentials'),
      t.http.post('/oauth/token').set('Authorization', basic(client.id, `${client.secret}x`)).type('form').send('grant_type=client_credentials'),
      t.http.post('/oauth/token').set('Authorization', basic(client.id, '')).type('form').send('grant_type=client_credentials'),
      t.http.post('/oauth/token').type('form').send(`grant_type=client_credentials&client_id=${client.id}&client_secret=wrong`),
      t.http.post('/oauth/token').type('form').send('grant_type=client_credentials&client_id=nobody&client_secret=nothing'),
    ];
    for (const res of await Promise.all(cases)) {
      expectOAuthError(res, 401, 'invalid_client');
      expect(res.body.access_token).toBeUndefined();
    }
  });

  it('answers 401 invalid_client when no credentials are sent', async () => {
    const res = await t.http.post('/oauth/token').type('form').send('grant_type=client_credentials');
    expectOAuthError(res, 401, 'invalid_client');
  });

  it('answers 400 invalid_request when grant_type is missing', async () => {
    const res = await t.http.post('/oauth/token').set('Authorization', basic(client.id, client.secret)).type('form').send(`scope=${formEncode(`view_test:${t.projectKey}`)}`);
    expectOAuthError(res, 400, 'invalid_request');
  });

  it('accepts a JSON Content-Type on a request without a body: Basic + no grant_type → 400 invalid_request (not 415, not a JSON error)', async () => {
    const res = await t.http.post('/oauth/token').set('Authorization', basic(client.id, client.secret)).set('Content-Type', 'application/json');
    expectOAuthError(res, 400, 'invalid_request');
  });

  it('answers 400 unsupported_grant_type for grant_type=password and other grants', async () => {
    for (const grant of ['password', 'authorization_code', 'refresh_token']) {
      const res = await t.http
        .post('/oauth/token')
        .set('Authorization', basic(client.id, client.secret))
        .type('form')
        .send(`grant_type=${grant}&username=a&password=b`);
      expectOAuthError(res, 400, 'unsupported_grant_type');
    }
  });

  it('issues an RS256 JWT with a kid that GET /.well-known/jwks.json verifies (node:crypto, independent of the server)', async () => {
    const res = await t.http.post('/oauth/token').set('Authorization', basic(client.id, client.secret)).type('form').send('grant_type=client_credentials');
    expect(res.status).toBe(200);
    const token: string = res.body.access_token;
    const { header, payload } = jwtParts(token);
    expect(header.alg).toBe('RS256');
    expect(typeof header.kid).toBe('string');
    expect((header.kid as string).length).toBeGreaterThan(0);
    expect(payload.client_id).toBe(client.id);
    expect(typeof payload.exp).toBe('number');
    const jwks = await t.http.get('/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    expect(Array.isArray(jwks.body.keys)).toBe(true);
    const jwk = jwks.body.keys.find((k: { kid?: string }) => k.kid === header.kid);
    expect(jwk).toEqual(expect.objectContaining({ kty: 'RSA', kid: header.kid }));
    // Only public material is published.
    for (const k of jwks.body.keys) for (const privateMember of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(k[privateMember]).toBeUndefined();
    expect(verifyWithJwks(token, jwks.body)).toBe(true);
    // The check is real: a changed payload does not verify.
    const [h, , s] = token.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...payload, scope: `manage_test:${t.otherProjectKey}` })).toString('base64url')}.${s}`;
    expect(verifyWithJwks(forged, jwks.body)).toBe(false);
  });

  it('adds customer_id_test:<id> to the scope of a customer-bound client\'s token', async () => {
    const c = await newClient(t, 'manage_my_profile_test', { customerId: 'cust-42' });
    const res = await t.http.post('/oauth/token').set('Authorization', basic(c.id, c.secret)).type('form').send('grant_type=client_credentials');
    expect(res.status).toBe(200);
    expect(res.body.scope.split(' ').sort()).toEqual([`customer_id_test:cust-42`, `manage_my_profile_test:${t.projectKey}`].sort());
  });

  it('a customer-bound client may ask for its own customer scope (it is added anyway)', async () => {
    const c = await newClient(t, 'manage_my_profile_test', { customerId: 'cust-7' });
    const res = await t.http
      .post('/oauth/token')
      .set('Authorization', basic(c.id, c.secret))
      .type('form')
      .send(`grant_type=client_credentials&scope=manage_my_profile_test:${t.projectKey} customer_id_test:cust-7`);
    expect(res.status).toBe(200);
    expect(res.body.scope.split(' ').sort()).toEqual([`customer_id_test:cust-7`, `manage_my_profile_test:${t.projectKey}`].sort());
  });

  it.each([
    ['another customer, asked by a customer-bound client', 'cust-8', 'customer_id_test:cust-9'],
    ['a customer scope, asked by a client bound to none', undefined, 'customer_id_test:cust-1'],
  ])('%s → 400 invalid_scope and no token', async (_name, customerId, extra) => {
    const c = await newClient(t, 'manage_my_profile_test', customerId ? { customerId } : {});
    const res = await t.http
      .post('/oauth/token')
      .set('Authorization', basic(c.id, c.secret))
      .type('form')
      .send(`grant_type=client_credentials&scope=manage_my_profile_test:${t.projectKey} ${extra}`);
    expectErrorEnvelope(res, 400, 'invalid_scope');
    expect(res.body.error).toBe('invalid_scope');
    expect(res.body.access_token).toBeUndefined();
  });
});

describe('POST /oauth/token with AUTH_TOKEN_TTL_SECONDS', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ AUTH_TOKEN_TTL_SECONDS: '600' });
  });
  afterAll(() => t.close());

  it('answers expires_in = AUTH_TOKEN_TTL_SECONDS and signs exp accordingly', async () => {
    const c = await newClient(t, 'view_test');
    const res = await t.http.post('/oauth/token').set('Authorization', basic(c.id, c.secret)).type('form').send('grant_type=client_credentials');
    expect(res.status).toBe(200);
    expect(res.body.expires_in).toBe(600);
    const { payload } = jwtParts(res.body.access_token);
    const now = Math.floor(Date.now() / 1000);
    expect(payload.exp as number).toBeGreaterThanOrEqual(now + 600 - 10);
    expect(payload.exp as number).toBeLessThanOrEqual(now + 600 + 10);
  });
});

describe('signing key across a restart', () => {
  const dataDir = onPostgres ? undefined : mkdtempSync(join(tmpdir(), 'auth-restart-'));
  const env: Record<string, string> = dataDir ? { DATA_DIR: dataDir } : {};
  afterAll(() => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps the same key (kid) on the same database, and a token issued before the restart is still accepted', async () => {
    const first = await createTestApp(env);
    const pk = uniqueProjectKey('restart');
    let token: string;
    let kid: string;
    try {
      const c = await newClient(first, 'view_test', { projectKey: pk });
      const res = await first.http.post('/oauth/token').set('Authorization', basic(c.id, c.secret)).type('form').send('grant_type=client_credentials');
      expect(res.status).toBe(200);
      token = res.body.access_token;
      kid = jwtParts(token).header.kid as string;
      const jwks = await first.http.get('/.well-known/jwks.json');
      expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toContain(kid);
    } finally {
      await first.close();
    }
    const second = await createTestApp(env);
    try {
      const jwks = await second.http.get('/.well-known/jwks.json');
      expect(jwks.status).toBe(200);
      expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toContain(kid);
      expect(verifyWithJwks(token, jwks.body)).toBe(true);
      const read = await second.http.get(`/${pk}/resource`).set('Authorization', `Bearer ${token}`);
      expect(read.status).toBe(200);
      // New tokens are signed with the same key.
      const c2 = await newClient(second, 'view_test', { projectKey: pk });
      const res2 = await second.http.post('/oauth/token').set('Authorization', basic(c2.id, c2.secret)).type('form').send('grant_type=client_credentials');
      expect(res2.status).toBe(200);
      expect(jwtParts(res2.body.access_token).header.kid).toBe(kid);
    } finally {
      await second.close();
    }
  });
});

describe('POST /oauth/introspect', () => {
  let t: TestApp;
  let caller: { id: string; secret: string };
  beforeAll(async () => {
    t = await createTestApp();
    caller = await newClient(t, 'view_test');
  });
  afterAll(() => t.close());

  async function tokenOf(c: { id: string; secret: string }): Promise<string> {
    const res = await t.http.post('/oauth/token').set('Authorization', basic(c.id, c.secret)).type('form').send('grant_type=client_credentials');
    expect(res.status).toBe(200);
    return res.body.access_token;
  }

  it('answers active: true with scope, client_id and exp for a token of the caller\'s project', async () => {
    const subject = await newClient(t, 'manage_test');
    const token = await tokenOf(subject);
    const res = await t.http.post('/oauth/introspect').set('Authorization', basic(caller.id, caller.secret)).type('form').send(`token=${token}`);
    expect(res.status).toBe(200);
    expect(res.body.active).toBe(true);
    expect(res.body.scope).toBe(`manage_test:${t.projectKey}`);
    expect(res.body.client_id).toBe(subject.id);
    expect(typeof res.body.exp).toBe('number');
    expect(res.body.exp).toBe(jwtParts(token).payload.exp);
  });

  it('answers {active: false} for a token of another project', async () => {
    const other = await newClient(t, 'manage_test', { projectKey: t.otherProjectKey });
    const token = await tokenOf(other);
    const res = await t.http.post('/oauth/introspect').set('Authorization', basic(caller.id, caller.secret)).type('form').send(`token=${token}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ active: false });
  });

  it('answers {active: false} for garbage and for a tampered token', async () => {
    const token = await tokenOf(caller);
    const [h, p, s] = token.split('.');
    const tampered = `${h}.${p}.${s.slice(0, 10)}${s[10] === 'A' ? 'B' : 'A'}${s.slice(11)}`;
    for (const garbage of ['garbage', 'a.b.c', tampered]) {
      const res = await t.http.post('/oauth/introspect').set('Authorization', basic(caller.id, caller.secret)).type('form').send(`token=${encodeURIComponent(garbage)}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ active: false });
    }
  });

  it('answers 401 invalid_client without credentials or with bad ones', async () => {
    const token = await tokenOf(caller);
    const none = await t.http.post('/oauth/introspect').type('form').send(`token=${token}`);
    expectOAuthError(none, 401, 'invalid_client');
    const bad = await t.http.post('/oauth/introspect').set('Authorization', basic(caller.id, 'not-the-secret')).type('form').send(`token=${token}`);
    expectOAuthError(bad, 401, 'invalid_client');
    // A bearer token is not client authentication.
    const bearer = await t.http.post('/oauth/introspect').set('Authorization', `Bearer ${token}`).type('form').send(`token=${token}`);
    expectOAuthError(bearer, 401, 'invalid_client');
  });
});

describe('error answers of POST /oauth/token and POST /oauth/introspect', () => {
  let t: TestApp;
  let client: { id: string; secret: string };
  let db: Database;
  let removeFault: (() => Promise<void>) | undefined;
  const unreachableId = `unreachable-${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    t = await createTestApp({ HTTP_BODY_LIMIT_BYTES: '1024' });
    client = await newClient(t, 'view_test');
    db = t.app.get(Database);
    // Recording the use of this one client fails as PostgreSQL shutting down would make it fail.
    await newClient(t, 'view_test', { id: unreachableId, secret: 'unreachable-secret-0123' });
    removeFault = await failLikeShutdown(db, { table: 'api_client', event: 'UPDATE', when: `NEW.id = '${unreachableId}'` });
  });
  afterAll(async () => {
    await removeFault?.();
    await t?.close();
  });

  const token = () => t.http.post('/oauth/token');
  const introspect = () => t.http.post('/oauth/introspect').set('Authorization', basic(client.id, client.secret));

  it('a parameter given twice in the form body → 400 invalid_request, even when both values are right', async () => {
    const { id, secret } = client;
    const cases: Array<[string, Promise<Res>]> = [
      ['client_id', token().type('form').send(`grant_type=client_credentials&client_id=${id}&client_id=${id}&client_secret=${formEncode(secret)}`)],
      ['client_id', token().type('form').send(`grant_type=client_credentials&client_id=a&client_id=${id}&client_secret=${formEncode(secret)}`)],
      ['client_secret', token().type('form').send(`grant_type=client_credentials&client_id=${id}&client_secret=x&client_secret=${formEncode(secret)}`)],
      ['grant_type', token().set('Authorization', basic(id, secret)).type('form').send('grant_type=client_credentials&grant_type=client_credentials')],
      ['scope', token().set('Authorization', basic(id, secret)).type('form').send(`grant_type=client_credentials&scope=x&scope=${formEncode(`view_test:${t.projectKey}`)}`)],
      ['token', introspect().type('form').send('token=a&token=b')],
    ];
    for (const [name, request] of cases) {
      const res = await request;
      expectOAuthError(res, 400, 'invalid_request');
      expect(res.body.error_description).toBe(`The parameter ${name} is given more than once.`);
      expect(res.body.access_token).toBeUndefined();
    }
    // Given once, the same credentials get a token; a JSON body is read as before.
    expect((await token().type('form').send(`grant_type=client_credentials&client_id=${id}&client_secret=${formEncode(secret)}`)).status).toBe(200);
    expect((await token().send({ grant_type: 'client_credentials', client_id: id, client_secret: secret })).status).toBe(200);
  });

  it('a NUL character in any parameter (name or value, form or JSON, or the HTTP Basic credentials) → 400 invalid_request', async () => {
    const { id, secret } = client;
    const withBasic = () => token().set('Authorization', basic(id, secret));
    const cases: Promise<Res>[] = [
      withBasic().type('form').send('grant_type=client_credentials%00'),
      withBasic().type('form').send(`grant_type=client_credentials&scope=${formEncode(`view_test:${t.projectKey}`)}%00`),
      withBasic().type('form').send('grant_type=client_credentials&sco%00pe=x'),
      token().type('form').send(`grant_type=client_credentials&client_id=${id}%00&client_secret=${formEncode(secret)}`),
      token().type('form').send(`grant_type=client_credentials&client_id=${id}&client_secret=${formEncode(secret)}%00`),
      withBasic().send({ grant_type: 'client_credentials\u0000' }),
      token().set('Authorization', basic(`${id}\u0000`, secret)).type('form').send('grant_type=client_credentials'),
      token().set('Authorization', basic(id, `${secret}\u0000`)).type('form').send('grant_type=client_credentials'),
      token().set('Authorization', basic(`${id}%00`, formEncode(secret))).type('form').send('grant_type=client_credentials'),
      introspect().type('form').send('token=abc%00'),
      introspect().send({ token: 'abc\u0000' }),
    ];
    for (const res of await Promise.all(cases)) {
      expectOAuthError(res, 400, 'invalid_request');
      expect(res.body.error_description).toMatch(/NUL character/);
      expect(res.body.access_token).toBeUndefined();
    }
  });

  it('413 (a body over HTTP_BODY_LIMIT_BYTES), 415 (a body of another type) and a malformed JSON body carry error invalid_request', async () => {
    const big = `grant_type=client_credentials&scope=${'x'.repeat(2048)}`;
    for (const endpoint of ['/oauth/token', '/oauth/introspect']) {
      const post = () => t.http.post(endpoint).set('Authorization', basic(client.id, client.secret));
      expectOAuthError(await post().type('form').send(big), 413, 'PayloadTooLarge', 'invalid_request');
      expectOAuthError(await post().set('Content-Type', 'text/plain').send('grant_type=client_credentials'), 415, 'UnsupportedMediaType', 'invalid_request');
      expectOAuthError(await post().set('Content-Type', 'application/json').send('{"grant_type":'), 400, 'InvalidJsonInput', 'invalid_request');
    }
  });

  it('a request without Host (refused before any route runs) → 400 with error invalid_request', async () => {
    const port = Number(new URL(await listenOnFreePort(t)).port);
    for (const path of ['/oauth/token', '/oauth/introspect']) {
      const answer = await new Promise<string>((resolve, reject) => {
        let text = '';
        const socket = connect(port, '127.0.0.1', () =>
          socket.end(`POST ${path} HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 29\r\nConnection: close\r\n\r\ngrant_type=client_credentials`),
        );
        socket.on('data', (data: Buffer) => (text += data.toString('utf8')));
        socket.on('error', reject);
        socket.on('close', () => resolve(text));
      });
      const [head, body] = answer.split('\r\n\r\n');
      expect(head.split(' ')[1]).toBe('400');
      expect(JSON.parse(body)).toEqual(expect.objectContaining({ statusCode: 400, errors: [expect.objectContaining({ code: 'InvalidInput' })], error: 'invalid_request', error_description: expect.any(String) }));
    }
  });

  it('503 while the database refuses carries error temporarily_unavailable and Retry-After', async () => {
    const credentials = basic(unreachableId, 'unreachable-secret-0123');
    const issued = await token().set('Authorization', credentials).type('form').send('grant_type=client_credentials');
    expectOAuthError(issued, 503, 'ServiceUnavailable', 'temporarily_unavailable');
    expect(issued.headers['retry-after']).toBe('5');
    const introspected = await t.http.post('/oauth/introspect').set('Authorization', credentials).type('form').send('token=abc');
    expectOAuthError(introspected, 503, 'ServiceUnavailable', 'temporarily_unavailable');
    expect(introspected.headers['retry-after']).toBe('5');
  });
});

describe('POST /oauth/token and /oauth/introspect with RATE_LIMIT_TOKEN_PER_MINUTE=3', () => {
  let t: TestApp;
  let client: { id: string; secret: string };
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_TOKEN_PER_MINUTE: '3', HTTP_TRUST_PROXY_HOPS: '1' });
    client = await newClient(t, 'view_test');
  });
  afterAll(() => t.close());

  const from = (address: string, endpoint = '/oauth/token') => t.http.post(endpoint).set('X-Forwarded-For', address);

  it('429 (per address, per client id) carries error temporarily_unavailable and Retry-After', async () => {
    await awayFromMinuteBoundary();
    for (let i = 0; i < 3; i++) {
      expectOAuthError(await from('198.51.100.1').set('Authorization', basic(client.id, 'wrong-secret')).type('form').send('grant_type=client_credentials'), 401, 'invalid_client');
    }
    // The address's fourth request, on either endpoint, refused before its body is read.
    for (const endpoint of ['/oauth/token', '/oauth/introspect']) {
      const refused = await from('198.51.100.1', endpoint).set('Authorization', basic(client.id, client.secret)).type('form').send('grant_type=client_credentials&token=x');
      expectOAuthError(refused, 429, 'TooManyRequests', 'temporarily_unavailable');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    // The client id's fourth request, from a fresh address.
    const refused = await from('198.51.100.2').set('Authorization', basic(client.id, client.secret)).type('form').send('grant_type=client_credentials');
    expectOAuthError(refused, 429, 'TooManyRequests', 'temporarily_unavailable');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
