import { connect, type Socket } from 'node:net';
import { createTestApp, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { draft } from '../support/fixtures.js';
import { expectErrorEnvelope } from '../support/expect-error.js';
import { listenOnFreePort } from '../support/listening-app.js';

/*
 * The list answers one project builds and sends at once share PROJECT_MAX_RESPONSE_BYTES: a request
 * that would go past waits for its turn and answers 503 with Retry-After after 5 s. Answers are held
 * until sent: clients that stop reading keep their answers' share.
 */

/** The largest list answer of this file's app: 12 MiB. */
const MAX_RESPONSE_BYTES = 12 * 1_048_576;
/** The project's share: two answers of about 10 MB fit, a third of up to 12 MiB does not. */
const PROJECT_MAX_RESPONSE_BYTES = 24 * 1_048_576;
/** The bound a list answer is first built under. */
const FIRST_BOUND_BYTES = 1_048_576;
/** Resources of about 1 MB (100 strings of 10,000 characters): 10 of them take a page of about 10 MB. */
const BIG = Array.from({ length: 100 }, (_, i) => `${String(i).padStart(4, '0')}${'b'.repeat(9_996)}`);
const BIG_COUNT = 13;

/** A page of `limit` big resources: `big-…` sorts before `mid`. */
const bigPage = (limit: number) => `sort=key%20asc&limit=${limit}`;

describe('list answers of one project share PROJECT_MAX_RESPONSE_BYTES until sent', () => {
  let t: TestApp;
  let port: number;
  const project = uniqueProjectKey('mem');
  const other = uniqueProjectKey('other');
  let midId: string;

  beforeAll(async () => {
    t = await createTestApp({
      HTTP_MAX_RESPONSE_BYTES: String(MAX_RESPONSE_BYTES),
      PROJECT_MAX_RESPONSE_BYTES: String(PROJECT_MAX_RESPONSE_BYTES),
    });
    port = Number(new URL(await listenOnFreePort(t)).port);
    for (const [projectKey, count] of [
      [project, BIG_COUNT],
      [other, 2],
    ] as const) {
      const manage = await t.auth('manage_test', { projectKey });
      for (let i = 0; i < count; i++) {
        const key = `big-${String(i).padStart(2, '0')}`;
        const res = await t.http.post(`/${projectKey}/resource`).set(manage).send(draft({ key }, { arrayOfStringExample: BIG }));
        expect(res.status).toBe(201);
      }
    }
    // With one big resource, a page a few KB past the first bound.
    const res = await t.http
      .post(`/${project}/resource`)
      .set(await t.auth('manage_test', { projectKey: project }))
      .send(draft({ key: 'mid' }, { arrayOfStringExample: BIG.slice(0, 5) }));
    expect(res.status).toBe(201);
    midId = res.body.id;
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  const view = (projectKey = project) => t.auth('view_test view_messages', { projectKey });

  it('a page just larger than the first bound (1 MiB) answers 200, complete', async () => {
    const page = await t.http.get(`/${project}/resource/sorted-query-parameters?sort=key%20asc&where=key%20in%20:keys&var.keys=big-00&var.keys=mid`).set(await view());
    expect(page.status).toBe(200);
    expect(Buffer.byteLength(page.text)).toBeGreaterThan(FIRST_BOUND_BYTES);
    expect(Buffer.byteLength(page.text)).toBeLessThan(FIRST_BOUND_BYTES * 1.05);
    expect(page.body.count).toBe(2);
    expect(page.body.results.map((r: { key: string }) => r.key)).toEqual(['big-00', 'mid']);
    expect(page.body.results[0].objectTypeProperty.arrayOfStringExample).toEqual(BIG);
    expect(page.body.results[1].objectTypeProperty.arrayOfStringExample).toEqual(BIG.slice(0, 5));
  });

  it.each([
    ['sorted-query-parameters', `/resource/sorted-query-parameters?${bigPage(20)}`, /smaller limit/],
    ['searchApiPattern', '/resource/searchApiPattern?limit=20', /smaller limit/],
    ['messages', '/messages?limit=20', /smaller limit/],
    ['resource (the merge)', '/resource', /narrow the filter/],
  ])('GET %s past HTTP_MAX_RESPONSE_BYTES (about 13 MB) → 400 naming its value, not the first bound', async (_name, path, remedy) => {
    const refused = await t.http.get(`/${project}${path}`).set(await view());
    expectErrorEnvelope(refused, 400, 'InvalidInput');
    expect(refused.body.message).toMatch(remedy);
    expect(refused.body.message).toContain(`larger than ${MAX_RESPONSE_BYTES} bytes (HTTP_MAX_RESPONSE_BYTES)`);
    expect(refused.body.message).not.toContain(String(FIRST_BOUND_BYTES));
  }, 60_000);

  // A page is built in rows of about a MiB (an item never split): ten of them here, joined in their order.
  it.each([
    ['sorted-query-parameters', `/resource/sorted-query-parameters?${bigPage(10)}`],
    ['searchApiPattern', '/resource/searchApiPattern?limit=10&sort=key%20asc'],
  ])('GET %s of about 10 MB → 200, complete and in order', async (_name, path) => {
    const page = await t.http.get(`/${project}${path}`).set(await view());
    expect(page.status).toBe(200);
    expect(page.body.count).toBe(10);
    expect(Buffer.byteLength(page.text)).toBeGreaterThan(9_000_000);
    expect(page.body.results.map((r: { key: string }) => r.key)).toEqual(Array.from({ length: 10 }, (_, i) => `big-${String(i).padStart(2, '0')}`));
    for (const resource of page.body.results) expect(resource.objectTypeProperty.arrayOfStringExample).toEqual(BIG);
  }, 60_000);

  it('GET messages of about 10 MB → 200, complete and in order', async () => {
    const page = await t.http.get(`/${project}/messages?limit=10`).set(await view());
    expect(page.status).toBe(200);
    expect(page.body.count).toBe(10);
    expect(Buffer.byteLength(page.text)).toBeGreaterThan(9_000_000);
    const messages = page.body.results as { type: string; createdAt: string; sequenceNumber: number; resource: { id: string } }[];
    expect(messages.map((m) => m.type)).toEqual(Array(10).fill('ResourceCreated'));
    expect(new Set(messages.map((m) => m.resource.id)).size).toBe(10);
    const order = messages.map((m) => m.createdAt);
    expect(order).toEqual([...order].sort());
  }, 60_000);

  describe('two clients that stop reading 10 MB pages hold 20 MB of the 24 MiB share', () => {
    let readers: Socket[] = [];
    afterEach(() => {
      for (const reader of readers) reader.destroy();
      readers = [];
    });

    it('large pages wait and answer 503 with Retry-After after 5 s; small pages and another project answer meanwhile; the share is given back when the readers go', async () => {
      const token = (await view()).Authorization;
      readers = await Promise.all([0, 1].map(() => stopReadingAfterFirstBytes(port, `/${project}/resource/sorted-query-parameters?${bigPage(10)}`, token)));

      const started = Date.now();
      const timed = async <T>(request: PromiseLike<T>) => {
        const answer = await request;
        return { answer, ms: Date.now() - started };
      };
      const [query, merge, small, smallMessages, versions, otherProject] = await Promise.all([
        timed(t.http.get(`/${project}/resource/sorted-query-parameters?${bigPage(10)}`).set(await view())),
        timed(t.http.get(`/${project}/resource`).set(await view())),
        timed(t.http.get(`/${project}/resource/sorted-query-parameters?${bigPage(1)}`).set(await view())),
        timed(t.http.get(`/${project}/messages?limit=1`).set(await view())),
        timed(t.http.get(`/${project}/resource/${midId}/versions`).set(await view())),
        timed(t.http.get(`/${other}/resource/sorted-query-parameters?${bigPage(2)}`).set(await view(other))),
      ]);
      for (const { answer, ms } of [query, merge]) {
        expectErrorEnvelope(answer, 503, 'ServiceUnavailable');
        expect(answer.headers['retry-after']).toBe('5');
        expect(ms).toBeGreaterThanOrEqual(4_900);
      }
      expect(small.answer.status).toBe(200);
      expect(small.answer.body.results).toHaveLength(1);
      expect(smallMessages.answer.status).toBe(200);
      expect(smallMessages.answer.body.results).toHaveLength(1);
      expect(versions.answer.status).toBe(200);
      expect(versions.answer.body.results).toHaveLength(1);
      expect(otherProject.answer.status).toBe(200);
      expect(otherProject.answer.body.results).toHaveLength(2);
      for (const { ms } of [small, smallMessages, versions, otherProject]) expect(ms).toBeLessThan(4_900);

      for (const reader of readers) reader.destroy();
      readers = [];
      const after = await t.http.get(`/${project}/resource/sorted-query-parameters?${bigPage(10)}`).set(await view());
      expect(after.status).toBe(200);
      expect(after.body.results).toHaveLength(10);
    }, 60_000);

    it('a large page that waits gets its turn when a reader goes before 5 s have passed', async () => {
      const token = (await view()).Authorization;
      readers = await Promise.all([0, 1].map(() => stopReadingAfterFirstBytes(port, `/${project}/resource/sorted-query-parameters?${bigPage(10)}`, token)));
      const started = Date.now();
      const waiting = t.http.get(`/${project}/resource/sorted-query-parameters?${bigPage(10)}`).set(await view());
      setTimeout(() => readers[0].destroy(), 1_500);
      const page = await waiting;
      expect(page.status).toBe(200);
      expect(page.body.results).toHaveLength(10);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
    }, 60_000);
  });
});

/**
 * A client that sends a GET, receives the first bytes of a 200 answer and then stops reading: the
 * server's answer stays partly unsent (more than the kernel's socket buffers take) until the socket goes.
 */
function stopReadingAfterFirstBytes(port: number, path: string, authorization: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.once('data', (chunk) => {
      socket.pause();
      const head = chunk.toString('latin1');
      if (head.startsWith('HTTP/1.1 200')) resolve(socket);
      else reject(new Error(`expected a 200 answer, got ${head.slice(0, 300)}`));
    });
    socket.on('connect', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${authorization}\r\n\r\n`));
  });
}
