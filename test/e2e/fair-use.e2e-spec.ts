import { createHash } from 'node:crypto';
import { Database } from '../../src/database/database.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { draft } from '../support/fixtures.js';
import { expectErrorEnvelope } from '../support/expect-error.js';
import { png } from '../support/image-bytes.js';
import { sleep } from '../support/timing.js';

/*
 * Fair use and the holes of a review (CONTRACT.md §14, issue 23): each attack as a real request against
 * the running app, each of which the server answered wrongly before its fix.
 */

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('fair use and hardening', () => {
  describe('deleting a resource deletes its images and reclaims their unused bytes', () => {
    let t: TestApp;
    let db: Database;
    beforeAll(async () => {
      t = await createTestApp({ AUTH_DEMO_CLIENT: 'false', IMAGES_WORKER_INTERVAL_MS: '100', IMAGES_BLOB_RECLAIM_DELAY_MS: '1000' });
      db = t.app.get(Database);
    });
    afterAll(() => t.close());

    async function resourceWithImage(bytes: Buffer): Promise<{ id: string; imageUrl: string }> {
      const manage = await t.auth('manage_test');
      const key = `img-${Math.random().toString(36).slice(2)}`;
      const created = await t.http.post(`/${t.projectKey}/resource`).set(manage).send(draft({ key }));
      expect(created.status).toBe(201);
      const uploaded = await t.http.post(`/${t.projectKey}/resource/images`).query({ sku: key }).set(await t.auth('manage_products')).set('Content-Type', 'image/png').send(bytes);
      expect(uploaded.status).toBe(200);
      return { id: created.body.id, imageUrl: uploaded.body.images[0].url };
    }

    const blobStored = async (bytes: Buffer) =>
      (await db.query('SELECT 1 FROM image_blob WHERE project_key = $1 AND sha256 = $2', [t.projectKey, sha256(bytes)])).length === 1;

    it('the image URL answers 404 after the delete; bytes of that image alone are reclaimed, shared bytes kept', async () => {
      const own = png(11, 7);
      const shared = png(13, 9);
      const alone = await resourceWithImage(own);
      const first = await resourceWithImage(shared);
      const second = await resourceWithImage(shared);
      const view = await t.auth('view_test');
      const manage = await t.auth('manage_test');
      expect((await t.http.get(alone.imageUrl).set(view)).status).toBe(200);

      for (const { id } of [alone, first]) expect((await t.http.delete(`/${t.projectKey}/resource/${id}`).query({ version: 2 }).set(manage)).status).toBe(200);

      expectErrorEnvelope(await t.http.get(alone.imageUrl).set(view), 404, 'ResourceNotFound');
      expectErrorEnvelope(await t.http.get(first.imageUrl).set(view), 404, 'ResourceNotFound');
      const deadline = Date.now() + 15_000;
      while ((await blobStored(own)) && Date.now() < deadline) await sleep(200);
      expect(await blobStored(own)).toBe(false);
      expect(await blobStored(shared)).toBe(true);
      const kept = await t.http.get(second.imageUrl).set(view);
      expect(kept.status).toBe(200);
      expect(sha256(kept.body as Buffer)).toBe(sha256(shared));
    });
  });

  describe('a customer-bound client holds no manage_test', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ AUTH_DEMO_CLIENT: 'false' });
    });
    afterAll(() => t.close());

    it('POST /{projectKey}/api-clients with customerId and manage_test → 400 InvalidField', async () => {
      const admin = await t.auth('manage_api_clients');
      const pk = t.projectKey;
      const refused = await t.http.post(`/${pk}/api-clients`).set(admin).send({ name: 'shop', scope: `manage_my_profile_test:${pk} manage_test:${pk}`, customerId: 'cust-1' });
      expectErrorEnvelope(refused, 400, 'InvalidField');
      expect(refused.body.errors[0].field).toBe('scope');
      expect(refused.body.message).toContain('customer-bound');
      const listed = await t.http.get(`/${pk}/api-clients`).set(admin);
      expect(listed.body.results.filter((c: { name: string }) => c.name === 'shop')).toEqual([]);
      const allowed = await t.http.post(`/${pk}/api-clients`).set(admin).send({ name: 'shop', scope: `manage_my_profile_test:${pk}`, customerId: 'cust-1' });
      expect(allowed.status).toBe(201);
    });
  });
});
