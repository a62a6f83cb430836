import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Response } from 'supertest';
import { Database } from '../../src/database/database.js';
import { ImagesRepository } from '../../src/images/images.repository.js';
import { ImagesWorker } from '../../src/images/images.worker.js';
import { createFreshDatabase, type FreshDatabase } from '../support/fresh-database.js';
import { createTestApp, onPostgres, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { draft, type ResourceBody } from '../support/fixtures.js';
import { expectErrorEnvelope } from '../support/expect-error.js';
import { declaring, gif, jpeg, png } from '../support/image-bytes.js';
import { sleep } from '../support/timing.js';

/**
 * POST /{projectKey}/resource/images and GET /{projectKey}/resource/images/{imageId} (docs/api-guide.md#images,
 * docs/rules.md#images): upload of real PNG/JPEG/GIF bytes (raw and multipart), every
 * error and the order of the checks, the 10 MB limit while reading, the 202 path with its background
 * worker (also across a restart, and with two workers), serving with ETag/304, project isolation.
 * The main app's worker never runs on its own (an interval of an hour): tests run it explicitly.
 */

const MAX_BYTES = 10_485_760;
const IDLE_WORKER = { IMAGES_WORKER_INTERVAL_MS: '3600000', AUTH_DEMO_CLIENT: 'false' };
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

interface Image {
  id: string;
  url: string;
  filename: string;
  contentType: string;
  width: number;
  height: number;
  size: number;
  variant: number;
  staged: boolean;
  createdAt: string;
}
/** A resource as the API answers it, its images typed. */
interface Resource {
  id: string;
  key?: string;
  version: number;
  lastModifiedAt: string;
  objectTypeProperty: ResourceBody['objectTypeProperty'];
  images: Image[];
  [member: string]: unknown;
}

/** A supertest parser that collects a binary answer's bytes into a Buffer. */
function collectBytes(res: IncomingMessage, callback: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}
const binary = collectBytes as unknown as (res: Response, callback: (error: Error | null, body: unknown) => void) => void;

describe('images', () => {
  let t: TestApp;
  let pk: string;
  let db: Database;
  let upload: Record<string, string>;
  let base: string;

  // On PostgreSQL a database of its own: the tests below run the attach rounds themselves and count
  // the jobs, which other test files' workers (sharing the suite's database) would otherwise take.
  let fresh: FreshDatabase | undefined;

  beforeAll(async () => {
    fresh = onPostgres ? await createFreshDatabase('images') : undefined;
    t = await createTestApp({ ...IDLE_WORKER, IMAGES_READ_IDLE_TIMEOUT_MS: '2000', ...(fresh ? { DATABASE_URL: fresh.url } : {}) });
    pk = t.projectKey;
    db = t.app.get(Database);
    upload = await t.auth('manage_products');
    const server = t.app.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await t?.close();
    await fresh?.drop();
  });

  const imagesPath = (projectKey = pk) => `/${projectKey}/resource/images`;

  let keyCounter = 0;
  async function createResource(projectKey = pk): Promise<Resource> {
    const key = `sku-${++keyCounter}-${Date.now()}`;
    const res = await t.http.post(`/${projectKey}/resource`).set(await t.auth('manage_test', { projectKey })).send(draft({ key }));
    expect(res.status).toBe(201);
    return res.body as Resource;
  }

  async function getResource(id: string, projectKey = pk): Promise<Resource> {
    const res = await t.http.get(`/${projectKey}/resource/${id}`).set(await t.auth('view_test', { projectKey }));
    expect(res.status).toBe(200);
    return res.body as Resource;
  }

  function post(query: Record<string, string | number | boolean>, bytes: Buffer | string | undefined, type: string | undefined, headers: Record<string, string> = upload): Promise<Response> {
    let req = t.http.post(imagesPath()).query(query).set(headers);
    if (type !== undefined) req = req.set('Content-Type', type);
    return bytes === undefined ? req : req.send(bytes);
  }

  async function download(url: string, headers: Record<string, string> = {}): Promise<Response> {
    return t.http.get(url).set(headers).buffer(true).parse(binary);
  }

  async function imageRows(resourceId: string): Promise<number> {
    const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM image WHERE resource_id = $1', [resourceId]);
    return rows[0].n;
  }

  describe('POST /{projectKey}/resource/images', () => {
    it.each<[string, string, Buffer, number, number]>([
      ['PNG', 'image/png', png(7, 5), 7, 5],
      ['JPEG', 'image/jpeg', jpeg(20, 11), 20, 11],
      ['GIF', 'image/gif', gif(9, 4), 9, 4],
    ])('attaches a %s: 200 with the resource at a new version listing the image', async (_name, type, bytes, width, height) => {
      const resource = await createResource();
      const before = Date.now();
      const res = await post({ sku: resource.key! }, bytes, type);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const body = res.body as Resource;
      expect(body.id).toBe(resource.id);
      expect(body.version).toBe(resource.version + 1);
      expect(Date.parse(body.lastModifiedAt)).toBeGreaterThanOrEqual(Date.parse(resource.lastModifiedAt));
      expect(body.objectTypeProperty).toEqual(resource.objectTypeProperty);
      expect(body.images).toHaveLength(1);
      const image = body.images[0];
      const ext = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif' }[type];
      expect(image).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        url: `/${pk}/resource/images/${image.id}`,
        filename: expect.stringMatching(new RegExp(`^image-[A-Za-z0-9]{6}\\.${ext}$`)),
        contentType: type,
        width,
        height,
        size: bytes.length,
        variant: 1,
        staged: true,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      expect(Date.parse(image.createdAt)).toBeGreaterThanOrEqual(before - 1000);
      // GET by id answers the same resource.
      expect(await getResource(resource.id)).toEqual(body);
      // The bytes come back unchanged, with their type.
      const bytesRes = await download(image.url);
      expect(bytesRes.status).toBe(200);
      expect(bytesRes.headers['content-type']).toBe(type);
      expect(bytesRes.headers['content-length']).toBe(String(bytes.length));
      expect(sha256(bytesRes.body as Buffer)).toBe(sha256(bytes));
    });

    it('records variant, filename (sanitised, made unique) and staged=false; further images are appended', async () => {
      const resource = await createResource();
      const first = await post({ sku: resource.key!, variant: 3, filename: 'red shoe (1).JPG', staged: false }, png(), 'image/png');
      expect(first.status).toBe(200);
      const second = await post({ sku: resource.key!, filename: 'red shoe (1).JPG' }, gif(), 'image/gif');
      expect(second.status).toBe(200);
      const body = second.body as Resource;
      expect(body.version).toBe(resource.version + 2);
      expect(body.images.map((i) => [i.variant, i.staged, i.contentType])).toEqual([
        [3, false, 'image/png'],
        [1, true, 'image/gif'],
      ]);
      expect(body.images[0].filename).toMatch(/^redshoe1-[A-Za-z0-9]{6}\.png$/);
      expect(body.images[1].filename).toMatch(/^redshoe1-[A-Za-z0-9]{6}\.gif$/);
      expect(body.images[0].filename).not.toBe(body.images[1].filename.replace(/gif$/, 'png'));
      expect(new Set(body.images.map((i) => i.id)).size).toBe(2);
    });

    it('accepts variant as any whole number ≥ 1 and staged=true explicitly', async () => {
      const resource = await createResource();
      const res = await post({ sku: resource.key!, variant: '1000000.0', staged: 'true' }, png(), 'image/png');
      expect(res.status).toBe(200);
      expect((res.body as Resource).images[0]).toMatchObject({ variant: 1000000, staged: true });
    });

    it('stores the same bytes once per project (content-addressed)', async () => {
      const a = await createResource();
      const b = await createResource();
      const bytes = png(11, 13);
      const first = await post({ sku: a.key! }, bytes, 'image/png');
      const second = await post({ sku: b.key! }, bytes, 'image/png');
      expect([first.status, second.status]).toEqual([200, 200]);
      const ids = [(first.body as Resource).images[0].id, (second.body as Resource).images[0].id];
      expect(ids[0]).not.toBe(ids[1]);
      const blobs = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM image_blob WHERE project_key = $1 AND sha256 = $2', [pk, sha256(bytes)]);
      expect(blobs[0].n).toBe(1);
      for (const id of ids) expect(sha256((await download(`/${pk}/resource/images/${id}`)).body as Buffer)).toBe(sha256(bytes));
    });

    it('accepts multipart/form-data with one file part (the part\'s name and type are used)', async () => {
      const resource = await createResource();
      const bytes = jpeg(16, 16);
      const res = await t.http
        .post(imagesPath())
        .query({ sku: resource.key!, variant: 2 })
        .set(upload)
        .field('note', 'ignored')
        .attach('file', bytes, { filename: 'summer photo.jpeg', contentType: 'image/jpeg' });
      expect(res.status).toBe(200);
      const image = (res.body as Resource).images[0];
      expect(image).toMatchObject({ contentType: 'image/jpeg', width: 16, height: 16, size: bytes.length, variant: 2 });
      expect(image.filename).toMatch(/^summerphoto-[A-Za-z0-9]{6}\.jpg$/);
      expect(sha256((await download(image.url)).body as Buffer)).toBe(sha256(bytes));
    });

    it('multipart: the filename parameter wins over the part\'s name', async () => {
      const resource = await createResource();
      const res = await t.http.post(imagesPath()).query({ sku: resource.key!, filename: 'chosen.png' }).set(upload).attach('image', png(), { filename: 'upload.png', contentType: 'image/png' });
      expect(res.status).toBe(200);
      expect((res.body as Resource).images[0].filename).toMatch(/^chosen-[A-Za-z0-9]{6}\.png$/);
    });

    it('accepts exactly 10,485,760 bytes', async () => {
      const resource = await createResource();
      const bytes = png(2, 2, { padTo: MAX_BYTES });
      expect(bytes.length).toBe(MAX_BYTES);
      const res = await post({ sku: resource.key! }, bytes, 'image/png');
      expect(res.status).toBe(200);
      expect((res.body as Resource).images[0]).toMatchObject({ size: MAX_BYTES, width: 2, height: 2 });
      const back = await download((res.body as Resource).images[0].url);
      expect(sha256(back.body as Buffer)).toBe(sha256(bytes));
    }, 60_000);

    it('a publish makes staged images current (staged: false), end to end', async () => {
      const resource = await createResource();
      const uploaded = (await post({ sku: resource.key! }, png(), 'image/png')).body as Resource;
      expect(uploaded.images[0].staged).toBe(true);
      const res = await t.http
        .post(`/${pk}/resource/${resource.id}`)
        .set(await t.auth('manage_test'))
        .send({ version: uploaded.version, actions: [{ action: 'publish' }] });
      expect(res.status).toBe(200);
      const published = res.body as Resource;
      expect(published.version).toBe(uploaded.version + 1);
      expect(published.images).toEqual([{ ...uploaded.images[0], staged: false }]);
    });
  });

  describe('POST /{projectKey}/resource/images: errors and the order of the checks', () => {
    let resource: Resource;
    beforeAll(async () => {
      resource = await createResource();
    });

    it('401 without a token, whatever the body', async () => {
      const res = await post({}, 'not an image', 'text/plain', {});
      expectErrorEnvelope(res, 401, 'invalid_token');
    });

    it('403 without manage_products (manage_test is not enough) or for another project', async () => {
      expectErrorEnvelope(await post({ sku: resource.key! }, png(), 'image/png', await t.auth('manage_test view_test')), 403, 'insufficient_scope');
      const other = await t.auth('manage_products', { projectKey: t.otherProjectKey });
      expectErrorEnvelope(await post({ sku: resource.key! }, png(), 'image/png', other), 403, 'insufficient_scope');
    });

    it('400 RequiredField when sku is missing: before the type, the size and the bytes', async () => {
      for (const [bytes, type] of [[png(), 'image/png'], ['text', 'text/plain'], [undefined, undefined]] as const) {
        const res = await post({ variant: 1 }, bytes, type);
        expectErrorEnvelope(res, 400, 'RequiredField');
        expect(res.body.errors[0]).toMatchObject({ field: 'sku' });
        expect(res.body.errors[0].message).toMatch(/sku/);
      }
    });

    it.each<[string, Record<string, unknown>]>([
      ['variant 0', { variant: 0 }],
      ['variant -1', { variant: -1 }],
      ['variant 1.5', { variant: 1.5 }],
      ['variant abc', { variant: 'abc' }],
      ['staged maybe', { staged: 'maybe' }],
    ])('400 InvalidField for %s', async (_name, query) => {
      const res = await post({ sku: resource.key!, ...(query as Record<string, string>) }, png(), 'image/png');
      expectErrorEnvelope(res, 400, 'InvalidField');
      expect(res.body.errors[0].field).toBe(Object.keys(query)[0]);
    });

    it.each<[string, string | undefined]>([
      ['missing', undefined],
      ['text/plain', 'text/plain'],
      ['image/webp', 'image/webp'],
      ['image/jpg (not a media type)', 'image/jpg'],
      ['application/json', 'application/json'],
      ['application/octet-stream', 'application/octet-stream'],
    ])('415 for a %s Content-Type, before the existence of sku', async (_name, type) => {
      const body = type === 'application/json' ? '{"a":1}' : png();
      for (const sku of [resource.key!, 'no-such-sku']) {
        const res = await post({ sku }, type === undefined ? png() : body, type);
        expectErrorEnvelope(res, 415, 'UnsupportedMediaType');
      }
    });

    it('415 for a missing Content-Type with an empty body too', async () => {
      expectErrorEnvelope(await post({ sku: resource.key! }, undefined, undefined), 415, 'UnsupportedMediaType');
    });

    it('404 when no resource has the key sku, before the bytes are checked (also with Prefer: respond-async)', async () => {
      for (const bytes of [png(), Buffer.from('not an image at all')]) {
        const res = await post({ sku: 'no-such-sku' }, bytes, 'image/png');
        expectErrorEnvelope(res, 404, 'ResourceNotFound');
        const async = await post({ sku: 'no-such-sku' }, bytes, 'image/png', { ...upload, Prefer: 'respond-async' });
        expectErrorEnvelope(async, 404, 'ResourceNotFound');
      }
    });

    it('404 for a key of another project', async () => {
      const other = await createResource(t.otherProjectKey);
      expectErrorEnvelope(await post({ sku: other.key! }, png(), 'image/png'), 404, 'ResourceNotFound');
    });

    it.each<[string, Buffer, string]>([
      ['an empty body', Buffer.alloc(0), 'image/png'],
      ['a text file sent as image/png', Buffer.from('Hello, I am a text file.\n'.repeat(20)), 'image/png'],
      ['a PNG sent as image/jpeg', png(), 'image/jpeg'],
      ['a GIF sent as image/png', gif(), 'image/png'],
      ['a JPEG sent as image/gif', jpeg(), 'image/gif'],
      ['a PNG cut after its signature', png().subarray(0, 12), 'image/png'],
    ])('400 for %s', async (_name, bytes, type) => {
      const res = await post({ sku: resource.key! }, bytes, type);
      expectErrorEnvelope(res, 400, 'InvalidInput');
    });

    it('400 for multipart without a file part, or malformed; 415 for a file part of another type', async () => {
      expectErrorEnvelope(await t.http.post(imagesPath()).query({ sku: resource.key! }).set(upload).field('a', 'b'), 400, 'InvalidInput');
      const noBoundary = await post({ sku: resource.key! }, 'x', 'multipart/form-data');
      expectErrorEnvelope(noBoundary, 400, 'InvalidInput');
      const text = await t.http.post(imagesPath()).query({ sku: resource.key! }).set(upload).attach('file', Buffer.from('hello'), { filename: 'a.txt', contentType: 'text/plain' });
      expectErrorEnvelope(text, 415, 'UnsupportedMediaType');
      const lying = await t.http.post(imagesPath()).query({ sku: resource.key! }).set(upload).attach('file', Buffer.from('hello'), { filename: 'a.png', contentType: 'image/png' });
      expectErrorEnvelope(lying, 400, 'InvalidInput');
    });

    it('none of the failed uploads changed the resource or recorded an image', async () => {
      const now = await getResource(resource.id);
      expect(now.version).toBe(resource.version);
      expect(now.images).toEqual([]);
      expect(await imageRows(resource.id)).toBe(0);
    });
  });

  describe('the dimensions a file declares (IMAGES_MAX_DIMENSION, IMAGES_MAX_PIXELS)', () => {
    type Format = 'image/png' | 'image/jpeg' | 'image/gif';
    let resource: Resource;
    beforeAll(async () => {
      resource = await createResource();
    });

    /** Uploads a file declaring `width` × `height`, raw or as the file part of a multipart body. */
    function send(form: 'raw' | 'multipart', type: Format, width: number, height: number): Promise<Response> {
      const bytes = declaring(type, width, height);
      if (form === 'raw') return post({ sku: resource.key! }, bytes, type);
      return t.http.post(imagesPath()).query({ sku: resource.key! }).set(upload).attach('file', bytes, { filename: 'declared', contentType: type });
    }

    // PNG states up to 2^32 - 1 a side, JPEG and GIF up to 65,535.
    const REFUSED: Array<[string, Format, number, number, RegExp]> = [
      ['a PNG of 4294967295×4294967295', 'image/png', 4_294_967_295, 4_294_967_295, /at most 20000 \(IMAGES_MAX_DIMENSION\)/],
      ['a PNG of 20001×1', 'image/png', 20_001, 1, /at most 20000 \(IMAGES_MAX_DIMENSION\)/],
      ['a PNG that would decompress to 20000×20000', 'image/png', 20_000, 20_000, /at most 100000000 pixels .*IMAGES_MAX_PIXELS/],
      ['a PNG of 0×1', 'image/png', 0, 1, /at least 1/],
      ['a JPEG of 1×20001', 'image/jpeg', 1, 20_001, /IMAGES_MAX_DIMENSION/],
      ['a JPEG of 12000×12000', 'image/jpeg', 12_000, 12_000, /IMAGES_MAX_PIXELS/],
      ['a JPEG of 65535×0', 'image/jpeg', 65_535, 0, /at least 1/],
      ['a GIF of 65535×1', 'image/gif', 65_535, 1, /IMAGES_MAX_DIMENSION/],
      ['a GIF of 10001×10000', 'image/gif', 10_001, 10_000, /IMAGES_MAX_PIXELS/],
      ['a GIF of 1×0', 'image/gif', 1, 0, /at least 1/],
    ];
    const ACCEPTED: Array<[Format, number, number]> = [
      ['image/png', 20_000, 5_000],
      ['image/jpeg', 5_000, 20_000],
      ['image/gif', 10_000, 10_000],
      ['image/png', 1, 20_000],
    ];
    describe.each(['raw', 'multipart'] as const)('%s', (form) => {
      it.each(REFUSED)('400 InvalidInput for %s, saying which limit', async (_name, type, width, height, reason) => {
        const res = await send(form, type, width, height);
        expectErrorEnvelope(res, 400, 'InvalidInput');
        expect(res.body.message).toMatch(reason);
        expect(res.body.message).toContain(`${width}×${height}`);
      });

      it.each(ACCEPTED)('200 for a %s of %d×%d (at the limits), recorded with those dimensions', async (type, width, height) => {
        const res = await send(form, type, width, height);
        expect(res.status).toBe(200);
        expect((res.body as Resource).images.at(-1)).toMatchObject({ contentType: type, width, height });
      });
    });

    it('the refused uploads recorded nothing: only the accepted ones are images of the resource', async () => {
      const now = await getResource(resource.id);
      const accepted = ACCEPTED.map(([type, width, height]) => ({ contentType: type, width, height }));
      expect(now.images.map(({ contentType, width, height }) => ({ contentType, width, height }))).toEqual([...accepted, ...accepted]);
      expect(await imageRows(resource.id)).toBe(2 * ACCEPTED.length);
    });

    it('both limits are settings: an app with IMAGES_MAX_DIMENSION=100 and IMAGES_MAX_PIXELS=5000', async () => {
      const small = await createTestApp({ ...IDLE_WORKER, IMAGES_MAX_DIMENSION: '100', IMAGES_MAX_PIXELS: '5000', ...(fresh ? { DATABASE_URL: fresh.url } : {}) });
      try {
        const key = `sku-small-${Date.now()}`;
        expect((await small.http.post(`/${small.projectKey}/resource`).set(await small.auth('manage_test')).send(draft({ key }))).status).toBe(201);
        const auth = await small.auth('manage_products');
        const sendSmall = (width: number, height: number) =>
          small.http.post(`/${small.projectKey}/resource/images`).query({ sku: key }).set(auth).set('Content-Type', 'image/png').send(declaring('image/png', width, height));
        expect((await sendSmall(100, 50)).status).toBe(200);
        const tooWide = await sendSmall(101, 1);
        expectErrorEnvelope(tooWide, 400, 'InvalidInput');
        expect(tooWide.body.message).toContain('at most 100 (IMAGES_MAX_DIMENSION)');
        const tooMany = await sendSmall(100, 51);
        expectErrorEnvelope(tooMany, 400, 'InvalidInput');
        expect(tooMany.body.message).toContain('at most 5000 pixels');
      } finally {
        await small.close();
      }
    });
  });

  describe('the 10 MB limit, enforced while reading (raw sockets)', () => {
    interface RawAnswer {
      status: number;
      headers: IncomingMessage['headers'];
      body: any;
      written: number;
      ended: boolean;
    }

    /**
     * Sends headers and then `chunkSize` chunks until the server answers (never ending the body),
     * at most `maxBytes` in all. The answer arriving proves the server did not wait for the rest.
     */
    function sendUntilAnswered(query: string, headers: Record<string, string>, chunkSize: number, maxBytes: number): Promise<RawAnswer> {
      return new Promise((resolve, reject) => {
        let written = 0;
        let answered = false;
        const req = httpRequest(`${base}${imagesPath()}?${query}`, { method: 'POST', headers: { ...upload, ...headers } });
        req.on('response', (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text), written, ended: false });
            req.destroy();
          });
        });
        req.on('error', (error) => {
          if (!answered) reject(error);
        });
        const chunk = png(1, 1, { padTo: chunkSize });
        const pump = () => {
          while (!answered && written + chunk.length <= maxBytes) {
            written += chunk.length;
            if (!req.write(chunk)) return void req.once('drain', pump);
          }
        };
        req.flushHeaders();
        pump();
      });
    }

    it('413 as soon as Content-Length says more than 10,485,760 bytes: nothing more is read, the connection closes', async () => {
      const resource = await createResource();
      const answer = await sendUntilAnswered(`sku=${resource.key}`, { 'Content-Type': 'image/png', 'Content-Length': String(MAX_BYTES + 1) }, 65_536, 65_536);
      expect(answer.status).toBe(413);
      expect(answer.body.errors[0].code).toBe('PayloadTooLarge');
      expect(answer.headers.connection).toBe('close');
      expect(answer.written).toBeLessThan(MAX_BYTES);
    });

    it('the order with a too large Content-Length: sku missing → 400, bad type → 415, then 413', async () => {
      const huge = String(50 * MAX_BYTES);
      const noSku = await sendUntilAnswered('variant=1', { 'Content-Type': 'image/png', 'Content-Length': huge }, 1024, 1024);
      expect([noSku.status, noSku.body.errors[0].code]).toEqual([400, 'RequiredField']);
      const badType = await sendUntilAnswered('sku=no-such-sku', { 'Content-Type': 'text/plain', 'Content-Length': huge }, 1024, 1024);
      expect([badType.status, badType.body.errors[0].code]).toEqual([415, 'UnsupportedMediaType']);
      expect(badType.headers.connection).toBe('close');
    });

    it('413 by Content-Length before the existence of sku (404) is checked', async () => {
      const answer = await sendUntilAnswered('sku=no-such-sku', { 'Content-Type': 'image/gif', 'Content-Length': String(50 * MAX_BYTES) }, 1024, 1024);
      expect(answer.status).toBe(413);
    });

    it('413 as soon as a body without Content-Length passes the limit, before it ends', async () => {
      const resource = await createResource();
      const answer = await sendUntilAnswered(`sku=${resource.key}`, { 'Content-Type': 'image/png', 'Transfer-Encoding': 'chunked' }, 1_048_576, 40 * 1_048_576);
      expect(answer.status).toBe(413);
      expect(answer.body.errors[0].code).toBe('PayloadTooLarge');
      expect(answer.headers.connection).toBe('close');
      expect(answer.ended).toBe(false);
      expect(answer.written).toBeGreaterThan(MAX_BYTES);
      expect(answer.written).toBeLessThan(40 * 1_048_576);
      const now = await getResource(resource.id);
      expect([now.version, now.images.length]).toEqual([resource.version, 0]);
    });

    it('answers every early 413 to clients still writing: a lingering close, no reset before the answer', async () => {
      // Without it, 3 in 4 of such concurrent uploads met EPIPE before reading their answer.
      const resource = await createResource();
      const chunked = { 'Content-Type': 'image/png', 'Transfer-Encoding': 'chunked' };
      const answers = await Promise.all(Array.from({ length: 8 }, () => sendUntilAnswered(`sku=${resource.key}`, chunked, 1_048_576, 40 * 1_048_576)));
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(413));
    });

    it('closes a lingering connection after 2 s even if its client goes on sending', async () => {
      const resource = await createResource();
      // allowHalfOpen: the client goes on sending after the server's end of stream, as an upload in progress does.
      const socket = connect({ port: Number(new URL(base).port), host: '127.0.0.1', allowHalfOpen: true });
      const head = [`POST ${imagesPath()}?sku=${resource.key} HTTP/1.1`, 'Host: x', `Authorization: ${upload.Authorization}`, 'Content-Type: image/png', 'Transfer-Encoding: chunked'];
      socket.write(`${head.join('\r\n')}\r\n\r\n`);
      const chunk = Buffer.concat([Buffer.from('100000\r\n'), Buffer.alloc(0x100000, 1), Buffer.from('\r\n')]);
      let received = '';
      let answeredAt = 0;
      socket.on('data', (d: Buffer) => {
        received += d.toString('latin1');
        if (!answeredAt && received.includes('\r\n\r\n')) answeredAt = Date.now();
      });
      socket.on('error', () => {});
      const feeder = setInterval(() => socket.writable && socket.write(chunk), 20);
      await new Promise((resolve) => socket.once('close', resolve));
      clearInterval(feeder);
      expect(received).toMatch(/^HTTP\/1\.1 413 /);
      expect(Date.now() - answeredAt).toBeGreaterThanOrEqual(1_500);
      expect(Date.now() - answeredAt).toBeLessThan(6_000);
    });

    it('413 for a multipart body whose file part passes the limit', async () => {
      const resource = await createResource();
      const res = await t.http.post(imagesPath()).query({ sku: resource.key! }).set(upload).attach('file', png(1, 1, { padTo: MAX_BYTES + 1 }), { filename: 'big.png', contentType: 'image/png' }).catch((error: { response?: Response }) => error.response);
      expect(res).toBeDefined();
      expectErrorEnvelope(res!, 413, 'PayloadTooLarge');
    });

    it('400 for an upload that stalls (nothing sent for IMAGES_READ_IDLE_TIMEOUT_MS): it would hold an upload slot', async () => {
      const resource = await createResource();
      const started = Date.now();
      const answer = await sendUntilAnswered(`sku=${resource.key}`, { 'Content-Type': 'image/png', 'Content-Length': '5000' }, 100, 100);
      expect(answer.status).toBe(400);
      expect(answer.body.errors[0].message).toMatch(/stalled/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
      expect(answer.headers.connection).toBe('close');
    });

    it('the server keeps serving after those uploads', async () => {
      const resource = await createResource();
      expect((await post({ sku: resource.key! }, png(), 'image/png')).status).toBe(200);
    });
  });

  describe('Prefer: respond-async', () => {
    it('202 {"stringExample": <image id>} once stored; the worker attaches it (new version), the bytes are served', async () => {
      const resource = await createResource();
      const bytes = gif(5, 6);
      const res = await post({ sku: resource.key!, variant: 4, filename: 'later.gif' }, bytes, 'image/gif', { ...upload, Prefer: 'respond-async' });
      expect(res.status).toBe(202);
      expect(res.headers['preference-applied']).toBe('respond-async');
      expect(res.body).toEqual({ stringExample: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      const imageId = res.body.stringExample as string;
      // Not attached yet: the version is unchanged until the worker runs.
      const pending = await getResource(resource.id);
      expect([pending.version, pending.images]).toEqual([resource.version, []]);
      const early = await download(`/${pk}/resource/images/${imageId}`);
      expect(sha256(early.body as Buffer)).toBe(sha256(bytes));

      expect(await t.app.get(ImagesWorker).attachPending(100)).toBeGreaterThanOrEqual(1);
      const attached = await getResource(resource.id);
      expect(attached.version).toBe(resource.version + 1);
      expect(attached.images).toEqual([
        expect.objectContaining({ id: imageId, url: `/${pk}/resource/images/${imageId}`, contentType: 'image/gif', width: 5, height: 6, size: bytes.length, variant: 4, staged: true }),
      ]);
      expect(attached.images[0].filename).toMatch(/^later-[A-Za-z0-9]{6}\.gif$/);
      // Nothing left to do.
      expect(await t.app.get(ImagesWorker).attachPending(100)).toBe(0);
    });

    it('a key changed after the 202 does not matter: the job names the resource by id', async () => {
      const resource = await createResource();
      const res = await post({ sku: resource.key! }, png(), 'image/png', { ...upload, Prefer: 'respond-async' });
      expect(res.status).toBe(202);
      const renamed = await t.http.post(`/${pk}/resource/${resource.id}`).set(await t.auth('manage_test')).send({ version: resource.version, actions: [{ action: 'setKey', key: `${resource.key}-renamed` }] });
      expect(renamed.status).toBe(200);
      await t.app.get(ImagesWorker).attachPending(100);
      const attached = await getResource(resource.id);
      expect(attached.version).toBe(resource.version + 2);
      expect(attached.images.map((i) => i.id)).toEqual([res.body.stringExample]);
    });

    it('an image whose resource was deleted before the attach is dropped', async () => {
      const resource = await createResource();
      const res = await post({ sku: resource.key! }, png(), 'image/png', { ...upload, Prefer: 'respond-async' });
      expect(res.status).toBe(202);
      const deleted = await t.http.delete(`/${pk}/resource/${resource.id}`).set(await t.auth('manage_test'));
      expect(deleted.status).toBe(200);
      await t.app.get(ImagesWorker).attachPending(100);
      expect((await download(`/${pk}/resource/images/${res.body.stringExample}`)).status).toBe(404);
      const jobs = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM image_job WHERE image_id = $1', [res.body.stringExample]);
      expect(jobs[0].n).toBe(0);
    });

    it('a failed attempt is retried later (back-off), not lost', async () => {
      const resource = await createResource();
      const res = await post({ sku: resource.key! }, png(), 'image/png', { ...upload, Prefer: 'respond-async' });
      expect(res.status).toBe(202);
      const imageId = res.body.stringExample as string;
      // What the worker records when an attempt fails.
      await t.app.get(ImagesRepository).postponeJob(imageId, 'simulated failure');
      const job = await db.query<{ attempts: number; due: boolean; last_error: string }>(
        'SELECT attempts, run_after <= now() AS due, last_error FROM image_job WHERE image_id = $1',
        [imageId],
      );
      expect(job).toEqual([{ attempts: 1, due: false, last_error: 'simulated failure' }]);
      expect(await t.app.get(ImagesWorker).attachPending(100)).toBe(0);
      expect((await getResource(resource.id)).images).toEqual([]);
      // Once due again, the next round attaches it.
      await db.query('UPDATE image_job SET run_after = now() WHERE image_id = $1', [imageId]);
      expect(await t.app.get(ImagesWorker).attachPending(100)).toBe(1);
      expect((await getResource(resource.id)).images.map((i) => i.id)).toEqual([imageId]);
    });

    it('two workers running at once attach every job exactly once', async () => {
      const resource = await createResource();
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) {
        const res = await post({ sku: resource.key! }, png(i + 1, 1), 'image/png', { ...upload, Prefer: 'respond-async' });
        expect(res.status).toBe(202);
        ids.push(res.body.stringExample);
      }
      const worker = t.app.get(ImagesWorker);
      const counts = await Promise.all([worker.attachPending(100), worker.attachPending(100), worker.attachPending(100)]);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(8);
      const attached = await getResource(resource.id);
      expect(attached.version).toBe(resource.version + 8);
      expect(attached.images.map((i) => i.id).sort()).toEqual([...ids].sort());
    });
  });

  describe('the OpenAPI document', () => {
    it('documents both upload forms, the Prefer header, 200 and 202, and the GET of the bytes', async () => {
      const doc = (await t.http.get('/openapi.json')).body;
      const upload = doc.paths['/{projectKey}/resource/images'].post;
      expect(upload.operationId).toBe('uploadImage');
      expect(Object.keys(upload.requestBody.content).sort()).toEqual(['image/gif', 'image/jpeg', 'image/png', 'multipart/form-data']);
      expect(upload.requestBody.content['image/png'].schema).toEqual({ type: 'string', format: 'binary' });
      expect(upload.requestBody.content['multipart/form-data'].schema.properties.file).toMatchObject({ type: 'string', format: 'binary' });
      const params = Object.fromEntries(upload.parameters.map((p: { name: string; in: string; required?: boolean }) => [p.name, [p.in, p.required ?? false]]));
      expect(params).toMatchObject({ projectKey: ['path', true], sku: ['query', true], variant: ['query', false], filename: ['query', false], staged: ['query', false], Prefer: ['header', false] });
      expect(upload.responses['200'].content['application/json'].schema.$ref).toMatch(/ObjectTestTypeDto$/);
      expect(upload.responses['202'].content['application/json'].schema.$ref).toMatch(/StringTestTypeDto$/);
      expect(Object.keys(upload.responses)).toEqual(expect.arrayContaining(['400', '401', '403', '404', '413', '415']));
      const get = doc.paths['/{projectKey}/resource/images/{imageId}'].get;
      expect(get.operationId).toBe('getImage');
      expect(get.security ?? []).toEqual([]);
      expect(Object.keys(get.responses['200'].content).sort()).toEqual(['image/gif', 'image/jpeg', 'image/png']);
      expect(Object.keys(get.responses)).toEqual(expect.arrayContaining(['200', '304', '404']));
    });
  });

  describe('GET /{projectKey}/resource/images/{imageId}', () => {
    let image: Image;
    let bytes: Buffer;
    beforeAll(async () => {
      const resource = await createResource();
      bytes = png(4, 4);
      image = ((await post({ sku: resource.key! }, bytes, 'image/png')).body as Resource).images[0];
    });

    it('serves the bytes without a token: type, length, strong ETag, immutable caching', async () => {
      const res = await download(image.url);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['content-length']).toBe(String(bytes.length));
      expect(res.headers.etag).toBe(`"${sha256(bytes)}"`);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect((res.body as Buffer).equals(bytes)).toBe(true);
    });

    it('304 without a body for a matching If-None-Match (also weak, in a list, or *); 200 otherwise', async () => {
      const etag = `"${sha256(bytes)}"`;
      for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const res = await download(image.url, { 'If-None-Match': header });
        expect(res.status).toBe(304);
        expect(res.headers.etag).toBe(etag);
        expect((res.body as Buffer).length).toBe(0);
      }
      const stale = await download(image.url, { 'If-None-Match': '"0000"' });
      expect(stale.status).toBe(200);
      expect((stale.body as Buffer).equals(bytes)).toBe(true);
    });

    it('404 under another project key (image URLs belong to the project of their resource)', async () => {
      const res = await t.http.get(`/${t.otherProjectKey}/resource/images/${image.id}`);
      expectErrorEnvelope(res, 404, 'ResourceNotFound');
      const bad = await t.http.get(`/${uniqueProjectKey()}/resource/images/${image.id}`);
      expectErrorEnvelope(bad, 404, 'ResourceNotFound');
    });

    it('404 for an unknown id or one that is not a UUID; the {id} routes are not taken', async () => {
      expectErrorEnvelope(await t.http.get(`/${pk}/resource/images/00000000-0000-4000-8000-000000000000`), 404, 'ResourceNotFound');
      expectErrorEnvelope(await t.http.get(`/${pk}/resource/images/not-a-uuid`), 404, 'ResourceNotFound');
      // GET /{projectKey}/resource/images is not GET /resource/{id} with id "images".
      expectErrorEnvelope(await t.http.get(`/${pk}/resource/images`).set(await t.auth('view_test')), 404, 'ResourceNotFound');
    });
  });
});

