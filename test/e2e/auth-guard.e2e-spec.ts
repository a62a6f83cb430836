import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Controller, Get, Module } from '@nestjs/common';
import { DiscoveryService, ModulesContainer } from '@nestjs/core';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { Test } from '@nestjs/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { SignJWT } from 'jose';
import { ACCESS_RULE } from '../../src/auth/access.decorator.js';
import { ApiClientsService, OPERATOR } from '../../src/auth/api-clients.service.js';
import { SigningKeysService } from '../../src/auth/signing-keys.service.js';
import { AppModule } from '../../src/app.module.js';
import { configureApp, createHttpAdapter } from '../../src/configure-app.js';
import { loadConfig } from '../../src/app-config.js';
import { createTestApp, onPostgres, type TestApp } from '../support/test-app.js';
import { draft } from '../support/fixtures.js';
import { errorCode, expectErrorEnvelope } from '../support/expect-error.js';

/*
 * The scope guard (docs/rules.md#scopes; docs/rules.md#errors for the order of checks; default deny, customer-bound tokens,
 * "a missing, bad or expired token is 401 (never 403)").
 */

type Res = { status: number; headers: Record<string, string>; body: any };
type Method = 'head' | 'get' | 'post' | 'put' | 'patch' | 'delete';

interface RouteCase {
  name: string;
  method: Method;
  path: (pk: string) => string;
  body?: () => unknown;
  /** Scope names of the path's project that satisfy the route. */
  scope: string;
}

const KEY = 'guard-key-1';
const ID = randomUUID();

const ROUTES: RouteCase[] = [
  { name: 'HEAD /{pk}/resource', method: 'head', path: (pk) => `/${pk}/resource`, scope: 'view_test' },
  { name: 'GET /{pk}/resource', method: 'get', path: (pk) => `/${pk}/resource`, scope: 'view_test' },
  { name: 'POST /{pk}/resource', method: 'post', path: (pk) => `/${pk}/resource`, body: () => draft(), scope: 'manage_test' },
  { name: 'PUT /{pk}/resource', method: 'put', path: (pk) => `/${pk}/resource`, body: () => draft({ key: KEY }), scope: 'manage_test' },
  { name: 'PATCH /{pk}/resource', method: 'patch', path: (pk) => `/${pk}/resource`, body: () => draft({ key: KEY }), scope: 'manage_test' },
  { name: 'GET /{pk}/resource/key={key}', method: 'get', path: (pk) => `/${pk}/resource/key=${KEY}`, scope: 'view_test' },
  { name: 'GET /{pk}/resource/{id}', method: 'get', path: (pk) => `/${pk}/resource/${ID}`, scope: 'view_test' },
  { name: 'POST /{pk}/resource/{id}', method: 'post', path: (pk) => `/${pk}/resource/${ID}`, body: () => ({ version: 1, actions: [] }), scope: 'manage_test' },
  { name: 'DELETE /{pk}/resource/{id}', method: 'delete', path: (pk) => `/${pk}/resource/${ID}`, scope: 'manage_test' },
  { name: 'POST /{pk}/api-clients', method: 'post', path: (pk) => `/${pk}/api-clients`, body: () => ({ name: 'x', scope: 'view_test:nowhere' }), scope: 'manage_api_clients' },
  { name: 'GET /{pk}/api-clients', method: 'get', path: (pk) => `/${pk}/api-clients`, scope: 'manage_api_clients' },
  { name: 'GET /{pk}/api-clients/{id}', method: 'get', path: (pk) => `/${pk}/api-clients/no-such-client`, scope: 'manage_api_clients' },
  { name: 'DELETE /{pk}/api-clients/{id}', method: 'delete', path: (pk) => `/${pk}/api-clients/no-such-client`, scope: 'manage_api_clients' },
];

function send(t: TestApp, route: RouteCase, pk: string, headers: Record<string, string>) {
  let req = t.http[route.method](route.path(pk));
  for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
  return route.body ? req.send(route.body() as object) : req;
}

/** Status and errors[0].code (HEAD answers have no body: status and headers only). */
function expectError(res: Res, method: Method, status: number, code: string): void {
  if (method === 'head') expect(res.status).toBe(status);
  else expectErrorEnvelope(res, status, code);
}

function expect401(res: Res, method: Method = 'get'): void {
  expectError(res, method, 401, 'invalid_token');
  expect(res.headers['www-authenticate']).toMatch(/^Bearer\b/);
}

