import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Database } from '../../src/database/database.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { createApiClient, listenOnFreePort } from '../support/listening-app.js';

/*
 * The Swagger page as a user drives it (docs/api-guide.md#api-documentation-and-health): Debian's chromium (never a downloaded browser),
 * headless, opens /docs of the real app listening on a free port, authorizes with an API client's id
 * and secret (oauth2 client credentials), runs POST /{projectKey}/resource with the example body and
 * GET /{projectKey}/resource/sorted-query-parameters, the messages and a version of the resource through "Try it out", and checks the result
 * through the API. No request may leave the machine. A screenshot goes to test-output/ (ignored), or
 * to DOCS_SCREENSHOT when set (scripts/screenshot-docs.mjs uses that for docs/swagger.png).
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT = resolve(process.env.DOCS_SCREENSHOT ?? 'test-output/docs-browser.png');
const UI_TIMEOUT = 20_000;

describe('the Swagger page in a browser', () => {
  let t: TestApp;
  let baseUrl: string;
  let browser: Browser;
  let page: Page;
  let client: { id: string; secret: string };
  const requested: string[] = [];
  const pageErrors: string[] = [];
  const blockedByPolicy: string[] = [];

  beforeAll(async () => {
    // Fails loudly (no skip) when the browser is missing: npm test's pretest (scripts/test-prerequisites.sh,
    // also run by .ci/run) installs it with apt-get when it may, or stops before Jest saying what to run.
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium not found at ${CHROMIUM}: run 'bash scripts/test-prerequisites.sh' (npm test does), or as root 'apt-get update && apt-get install -y chromium'.`);
    }
    t = await createTestApp();
    baseUrl = await listenOnFreePort(t);
    client = await createApiClient(t, 'manage_test view_test');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(UI_TIMEOUT);
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    // The page's Content-Security-Policy (src/observability/security-headers.ts) must allow all it does.
    await page.exposeFunction('reportPolicyViolation', (text: string) => blockedByPolicy.push(text));
    await page.addInitScript({
      content: "document.addEventListener('securitypolicyviolation', (e) => window.reportPolicyViolation(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`));",
    });
    await page.goto(`${baseUrl}/docs`, { waitUntil: 'load' });
    await page.locator('.swagger-ui .information-container .title').waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** The operation block of `method path` (deep links give each block the id operations-<tag>-<operationId>). */
  const operation = (tag: string, operationId: string) => page.locator(`#operations-${tag}-${operationId}`);

  async function execute(tag: string, operationId: string, params: Record<string, string> = {}): Promise<string> {
    const block = operation(tag, operationId);
    await block.locator('.opblock-summary').first().click();
    await block.locator('button.try-out__btn').click();
    for (const [name, value] of Object.entries({ projectKey: t.projectKey, ...params })) {
      await block.locator(`tr[data-param-name="${name}"] input`).fill(value);
    }
    await block.locator('button.execute').click();
    const status = block.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor();
    return (await status.innerText()).trim();
  }

  it('shows the service title, its description and the operations grouped in the API description order', async () => {
    await expect(page.title()).resolves.toMatch(/Generic Project-Scoped Resource API/);
    await expect(page.locator('.information-container .title').innerText()).resolves.toMatch(/Generic Project-Scoped Resource API/);
    const tags = await page.locator('.opblock-tag-section h3 .opblock-tag, .opblock-tag-section h3').evaluateAll((nodes) =>
      nodes.map((n) => (n.getAttribute('data-tag') ?? n.textContent ?? '').trim()),
    );
    const names = tags.map((text) => text.split(/\s/)[0]).filter(Boolean);
    const order = ['resource', 'search', 'complex-path', 'images', 'namespace-actions', 'change-log', 'oauth', 'api-clients', 'health'];
    expect(names.filter((n) => order.includes(n)).filter((n, i, all) => all.indexOf(n) === i)).toEqual(order);
  });

  it('selects this server first', async () => {
    const selected = await page.locator('.servers select').inputValue();
    expect(selected).toBe(baseUrl);
  });

  it('authorizes with the client id and secret (oauth2 client credentials)', async () => {
    await page.locator('.auth-wrapper button.authorize').click();
    const modal = page.locator('.dialog-ux .modal-ux');
    await modal.waitFor();
    const oauth = modal.locator('.auth-container').filter({ has: page.locator('#client_id_clientCredentials') });
    await oauth.locator('#client_id_clientCredentials').fill(client.id);
    await oauth.locator('#client_secret_clientCredentials').fill(client.secret);
    const tokenResponse = page.waitForResponse((response) => response.url() === `${baseUrl}/oauth/token`);
    await oauth.locator('button.authorize').click();
    const answered = await tokenResponse;
    expect({ status: answered.status(), request: answered.request().postData(), body: await answered.text() }).toMatchObject({ status: 200 });
    // Swagger UI shows the oauth2 form as authorized (Logout instead of Authorize) once it holds the token.
    await modal.locator('button:has-text("Logout")').waitFor();
    await expect(modal.locator('button:has-text("Logout")').count()).resolves.toBe(1);
    await expect(modal.locator('.auth-container').filter({ hasText: 'oauth2' }).innerText()).resolves.toMatch(/Authorized/);
    await expect(modal.locator('.errors').count()).resolves.toBe(0);
    await modal.locator('button.close-modal').click();
  });

  it('creates a resource with the example body through "Try it out" (201)', async () => {
    await expect(execute('resource', 'createResource')).resolves.toBe('201');
    const body = await operation('resource', 'createResource').locator('.live-responses-table .response-col_description pre').first().innerText();
    expect(body).toMatch(/"key":\s*"example-1"/);

    const res = await t.http.get(`/${t.projectKey}/resource/key=example-1`).set(await t.auth('view_test'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ key: 'example-1', version: 1, published: true });
  });

  it('queries the resources through "Try it out" (200 with the created resource)', async () => {
    await expect(execute('resource', 'queryResourcesWithPredicates')).resolves.toBe('200');
    const body = await operation('resource', 'queryResourcesWithPredicates').locator('.live-responses-table .response-col_description pre').first().innerText();
    expect(body).toMatch(/"key":\s*"example-1"/);
  });

  it('queries the messages and reads a version of the created resource through "Try it out" (200)', async () => {
    await expect(execute('change-log', 'queryMessages')).resolves.toBe('200');
    const body = await operation('change-log', 'queryMessages').locator('.live-responses-table .response-col_description pre').first().innerText();
    expect(body).toMatch(/"results":/);
    // The write recorded the resource's first version; recorded here too in case it did not.
    const created = await t.http.get(`/${t.projectKey}/resource/key=example-1`).set(await t.auth('view_test'));
    await t.app.get(Database).query(
      `INSERT INTO resource_version (resource_id, version, project_key, modified_at, modified_by, types, representation)
       VALUES ($1, 1, $2, now(), '{"clientId":"c"}', ARRAY['ResourceCreated'], $3) ON CONFLICT DO NOTHING`,
      [created.body.id, t.projectKey, created.text],
    );
    await expect(execute('change-log', 'listResourceVersions', { id: created.body.id })).resolves.toBe('200');
    await expect(execute('change-log', 'getResourceVersion', { id: created.body.id, version: '1' })).resolves.toBe('200');
    const version = await operation('change-log', 'getResourceVersion').locator('.live-responses-table .response-col_description pre').first().innerText();
    expect(version).toMatch(/"key":\s*"example-1"/);
  });

  it('authorizes with a pasted bearer token instead, and reads the resource by key (200)', async () => {
    const token = (await t.auth('view_test')).Authorization.replace(/^Bearer /, '');
    await page.locator('.auth-wrapper button.authorize').click();
    const modal = page.locator('.dialog-ux .modal-ux');
    await modal.locator('button:has-text("Logout")').click();
    const bearer = modal.locator('.auth-container').filter({ hasText: 'bearer' });
    await bearer.locator('input').fill(token);
    await bearer.locator('button.authorize').click();
    await bearer.locator('button:has-text("Logout")').waitFor();
    await modal.locator('button.close-modal').click();
    const tokenUsed = page.waitForRequest((request) => request.url().includes('/resource/key=example-1'));
    await expect(execute('resource', 'getResourceByKey', { key: 'example-1' })).resolves.toBe('200');
    expect((await tokenUsed).headers().authorization).toBe(`Bearer ${token}`);
  });

  it('sent no request off this server, raised no page error and nothing was blocked by its Content-Security-Policy; saves a screenshot', async () => {
    const offServer = requested.filter((url) => !url.startsWith(`${baseUrl}/`) && !url.startsWith('data:') && !url.startsWith('blob:'));
    expect(offServer).toEqual([]);
    expect(requested).toEqual(expect.arrayContaining([`${baseUrl}/oauth/token`, `${baseUrl}/${t.projectKey}/resource`]));
    expect(pageErrors).toEqual([]);
    expect(blockedByPolicy).toEqual([]);
    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: SCREENSHOT });
    expect(existsSync(SCREENSHOT)).toBe(true);
  });
});
