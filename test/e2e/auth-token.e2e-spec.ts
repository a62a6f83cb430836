import { createPublicKey, verify as cryptoVerify, type JsonWebKey } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClientsService, OPERATOR } from '../../src/auth/api-clients.service.js';
import { createTestApp, onPostgres, TestApp, uniqueProjectKey } from '../support/test-app.js';
import { draft } from '../support/fixtures.js';
import { expectErrorEnvelope } from '../support/expect-error.js';
import { basic } from '../support/auth.js';

/*
 * POST /oauth/token, POST /oauth/introspect and GET /.well-known/jwks.json (CONTRACT.md §7, §10
 * "Access", "Further precisions", "Compatibility with commercetools clients").
 */

type Res = { status: number; headers: Record<string, string>; body: any; text?: string };

/** RFC 6749 §2.3.1 / appendix B: application/x-www-form-urlencoded (space → '+'). */
function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, '+');
}

/** Envelope {statusCode, message, errors:[{code}]} plus the OAuth fields error, error_description. */
function expectOAuthError(res: Res, status: number, code: string): void {
  const body = res.body as Record<string, unknown> & { errors?: Array<{ code?: string }> };
  expect({ status: res.status, code: body?.errors?.[0]?.code, error: body?.error }).toEqual({ status, code, error: code });
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
    // RFC 6749 §5.1: token responses must not be cached.
    expect(res.headers['cache-control']).toMatch(/no-store/);
    const write = await t.http.post(`/${t.projectKey}/resource`).set('Authorization', `Bearer ${res.body.access_token}`).send(draft());
    expect(write.status).toBe(201);
  });

  it('accepts HTTP Basic credentials that are form-urlencoded (RFC 6749 §2.3.1) as well as raw ones, for a secret with + % : / and a space', async () => {
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
  const dataDir = onPostgres ? undefined : mkdtempSync(join(tmpdir(), 'helper-auth-restart-'));
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
