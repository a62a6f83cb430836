import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { listenOnFreePort } from '../support/listening-app.js';
import { draft } from '../support/fixtures.js';
import { resourcePath } from '../support/resources.js';

/*
 * Live changes in a real browser (docs/live-changes.md): Debian's chromium, headless, opens a page served by
 * this test from another origin (allowed by HTTP_CORS_ORIGINS); the page subscribes with EventSource and
 * access_token, as the documentation's page does; the test writes through the API, and the page shows the change.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The documentation's browser page, with the API's address and a token filled in. */
const page = (api: string, projectKey: string, token: string) => `<!doctype html>
<meta charset="utf-8"><title>Live changes</title>
<ul id="changes"></ul>
<script>
  const url = '${api}/${projectKey}/messages?access_token=${token}';
  const changes = new EventSource(url);
  changes.onopen = () => (document.body.dataset.open = 'yes');
  changes.addEventListener('message', (event) => {
    const message = JSON.parse(event.data);
    const item = document.createElement('li');
    item.textContent = message.type + ' ' + (message.resourceUserProvidedIdentifiers.key ?? message.resource.id);
    document.getElementById('changes').append(item);
  });
  changes.addEventListener('end', () => changes.close()); // the token expired: get a new one, open again
</script>`;

describe('live changes in a browser (EventSource)', () => {
  let t: TestApp;
  let api: string;
  let pages: Server;
  let origin: string;
  let browser: Browser;
  let html = '';

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium not found at ${CHROMIUM}: run 'bash scripts/test-prerequisites.sh' (npm test does), or as root 'apt-get update && apt-get install -y chromium'.`);
    }
    pages = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html));
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
    t = await createTestApp({ HTTP_CORS_ORIGINS: origin });
    api = await listenOnFreePort(t);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    (t?.app.getHttpServer() as Server | undefined)?.closeAllConnections();
    await t?.close();
    pages?.close();
  });

  it('shows a change written through the API on a page of another origin', async () => {
    const token = (await t.auth('view_messages')).Authorization.slice('Bearer '.length);
    html = page(api, t.projectKey, token);
    const tab = await browser.newPage();
    const errors: string[] = [];
    tab.on('pageerror', (error) => errors.push(String(error)));
    await tab.goto(origin, { waitUntil: 'load' });
    await tab.waitForSelector('body[data-open="yes"]', { state: 'attached', timeout: 15_000 });
    const res = await t.http.post(resourcePath(t.projectKey)).set(await t.auth('manage_test')).send({ ...draft(), key: 'seen-in-the-browser' });
    expect(res.status).toBe(201);
    await tab.waitForSelector('#changes li', { timeout: 15_000 });
    expect(await tab.locator('#changes li').allTextContents()).toEqual(['ResourceCreated seen-in-the-browser']);
    expect(errors).toEqual([]);
    await tab.close();
  });
});