function flipSignature(header: string): string {
  const token = header.replace(/^Bearer /, '');
  const [h, p, s] = token.split('.');
  const i = Math.floor(s.length / 2);
  return `Bearer ${h}.${p}.${s.slice(0, i)}${s[i] === 'A' ? 'B' : 'A'}${s.slice(i + 1)}`;
}

function payloadOf(header: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(header.replace(/^Bearer /, '').split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;
}

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

interface ForgeOptions {
  scope: string;
  clientId: string;
  projectKey: string;
  iat?: number;
  exp?: number;
  iss?: string;
  aud?: string;
}

/** A token signed with the server's own private key (what only the server can do), with chosen claims. */
async function forge(t: TestApp, o: ForgeOptions): Promise<string> {
  const key = t.app.get(SigningKeysService).signingKey;
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: o.scope, client_id: o.clientId, project_key: o.projectKey })
    .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
    .setIssuer(o.iss ?? t.config.auth.issuer)
    .setAudience(o.aud ?? t.config.auth.issuer)
    .setSubject(o.clientId)
    .setIssuedAt(o.iat ?? now)
    .setExpirationTime(o.exp ?? now + 600)
    .setJti(randomUUID())
    .sign(key.privateKey);
}

describe('access guard: scope matrix over every resource and api-clients route', () => {
  let t: TestApp;
  const h: Record<string, Record<string, string>> = {};
  beforeAll(async () => {
    t = await createTestApp();
    const pk = t.projectKey;
    h.right = await t.auth('manage_test manage_api_clients');
    h.viewOnly = await t.auth('view_test');
    h.products = await t.auth('manage_products');
    h.otherProject = await t.auth('manage_test view_test manage_api_clients manage_products', { projectKey: t.otherProjectKey });
    const c = await t.app.get(ApiClientsService).create(pk, { name: 'expiry', scope: `manage_test:${pk} view_test:${pk} manage_api_clients:${pk}` }, OPERATOR);
    const now = Math.floor(Date.now() / 1000);
    h.expired = { Authorization: `Bearer ${await forge(t, { scope: c.scope, clientId: c.id, projectKey: pk, iat: now - 7200, exp: now - 3600 })}` };
    h.freshForged = { Authorization: `Bearer ${await forge(t, { scope: c.scope, clientId: c.id, projectKey: pk })}` };
    h.badSignature = { Authorization: flipSignature(h.right.Authorization) };
  });
  afterAll(() => t.close());

  describe.each(ROUTES)('$name', (route) => {
    it('no token → 401 invalid_token with WWW-Authenticate: Bearer', async () => {
      expect401(await send(t, route, t.projectKey, {}), route.method);
    });
    it('a Basic Authorization header → 401 invalid_token', async () => {
      expect401(await send(t, route, t.projectKey, { Authorization: 'Basic dXNlcjpwYXNz' }), route.method);
    });
    it('a malformed token (Bearer abc) → 401 invalid_token', async () => {
      expect401(await send(t, route, t.projectKey, { Authorization: 'Bearer abc' }), route.method);
    });
    it('a token with a bad signature → 401 invalid_token', async () => {
      expect401(await send(t, route, t.projectKey, h.badSignature), route.method);
    });
    it('an expired token → 401 invalid_token, described as expired', async () => {
      const res = await send(t, route, t.projectKey, h.expired);
      expect401(res, route.method);
      if (route.method === 'head') expect(res.headers['www-authenticate']).toMatch(/expired/i);
      else expect((res.body as { error_description: string }).error_description).toMatch(/expired/i);
    });
    it('a token of another project (with every scope there) → 403 insufficient_scope', async () => {
      expectError(await send(t, route, t.projectKey, h.otherProject), route.method, 403, 'insufficient_scope');
    });
    it('a token of the project lacking the scope (manage_products only) → 403 insufficient_scope', async () => {
      expectError(await send(t, route, t.projectKey, h.products), route.method, 403, 'insufficient_scope');
    });
    it(`the right scope (${route.scope}) → neither 401 nor 403, no 5xx`, async () => {
      for (const headers of [h.right, h.freshForged]) {
        const res = await send(t, route, t.projectKey, headers);
        expect([401, 403]).not.toContain(res.status);
        expect(res.status).toBeLessThan(500);
      }
    });
  });

  it('view_test cannot write: POST/PUT/PATCH /resource, POST and DELETE /resource/{id} → 403; api-clients → 403', async () => {
    for (const route of ROUTES.filter((r) => r.scope !== 'view_test')) {
      const res = await send(t, route, t.projectKey, h.viewOnly);
      expectError(res, route.method, 403, 'insufficient_scope');
    }
  });

  it('view_test reads every read route; manage_test satisfies view_test', async () => {
    const created = await t.http.put(`/${t.projectKey}/resource`).set(h.right).send(draft({ key: 'readable-key' }));
    expect(created.status).toBe(201);
    const reads = [`/${t.projectKey}/resource`, `/${t.projectKey}/resource/key=readable-key`, `/${t.projectKey}/resource/${created.body.id}`];
    for (const headers of [h.viewOnly, await t.auth('manage_test')]) {
      for (const path of reads) {
        const res = await t.http.get(path).set(headers);
        expect({ path, status: res.status }).toEqual({ path, status: 200 });
      }
      const head = await t.http.head(`/${t.projectKey}/resource`).set(headers);
      expect([200, 404]).toContain(head.status);
    }
  });

  it('a forged-but-valid token signed by the server key is accepted (control for the expired / aud / iss cases)', async () => {
    const res = await t.http.get(`/${t.projectKey}/resource`).set(h.freshForged);
    expect(res.status).toBe(200);
  });
});

