import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp, onPostgres, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { INT64_MAX, INT64_MIN } from '../support/fixtures.js';
import { newKey } from '../support/resources.js';
import { png } from '../support/image-bytes.js';
import { Database } from '../../src/database/database.js';
import { sleep } from '../support/timing.js';
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { ANALYZE_AFTER_WRITES, IMPORT_BATCH_SIZE } from '../../src/resource/bulk/import.service.js';

/**
 * Bulk export and import (docs/bulk-and-cli.md) through HTTP, as a client streams them: the round trip, the
 * idempotent re-import, every bad input, the change log an import writes, and a client that goes away.
 */

const NDJSON = 'application/x-ndjson';
const IMPORT_LIMIT = 8 * 1024 * 1024;

/** A draft line as JSON text, 64-bit integers written exactly. */
function line(key: string, options: { big?: string; strings?: string[]; publish?: boolean; version?: number } = {}): string {
  const big = options.big ?? INT64_MAX;
  const members = [
    `"key":"${key}"`,
    `"objectTypeProperty":{"arrayOfIntExample":[1,${big}],"arrayOfUniqueIntExample":[1,2],"arrayOfTwonumbersExample":[1.5,2.5],` +
      `"arrayOfFloatExample":[0.5],"arrayOfNumberNoDefaultsExample":[],"arrayOfStringExample":${JSON.stringify(options.strings ?? ['a'])},` +
      `"arrayOfObjectType":[{"integerExample":${big},"integerExampleInt32":7}]}`,
  ];
  if (options.publish !== undefined) members.push(`"publish":${options.publish}`);
  if (options.version !== undefined) members.push(`"version":${options.version}`);
  return `{${members.join(',')}}`;
}