describe('images: a restart between the 202 and the attach', () => {
  const dataDir = onPostgres ? undefined : mkdtempSync(join(tmpdir(), 'images-restart-'));
  const env = (interval: string): Record<string, string> => ({
    IMAGES_WORKER_INTERVAL_MS: interval,
    AUTH_DEMO_CLIENT: 'false',
    PUBLIC_BASE_URL: 'https://images.example.com/',
    ...(dataDir ? { DATA_DIR: dataDir } : {}),
  });
  afterAll(() => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('the job survives the restart and the next server attaches it (absolute URL with PUBLIC_BASE_URL)', async () => {
    const first = await createTestApp(env('3600000'));
    const projectKey = first.projectKey;
    const key = `restart-${Date.now()}`;
    const bytes = jpeg(12, 7);
    let resource: Resource;
    let imageId: string;
    try {
      const created = await first.http.post(`/${projectKey}/resource`).set(await first.auth('manage_test', { projectKey })).send(draft({ key }));
      expect(created.status).toBe(201);
      resource = created.body as Resource;
      const res = await first.http
        .post(`/${projectKey}/resource/images`)
        .query({ sku: key })
        .set(await first.auth('manage_products', { projectKey }))
        .set('Prefer', 'respond-async')
        .set('Content-Type', 'image/jpeg')
        .send(bytes);
      expect(res.status).toBe(202);
      imageId = res.body.stringExample;
    } finally {
      await first.close();
    }

    const second = await createTestApp(env('20'));
    try {
      const view = await second.auth('view_test', { projectKey });
      let current: Resource | undefined;
      for (let i = 0; i < 250 && !(current && current.images.length > 0); i++) {
        if (i > 0) await sleep(20);
        current = (await second.http.get(`/${projectKey}/resource/${resource.id}`).set(view)).body as Resource;
      }
      expect(current!.version).toBe(resource.version + 1);
      expect(current!.images).toEqual([expect.objectContaining({ id: imageId, url: `https://images.example.com/${projectKey}/resource/images/${imageId}`, width: 12, height: 7 })]);
      const served = await second.http.get(`/${projectKey}/resource/images/${imageId}`).buffer(true).parse(binary);
      expect(sha256(served.body as Buffer)).toBe(sha256(bytes));
    } finally {
      await second.close();
    }
  }, 120_000);
});

if (onPostgres) {
  describe('images: two servers on one PostgreSQL', () => {
    it('one takes the uploads, the other serves the bytes; their workers attach every job exactly once', async () => {
      const uploader = await createTestApp(IDLE_WORKER);
      const workers: TestApp[] = [];
      try {
        const projectKey = uploader.projectKey;
        const key = `two-servers-${Date.now()}`;
        const created = await uploader.http.post(`/${projectKey}/resource`).set(await uploader.auth('manage_test', { projectKey })).send(draft({ key }));
        expect(created.status).toBe(201);
        const resource = created.body as Resource;
        const auth = await uploader.auth('manage_products', { projectKey });
        const uploads: { id: string; bytes: Buffer }[] = [];
        for (let i = 0; i < 12; i++) {
          const bytes = png(i + 1, 2);
          const res = await uploader.http.post(`/${projectKey}/resource/images`).query({ sku: key }).set(auth).set('Prefer', 'respond-async').set('Content-Type', 'image/png').send(bytes);
          expect(res.status).toBe(202);
          uploads.push({ id: res.body.stringExample, bytes });
        }
        workers.push(await createTestApp({ IMAGES_WORKER_INTERVAL_MS: '10' }), await createTestApp({ IMAGES_WORKER_INTERVAL_MS: '10' }));
        const view = await workers[0].auth('view_test', { projectKey });
        let current: Resource | undefined;
        for (let i = 0; i < 250 && !(current && current.images.length >= 12); i++) {
          if (i > 0) await sleep(20);
          current = (await workers[0].http.get(`/${projectKey}/resource/${resource.id}`).set(view)).body as Resource;
        }
        await sleep(100);
        current = (await workers[0].http.get(`/${projectKey}/resource/${resource.id}`).set(view)).body as Resource;
        expect(current.version).toBe(resource.version + 12);
        expect(current.images.map((i) => i.id).sort()).toEqual(uploads.map((u) => u.id).sort());
        for (const { id, bytes } of uploads) {
          const served = await workers[1].http.get(`/${projectKey}/resource/images/${id}`).buffer(true).parse(binary);
          expect(sha256(served.body as Buffer)).toBe(sha256(bytes));
        }
      } finally {
        await uploader.close();
        for (const app of workers) await app.close();
      }
    }, 120_000);
  });
}