describe('access guard: customer-bound tokens', () => {
  let t: TestApp;
  let c1: Record<string, string>;
  let c2: Record<string, string>;
  let manager: Record<string, string>;
  beforeAll(async () => {
    t = await createTestApp();
    c1 = await t.auth('manage_my_profile_test', { customerId: 'c1' });
    c2 = await t.auth('manage_my_profile_test', { customerId: 'c2' });
    manager = await t.auth('manage_test');
  });
  afterAll(() => t.close());

  it('creates with POST /resource (201), createdBy {clientId of the token, customerId}', async () => {
    const res = await t.http.post(`/${t.projectKey}/resource`).set(c1).send(draft({ key: 'c1-own' }));
    expect(res.status).toBe(201);
    expect(res.body.version).toBe(1);
    expect(res.body.createdBy).toEqual({ clientId: payloadOf(c1.Authorization).client_id, customerId: 'c1' });
    expect(res.body.lastModifiedBy).toEqual({ clientId: payloadOf(c1.Authorization).client_id, customerId: 'c1' });
  });

  it('updates its own resource through POST /resource with the key (201, version 2)', async () => {
    const first = await t.http.post(`/${t.projectKey}/resource`).set(c1).send(draft({ key: 'c1-update' }));
    expect(first.status).toBe(201);
    const again = await t.http.post(`/${t.projectKey}/resource`).set(c1).send(draft({ key: 'c1-update' }, { arrayOfStringExample: ['changed'] }));
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.version).toBe(2);
    expect(again.body.objectTypeProperty.arrayOfStringExample).toEqual(['changed']);
  });

  it('cannot update through POST /resource a resource another customer (or a non-customer client) created → 404', async () => {
    const byC1 = await t.http.post(`/${t.projectKey}/resource`).set(c1).send(draft({ key: 'c1-private' }));
    expect(byC1.status).toBe(201);
    const byC2 = await t.http.post(`/${t.projectKey}/resource`).set(c2).send(draft({ key: 'c1-private' }));
    expectError(byC2, 'post', 404, 'ResourceNotFound');
    const byManager = await t.http.put(`/${t.projectKey}/resource`).set(manager).send(draft({ key: 'manager-owned' }));
    expect(byManager.status).toBe(201);
    const intrude = await t.http.post(`/${t.projectKey}/resource`).set(c1).send(draft({ key: 'manager-owned' }));
    expectError(intrude, 'post', 404, 'ResourceNotFound');
    // Unchanged.
    const read = await t.http.get(`/${t.projectKey}/resource/key=c1-private`).set(manager);
    expect(read.body.version).toBe(1);
  });

  it('is refused (403) on PUT, PATCH /resource, POST and DELETE /resource/{id} and the reads', async () => {
    const own = await t.http.post(`/${t.projectKey}/resource`).set(c1).send(draft({ key: 'c1-locked' }));
    expect(own.status).toBe(201);
    const id = own.body.id as string;
    const attempts: Array<[Method, string, unknown]> = [
      ['put', `/${t.projectKey}/resource`, draft({ key: 'c1-locked' })],
      ['patch', `/${t.projectKey}/resource`, draft({ key: 'c1-locked' })],
      ['post', `/${t.projectKey}/resource/${id}`, { version: 1, actions: [{ action: 'doSomeThing' }] }],
      ['delete', `/${t.projectKey}/resource/${id}`, undefined],
      ['get', `/${t.projectKey}/resource/${id}`, undefined],
      ['get', `/${t.projectKey}/resource`, undefined],
      ['get', `/${t.projectKey}/resource/key=c1-locked`, undefined],
    ];
    for (const [method, path, body] of attempts) {
      let req = t.http[method](path).set(c1);
      if (body !== undefined) req = req.send(body as object);
      const res = await req;
      expect({ method, path, status: res.status, code: errorCode(res) }).toEqual({ method, path, status: 403, code: 'insufficient_scope' });
    }
    const still = await t.http.get(`/${t.projectKey}/resource/${id}`).set(manager);
    expect(still.status).toBe(200);
    expect(still.body.version).toBe(1);
  });

  it('manage_my_profile_test without a customer id is not enough for POST /resource (403)', async () => {
    const res = await t.http.post(`/${t.projectKey}/resource`).set(await t.auth('manage_my_profile_test')).send(draft());
    expectError(res, 'post', 403, 'insufficient_scope');
  });

  it('createdBy / lastModifiedBy.clientId are the client ids of the tokens that wrote (PUT by a second client)', async () => {
    const writer2 = await t.auth('manage_test view_test');
    const managerId = payloadOf(manager.Authorization).client_id;
    const writer2Id = payloadOf(writer2.Authorization).client_id;
    expect(typeof managerId).toBe('string');
    expect(writer2Id).not.toBe(managerId);
    const created = await t.http.post(`/${t.projectKey}/resource`).set(manager).send(draft({ key: 'by-two-clients' }));
    expect(created.status).toBe(201);
    expect(created.body.createdBy).toEqual({ clientId: managerId });
    expect(created.body.lastModifiedBy).toEqual({ clientId: managerId });
    const replaced = await t.http.put(`/${t.projectKey}/resource`).set(writer2).send(draft({ key: 'by-two-clients' }));
    expect(replaced.status).toBe(201);
    expect(replaced.body.version).toBe(2);
    expect(replaced.body.createdBy).toEqual({ clientId: managerId });
    expect(replaced.body.lastModifiedBy).toEqual({ clientId: writer2Id });
  });

  it('POST /resource/{id} by a second client answers 200 and sets lastModifiedBy.clientId to that client', async () => {
    const writer2 = await t.auth('manage_test view_test');
    const created = await t.http.post(`/${t.projectKey}/resource`).set(manager).send(draft());
    expect(created.status).toBe(201);
    const updated = await t.http.post(`/${t.projectKey}/resource/${created.body.id}`).set(writer2).send({ version: 1, actions: [{ action: 'doSomeThing' }] });
    expect(updated.body.version).toBe(2);
    expect(updated.body.createdBy).toEqual({ clientId: payloadOf(manager.Authorization).client_id });
    expect(updated.body.lastModifiedBy).toEqual({ clientId: payloadOf(writer2.Authorization).client_id });
    // docs/api-guide.md#update-with-actions: "Success → 200 with the resource."
    expect(updated.status).toBe(200);
  });
});

