import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ApiClientsService, OPERATOR } from '../../src/auth/api-clients.service.js';
import type { TestApp } from './test-app.js';

/**
 * Makes a test app listen on a free port of 127.0.0.1 (for a browser or a generated client, which
 * need a real address rather than supertest's in-process server) and answers its base URL.
 */
export async function listenOnFreePort(t: TestApp): Promise<string> {
  await t.app.listen(0, '127.0.0.1');
  const fastify = t.app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  const address = fastify.server.address() as AddressInfo;
  return `http://127.0.0.1:${address.port}`;
}

/** A real API client of `projectKey` with those scope names (e.g. `manage_test view_test`), its secret in clear. */
export async function createApiClient(t: TestApp, scopeNames: string, projectKey = t.projectKey): Promise<{ id: string; secret: string }> {
  const scope = scopeNames.split(' ').filter(Boolean).map((name) => `${name}:${projectKey}`).join(' ');
  const client = await t.app.get(ApiClientsService).create(projectKey, { name: 'docs console', scope }, OPERATOR);
  return { id: client.id, secret: client.secret };
}
