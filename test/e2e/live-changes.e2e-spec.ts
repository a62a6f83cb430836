import jwt from 'jsonwebtoken';
import { randomUUID } from 'node:crypto';
import { SigningKeysService } from '../../src/auth/signing-keys.service.js';
import { Database } from '../../src/database/database.js';
import { formatCursor } from '../../src/live/live-cursor.js';
import { EventStreamClient } from '../support/event-stream.js';
import { listenOnFreePort } from '../support/listening-app.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { draft, type ResourceBody } from '../support/fixtures.js';
import { resourcePath } from '../support/resources.js';

/*
 * GET /{projectKey}/messages with Accept: text/event-stream (docs/live-changes.md): real streams over HTTP
 * from a listening app, writes through the API.
 */
describe('GET /{projectKey}/messages (text/event-stream)', () => {
  let t: TestApp;
  let base: string;
  const streams: EventStreamClient[] = [];

  const open = (query = '', headers: Record<string, string> = {}, pk = t.projectKey) => {
    const stream = new EventStreamClient(`${base}/${pk}/messages${query}`, headers);
    streams.push(stream);
    return stream;
  };

  beforeAll(async () => {
    t = await createTestApp({ LIVE_KEEP_ALIVE_MS: '300', LIVE_MAX_STREAMS_PER_PROJECT: '3', LIVE_MAX_STREAMS: '5', MESSAGES_RETENTION_DAYS: '1', HTTP_CORS_ORIGINS: 'https://app.example.com' });
    base = await listenOnFreePort(t);
  });

  afterEach(async () => {
    await Promise.all(streams.splice(0).map((s) => s.close()));
  });

  afterAll(async () => {
    // Connections the test's fetch keeps alive are not the server's to wait for.
    (t?.app.getHttpServer() as import('node:http').Server | undefined)?.closeAllConnections();
    await t?.close();
  });

  async function create(key: string): Promise<ResourceBody> {
    const res = await t.http.post(resourcePath(t.projectKey)).set(await t.auth('manage_test')).send({ ...draft(), key });
    expect(res.status).toBe(201);
    return res.body as ResourceBody;
  }

  it('streams a message committed after it opened, with its cursor as the id', async () => {
    const stream = await open('', await t.auth('view_messages')).opened();
    expect(stream.status).toBe(200);
    expect(stream.headers!.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers!.get('x-accel-buffering')).toBe('no');
    const created = await create('live-first');
    const [event] = await stream.waitMessages(1);
    const message = JSON.parse(event.data);
    expect(message).toMatchObject({ type: 'ResourceCreated', sequenceNumber: 1, resource: { typeId: 'resource', id: created.id } });
    const byId = await t.http.get(`/${t.projectKey}/messages/${message.id}`).set(await t.auth('view_messages'));
    expect(event.data).toBe(byId.text);
    expect(event.id).toMatch(/^[0-9a-f]{12}-[0-9a-f]{32}-[0-9a-f]{8}$/);
  });

  async function update(resource: ResourceBody, version: number, someProperty: string): Promise<number> {
    const res = await t.http.post(resourcePath(t.projectKey, resource.id)).set(await t.auth('manage_test')).send({ version, actions: [{ action: 'changeSomeProperty', someProperty }] });
    expect(res.status).toBe(200);
    return res.body.version as number;
  }

  it('sends each resource\'s messages in sequence order, each once, under concurrent writes', async () => {
    const stream = await open(`?where=${encodeURIComponent('resourceUserProvidedIdentifiers(key in ("ord-a", "ord-b", "ord-c"))')}`, await t.auth('view_messages')).opened();
    const resources = await Promise.all(['ord-a', 'ord-b', 'ord-c'].map(create));
    // Each resource: 8 updates, the three resources written at once.
    await Promise.all(
      resources.map(async (r) => {
        let version = r.version;
        for (let i = 0; i < 8; i++) version = await update(r, version, `v${i}`);
      }),
    );
    const events = await stream.waitMessages(27);
    await new Promise((r) => setTimeout(r, 300));
    expect(stream.messages()).toHaveLength(27);
    const messages = events.map((e) => JSON.parse(e.data));
    for (const r of resources) {
      expect(messages.filter((m) => m.resource.id === r.id).map((m) => m.sequenceNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    }
    expect(new Set(messages.map((m) => m.id)).size).toBe(27);
    // The ids are in stream order.
    const ids = events.map((e) => e.id!);
    expect([...ids].sort()).toEqual(ids);
  });

  it('filters with where and var.<name> as the page does', async () => {
    const stream = await open(`?where=${encodeURIComponent('type = :t and resourceUserProvidedIdentifiers(key = "flt")')}&var.t=SomePropertyChanged`, await t.auth('view_messages')).opened();
    const r = await create('flt');
    await update(r, r.version, 'x');
    const [event] = await stream.waitMessages(1);
    expect(JSON.parse(event.data)).toMatchObject({ type: 'SomePropertyChanged', someProperty: 'x' });
    await new Promise((r) => setTimeout(r, 300));
    expect(stream.messages()).toHaveLength(1);
  });

  it('resumes after Last-Event-ID (or lastEventId=) with every later message, none twice', async () => {
    const where = `?where=${encodeURIComponent('resourceUserProvidedIdentifiers(key = "res")')}`;
    const first = await open(where, await t.auth('view_messages')).opened();
    const r = await create('res');
    let version = await update(r, r.version, 'a');
    const before = await first.waitMessages(2);
    await first.close();
    version = await update(r, version, 'b');
    await update(r, version, 'c');
    const resumed = await open(where, { ...(await t.auth('view_messages')), 'Last-Event-ID': before[0].id! }).opened();
    const events = await resumed.waitMessages(3);
    expect(events.map((e) => JSON.parse(e.data).sequenceNumber)).toEqual([2, 3, 4]);
    expect(events[0].id).toBe(before[1].id);
    const byQuery = await open(`${where}&lastEventId=${before[1].id}`, await t.auth('view_messages')).opened();
    expect((await byQuery.waitMessages(2)).map((e) => JSON.parse(e.data).sequenceNumber)).toEqual([3, 4]);
    await new Promise((r) => setTimeout(r, 300));
    expect(resumed.messages()).toHaveLength(3);
    expect(byQuery.messages()).toHaveLength(2);
  });

  it('sends event: gap when the cursor is older than the retained messages, then goes on from the oldest', async () => {
    const pk = `gap-${randomUUID().slice(0, 8)}`;
    const old = new Date(Date.now() - 3 * 86_400_000);
    const kept = new Date(Date.now() - 3_600_000);
    const resourceId = randomUUID();
    await t.app.get(Database).query(
      `INSERT INTO message (id, project_key, resource_id, resource_version, sequence_number, type, created_at, created_by, payload)
       VALUES ($1, $2, $3, 1, 1, 'ResourceCreated', $4, '{"clientId":"c"}', '"representation":{}')`,
      [randomUUID(), pk, resourceId, kept],
    );
    const cursor = formatCursor({ at: old.getTime(), resourceId, sequenceNumber: 1 });
    const stream = await open(`?lastEventId=${cursor}`, await t.auth('view_messages', { projectKey: pk }), pk).opened();
    await stream.waitMessages(1);
    expect(stream.events[0]).toMatchObject({ event: 'gap' });
    expect(JSON.parse(stream.events[0].data)).toEqual({ oldestAvailableAt: kept.toISOString() });
    expect(JSON.parse(stream.events[1].data)).toMatchObject({ resource: { id: resourceId }, sequenceNumber: 1 });
    // A cursor within the retention: no gap.
    const recent = formatCursor({ at: Date.now() - 60_000, resourceId, sequenceNumber: 1 });
    const noGap = await open(`?lastEventId=${recent}`, await t.auth('view_messages', { projectKey: pk }), pk).opened();
    await noGap.until(() => noGap.comments.includes('keep-alive'), 5_000, 'a keep-alive');
    expect(noGap.events).toEqual([]);
  });

  it('answers 400 for a malformed cursor, for page parameters and for a malformed where', async () => {
    const auth = await t.auth('view_messages');
    const bad = await open('', { ...auth, 'Last-Event-ID': 'not-a-cursor' }).opened();
    await bad.until(() => bad.ended, 5_000, 'the end');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body!).errors[0].code).toBe('InvalidInput');
    for (const query of ['?limit=5', '?offset=1', '?sort=createdAt%20asc', '?withTotal=false']) {
      const res = await t.http.get(`/${t.projectKey}/messages${query}`).set(auth).set('Accept', 'text/event-stream');
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ code: 'InvalidInput' });
      expect(res.body.message).toContain(query.slice(1).split('=')[0]);
    }
    const where = await t.http.get(`/${t.projectKey}/messages?where=colour%20%3D%201`).set(auth).set('Accept', 'text/event-stream');
    expect(where.status).toBe(400);
    expect(where.body.message).toMatch(/^Malformed parameter: where: /);
    // Without the stream's Accept, the page answers as before.
    const page = await t.http.get(`/${t.projectKey}/messages?limit=1`).set(auth);
    expect(page.status).toBe(200);
    expect(page.body.limit).toBe(1);
  });

  it('needs the scope, accepts access_token in the query on this route alone, and applies CORS', async () => {
    const wrongScope = await t.http.get(`/${t.projectKey}/messages`).set(await t.auth('view_test')).set('Accept', 'text/event-stream');
    expect(wrongScope.status).toBe(403);
    const none = await t.http.get(`/${t.projectKey}/messages`).set('Accept', 'text/event-stream');
    expect(none.status).toBe(401);
    const token = (await t.auth('view_messages')).Authorization.slice('Bearer '.length);
    const stream = await open(`?access_token=${token}`, { Origin: 'https://app.example.com' }).opened();
    expect(stream.status).toBe(200);
    expect(stream.headers!.get('access-control-allow-origin')).toBe('https://app.example.com');
    await create('by-query-token');
    await stream.waitMessages(1);
    const page = await t.http.get(`/${t.projectKey}/messages?access_token=${token}`);
    expect(page.status).toBe(401);
    const byId = await t.http.get(`/${t.projectKey}/resource?access_token=${token}`);
    expect(byId.status).toBe(401);
  });

  it('ends the stream with event: end when the token expires', async () => {
    const key = t.app.get(SigningKeysService).signingKey;
    const issuer = t.config.auth.issuer;
    const auth = await t.auth('view_messages');
    const clientId = (jwt.decode(auth.Authorization.slice(7)) as jwt.JwtPayload).client_id as string;
    const token = jwt.sign({ scope: `view_messages:${t.projectKey}`, client_id: clientId, project_key: t.projectKey }, key.privateKey, {
      algorithm: 'RS256', keyid: key.kid, issuer, audience: issuer, subject: clientId, expiresIn: 2,
    });
    const stream = await open(`?access_token=${token}`).opened();
    expect(stream.status).toBe(200);
    await stream.until(() => stream.ended, 8_000, 'the end of the stream');
    expect(stream.events.at(-1)).toEqual({ event: 'end', data: '{"reason":"token_expired"}' });
  });

  it('sends a keep-alive comment on an idle stream', async () => {
    const stream = await open('', await t.auth('view_messages')).opened();
    await stream.until(() => stream.comments.filter((c) => c === 'keep-alive').length >= 2, 5_000, 'two keep-alives');
  });

  it('refuses streams past LIVE_MAX_STREAMS_PER_PROJECT and LIVE_MAX_STREAMS with 503 and Retry-After', async () => {
    const auth = await t.auth('view_messages');
    const held = await Promise.all([1, 2, 3].map(() => open('', auth).opened()));
    expect(held.map((s) => s.status)).toEqual([200, 200, 200]);
    const fourth = await t.http.get(`/${t.projectKey}/messages`).set(auth).set('Accept', 'text/event-stream');
    expect(fourth.status).toBe(503);
    expect(fourth.headers['retry-after']).toBe('5');
    expect(fourth.body.errors[0].code).toBe('ServiceUnavailable');
    expect(fourth.body.message).toContain('LIVE_MAX_STREAMS_PER_PROJECT');
    const otherAuth = await t.auth('view_messages', { projectKey: t.otherProjectKey });
    const o = await Promise.all([1, 2].map(() => open('', otherAuth, t.otherProjectKey).opened()));
    expect(o.map((s) => s.status)).toEqual([200, 200]);
    const sixth = await t.http.get(`/${t.otherProjectKey}/messages`).set(otherAuth).set('Accept', 'text/event-stream');
    expect(sixth.status).toBe(503);
    expect(sixth.body.message).toContain('LIVE_MAX_STREAMS');
    // A closed stream frees its place.
    await held[0].close();
    await new Promise((r) => setTimeout(r, 200));
    expect((await open('', auth).opened()).status).toBe(200);
  });
});
