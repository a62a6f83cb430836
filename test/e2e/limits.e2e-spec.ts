import { createServer, Server } from 'node:http';
import { connect, Socket, type AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Response } from 'supertest';
import { createTestApp, onPostgres, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { listenOnFreePort } from '../support/listening-app.js';
import { type Answer, expectErrorEnvelope } from '../support/expect-error.js';
import { draft } from '../support/fixtures.js';
import * as resources from '../support/resources.js';
import { png } from '../support/image-bytes.js';

/*
 * The limits of docs/rules.md#limits that no module's own test covers: the URL and header sizes (414, 431),
 * the HTTP server's timeouts against slow clients (raw sockets; the app's timeouts are set low here:
 * the defaults are 20 s for headers, 120 s for a whole request, 72 s keep-alive), the number of
 * sort/expand/filter/text parameters, list sizes of `where` variables, and the array and string lengths
 * of a draft. Each case sits at the limit (accepted) and one past it (refused with the envelope). The
 * body limit (413), 11 `where`, 21 facets and 501 actions are tested in errors, resource-query, search
 * and resource-update.
 */

type Params = Array<[string, string]>;

const MAX_URL_BYTES = 65_536;
const HEADER_ROOM_BYTES = 16 * 1024;
const HEADERS_TIMEOUT_MS = 500;
const REQUEST_TIMEOUT_MS = 3_000;
const KEEP_ALIVE_TIMEOUT_MS = 500;
const IMPORT_IDLE_TIMEOUT_MS = 1_500;
/** The server checks its timeouts every second: a connection still open after this shows a limit is gone. */
const CUT_BOUND_MS = 10_000;
/** A project whose GET namespace-action forwards to a backend slower than the request timeout. */
const SLOW = uniqueProjectKey('slow');

describe('limits', () => {
  let t: TestApp;
  let port: number;
  let backend: Server;
  let dir: string;

  beforeAll(async () => {
    backend = createServer((_req, res) => {
      const timer = setTimeout(() => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"slow":true}'), REQUEST_TIMEOUT_MS + 1_000);
      res.on('close', () => clearTimeout(timer));
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    dir = mkdtempSync(join(tmpdir(), 'limits-actions-'));
    const file = join(dir, 'actions.yaml');
    const backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}/api`;
    writeFileSync(file, `actions:\n  - { method: GET, path: namespace-action, projects: [${SLOW}], handler: { type: forward, url: "${backendUrl}", timeoutMs: 20000 } }\n`);
    t = await createTestApp({
      ACTIONS_FILE: file,
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
      IMPORT_IDLE_TIMEOUT_MS: String(IMPORT_IDLE_TIMEOUT_MS),
    });
    port = Number(new URL(await listenOnFreePort(t)).port);
  });
  afterAll(async () => {
    await t.close();
    backend.closeAllConnections();
    await new Promise((resolve) => backend.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const queryPath = () => resources.queryPath(t.projectKey);
  const searchPath = () => resources.searchPath(t.projectKey);
  const repeat = (n: number, name: string, value: (i: number) => string): Params => Array.from({ length: n }, (_, i) => [name, value(i)]);

  async function get(path: string, params: Params): Promise<Response> {
    return t.http.get(`${path}?${new URLSearchParams(params)}`).set(await t.auth('view_test'));
  }

  /** `params` pass at `max` values and are refused one past it with `message`. */
  async function atMost(path: string, params: (n: number) => Params, max: number, field: string, message: RegExp): Promise<void> {
    expect((await get(path, params(max))).status).toBe(200);
    const refused = await get(path, params(max + 1));
    expectErrorEnvelope(refused, 400, ['InvalidField', 'InvalidInput']);
    expect(refused.body.message).toMatch(new RegExp(`^Malformed parameter: ${field.replace(/\./g, '\\.')}: `));
    expect(refused.body.message).toMatch(message);
  }

  describe('request URL and headers (HTTP_MAX_URL_BYTES, default 65,536 bytes)', () => {
    /** A query URL of exactly `bytes` bytes (an unused variable pads it). */
    const urlOf = (bytes: number) => {
      const start = `${queryPath()}?var.pad=`;
      return start + 'x'.repeat(bytes - start.length);
    };

    it('a URL of exactly the limit is served; one byte more → 414 UriTooLong', async () => {
      const auth = await t.auth('view_test');
      expect((await t.http.get(urlOf(MAX_URL_BYTES)).set(auth)).status).toBe(200);
      const refused = await t.http.get(urlOf(MAX_URL_BYTES + 1)).set(auth);
      expectErrorEnvelope(refused, 414, 'UriTooLong');
      expect(refused.body.message).toBe(`The request URL has ${MAX_URL_BYTES + 1} bytes; at most ${MAX_URL_BYTES} are accepted.`);
    });

    it('a where of 10,000 characters, each percent-encoded to three bytes, fits', async () => {
      const where = `key = "${'%'.repeat(10_000 - 8)}"`;
      expect(where).toHaveLength(10_000);
      const res = await get(queryPath(), [['where', where]]);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(0);
    });

    it('a request line and headers past the URL limit plus 16 KiB → 431 RequestHeaderFieldsTooLarge, and the server serves on', async () => {
      const bigHeader = `X-Padding: ${'p'.repeat(MAX_URL_BYTES + HEADER_ROOM_BYTES)}\r\n`;
      const raw = await exchange(port, (socket) => socket.write(`GET /health/live HTTP/1.1\r\nHost: localhost\r\n${bigHeader}\r\n`));
      expectErrorEnvelope(parseAnswer(raw), 431, 'RequestHeaderFieldsTooLarge');
      expect((await t.http.get('/health/live')).status).toBe(200);
    });
  });

  describe('GET sorted-query-parameters: parameter counts and list sizes', () => {
    it('at most 10 sort parameters', async () => {
      await atMost(queryPath(), (n) => repeat(n, 'sort', () => 'key asc'), 10, 'sort', /may be given at most 10 times/);
    });

    it('at most 10 expand parameters', async () => {
      await atMost(queryPath(), (n) => repeat(n, 'expand', (i) => `objectTypeProperty.a${i}`), 10, 'expand', /may be given at most 10 times/);
    });

    it('a variable used as a list holds at most 500 values, like a written list', async () => {
      await atMost(queryPath(), (n) => [['where', 'key in :keys'], ...repeat(n, 'var.keys', (i) => `k${i}`)], 500, 'where', /at most 500 values in a list, but var\.keys was given 501 times/);
    });

    it('at most 20,000 list values in all the where parameters: a variable counts each time it is used', async () => {
      const uses = (n: number) => Array.from({ length: n }, () => 'key in :v').join(' or ');
      const values = repeat(500, 'var.v', (i) => `k${i}`);
      expect((await get(queryPath(), [['where', uses(20)], ['where', uses(20)], ...values])).status).toBe(200);
      const refused = await get(queryPath(), [['where', uses(20)], ['where', uses(21)], ...values]);
      expectErrorEnvelope(refused, 400, 'InvalidInput');
      expect(refused.body.message).toMatch(/^Malformed parameter: where: expected at most 20000 list values in all the where parameters together/);
    });

    it('`contains any` of a variable used 260 times with 300 values → 400 (was a 500: more SQL parameters than PostgreSQL takes)', async () => {
      const where = `objectTypeProperty(${Array.from({ length: 260 }, () => 'arrayOfIntExample contains any :v').join(' or ')})`;
      const refused = await get(queryPath(), [['where', where], ...repeat(300, 'var.v', (i) => String(i))]);
      expectErrorEnvelope(refused, 400, 'InvalidInput');
    });
  });

  describe('GET searchApiPattern: parameter counts', () => {
    it.each(['filter', 'filter.query', 'filter.facets'])('at most 50 %s parameters', async (name) => {
      await atMost(searchPath(), (n) => repeat(n, name, () => 'key:"a"'), 50, name, /no more than 50/);
    });

    it('at most 10 sort parameters', async () => {
      await atMost(searchPath(), (n) => repeat(n, 'sort', () => 'key asc'), 10, 'sort', /no more than 10/);
    });

    it('at most 10 text.<lang> parameters, of one language or several', async () => {
      await atMost(searchPath(), (n) => repeat(n, 'text.en', () => 'word'), 10, 'text', /at most 10 text\.<lang> values/);
      const languages = (n: number): Params => Array.from({ length: n }, (_, i) => [`text.${String.fromCharCode(97 + i).repeat(2)}`, 'word']);
      await atMost(searchPath(), languages, 10, 'text', /at most 10 text\.<lang> values/);
    });
  });

  describe('draft and update sizes: 10,000 elements per array, 10,000 characters per string', () => {
    async function create(body: object): Promise<Response> {
      return t.http.post(`/${t.projectKey}/resource`).set(await t.auth('manage_test')).send(body);
    }

    const element: Record<string, (i: number) => unknown> = {
      arrayOfIntExample: (i) => i,
      arrayOfUniqueIntExample: (i) => i,
      arrayOfFloatExample: (i) => i + 0.5,
      arrayOfNumberNoDefaultsExample: (i) => i,
      arrayOfStringExample: (i) => `s${i}`,
      arrayOfObjectType: (i) => ({ integerExample: i, integerExampleInt32: 1 }),
    };

    it.each(Object.keys(element))('%s: 10,000 elements → 201, 10,001 → 400 naming the field', async (name) => {
      const of = (n: number) => draft({}, { [name]: Array.from({ length: n }, (_, i) => element[name](i)) });
      const created = await create(of(10_000));
      expect(created.status).toBe(201);
      expect(created.body.objectTypeProperty[name]).toHaveLength(10_000);
      const refused = await create(of(10_001));
      expectErrorEnvelope(refused, 400, 'InvalidField');
      expect(refused.body.errors[0]).toMatchObject({ field: `objectTypeProperty.${name}` });
      expect(refused.body.errors[0].message).toMatch(/at most 10000 elements/);
    });

    it('a string element of 10,000 characters → 201, 10,001 → 400', async () => {
      expect((await create(draft({}, { arrayOfStringExample: ['x'.repeat(10_000)] }))).status).toBe(201);
      const refused = await create(draft({}, { arrayOfStringExample: ['x'.repeat(10_001)] }));
      expectErrorEnvelope(refused, 400, 'InvalidField');
      expect(refused.body.errors[0].field).toMatch(/^objectTypeProperty\.arrayOfStringExample/);
    });

    it('someProperty of 10,000 characters by update action → 200, 10,001 → 400, the resource unchanged', async () => {
      const created = await create(draft());
      const update = async (someProperty: string, version: number) =>
        t.http
          .post(`/${t.projectKey}/resource/${created.body.id}`)
          .set(await t.auth('manage_test'))
          .send({ version, actions: [{ action: 'changeSomeProperty', someProperty }] });
      const refused = await update('y'.repeat(10_001), 1);
      expectErrorEnvelope(refused, 400, 'InvalidField');
      const accepted = await update('y'.repeat(10_000), 1);
      expect(accepted.status).toBe(200);
      expect(accepted.body).toMatchObject({ version: 2, someProperty: 'y'.repeat(10_000) });
    });
  });

  describe('the shape of any JSON body, checked before its DTO (elements, members, values) and the violations listed', () => {
    const post = async (body: string) => t.http.post(`/${t.projectKey}/resource`).set(await t.auth('manage_test')).set('Content-Type', 'application/json').send(body);
    const ones = (n: number) => `[${Array.from({ length: n }, () => '1').join(',')}]`;
    const valid = JSON.stringify(draft()).slice(1, -1);

    it('an array anywhere holds at most 10,000 elements', async () => {
      const atLimit = await post(`{${valid},"extra":${ones(10_000)}}`);
      expectErrorEnvelope(atLimit, 400, 'InvalidField');
      expect(atLimit.body.errors[0]).toMatchObject({ field: 'extra', message: 'extra: unknown field.' });
      const refused = await post(`{${valid},"extra":{"deeper":${ones(10_001)}}}`);
      expectErrorEnvelope(refused, 400, 'InvalidField');
      expect(refused.body.errors).toEqual([{ code: 'InvalidField', field: 'extra.deeper', message: 'extra.deeper: must have at most 10000 elements.', invalidValue: 10_001 }]);
    });

    it('an object holds at most 100 members', async () => {
      const members = (n: number) => Array.from({ length: n }, (_, i) => `"m${i}":1`).join(',');
      const atLimit = await post(`{${valid},"extra":{${members(100)}}}`);
      expectErrorEnvelope(atLimit, 400, 'InvalidField');
      expect(atLimit.body.errors[0].field).toBe('extra');
      const refused = await post(`{${valid},"extra":{${members(101)}}}`);
      expect(refused.body.errors).toEqual([{ code: 'InvalidField', field: 'extra', message: 'extra: must have at most 100 members.', invalidValue: 101 }]);
    });

    it('a body holds at most 200,000 values', async () => {
      // The body, extra, its 19 arrays of 10,000 and more: 190,022 values besides more's elements.
      const arrays = (n: number) => Array.from({ length: n }, (_, i) => `"a${i}":${ones(10_000)}`).join(',');
      const atLimit = await post(`{"extra":{${arrays(19)}},"more":${ones(9_978)}}`);
      expectErrorEnvelope(atLimit, 400, ['RequiredField', 'InvalidField']);
      const refused = await post(`{"extra":{${arrays(19)}},"more":${ones(9_979)}}`);
      expectErrorEnvelope(refused, 400, 'InvalidInput');
      expect(refused.body.message).toBe('The request body holds more than 200000 values.');
    });

    it('at most 100 violations are listed, the message counts them all', async () => {
      const listed = await post(JSON.stringify(draft({}, { arrayOfStringExample: Array.from({ length: 100 }, (_, i) => i) })));
      expect(listed.body.errors).toHaveLength(100);
      expect(listed.body.message).toBe('The request has 100 invalid fields; see errors.');
      const cut = await post(JSON.stringify(draft({}, { arrayOfStringExample: Array.from({ length: 150 }, (_, i) => i) })));
      expectErrorEnvelope(cut, 400, 'InvalidField');
      expect(cut.body.errors).toHaveLength(100);
      expect(cut.body.message).toBe('The request has 150 invalid fields; errors lists the first 100.');
      expect(cut.body.errors[99].field).toBe('objectTypeProperty.arrayOfStringExample[99]');
    });
  });

  describe('timeouts against slow clients (HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS, HTTP_KEEP_ALIVE_TIMEOUT_MS)', () => {
    /** Writes `text` one byte every `everyMs` until the connection closes. */
    function trickle(socket: Socket, text: string, everyMs = 100): void {
      let i = 0;
      const timer = setInterval(() => {
        if (socket.destroyed || !socket.writable) return clearInterval(timer);
        socket.write(text[i++ % text.length]);
      }, everyMs);
      socket.once('close', () => clearInterval(timer));
    }

    it('headers sent byte by byte (slowloris) → 408 RequestTimeout and the connection is cut', async () => {
      const raw = await exchange(port, (socket) => {
        socket.write('GET /health/live HTTP/1.1\r\nHost: localhost\r\n');
        trickle(socket, 'X-Slow: a\r\n');
      });
      expectErrorEnvelope(parseAnswer(raw), 408, 'RequestTimeout');
    });

    it('a connection that sends nothing → 408 and is cut', async () => {
      expectErrorEnvelope(parseAnswer(await exchange(port, () => undefined)), 408, 'RequestTimeout');
    });

    it('a JSON body sent byte by byte → 408 once the whole request took longer than the request timeout', async () => {
      const auth = (await t.auth('manage_test')).Authorization;
      const raw = await exchange(port, (socket) => {
        socket.write(`POST /${t.projectKey}/resource HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`);
        trickle(socket, ' ');
      });
      expectErrorEnvelope(parseAnswer(raw), 408, 'RequestTimeout');
    });

    it('an idle keep-alive connection is closed after its answer', async () => {
      const raw = await exchange(port, (socket) => socket.write('GET /health/live HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n'));
      expect(parseAnswer(raw)).toMatchObject({ status: 200, body: { status: 'ok' } });
    });

    it('an image body that takes longer than the headers timeout (but less than the request timeout) is accepted', async () => {
      const key = `sku-${Date.now()}`;
      expect((await t.http.post(`/${t.projectKey}/resource`).set(await t.auth('manage_test')).send(draft({ key }))).status).toBe(201);
      const bytes = png(40, 40);
      const auth = (await t.auth('manage_products')).Authorization;
      const third = Math.ceil(bytes.length / 3);
      const raw = await exchange(port, (socket) => {
        socket.write(`POST /${t.projectKey}/resource/images?sku=${key} HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${auth}\r\nContent-Type: image/png\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`);
        for (let part = 0; part < 3; part++) {
          setTimeout(() => socket.write(bytes.subarray(part * third, (part + 1) * third)), part * (HEADERS_TIMEOUT_MS + 200));
        }
      });
      const answer = parseAnswer(raw);
      expect(answer.status).toBe(200);
      expect(answer.body.images).toHaveLength(1);
    });

    describe('an import (HTTP_REQUEST_TIMEOUT_MS does not bound it; IMPORT_IDLE_TIMEOUT_MS does)', () => {
      /** Headers of a chunked import; `lines` then go one chunk each with `send`, `end` closes the body. */
      async function importRequest(socket: Socket): Promise<{ send: (line: string) => void; end: () => void }> {
        const auth = (await t.auth('manage_test')).Authorization;
        socket.write(`POST /${t.projectKey}/resource/import HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${auth}\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n`);
        return {
          send: (line) => socket.writable && socket.write(`${Buffer.byteLength(`${line}\n`).toString(16)}\r\n${line}\n\r\n`),
          end: () => socket.writable && socket.write('0\r\n\r\n'),
        };
      }
      /** The status and the NDJSON lines of a raw answer with a chunked body. */
      function ndjsonAnswer(raw: string): { status: number; lines: Record<string, unknown>[] } {
        const head = raw.indexOf('\r\n\r\n');
        let rest = raw.slice(head + 4);
        let body = '';
        for (let size = parseInt(rest, 16); size > 0; size = parseInt(rest, 16)) {
          const start = rest.indexOf('\r\n') + 2;
          body += rest.slice(start, start + size);
          rest = rest.slice(start + size + 2);
        }
        return { status: Number(raw.slice(9, 12)), lines: body.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
      }
      const line = (key: string) => JSON.stringify(draft({ key }));

      it('a body that takes longer than the request timeout, with lines arriving, is read to its end', async () => {
        const prefix = `slow-import-${Date.now()}`;
        const started = Date.now();
        const raw = await exchange(port, (socket) => {
          void importRequest(socket).then(({ send, end }) => {
            let sent = 0;
            const timer = setInterval(() => {
              if (sent === 16) {
                clearInterval(timer);
                return end();
              }
              send(line(`${prefix}-${sent++}`));
            }, 250);
            socket.once('close', () => clearInterval(timer));
          });
        });
        expect(Date.now() - started).toBeGreaterThan(REQUEST_TIMEOUT_MS);
        const answer = ndjsonAnswer(raw);
        expect(answer.status).toBe(200);
        expect(answer.lines.slice(0, -1).map((l) => l.status)).toEqual(Array(16).fill(201));
        expect(answer.lines[answer.lines.length - 1]).toEqual({ summary: { lines: 16, created: 16, updated: 0, unchanged: 0, failed: 0 } });
      });

      it('a body that stops sending ends after IMPORT_IDLE_TIMEOUT_MS: a 408 line after the lines answered, which stay written', async () => {
        const prefix = `stalled-import-${Date.now()}`;
        const started = Date.now();
        const raw = await exchange(port, (socket) => {
          void importRequest(socket).then(({ send }) => {
            send(line(`${prefix}-1`));
            send(line(`${prefix}-2`));
          });
        });
        const elapsed = Date.now() - started;
        expect(elapsed).toBeGreaterThanOrEqual(IMPORT_IDLE_TIMEOUT_MS);
        const answer = ndjsonAnswer(raw);
        expect(answer.status).toBe(200);
        expect(answer.lines.slice(0, 2).map((l) => [l.line, l.status])).toEqual([[1, 201], [2, 201]]);
        expect(answer.lines).toHaveLength(3);
        expect(answer.lines[2]).toMatchObject({ statusCode: 408, errors: [{ code: 'RequestTimeout' }] });
        expect(answer.lines[2].message).toMatch(/IMPORT_IDLE_TIMEOUT_MS \(1500 ms\)\. The lines after line 2 were not read\./);
        for (const key of [`${prefix}-1`, `${prefix}-2`]) {
          expect((await t.http.get(`/${t.projectKey}/resource/key=${key}`).set(await t.auth('view_test'))).status).toBe(200);
        }
      });

      it('a body that sends nothing after its headers → a 408 answer after IMPORT_IDLE_TIMEOUT_MS', async () => {
        const started = Date.now();
        const raw = await exchange(port, (socket) => void importRequest(socket));
        expect(Date.now() - started).toBeLessThan(REQUEST_TIMEOUT_MS);
        const answer = parseAnswer(raw);
        expectErrorEnvelope(answer, 408, 'RequestTimeout');
        expect(answer.body.message).toMatch(/No bytes of the import body arrived for IMPORT_IDLE_TIMEOUT_MS/);
      });
    });

    it('a namespace action whose backend answers after the request timeout still answers: the timeouts count receiving only', async () => {
      const res = await t.http.get(`/${SLOW}/resource/namespace-action`).set(await t.auth('view_test', { projectKey: SLOW }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ slow: true });
    });
  });
});

/*
 * DATABASE_STATEMENT_TIMEOUT_MS: a statement PostgreSQL cancels → 400 QueryTimedOut (was a 500). Only
 * PostgreSQL cancels statements: the embedded PGlite ignores statement_timeout (docs/rules.md#limits); the
 * mapping itself is tested on both by src/common/error-envelope.filter.spec.ts.
 */
if (onPostgres) {
  describe('a search that outlasts DATABASE_STATEMENT_TIMEOUT_MS (PostgreSQL)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ DATABASE_STATEMENT_TIMEOUT_MS: '100' });
    });
    afterAll(() => t.close());

    it('→ 400 QueryTimedOut, and the app serves on', async () => {
      // 20 range facets of 50 ranges over 10,000 values: about 1.7 s on PostgreSQL 15 here, far over 100 ms.
      const created = await t.http.post(`/${t.projectKey}/resource`).set(await t.auth('manage_test')).send(draft({}, { arrayOfIntExample: Array.from({ length: 10_000 }, (_, i) => i % 60) }));
      expect(created.status).toBe(201);
      const ranges = Array.from({ length: 50 }, (_, i) => `(${i} to ${i + 1})`).join(', ');
      const facets = Array.from({ length: 20 }, (_, i): [string, string] => ['facet', `objectTypeProperty.arrayOfIntExample:range ${ranges} as r${i}`]);
      const res = await t.http.get(`/${t.projectKey}/resource/searchApiPattern?${new URLSearchParams(facets)}`).set(await t.auth('view_test'));
      expectErrorEnvelope(res, 400, 'QueryTimedOut');
      expect((await t.http.get('/health/ready')).status).toBe(200);
    });
  });
}

/**
 * Opens a raw connection to 127.0.0.1:`port`, lets `drive` write to it, and resolves with everything
 * the server sent once the server closes the connection; fails when it is still open after CUT_BOUND_MS.
 */
function exchange(port: number, drive: (socket: Socket) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const bound = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${CUT_BOUND_MS} ms; received: ${Buffer.concat(chunks).toString('latin1').slice(0, 200)}`));
    }, CUT_BOUND_MS);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined); // a reset after the answer is the server cutting the connection
    socket.on('close', () => {
      clearTimeout(bound);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    socket.on('connect', () => drive(socket));
  });
}

/** The first HTTP answer of a raw exchange (status, lower-cased headers, JSON body). */
function parseAnswer(raw: string): Answer {
  const end = raw.indexOf('\r\n\r\n');
  expect(end).toBeGreaterThan(0);
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  let text = raw.slice(end + 4);
  if (headers['content-length'] !== undefined) text = Buffer.from(text).subarray(0, Number(headers['content-length'])).toString('utf8');
  return { status: Number(statusLine.split(' ')[1]), headers, body: text ? JSON.parse(text) : undefined, text };
}
