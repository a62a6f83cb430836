import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { createApiClient, listenOnFreePort } from '../support/listening-app.js';
import { png } from '../support/image-bytes.js';

/*
 * A client generated from the served /openapi.json (docs/api-guide.md#api-documentation-and-health): openapi-typescript (default options)
 * turns the document into types; a small program using only those types and plain fetch gets a token,
 * creates a resource without optional members, reads it by id and by key, updates it with the API description's
 * two actions, queries it and uploads an image. It must type-check under `tsc --strict` with no casts
 * (its `@ts-expect-error` lines prove the types are not `any`) and then run against the server.
 */

const ROOT = process.cwd();

function run(command: string, args: string[], options: { cwd?: string; env?: Record<string, string>; input?: string } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = execFile(command, args, { cwd: options.cwd ?? ROOT, env: { PATH: process.env.PATH ?? '', ...options.env }, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    if (options.input !== undefined) child.stdin!.end(options.input);
  });
}

/** The program a user would write against the generated types (imports: the types and node builtins only). */
const PROGRAM = String.raw`
import { readFileSync } from 'node:fs';
import type { paths } from './api.js';

type Draft = paths['/{projectKey}/resource']['post']['requestBody']['content']['application/json'];
type Resource = paths['/{projectKey}/resource']['post']['responses']['201']['content']['application/json'];
type ById = paths['/{projectKey}/resource/{id}']['get']['responses']['200']['content']['application/json'];
type ByKey = paths['/{projectKey}/resource/key={key}']['get']['responses']['200']['content']['application/json'];
type Update = paths['/{projectKey}/resource/{id}']['post']['requestBody']['content']['application/json'];
type Updated = paths['/{projectKey}/resource/{id}']['post']['responses']['200']['content']['application/json'];
type QueryParams = NonNullable<paths['/{projectKey}/resource/sorted-query-parameters']['get']['parameters']['query']>;
type QueryPage = paths['/{projectKey}/resource/sorted-query-parameters']['get']['responses']['200']['content']['application/json'];
type TokenForm = paths['/oauth/token']['post']['requestBody']['content']['application/x-www-form-urlencoded'];
type Token = paths['/oauth/token']['post']['responses']['200']['content']['application/json'];
type UploadParams = paths['/{projectKey}/resource/images']['post']['parameters']['query'];
type Uploaded = paths['/{projectKey}/resource/images']['post']['responses']['200']['content']['application/json'];

const base = process.env.BASE_URL ?? '';
const projectKey = process.env.PROJECT_KEY ?? '';

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

function search(params: Record<string, string | number | boolean | string[] | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) query.append(name, String(one));
  }
  return query.toString();
}

async function main(): Promise<void> {
  const form: TokenForm = { grant_type: 'client_credentials', client_id: process.env.CLIENT_ID ?? '', client_secret: process.env.CLIENT_SECRET ?? '' };
  const tokenResponse = await fetch(base + '/oauth/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: search(form) });
  check(tokenResponse.status === 200, 'token: ' + tokenResponse.status);
  const token: Token = JSON.parse(await tokenResponse.text());
  const headers = { authorization: 'Bearer ' + token.access_token, 'content-type': 'application/json' };

  // Create without any optional member (no key, version or publish).
  const draft: Draft = {
    objectTypeProperty: {
      arrayOfIntExample: [1, 2],
      arrayOfUniqueIntExample: [3],
      arrayOfTwonumbersExample: [1.5, 2.5],
      arrayOfFloatExample: [0.5],
      arrayOfNumberNoDefaultsExample: [],
      arrayOfStringExample: ['typed'],
      arrayOfObjectType: [{ integerExample: 7, integerExampleInt32: 8 }],
    },
  };
  // @ts-expect-error objectTypeProperty is required
  const incomplete: Draft = {};
  check(incomplete !== undefined, 'unreachable');

  const created = await fetch(base + '/' + projectKey + '/resource', { method: 'POST', headers, body: JSON.stringify(draft) });
  check(created.status === 201, 'create: ' + created.status + ' ' + (await created.clone().text()));
  const resource: Resource = JSON.parse(await created.text());
  check(resource.version === 1 && resource.published === true, 'create: version 1, published by default');

  // Read by id, then give it a key with setKey and read it by key.
  const byIdResponse = await fetch(base + '/' + projectKey + '/resource/' + resource.id, { headers });
  check(byIdResponse.status === 200, 'by id: ' + byIdResponse.status);
  const byId: ById = JSON.parse(await byIdResponse.text());
  check(byId.id === resource.id, 'by id: same resource');

  const update: Update = {
    version: byId.version,
    actions: [
      { action: 'doSomeThing' },
      { action: 'changeSomeProperty', someProperty: 'set by a typed client' },
      { action: 'setKey', key: 'typed-1' },
    ],
  };
  const updatedResponse = await fetch(base + '/' + projectKey + '/resource/' + resource.id, { method: 'POST', headers, body: JSON.stringify(update) });
  check(updatedResponse.status === 200, 'update: ' + updatedResponse.status + ' ' + (await updatedResponse.clone().text()));
  const updated: Updated = JSON.parse(await updatedResponse.text());
  check(updated.version === 2 && updated.someProperty === 'set by a typed client', 'update: version 2 with someProperty');

  const byKeyResponse = await fetch(base + '/' + projectKey + '/resource/key=typed-1', { headers });
  check(byKeyResponse.status === 200, 'by key: ' + byKeyResponse.status);
  const byKey: ByKey = JSON.parse(await byKeyResponse.text());
  check(byKey.id === resource.id && byKey.key === 'typed-1', 'by key: same resource');

  const params: QueryParams = { where: ['key = "typed-1"', 'version >= 2'], sort: ['createdAt desc'], limit: 5, withTotal: true };
  // @ts-expect-error limit is a number
  const wrong: QueryParams = { limit: 'five' };
  check(wrong !== undefined, 'unreachable');
  const queried = await fetch(base + '/' + projectKey + '/resource/sorted-query-parameters?' + search(params), { headers });
  check(queried.status === 200, 'query: ' + queried.status + ' ' + (await queried.clone().text()));
  const page: QueryPage = JSON.parse(await queried.text());
  check(page.count === 1 && page.total === 1 && page.results[0].id === resource.id, 'query: the one resource');

  const upload: UploadParams = { sku: 'typed-1', staged: false };
  const image = readFileSync(process.env.IMAGE_PATH ?? '');
  const uploadedResponse = await fetch(base + '/' + projectKey + '/resource/images?' + search(upload), {
    method: 'POST',
    headers: { authorization: headers.authorization, 'content-type': 'image/png' },
    body: image,
  });
  check(uploadedResponse.status === 200, 'upload: ' + uploadedResponse.status + ' ' + (await uploadedResponse.clone().text()));
  const uploaded: Uploaded = JSON.parse(await uploadedResponse.text());
  check(uploaded.id === resource.id && uploaded.images.length === 1 && uploaded.images[0].contentType === 'image/png', 'upload: the image is attached');

  process.stdout.write(JSON.stringify({ ok: true, id: resource.id, version: uploaded.version, images: uploaded.images.length }));
}

main().catch((error: unknown) => {
  process.stderr.write(String(error instanceof Error ? error.stack : error));
  process.exit(1);
});
`;