describe('access guard: bad input never gets through and never fails with 500', () => {
  let t: TestApp;
  let pk: string;
  let right: Record<string, string>;
  beforeAll(async () => {
    t = await createTestApp();
    pk = t.projectKey;
    right = await t.auth('manage_test');
  });
  afterAll(() => t.close());

  it('garbage Authorization headers → 401', async () => {
    const token = right.Authorization.slice('Bearer '.length);
    const garbage = [
      '',
      ' ',
      'Bearer',
      'Bearer ',
      'bearer',
      'Token abc',
      `Bearer ${token} extra`,
      `Bearer ${token}.more`,
      `Bearer  .${token}`,
      `Basic ${token}`,
      `Bearer a.b.c`,
      `Bearer ..`,
      `Bearer ${token.split('.').slice(0, 2).join('.')}.`,
      `Bearer ${token.split('.').slice(0, 2).join('.')}`,
      'Bearer eyJhbGciOiJSUzI1NiJ9.eyJ.sig',
      `Bearer ${b64url('not an object')}.${b64url({})}.AAAA`,
      `Bearer ${b64url({ alg: 'RS256', kid: 'no-such-kid' })}.${b64url({ scope: `manage_test:${pk}` })}.AAAA`,
      'Bearer %%%%',
      'Bearer ' + 'x'.repeat(300),
      'Bearer ' + 'a'.repeat(9000),
      'Bearer ' + `${token}.`.repeat(10).slice(0, -1),
    ];
    for (const value of garbage) {
      const res = await t.http.get(`/${pk}/resource`).set('Authorization', value);
      expect({ value: value.slice(0, 80), status: res.status, code: errorCode(res) }).toEqual({ value: value.slice(0, 80), status: 401, code: 'invalid_token' });
    }
  });

  it('a 9000-character token → 401 (not 431/500)', async () => {
    const res = await t.http.post(`/${pk}/resource`).set('Authorization', `Bearer ${'eyJ' + 'A'.repeat(8997)}`).send(draft());
    expect401(res);
  });

  it('alg: none → 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { scope: `manage_test:${pk}`, client_id: payloadOf(right.Authorization).client_id, project_key: pk, iss: t.config.auth.issuer, aud: t.config.auth.issuer, iat: now, exp: now + 600 };
    for (const header of [{ alg: 'none' }, { alg: 'none', typ: 'JWT' }, { alg: 'none', kid: t.app.get(SigningKeysService).signingKey.kid }]) {
      for (const signature of ['', 'AAAA']) {
        const res = await t.http.post(`/${pk}/resource`).set('Authorization', `Bearer ${b64url(header)}.${b64url(claims)}.${signature}`).send(draft());
        expect401(res);
      }
    }
  });

  it('HS256 signed with the server\'s public key (PEM, and the JWKS JSON) as HMAC secret → 401', async () => {
    const key = t.app.get(SigningKeysService).signingKey;
    const pem = key.publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const pkcs1 = key.publicKey.export({ type: 'pkcs1', format: 'pem' }) as string;
    const now = Math.floor(Date.now() / 1000);
    for (const secret of [pem, pkcs1, JSON.stringify(key.publicJwk)]) {
      const token = await new SignJWT({ scope: `manage_test:${pk}`, client_id: payloadOf(right.Authorization).client_id, project_key: pk })
        .setProtectedHeader({ alg: 'HS256', kid: key.kid, typ: 'JWT' })
        .setIssuer(t.config.auth.issuer)
        .setAudience(t.config.auth.issuer)
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(new TextEncoder().encode(secret));
      const res = await t.http.post(`/${pk}/resource`).set('Authorization', `Bearer ${token}`).send(draft());
      expect401(res);
    }
  });

  it('a token with a valid signature but another aud or iss, or no exp → 401', async () => {
    const clientId = payloadOf(right.Authorization).client_id as string;
    const base = { scope: `manage_test:${pk}`, clientId, projectKey: pk };
    const tokens = [
      await forge(t, { ...base, aud: 'someone-else' }),
      await forge(t, { ...base, iss: 'https://evil.example' }),
      await forge(t, { ...base, iss: 'https://evil.example', aud: 'someone-else' }),
    ];
    const key = t.app.get(SigningKeysService).signingKey;
    tokens.push(
      await new SignJWT({ scope: `manage_test:${pk}`, client_id: clientId, project_key: pk })
        .setProtectedHeader({ alg: 'RS256', kid: key.kid })
        .setIssuer(t.config.auth.issuer)
        .setAudience(t.config.auth.issuer)
        .setIssuedAt()
        .sign(key.privateKey),
    );
    for (const token of tokens) {
      const res = await t.http.post(`/${pk}/resource`).set('Authorization', `Bearer ${token}`).send(draft());
      expect401(res, 'post');
    }
  });

  it('a valid-signature token naming a client that does not exist → 401', async () => {
    const token = await forge(t, { scope: `manage_test:${pk}`, clientId: 'never-existed', projectKey: pk });
    expect401(await t.http.get(`/${pk}/resource`).set('Authorization', `Bearer ${token}`));
  });
});

