import type { TestApp } from './test-app.js';
import type { ResourceBody } from './fixtures.js';

/*
 * Paths of the resource endpoints as a client writes them (written out here, not taken from src/),
 * keys, and the create the read, query and search tests seed their data with.
 */

export const resourcePath = (pk: string, id = '') => `/${pk}/resource${id ? `/${id}` : ''}`;
export const queryPath = (pk: string) => `/${pk}/resource/sorted-query-parameters`;
export const searchPath = (pk: string) => `/${pk}/resource/searchApiPattern`;

let seq = 0;
/** A resource key unique within the test file. */
export const newKey = (prefix = 'k') => `${prefix}-${Date.now().toString(36)}-${++seq}`;

/** Creates a resource in project `pk` from a draft, or from JSON text sent as written; expects 201. */
export async function createResource(t: TestApp, pk: string, body: object | string): Promise<ResourceBody> {
  const req = t.http.post(resourcePath(pk)).set(await t.auth('manage_test', { projectKey: pk }));
  const res = typeof body === 'string' ? await req.set('Content-Type', 'application/json').send(body) : await req.send(body);
  expect(res.status).toBe(201);
  return res.body as ResourceBody;
}
