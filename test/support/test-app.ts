import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Test } from '@nestjs/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import request from 'supertest';
import { AppModule } from '../../src/app.module.js';
import { configureApp, createHttpAdapter } from '../../src/configure-app.js';
import { type AppConfig, loadConfig } from '../../src/app-config.js';
import { ApiClientsService, OPERATOR } from '../../src/auth/api-clients.service.js';
import { TokenService } from '../../src/auth/token.service.js';
import { seedEmbeddedDataDir } from './embedded-template.js';

export interface TestApp {
  app: NestFastifyApplication;
  /** Every route the HTTP server registered, as `{method, path}` with `:param` segments. */
  routes: RegisteredRoute[];
  config: AppConfig;
  /** supertest bound to the app's HTTP server. */
  http: ReturnType<typeof request>;
  /** A fresh project key for this app (every test file gets its own project). */
  projectKey: string;
  /** Another fresh project key, for isolation tests. */
  otherProjectKey: string;
  /**
   * Authorization header carrying a valid token for `projectKey` (or `options.projectKey`) with the
   * given space-separated scope names, e.g. `auth('manage_test')` → `manage_test:<projectKey>`.
   */
  auth(scopeNames: string, options?: { projectKey?: string; customerId?: string }): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export interface RegisteredRoute {
  method: string;
  path: string;
}

export function uniqueProjectKey(prefix = 'p'): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}

/** True when the suite runs against PostgreSQL (`DATABASE_URL`), false on embedded PGlite. */
export const onPostgres = Boolean(process.env.DATABASE_URL);

/**
 * Starts the real application (same `configureApp` as `main.ts`) on the real database: PostgreSQL
 * when DATABASE_URL is set, else a fresh embedded data directory for this app.
 */
export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const merged: Record<string, string | undefined> = { LOG_LEVEL: 'error', ...process.env, ...env };
  let dataDir: string | undefined;
  if (!merged.DATABASE_URL) {
    dataDir = merged.DATA_DIR && env.DATA_DIR ? env.DATA_DIR : mkdtempSync(join(tmpdir(), 'resource-api-test-'));
    merged.DATA_DIR = dataDir;
    await seedEmbeddedDataDir(dataDir);
  }
  const config = loadConfig(merged);
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot(config)] }).compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(createHttpAdapter(config), { bodyParser: false, logger: ['error', 'fatal'] });
  const routes: RegisteredRoute[] = [];
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  fastify.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method: String(method), path: route.url });
  });
  configureApp(app, config);
  try {
    await app.init();
  } catch (error) {
    // A start that fails (a test of a refused setting) still closes what it opened, the database first:
    // a database left open keeps its background work running for the rest of the run.
    await app.close().catch(() => undefined);
    if (dataDir && !env.DATA_DIR) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  await fastify.ready();
  const projectKey = uniqueProjectKey();
  const tokens = new Map<string, Record<string, string>>();
  return {
    app,
    routes,
    config,
    http: request(app.getHttpServer()),
    projectKey,
    otherProjectKey: uniqueProjectKey('q'),
    async auth(scopeNames, options = {}) {
      const pk = options.projectKey ?? projectKey;
      const cacheKey = `${pk}|${scopeNames}|${options.customerId ?? ''}`;
      let header = tokens.get(cacheKey);
      if (!header) {
        header = await issueTestToken(app, pk, scopeNames, options.customerId);
        tokens.set(cacheKey, header);
      }
      return header;
    },
    async close() {
      await app.close();
      if (dataDir && !env.DATA_DIR) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Creates a real API client with those scopes and issues a real token for it. */
async function issueTestToken(
  app: NestFastifyApplication,
  projectKey: string,
  scopeNames: string,
  customerId?: string,
): Promise<Record<string, string>> {
  const scope = scopeNames.split(' ').filter(Boolean).map((name) => `${name}:${projectKey}`).join(' ');
  const client = await app.get(ApiClientsService).create(projectKey, { name: 'test', scope, customerId }, OPERATOR);
  const token = await app.get(TokenService).issue(
    { ...client, projectKey, secretHash: '', customerId: customerId ?? null, lastUsedAt: null },
    scope.split(' '),
  );
  return { Authorization: `Bearer ${token.access_token}` };
}