describe('access guard: order of checks and unmatched paths', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('no token + bad project key → 401 (authentication first)', async () => {
    for (const path of ['/BAD_KEY/resource', '/x/resource', `/${'a'.repeat(37)}/api-clients`]) {
      expect401(await t.http.get(path));
    }
    expect401(await t.http.post('/Bad.Key/resource').send(draft()), 'post');
  });

  it('valid token + bad project key → 400 InvalidInput', async () => {
    const headers = await t.auth('manage_test manage_api_clients');
    for (const path of ['/BAD_KEY/resource', '/x/resource', `/${'a'.repeat(37)}/api-clients`, `/Under_score/resource/${ID}`]) {
      const res = await t.http.get(path).set(headers);
      expect({ path, status: res.status, code: errorCode(res) }).toEqual({ path, status: 400, code: 'InvalidInput' });
    }
  });

  it('valid token of another project + bad project key format → 400 (format before scope)', async () => {
    const headers = await t.auth('manage_test', { projectKey: t.otherProjectKey });
    const res = await t.http.post('/NOT-valid!/resource').set(headers).send(draft());
    expectError(res, 'post', 400, 'InvalidInput');
  });

  it('a path that matches no route → 404 ResourceNotFound, with or without a token', async () => {
    const headers = await t.auth('manage_test');
    const paths: Array<[Method, string]> = [
      ['get', `/${t.projectKey}/no-such-route`],
      ['get', `/${t.projectKey}/resource/${ID}/extra/segments`],
      ['post', `/${t.projectKey}/resource/a/b`],
      ['put', `/${t.projectKey}/resource/${ID}`],
      // A malformed id is a plain 404 (docs/rules.md#addressing-and-input), before any token check.
      ['get', `/${t.projectKey}/resource/not-a-uuid`],
      ['delete', `/${t.projectKey}/resource/not-a-uuid`],
      ['get', '/no/such/thing/at/all'],
    ];
    for (const [method, path] of paths) {
      for (const h of [{}, headers, { Authorization: 'Bearer abc' }]) {
        const res = await t.http[method](path).set(h);
        expect({ method, path, status: res.status, code: errorCode(res) }).toEqual({ method, path, status: 404, code: 'ResourceNotFound' });
      }
    }
  });
});

