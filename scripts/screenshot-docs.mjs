#!/usr/bin/env node
/*
 * Regenerates docs/swagger.png, the screenshot of the Swagger page shown in docs/api-guide.md:
 *   npm run build && node scripts/screenshot-docs.mjs
 * Starts the built service ($SERVICE_DIST, default dist) on a free port with a fresh embedded database
 * (or DATABASE_URL when set) and a demo API client, opens /docs in Debian's chromium (/usr/bin/chromium,
 * or CHROMIUM_PATH) through playwright-core, authorizes with client credentials, runs "Try it out" on
 * POST /{projectKey}/resource with the example body, and saves the page. The same flow is tested by
 * test/e2e/docs-browser.e2e-spec.ts.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = process.env.DOCS_SCREENSHOT ?? join(root, 'docs', 'swagger.png');
const projectKey = 'demo-docs';
const clientId = 'docs-screenshot';
const clientSecret = `secret-${Math.random().toString(36).slice(2)}-${Date.now()}`;

const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port: free } = probe.address();
    probe.close(() => resolve(free));
  });
});
const dataDir = process.env.DATABASE_URL ? undefined : mkdtempSync(join(tmpdir(), 'docs-screenshot-'));
const server = spawn(process.execPath, [join(root, process.env.SERVICE_DIST ?? 'dist', 'src', 'main.js')], {
  cwd: root,
  stdio: ['ignore', 'inherit', 'inherit'],
  env: {
    ...process.env,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    ...(dataDir ? { DATA_DIR: dataDir } : {}),
    BOOTSTRAP_PROJECT_KEY: projectKey,
    BOOTSTRAP_CLIENT_ID: clientId,
    BOOTSTRAP_CLIENT_SECRET: clientSecret,
    BOOTSTRAP_SCOPES: `manage_test:${projectKey} view_test:${projectKey}`,
  },
});
const base = `http://127.0.0.1:${port}`;
let browser;
try {
  for (let i = 0; ; i++) {
    const ready = await fetch(`${base}/health/ready`).then((r) => r.ok, () => false);
    if (ready) break;
    if (i > 120 || server.exitCode !== null) throw new Error('the service did not start');
    await new Promise((r) => setTimeout(r, 500));
  }
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.setDefaultTimeout(30_000);
  await page.goto(`${base}/docs`);
  await page.locator('.auth-wrapper button.authorize').click();
  const modal = page.locator('.dialog-ux .modal-ux');
  await modal.locator('#client_id_clientCredentials').fill(clientId);
  await modal.locator('#client_secret_clientCredentials').fill(clientSecret);
  await modal.locator('.auth-container').filter({ hasText: 'oauth2' }).locator('button.authorize').click();
  await modal.locator('button:has-text("Logout")').waitFor();
  await modal.locator('button.close-modal').click();
  const block = page.locator('#operations-resource-createResource');
  await block.locator('.opblock-summary').first().click();
  await block.locator('button.try-out__btn').click();
  await block.locator('tr[data-param-name="projectKey"] input').fill(projectKey);
  await block.locator('button.execute').click();
  await block.locator('.live-responses-table .response .response-col_status').first().waitFor();
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: target });
  console.log(`screenshot written to ${target}`);
} finally {
  await browser?.close();
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