/** The lines of an NDJSON answer, parsed with their text kept (64-bit integers compared as text). */
function lines(text: string): any[] {
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

describe('bulk export and import', () => {
  let t: TestApp;
  let db: Database;

  beforeAll(async () => {
    // 8 MiB: room for the round trip's bodies, and a limit the tests below can pass cheaply.
    t = await createTestApp({ IMPORT_MAX_BYTES: String(IMPORT_LIMIT) });
    db = t.app.get(Database);
  });
  afterAll(async () => {
    await t.close();
  });

  const manage = (pk = t.projectKey) => t.auth('manage_test', { projectKey: pk });

  async function importText(pk: string, body: string | Buffer, type = NDJSON) {
    return t.http.post(`/${pk}/resource/import`).set(await manage(pk)).set('Content-Type', type).send(body).buffer(true).parse((res, done) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done(null, text));
    });
  }

  async function exportText(pk: string, query: Record<string, string> = {}) {
    const res = await t.http.get(`/${pk}/resource/export`).query(query).set(await t.auth('view_test', { projectKey: pk })).buffer(true).parse((r, done) => {
      let text = '';
      r.setEncoding('utf8');
      r.on('data', (chunk: string) => (text += chunk));
      r.on('end', () => done(null, text));
    });
    return { status: res.status, type: res.headers['content-type'], text: res.body as string };
  }

  async function messageTypes(pk: string, id: string): Promise<string[]> {
    const res = await t.http.get(`/${pk}/messages`).query({ where: `resource(id = "${id}")`, sort: 'sequenceNumber asc', limit: 500 }).set(await t.auth('view_messages', { projectKey: pk }));
    expect(res.status).toBe(200);
    return res.body.results.map((m: { type: string }) => m.type);
  }

  async function versionNumbers(pk: string, id: string): Promise<number[]> {
    const res = await t.http.get(`/${pk}/resource/${id}/versions`).query({ limit: 500 }).set(await t.auth('view_audit_log', { projectKey: pk }));
    expect(res.status).toBe(200);
    return res.body.results.map((v: { version: number }) => v.version);
  }

  /** Documents of an export without what the server assigns (ids, versions, dates, authors). */
  const documents = (text: string) =>
    text
      .split('\n')
      .filter((l) => l && !l.startsWith('{"summary"'))
      .map((l) => l.replace(/"(id|version|createdAt|lastModifiedAt)":("[^"]*"|\d+),/g, '').replace(/"(createdBy|lastModifiedBy)":\{[^}]*\},/g, ''))
      .sort();

  describe('round trip', () => {
    const a = uniqueProjectKey('a');
    const b = uniqueProjectKey('b');
    const count = 5_000;

    beforeAll(async () => {
      // Seeded by SQL: what matters is the export of many resources, not how they were written.
      await db.query(
        `INSERT INTO resource (id, project_key, key, version, created_at, last_modified_at, created_by, last_modified_by, published, object_type_property)
         SELECT gen_random_uuid(), $1, 'k-' || g, 1 + g % 4, now(), now(), '{"clientId":"seed"}', '{"clientId":"seed"}', g % 3 <> 0,
                ('{"arrayOfIntExample":[' || g || ',${INT64_MAX}],"arrayOfUniqueIntExample":[],"arrayOfTwonumbersExample":[1,2],' ||
                 '"arrayOfFloatExample":[0.25],"arrayOfNumberNoDefaultsExample":[],"arrayOfStringExample":["s' || g || '"],' ||
                 '"arrayOfObjectType":[{"integerExample":${INT64_MIN},"integerExampleInt32":' || g || '}]}')::jsonb
         FROM generate_series(1, ${count}) g`,
        [a],
      );
    }, 120_000);

    it('exports every resource in id order as GET by id shows it, then the summary; imports into another project; exports the same documents', async () => {
      const first = await exportText(a);
      expect(first.status).toBe(200);
      expect(first.type).toMatch(/^application\/x-ndjson/);
      const exported = first.text.split('\n');
      expect(exported.pop()).toBe('');
      expect(exported.pop()).toBe(`{"summary":{"count":${count}}}`);
      expect(exported).toHaveLength(count);
      const ids = exported.map((l) => JSON.parse(l).id as string);
      expect([...ids].sort()).toEqual(ids);
      expect(exported[0]).toContain(INT64_MAX);
      expect(exported[0]).toContain(INT64_MIN);
      const sample = exported[17];
      const byId = await t.http.get(`/${a}/resource/${JSON.parse(sample).id}`).set(await t.auth('view_test', { projectKey: a })).buffer(true);
      expect(byId.text).toBe(sample);

      // The drafts of the exported resources (what `npm run cli -- import` sends for an export's lines).
      const drafts = exported.map((l) => {
        const published = /"published":(true|false)/.exec(l)![1];
        const key = /"key":"([^"]+)"/.exec(l)![1];
        const document = /"objectTypeProperty":(\{.*\}),"images":/.exec(l)![1];
        return `{"key":"${key}","objectTypeProperty":${document},"publish":${published}}`;
      });
      const imported = await importText(b, `${drafts.join('\n')}\n`);
      expect(imported.status).toBe(200);
      expect(imported.headers['content-type']).toMatch(/^application\/x-ndjson/);
      const results = lines(imported.body);
      expect(results.pop()).toEqual({ summary: { lines: count, created: count, updated: 0, unchanged: 0, failed: 0 } });
      expect(results.map((r) => r.line)).toEqual(drafts.map((_, i) => i + 1));
      expect(results.every((r) => r.status === 201 && r.version === 1 && typeof r.id === 'string')).toBe(true);

      const second = await exportText(b);
      expect(second.text.endsWith(`{"summary":{"count":${count}}}\n`)).toBe(true);
      expect(documents(second.text)).toEqual(documents(first.text));
    }, 300_000);

    it('re-running the same import answers every line unchanged, adds no version and no message', async () => {
      const before = await exportText(b);
      const drafts = before.text
        .split('\n')
        .filter((l) => l && !l.startsWith('{"summary"'))
        .slice(0, 600)
        .map((l) => `{"key":"${/"key":"([^"]+)"/.exec(l)![1]}","objectTypeProperty":${/"objectTypeProperty":(\{.*\}),"images":/.exec(l)![1]},"publish":${/"published":(true|false)/.exec(l)![1]}}`);
      const again = await importText(b, drafts.join('\n'));
      const results = lines(again.body);
      expect(results.pop()).toEqual({ summary: { lines: 600, created: 0, updated: 0, unchanged: 600, failed: 0 } });
      expect(results.every((r) => r.status === 200 && r.unchanged === true && r.version === 1)).toBe(true);
      const id = results[5].id;
      expect(await versionNumbers(b, id)).toEqual([1]);
      expect(await messageTypes(b, id)).toEqual(['ResourceCreated']);
      const after = await exportText(b);
      expect(after.text).toBe(before.text);
    }, 120_000);

    it('exports only the matches of `where`, with variables; a malformed `where` is a 400 before any line', async () => {
      const some = await exportText(a, { where: 'key in :keys', 'var.keys': 'k-7' });
      expect(some.status).toBe(200);
      const got = lines(some.text);
      expect(got).toHaveLength(2);
      expect(got[0].key).toBe('k-7');
      expect(got[1]).toEqual({ summary: { count: 1 } });
      const bad = await t.http.get(`/${a}/resource/export`).query({ where: 'colour = "red"' }).set(await t.auth('view_test', { projectKey: a }));
      expect(bad.status).toBe(400);
      expect(bad.body.message).toMatch(/^Malformed parameter: where: /);
    });

    it('an empty project exports the summary line alone; the scope is checked', async () => {
      const empty = uniqueProjectKey('e');
      expect((await exportText(empty)).text).toBe('{"summary":{"count":0}}\n');
      const res = await t.http.get(`/${a}/resource/export`).set(await t.auth('view_messages', { projectKey: a }));
      expect(res.status).toBe(403);
    });
  });

  describe('the lines of an export', () => {
    it('are GET by id\'s answers after every kind of write, with or without the version record of the resource', async () => {
      const pk = uniqueProjectKey('lines');
      const auth = await manage(pk);
      const create = (body: string) => t.http.post(`/${pk}/resource`).set(auth).set('Content-Type', 'application/json').send(body);
      expect((await create(line(newKey('created')))).status).toBe(201);
      const updated = await create(line(newKey('updated'), { publish: false }));
      const actions = [{ action: 'setKey', key: newKey('renamed') }, { action: 'publish' }];
      expect((await t.http.post(`/${pk}/resource/${updated.body.id}`).set(auth).send({ version: 1, actions })).status).toBe(200);
      const pictured = await create(line(newKey('pictured')));
      const upload = await t.http
        .post(`/${pk}/resource/images`)
        .query({ sku: pictured.body.key, filename: 'pic.png' })
        .set(await t.auth('manage_products', { projectKey: pk }))
        .set('Content-Type', 'image/png')
        .send(png());
      expect(upload.status).toBe(200);
      const overwritten = newKey('overwritten');
      await importText(pk, line(overwritten));
      expect(lines((await importText(pk, line(overwritten, { big: '5', publish: false }))).body)[0]).toMatchObject({ status: 200, version: 2 });
      const unrecorded = (await create(line(newKey('unrecorded')))).body.id as string;
      // The version record gone (as the retention deletes it), and a resource seeded by SQL with none.
      await db.query('DELETE FROM resource_version WHERE resource_id = $1', [unrecorded]);
      await db.query(
        `INSERT INTO resource (id, project_key, key, version, created_at, last_modified_at, created_by, last_modified_by, published, object_type_property)
         VALUES (gen_random_uuid(), $1, $2, 3, now(), now(), '{"clientId":"seed"}', '{"clientId":"seed"}', true, $3::jsonb)`,
        [pk, newKey('seeded'), /"objectTypeProperty":(\{.*\})\}$/.exec(line('seeded'))![1]],
      );

      const exported = (await exportText(pk)).text.split('\n');
      expect(exported.pop()).toBe('');
      expect(exported.pop()).toBe('{"summary":{"count":6}}');
      const view = await t.auth('view_test', { projectKey: pk });
      const answers = await Promise.all(exported.map(async (l) => (await t.http.get(`/${pk}/resource/${JSON.parse(l).id}`).set(view).buffer(true)).text));
      expect(exported).toEqual(answers);
      expect(exported.join('\n')).toContain('"images":[{');
    });
  });

  describe('what an import writes', () => {
    it('records the messages and versions a PUT by key records, the same, for a create and an overwrite', async () => {
      const viaPut = uniqueProjectKey('put');
      const viaImport = uniqueProjectKey('imp');
      const key = newKey();
      const steps = [line(key, { publish: false }), line(key, { strings: ['b'], publish: true }), line(key, { strings: ['c'], publish: true })];
      for (const body of steps) {
        const res = await t.http.put(`/${viaPut}/resource`).set(await manage(viaPut)).set('Content-Type', 'application/json').send(body);
        expect(res.status).toBe(201);
      }
      const imported = lines((await importText(viaImport, steps.join('\n'))).body);
      expect(imported.pop()).toEqual({ summary: { lines: 3, created: 1, updated: 2, unchanged: 0, failed: 0 } });
      expect(imported.map((r) => [r.status, r.version])).toEqual([[201, 1], [200, 2], [200, 3]]);

      const read = async (pk: string) => {
        const resource = await t.http.get(`/${pk}/resource/key=${key}`).set(await t.auth('view_test', { projectKey: pk }));
        const id = resource.body.id as string;
        const messages = await t.http.get(`/${pk}/messages`).query({ where: `resource(id = "${id}")`, sort: 'sequenceNumber asc' }).set(await t.auth('view_messages', { projectKey: pk })).buffer(true);
        const versions = await t.http.get(`/${pk}/resource/${id}/versions`).set(await t.auth('view_audit_log', { projectKey: pk }));
        const strip = (text: string) =>
          text
            .replaceAll(id, '<id>')
            .replaceAll(pk, '<pk>')
            .replace(/"(id|createdAt|lastModifiedAt|modifiedAt)":"[^"]*"/g, '"$1":"…"')
            .replace(/"clientId":"[^"]*"/g, '"clientId":"…"');
        return { messages: strip(messages.text), versions: strip(JSON.stringify(versions.body)) };
      };
      const put = await read(viaPut);
      const imp = await read(viaImport);
      expect(imp.messages).toBe(put.messages);
      expect(imp.versions).toBe(put.versions);
      expect(put.messages).toContain(INT64_MAX);
      expect(JSON.parse(put.messages).results.map((m: { type: string }) => m.type)).toEqual([
        'ResourceCreated',
        'ObjectTypePropertySet',
        'ResourcePublished',
        'ObjectTypePropertySet',
      ]);
    });
  });

  describe('statistics after a large import', () => {
    it(`an import that wrote ${ANALYZE_AFTER_WRITES} resources or more refreshes the planner's statistics before its summary; a smaller one does not (embedded)`, async () => {
      const lastAnalyze = async () =>
        (await db.one<{ at: Date | null }>(`SELECT greatest(last_analyze, last_autoanalyze) AS at FROM pg_stat_user_tables WHERE relname = 'resource'`))!.at?.getTime() ?? 0;
      const body = (count: number, prefix: string) => Array.from({ length: count }, (_, i) => line(`${prefix}-${i}`)).join('\n');

      const before = await lastAnalyze();
      const small = lines((await importText(uniqueProjectKey('small'), body(100, 'small'))).body);
      expect(small.pop()).toEqual({ summary: { lines: 100, created: 100, updated: 0, unchanged: 0, failed: 0 } });
      // PostgreSQL's autovacuum may analyze the table at any moment; the embedded database has none.
      if (!onPostgres) expect(await lastAnalyze()).toBe(before);

      const started = Date.now();
      const large = lines((await importText(uniqueProjectKey('large'), body(ANALYZE_AFTER_WRITES, 'large'))).body);
      expect(large.pop()).toEqual({ summary: { lines: ANALYZE_AFTER_WRITES, created: ANALYZE_AFTER_WRITES, updated: 0, unchanged: 0, failed: 0 } });
      // Answered with the summary, so done before it: no wait.
      expect(await lastAnalyze()).toBeGreaterThanOrEqual(started - 1_000);
    }, 120_000);
  });

  describe('bad input', () => {
    const pk = uniqueProjectKey('bad');

    it('answers every line: invalid JSON and rule-breaking lines are 400 results, the others are written; blank lines are skipped', async () => {
      const k1 = newKey();
      const k2 = newKey();
      const body = [line(k1), '{"key": "x1", "objectTypeProperty": ', '', '   ', '{"key":"ok-key","objectTypeProperty":{}}', line(k2, { big: '9223372036854775808' }), line(newKey()) + '\r'].join('\n');
      const res = await importText(pk, body);
      expect(res.status).toBe(200);
      const results = lines(res.body);
      const summary = results.pop();
      expect(results.map((r) => [r.line, r.status])).toEqual([[1, 201], [2, 400], [5, 400], [6, 400], [7, 201]]);
      expect(results[1].errors[0].code).toBe('InvalidJsonInput');
      expect(results[2].errors.map((e: { field?: string }) => e.field)).toContain('objectTypeProperty.arrayOfIntExample');
      expect(JSON.stringify(results[3].errors)).toContain('arrayOfIntExample');
      expect(summary).toEqual({ summary: { lines: 5, created: 2, updated: 0, unchanged: 0, failed: 3 } });
      expect((await t.http.get(`/${pk}/resource/key=${k2}`).set(await t.auth('view_test', { projectKey: pk }))).status).toBe(404);
    });

    it('a duplicate key within one file: the last line wins, both are answered', async () => {
      const key = newKey();
      const res = await importText(pk, [line(key, { strings: ['first'] }), line(newKey()), line(key, { strings: ['last'] })].join('\n'));
      const results = lines(res.body);
      expect(results.map((r) => [r.line, r.status, r.version])).toEqual([[1, 201, 1], [2, 201, 1], [3, 200, 2], [undefined, undefined, undefined]]);
      const stored = await t.http.get(`/${pk}/resource/key=${key}`).set(await t.auth('view_test', { projectKey: pk }));
      expect(stored.body.objectTypeProperty.arrayOfStringExample).toEqual(['last']);
      expect(stored.body.version).toBe(2);
    });

    it('a version mismatch is a 409 result with the current version; a matching one overwrites', async () => {
      const key = newKey();
      await importText(pk, line(key));
      const res = await importText(pk, [line(key, { strings: ['x'], version: 7 }), line(key, { strings: ['y'], version: 1 })].join('\n'));
      const results = lines(res.body);
      expect(results[0]).toEqual({ line: 1, status: 409, errors: [{ code: 'ConcurrentModification', message: 'Object version mismatch. The current version is 1.', currentVersion: 1 }] });
      expect(results[1]).toMatchObject({ line: 2, status: 200, version: 2 });
      expect(results[2]).toEqual({ summary: { lines: 2, created: 0, updated: 1, unchanged: 0, failed: 1 } });
    });

    it('a body cut off mid-line: the lines before it are written, the cut one is a 400 result', async () => {
      const key = newKey();
      const whole = line(newKey());
      const res = await importText(pk, `${line(key)}\n${whole.slice(0, 40)}`);
      const results = lines(res.body);
      expect(results.map((r) => r.status)).toEqual([201, 400, undefined]);
      expect(results[1].errors[0].code).toBe('InvalidJsonInput');
    });

    it('an empty body (or one of blank lines) is a 400 before anything is answered', async () => {
      for (const body of ['', '\n\n  \n']) {
        const res = await t.http.post(`/${pk}/resource/import`).set(await manage(pk)).set('Content-Type', NDJSON).send(body);
        expect(res.status).toBe(400);
        expect(res.body.errors[0].code).toBe('InvalidInput');
      }
    });

    it('a wrong Content-Type is a 415; without a token it is a 401 first', async () => {
      const res = await t.http.post(`/${pk}/resource/import`).set(await manage(pk)).set('Content-Type', 'application/json').send(line(newKey()));
      expect(res.status).toBe(415);
      expect(res.body.errors[0].code).toBe('UnsupportedMediaType');
      const anonymous = await t.http.post(`/${pk}/resource/import`).set('Content-Type', NDJSON).send(line(newKey()));
      expect(anonymous.status).toBe(401);
    });

    it('a line longer than the JSON body limit is a 400 result; the lines around it are written', async () => {
      const long = `{"key":"${newKey()}","objectTypeProperty":{"arrayOfStringExample":["${'x'.repeat(t.config.http.bodyLimitBytes)}"]}}`;
      const res = await importText(pk, [line(newKey()), long, line(newKey())].join('\n'));
      const results = lines(res.body);
      expect(results.map((r) => [r.line, r.status])).toEqual([[1, 201], [2, 400], [3, 201], [undefined, undefined]]);
      expect(results[1].errors[0].message).toMatch(/at most HTTP_BODY_LIMIT_BYTES/);
    });
  });

  describe('lines the database cannot store', () => {
    /** JSON text `\uXXXX` (a backslash, then the escape), as a client writes it. */
    const u = (hex: string) => `\\u${hex}`;
    /** A draft line whose one string is `text` (JSON text, escapes as written). */
    const withString = (key: string, text: string) => line(key).replace('"arrayOfStringExample":["a"]', `"arrayOfStringExample":["${text}"]`);
    const KINDS: Array<[string, (key: string) => string, string]> = [
      ['a lone high surrogate in a string', (key) => withString(key, `a${u('d800')}b`), 'objectTypeProperty.arrayOfStringExample[0] holds a lone UTF-16 surrogate (\\ud800).'],
      ['a lone low surrogate in a string', (key) => withString(key, u('dc00')), 'objectTypeProperty.arrayOfStringExample[0] holds a lone UTF-16 surrogate (\\udc00).'],
      ['a NUL in a string', (key) => withString(key, `x${u('0000')}`), 'objectTypeProperty.arrayOfStringExample[0] holds a NUL character (\\u0000).'],
      ['a surrogate in a member name', (key) => line(key).replace('"integerExampleInt32"', `"integerExampleInt32${u('dbff')}"`), 'objectTypeProperty.arrayOfObjectType[0] holds a lone UTF-16 surrogate (\\udbff) in a member name.'],
      ['a surrogate as a whole top-level member name', (key) => line(key).replace('{', `{"${u('dfff')}":1,`), 'The line holds a lone UTF-16 surrogate (\\udfff) in a member name.'],
    ];

    /** The answer's results (summary apart) and the keys an export of `pk` holds. */
    async function importAndRead(pk: string, body: string[]) {
      const res = await importText(pk, body.join('\n'));
      expect(res.status).toBe(200);
      const results = lines(res.body);
      const summary = results.pop();
      const exported = lines((await exportText(pk)).text);
      expect(exported.pop()).toEqual({ summary: { count: exported.length } });
      return { results, summary, stored: exported.map((r) => r.key as string).sort() };
    }

    it.each(KINDS)('%s: the line is a 400 InvalidJsonInput result saying where; the lines around it are written', async (_kind, bad, detail) => {
      const pk = uniqueProjectKey('store');
      const keys = [newKey(), newKey(), newKey()];
      const { results, summary, stored } = await importAndRead(pk, [line(keys[0]), bad(keys[1]), line(keys[2])]);
      expect(results.map((r) => [r.line, r.status])).toEqual([[1, 201], [2, 400], [3, 201]]);
      expect(results[1].errors).toEqual([{ code: 'InvalidJsonInput', message: expect.stringMatching(/cannot store/), detailedErrorMessage: detail }]);
      expect(summary).toEqual({ summary: { lines: 3, created: 2, updated: 0, unchanged: 0, failed: 1 } });
      expect(stored).toEqual([keys[0], keys[2]].sort());
    });

    it(`in the first batch and in later ones (batches of ${IMPORT_BATCH_SIZE} lines): each is its own 400, every other line is written, the summary counts them`, async () => {
      const pk = uniqueProjectKey('store');
      const count = 2 * IMPORT_BATCH_SIZE + 10;
      // Line 1 and 2 are in the first batch whatever its size; the others after at least one full batch.
      const badLines = new Map([[1, KINDS[0][1]], [2, KINDS[2][1]], [IMPORT_BATCH_SIZE + 5, KINDS[1][1]], [2 * IMPORT_BATCH_SIZE + 7, KINDS[3][1]], [count, KINDS[4][1]]]);
      const keys = Array.from({ length: count }, () => newKey());
      const body = keys.map((key, i) => (badLines.get(i + 1) ?? line)(key));
      const { results, summary, stored } = await importAndRead(pk, body);
      expect(results.map((r) => r.line)).toEqual(keys.map((_, i) => i + 1));
      for (const result of results) {
        if (badLines.has(result.line)) {
          expect(result.status).toBe(400);
          expect(result.errors[0].code).toBe('InvalidJsonInput');
        } else {
          expect(result.status).toBe(201);
        }
      }
      expect(summary).toEqual({ summary: { lines: count, created: count - badLines.size, updated: 0, unchanged: 0, failed: badLines.size } });
      expect(stored).toEqual(keys.filter((_, i) => !badLines.has(i + 1)).sort());
    });

    describe('a batch the database refuses for a reason no check foresaw', () => {
      const pk = uniqueProjectKey('refuse');
      const suffix = Math.random().toString(36).slice(2, 8);
      beforeAll(async () => {
        // In this project, inserting a key starting `refused-` is a data exception (as a value the database cannot
        // store would be), one starting `broken-` an error no mapping knows.
        await db.query(`CREATE FUNCTION bulk_refuse_${suffix}() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            IF NEW.key LIKE 'refused-%' THEN RAISE EXCEPTION 'refused value' USING ERRCODE = '22023'; END IF;
            IF NEW.key LIKE 'broken-%' THEN RAISE EXCEPTION 'something unexpected' USING ERRCODE = 'XX000'; END IF;
            RETURN NEW;
          END $$`);
        await db.query(`CREATE TRIGGER bulk_refuse_${suffix} BEFORE INSERT ON resource FOR EACH ROW
          WHEN (NEW.project_key = '${pk}') EXECUTE FUNCTION bulk_refuse_${suffix}()`);
      });
      afterAll(async () => {
        await db.query(`DROP TRIGGER IF EXISTS bulk_refuse_${suffix} ON resource`);
        await db.query(`DROP FUNCTION IF EXISTS bulk_refuse_${suffix}()`);
      });

      it('writes its lines one by one: the refused line is a 400, a failing one a 500, the others are written once, the import reaches its summary', async () => {
        const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
        try {
          const existing = newKey();
          await importText(pk, line(existing));
          const keys = [newKey(), newKey('refused'), existing, newKey(), newKey('broken'), newKey()];
          const body = keys.map((key) => line(key, { strings: ['second'] }));
          const { results, summary, stored } = await importAndRead(pk, body);
          expect(results.map((r) => [r.line, r.status])).toEqual([[1, 201], [2, 400], [3, 200], [4, 201], [5, 500], [6, 201]]);
          expect(results[1].errors).toEqual([{ code: 'InvalidJsonInput', message: 'The line holds a value the database cannot store.', detailedErrorMessage: expect.any(String) }]);
          expect(results[4].errors).toEqual([{ code: 'General', message: expect.stringMatching(/not written/) }]);
          expect(summary).toEqual({ summary: { lines: 6, created: 3, updated: 1, unchanged: 0, failed: 2 } });
          expect(stored).toEqual([keys[0], existing, keys[3], keys[5]].sort());
          // Written once each: one version, one message (the overwritten resource: its create and this update).
          for (const result of results.filter((r) => r.status < 300)) {
            expect((await versionNumbers(pk, result.id)).sort()).toEqual(result.status === 201 ? [1] : [1, 2]);
            expect(await messageTypes(pk, result.id)).toHaveLength(result.status === 201 ? 1 : 2);
          }
          expect(logged.mock.calls.map((call) => String(call[0])).some((text) => text.includes(`An import line into ${pk} failed`) && text.includes('something unexpected'))).toBe(true);
        } finally {
          logged.mockRestore();
        }
      });
    });
  });

  describe('IMPORT_MAX_BYTES', () => {
    /** Lines of about 512 KiB (a draft padded with JSON whitespace): few lines pass the limit. */
    const padded = (key: string) => line(key).replace('"objectTypeProperty":', `"objectTypeProperty":${' '.repeat(512 * 1024)}`);

    it('413 before anything is written when Content-Length says more', async () => {
      const pk = uniqueProjectKey('lim');
      const body = Array.from({ length: 20 }, () => padded(newKey())).join('\n');
      expect(Buffer.byteLength(body)).toBeGreaterThan(IMPORT_LIMIT);
      const res = await t.http.post(`/${pk}/resource/import`).set(await manage(pk)).set('Content-Type', NDJSON).send(body);
      expect(res.status).toBe(413);
      expect(res.body.errors[0].code).toBe('PayloadTooLarge');
      expect((await exportText(pk)).text).toBe('{"summary":{"count":0}}\n');
    });

    it('without Content-Length: the import stops there with a final error line; the lines answered are written', async () => {
      const pk = uniqueProjectKey('lim');
      const token = (await manage(pk)).Authorization;
      const text = await chunkedPost(t, `/${pk}/resource/import`, token, Array.from({ length: 20 }, () => `${padded(newKey())}\n`));
      const results = lines(text);
      const last = results.pop();
      expect(last.statusCode).toBe(413);
      expect(last.errors[0].code).toBe('PayloadTooLarge');
      expect(results.length).toBe(15);
      expect(results.every((r) => r.status === 201)).toBe(true);
      expect(lines((await exportText(pk)).text).pop()).toEqual({ summary: { count: 15 } });
    });
  });

  it('a client that disconnects mid-import: what was answered as written is written, no resource is half written', async () => {
    const pk = uniqueProjectKey('gone');
    const token = (await manage(pk)).Authorization;
    const port = await listening(t);
    const answered: any[] = [];
    await new Promise<void>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: `/${pk}/resource/import`, headers: { Authorization: token, 'Content-Type': NDJSON } });
      req.on('error', () => resolve());
      req.on('response', (res) => {
        let buffered = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          const parts = buffered.split('\n');
          buffered = parts.pop()!;
          answered.push(...parts.map((p) => JSON.parse(p)));
          if (answered.length >= 3) {
            req.destroy();
            resolve();
          }
        });
        res.on('error', () => resolve());
      });
      // Three lines, a pause long enough for them to be written and answered, then the rest cut mid-line.
      req.write([line(newKey()), line(newKey()), line(newKey())].join('\n') + '\n');
      setTimeout(() => req.write(line(newKey()).slice(0, 30)), 300);
    });
    expect(answered.slice(0, 3).every((r) => r.status === 201)).toBe(true);
    await sleep(300);
    const exported = await exportText(pk);
    const resources = lines(exported.text);
    expect(resources.pop()).toEqual({ summary: { count: 3 } });
    for (const resource of resources) {
      expect(resource.version).toBe(1);
      expect(await messageTypes(pk, resource.id)).toEqual(['ResourceCreated']);
      expect(await versionNumbers(pk, resource.id)).toEqual([1]);
    }
  });
});

/** The app's HTTP server listening on a loopback port (as supertest makes it listen), for requests supertest cannot make. */
async function listening(t: TestApp): Promise<number> {
  const server = t.app.getHttpServer() as import('node:http').Server;
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** POST with a chunked body (no Content-Length): the chunks as given. Resolves with the answer's text. */
async function chunkedPost(t: TestApp, path: string, authorization: string, chunks: string[]): Promise<string> {
  const port = await listening(t);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path, headers: { Authorization: authorization, 'Content-Type': NDJSON } });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(text));
      res.on('error', () => resolve(text));
    });
    // Written as fast as the server takes them; the server stops reading at the limit.
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}