interface ControllerRoute {
  controller: string;
  handler: string;
  method: string;
  path: string;
  rule: { public?: boolean; scopes?: string[] } | undefined;
}

const REQUEST_METHODS = ['get', 'post', 'put', 'delete', 'patch', 'all', 'options', 'head', 'search'];

function joinPath(...parts: Array<string | string[] | undefined>): string {
  const segments = parts.map((p) => (Array.isArray(p) ? p[0] : p)).filter((p): p is string => p !== undefined).map((p) => p.replace(/^\/+|\/+$/g, '')).filter(Boolean);
  return `/${segments.join('/')}`;
}

/** Every route handler of every controller, with its access rule (handler metadata, else class metadata). */
function controllerRoutes(app: NestFastifyApplication): ControllerRoute[] {
  const discovery = new DiscoveryService(app.get(ModulesContainer));
  const routes: ControllerRoute[] = [];
  for (const wrapper of discovery.getControllers()) {
    const metatype = wrapper.metatype as (new (...args: never[]) => unknown) | undefined;
    if (!metatype?.prototype) continue;
    const base = Reflect.getMetadata(PATH_METADATA, metatype) as string | string[] | undefined;
    for (const name of Object.getOwnPropertyNames(metatype.prototype)) {
      if (name === 'constructor') continue;
      const handler = (metatype.prototype as Record<string, unknown>)[name];
      if (typeof handler !== 'function') continue;
      const path = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      if (path === undefined) continue;
      const method = REQUEST_METHODS[Reflect.getMetadata(METHOD_METADATA, handler) as number] ?? 'unknown';
      const rule = Reflect.getMetadata(ACCESS_RULE, handler) ?? Reflect.getMetadata(ACCESS_RULE, metatype);
      routes.push({ controller: metatype.name, handler: name, method, path: joinPath(base, path), rule });
    }
  }
  return routes;
}


/** Routes the Swagger module registers itself (documentation, readable without a token by contract). */
const DOCS_ROUTE = /^\/(docs|openapi\.json)(\b|\/|-)/;