/** Breaks the generated types on lines 5, 6 and 7: the types are real, not `any`. */
const BROKEN = `
import type { paths } from './api.js';
type Draft = paths['/{projectKey}/resource']['post']['requestBody']['content']['application/json'];
type Update = paths['/{projectKey}/resource/{id}']['post']['requestBody']['content']['application/json'];
export const draft: Draft = { objectTypeProperty: { arrayOfIntExample: [], arrayOfUniqueIntExample: [], arrayOfTwonumbersExample: [1, 2], arrayOfFloatExample: [], arrayOfNumberNoDefaultsExample: [], arrayOfStringExample: [], arrayOfObjectType: [] }, publish: 'yes' };
export const update: Update = { version: 1, actions: [{ action: 'explode' }] };
export const incomplete: Update = { version: 1, actions: [{ action: 'changeSomeProperty' }] };
`;

describe('a client generated by openapi-typescript from /openapi.json', () => {
  let t: TestApp;
  let baseUrl: string;
  let dir: string;

  beforeAll(async () => {
    t = await createTestApp();
    baseUrl = await listenOnFreePort(t);
    dir = mkdtempSync(join(tmpdir(), 'typed-client-'));
  });
  afterAll(async () => {
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('generates types, type-checks a program under tsc --strict, and the program runs against the server', async () => {
    const document = await (await fetch(`${baseUrl}/openapi.json`)).text();
    // openapi-typescript is ESM with dependencies Jest's module loader cannot load: a child Node process runs it.
    const generate = await run(
      process.execPath,
      ['--input-type=module', '-e', `
        import openapiTS, { astToString } from 'openapi-typescript';
        let input = '';
        process.stdin.on('data', (c) => (input += c)).on('end', async () => {
          const ast = await openapiTS(JSON.parse(input));
          (await import('node:fs')).writeFileSync(${JSON.stringify(join(dir, 'api.d.ts'))}, astToString(ast));
        });`],
      { input: document },
    );
    expect(generate).toMatchObject({ code: 0 });

    writeFileSync(join(dir, 'client.ts'), PROGRAM);
    writeFileSync(join(dir, 'broken.ts'), BROKEN);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(dir, 'image.png'), png(4, 3));
    // One tsc run for both files (tsc is the slow part): client.ts must be clean, broken.ts must fail
    // exactly where it breaks the types. tsc still emits client.js (no --noEmitOnError), run below.
    const tsc = await run(process.execPath, [
      resolve(ROOT, 'node_modules/typescript/bin/tsc'),
      '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext',
      '--types', 'node', '--typeRoots', resolve(ROOT, 'node_modules/@types'), '--outDir', join(dir, 'out'),
      'client.ts', 'broken.ts',
    ], { cwd: dir });
    const errors = tsc.stdout + tsc.stderr;
    expect(tsc.code).not.toBe(0);
    expect(errors.split('\n').filter((line) => /error TS/.test(line) && !line.startsWith('broken.ts('))).toEqual([]);
    // publish must be a boolean, actions must be known ones...
    expect(errors).toMatch(/broken\.ts\(5,\d+\): error TS2322: Type 'string' is not assignable to type 'boolean/);
    expect(errors).toMatch(/broken\.ts\(6,\d+\): error TS2322: Type '"explode"'/);
    // ...and the actions are a discriminated union: changeSomeProperty needs its someProperty.
    expect(errors).toMatch(/broken\.ts\(7,\d+\): error TS\d+: [^\n]*\n[^\n]*Property 'someProperty' is missing/);
    expect(errors.match(/error TS/g)).toHaveLength(3);

    writeFileSync(join(dir, 'out', 'package.json'), JSON.stringify({ type: 'module' }));
    const client = await createApiClient(t, 'manage_test view_test manage_products');
    const ran = await run(process.execPath, [join(dir, 'out', 'client.js')], {
      env: { BASE_URL: baseUrl, PROJECT_KEY: t.projectKey, CLIENT_ID: client.id, CLIENT_SECRET: client.secret, IMAGE_PATH: join(dir, 'image.png') },
    });
    expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: '' });
    const result = JSON.parse(ran.stdout) as { ok: boolean; id: string; version: number; images: number };
    expect(result).toMatchObject({ ok: true, images: 1 });

    // Checked through the API too: the resource the program made is there, keyed, updated, with its image.
    const res = await t.http.get(`/${t.projectKey}/resource/key=typed-1`).set(await t.auth('view_test'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: result.id, someProperty: 'set by a typed client', version: result.version });
    expect(res.body.images).toHaveLength(1);
  }, 180_000);
});
