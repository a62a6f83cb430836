import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { createTestApp, type TestApp } from '../support/test-app.js';

/** A configured signing key (AUTH_PRIVATE_KEY) replaces the generated one. */
describe('AUTH_PRIVATE_KEY', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  // Environments often carry PEM with escaped newlines; both forms are accepted.
  const pem = (privateKey.export({ type: 'pkcs8', format: 'pem' }) as string).replace(/\n/g, '\\n');
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ AUTH_PRIVATE_KEY: pem });
  });
  afterAll(() => t.close());

  it('signs tokens with the configured key and publishes only its public half', async () => {
    const jwks = await t.http.get('/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys).toHaveLength(1);
    const published = jwks.body.keys[0];
    expect(published).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String) });
    expect(published.d).toBeUndefined();
    expect(published.n).toBe(publicKey.export({ format: 'jwk' }).n);

    const header = await t.auth('view_test');
    const token = header.Authorization.slice('Bearer '.length);
    const [head, payload, signature] = token.split('.');
    expect(JSON.parse(Buffer.from(head, 'base64url').toString()).kid).toBe(published.kid);
    const key = createPublicKey({ key: published, format: 'jwk' });
    expect(verify('RSA-SHA256', Buffer.from(`${head}.${payload}`), key, Buffer.from(signature, 'base64url'))).toBe(true);

    const read = await t.http.get(`/${t.projectKey}/resource/key=none`).set(header);
    expect(read.status).toBe(404);
  });
});

describe('WWW-Authenticate', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  // RFC 7235: auth-scheme, then auth-params whose quoted values hold no bare double quotes.
  const CHALLENGE = /^Bearer( [a-z_]+="[^"\\]*"(, [a-z_]+="[^"\\]*")*)?$/;

  it.each([
    ['no header', {}],
    ['a Basic header', { Authorization: 'Basic Zm9vOmJhcg==' }],
    ['a malformed token', { Authorization: 'Bearer abc' }],
  ])('is a well-formed challenge for %s (401)', async (_case, headers) => {
    const res = await t.http.get(`/${t.projectKey}/resource/key=x`).set(headers);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(CHALLENGE);
  });

  it('is a well-formed challenge naming the scope on 403', async () => {
    const res = await t.http.delete(`/${t.projectKey}/resource/00000000-0000-4000-8000-000000000000`).set(await t.auth('view_test'));
    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toMatch(CHALLENGE);
    expect(res.headers['www-authenticate']).toContain(`scope="manage_test:${t.projectKey}"`);
  });
});