describe('default deny', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('every controller handler declares an access rule (handler or controller metadata)', () => {
    const routes = controllerRoutes(t.app);
    // Not vacuous: the resource, api-clients, oauth and health handlers are all found.
    expect(routes.map((r) => r.handler)).toEqual(
      expect.arrayContaining(['createResource', 'getResourceById', 'deleteResource', 'createApiClient', 'deleteApiClient', 'issueToken', 'getJwks']),
    );
    expect(routes.filter((r) => r.rule === undefined).map((r) => `${r.controller}.${r.handler} ${r.method.toUpperCase()} ${r.path}`)).toEqual([]);
    for (const r of routes) expect(r.rule!.public === true || (Array.isArray(r.rule!.scopes) && r.rule!.scopes.length > 0)).toBe(true);
  });

  it('every route the HTTP server registered is a controller handler (or the documentation), so none escapes the guard', () => {
    const handlers = new Set(controllerRoutes(t.app).map((r) => `${r.method} ${r.path}`));
    const registered = t.routes.map((r) => ({ method: r.method.toLowerCase(), path: r.path }));
    expect(registered.length).toBeGreaterThanOrEqual(ROUTES.length);
    const stray = registered.filter((r) => !DOCS_ROUTE.test(r.path) && !handlers.has(`${r.method} ${r.path}`) && !(r.method === 'head' && handlers.has(`get ${r.path}`)));
    expect(stray).toEqual([]);
  });

  it('every registered non-public route answers 401 without a token, and the public ones do not', async () => {
    const routes = controllerRoutes(t.app);
    expect(routes.length).toBeGreaterThan(ROUTES.length);
    for (const r of routes) {
      // Parameters get values their routes accept (ids are UUIDs), so the request reaches the guard.
      const path = r.path.replace(':projectKey', t.projectKey).replace(/:(\w+)/g, (_m, name: string) => (name === 'id' ? randomUUID() : name === 'version' ? '1' : 'x'));
      const method = (r.method === 'all' ? 'get' : r.method) as Method;
      const res = await t.http[method](path);
      expect(res.status).toBeLessThan(500);
      // Public routes may answer 401 for their own reasons (the token endpoint: invalid_client), never invalid_token.
      if (r.rule?.public) expect({ route: `${r.method} ${r.path}`, code: errorCode(res) }).not.toEqual({ route: `${r.method} ${r.path}`, code: 'invalid_token' });
      else expect({ route: `${r.method} ${r.path}`, status: res.status }).toEqual({ route: `${r.method} ${r.path}`, status: 401 });
    }
  });

  describe('a route declared without a rule', () => {
    @Controller(':projectKey/unruled')
    class UnruledController {
      @Get()
      getUnruled(): { ok: boolean } {
        return { ok: true };
      }
    }

    @Module({ controllers: [UnruledController] })
    class UnruledModule {}

    let app: NestFastifyApplication;
    let u: TestApp;
    const dataDir = onPostgres ? undefined : mkdtempSync(join(tmpdir(), 'auth-unruled-'));
    beforeAll(async () => {
      const config = loadConfig({ LOG_LEVEL: 'error', ...process.env, ...(dataDir ? { DATA_DIR: dataDir } : {}), AUTH_DEMO_CLIENT: 'false' });
      const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot(config), UnruledModule] }).compile();
      app = moduleRef.createNestApplication<NestFastifyApplication>(createHttpAdapter(config), { bodyParser: false, logger: ['error', 'fatal'] });
      configureApp(app, config);
      await app.init();
      await app.getHttpAdapter().getInstance().ready();
      u = { ...t, app, http: request(app.getHttpServer()) } as TestApp;
    });
    afterAll(async () => {
      await app.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it('is found by the metadata walk as having no rule', () => {
      expect(controllerRoutes(app).filter((r) => r.rule === undefined).map((r) => r.handler)).toEqual(['getUnruled']);
    });

    it('answers 403 insufficient_scope, with or without a token holding every scope', async () => {
      const pk = t.projectKey;
      const scope = ['manage_test', 'view_test', 'manage_my_profile_test', 'manage_products', 'manage_api_clients'].map((n) => `${n}:${pk}`).join(' ');
      const c = await app.get(ApiClientsService).create(pk, { name: 'all', scope }, OPERATOR);
      const token = await forge(u, { scope, clientId: c.id, projectKey: pk });
      for (const headers of [{}, { Authorization: `Bearer ${token}` }]) {
        const res = await u.http.get(`/${pk}/unruled`).set(headers);
        expectError(res, 'get', 403, 'insufficient_scope');
        expect(res.body.ok).toBeUndefined();
      }
    });
  });
});
