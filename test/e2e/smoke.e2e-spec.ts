import { createTestApp, type TestApp } from '../support/test-app.js';
import { draft } from '../support/fixtures.js';

describe('smoke', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates and reads a resource', async () => {
    const created = await t.http.post(`/${t.projectKey}/resource`).set(await t.auth('manage_test')).send(draft());
    expect(created.status).toBe(201);
    const read = await t.http.get(`/${t.projectKey}/resource/${created.body.id}`).set(await t.auth('view_test'));
    expect(read.status).toBe(200);
    expect(read.body.version).toBe(1);
  });
});
