import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { draft } from '../support/fixtures.js';
import { errorCode } from '../support/expect-error.js';

/*
 * Tokens of an external issuer (docs/authentication.md#external-issuer: accepted when AUTH_JWKS_URL, AUTH_ISSUER and
 * AUTH_AUDIENCE are configured), verified against the issuer's JWKS served over real HTTP.
 */

const ISSUER = 'https://issuer.test';
const AUDIENCE = 'resource-api-test';
const KID = 'external-key-1';

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

type Res = { status: number; headers: Record<string, string>; body: any };

function expect401(res: Res): void {
  expect({ status: res.status, code: errorCode(res) }).toEqual({ status: 401, code: 'invalid_token' });
  expect(res.headers['www-authenticate']).toMatch(/^Bearer\b/);
  expect((res.body as { error?: string }).error).toBe('invalid_token');
}

describe('external issuer tokens', () => {
  let server: Server;
  let jwksRequests = 0;
  let privateKey: PrivateKey;
  let strangerKey: PrivateKey;
  let t: TestApp;

  interface Claims {
    scope?: string;
    iss?: string;
    aud?: string;
    exp?: number;
    kid?: string;
    key?: PrivateKey;
    clientId?: string;
  }

  async function sign(c: Claims = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ scope: c.scope ?? `manage_test:${t.projectKey}`, client_id: c.clientId ?? 'external-client-1' })
      .setProtectedHeader({ alg: 'RS256', kid: c.kid ?? KID, typ: 'JWT' })
      .setIssuer(c.iss ?? ISSUER)
      .setAudience(c.aud ?? AUDIENCE)
      .setSubject('external-user')
      .setIssuedAt(now - 10)
      .setExpirationTime(c.exp ?? now + 600)
      .sign(c.key ?? privateKey);
  }

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    privateKey = pair.privateKey;
    strangerKey = (await generateKeyPair('RS256', { extractable: true })).privateKey;
    const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
    server = createServer((req, res) => {
      if (req.url === '/jwks.json') {
        jwksRequests++;
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ keys: [jwk] }));
        return;
      }
      res.writeHead(404);
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    t = await createTestApp({
      AUTH_JWKS_URL: `http://127.0.0.1:${port}/jwks.json`,
      AUTH_ISSUER: ISSUER,
      AUTH_AUDIENCE: AUDIENCE,
    });
  });
  afterAll(async () => {
    await t?.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('accepts a token with the right iss, aud and scope: POST /resource → 201, createdBy from the token\'s client_id', async () => {
    const res = await t.http.post(`/${t.projectKey}/resource`).set('Authorization', `Bearer ${await sign()}`).send(draft());
    expect(res.status).toBe(201);
    expect(res.body.createdBy).toEqual({ clientId: 'external-client-1' });
    expect(jwksRequests).toBeGreaterThan(0);
    const read = await t.http.get(`/${t.projectKey}/resource/${res.body.id}`).set('Authorization', `Bearer ${await sign({ scope: `view_test:${t.projectKey}` })}`);
    expect(read.status).toBe(200);
  });

  it('applies the scopes of an external token: another project or a missing scope → 403', async () => {
    const other = await t.http.post(`/${t.projectKey}/resource`).set('Authorization', `Bearer ${await sign({ scope: `manage_test:${t.otherProjectKey}` })}`).send(draft());
    expect({ status: other.status, code: errorCode(other) }).toEqual({ status: 403, code: 'insufficient_scope' });
    const viewOnly = await t.http.post(`/${t.projectKey}/resource`).set('Authorization', `Bearer ${await sign({ scope: `view_test:${t.projectKey}` })}`).send(draft());
    expect({ status: viewOnly.status, code: errorCode(viewOnly) }).toEqual({ status: 403, code: 'insufficient_scope' });
  });

  it('refuses a token with the wrong audience → 401', async () => {
    expect401(await t.http.post(`/${t.projectKey}/resource`).set('Authorization', `Bearer ${await sign({ aud: 'someone-else' })}`).send(draft()));
  });

  it('refuses a token with the wrong issuer → 401', async () => {
    for (const iss of ['https://evil.test', 'https://issuer.test/', t.config.auth.issuer]) {
      expect401(await t.http.post(`/${t.projectKey}/resource`).set('Authorization', `Bearer ${await sign({ iss })}`).send(draft()));
    }
  });

  it('refuses a token signed by another key under the same kid, or an unknown kid → 401', async () => {
    expect401(await t.http.post(`/${t.projectKey}/resource`).set('Authorization', `Bearer ${await sign({ key: strangerKey })}`).send(draft()));
    expect401(await t.http.post(`/${t.projectKey}/resource`).set('Authorization', `Bearer ${await sign({ key: strangerKey, kid: 'unknown-kid' })}`).send(draft()));
  });

  it('refuses an expired external token → 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    const res = await t.http.get(`/${t.projectKey}/resource`).set('Authorization', `Bearer ${await sign({ exp: now - 3600 })}`);
    expect401(res);
    expect((res.body as { error_description: string }).error_description).toMatch(/expired/i);
  });

  it('still accepts the server\'s own tokens alongside', async () => {
    const res = await t.http.post(`/${t.projectKey}/resource`).set(await t.auth('manage_test')).send(draft());
    expect(res.status).toBe(201);
    // And an external token still works after a local one (no cross-talk between the two verifiers).
    const ext = await t.http.get(`/${t.projectKey}/resource`).set('Authorization', `Bearer ${await sign()}`);
    expect(ext.status).toBe(200);
  });
});
