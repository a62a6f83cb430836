// The framework floors of `npm run bench`'s GET scenario (BENCH_FLOORS=1): GET by id with the service's
// SQL and nothing else, served by the frameworks the service runs on, to show how much of the plain
// baseline's rate a route of theirs can keep before any of the service's own work.
//
// FLOOR=fastify: a bare Fastify 5 route. FLOOR=nest: a bare Nest controller on Nest's Fastify adapter
// (no guard, pipe, interceptor, filter or logger). Both answer what bench/baseline-server.mjs answers
// (the `json` column text, 200; 404 for an unknown id), from a pool of the same size, with the same
// named prepared statement. No auth: the bench's bearer header is ignored, as by the baseline.
//
// Env: FLOOR (fastify|nest), PORT (0 = any), DATABASE_URL (required), POOL_SIZE (default 10).
// Prints `listening <port>` on stdout once it accepts connections; SIGTERM/SIGINT stop it.
import 'reflect-metadata';
import Fastify from 'fastify';
import pg from 'pg';
import { Controller, Get, Header, Module, NotFoundException, Param } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { RESOURCE_SQL } from '../dist/src/resource/resource.repository.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const JSON_TYPE = 'application/json; charset=utf-8';
const FLOOR = process.env.FLOOR;
if (!process.env.DATABASE_URL || !['fastify', 'nest'].includes(FLOOR)) {
  process.stderr.write('framework-floor: DATABASE_URL and FLOOR (fastify|nest) are required\n');
  process.exit(2);
}
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) });
pool.on('error', (error) => process.stderr.write(`framework-floor: idle client error: ${error.message}\n`));

/** The resource's JSON text, or undefined. */
async function resourceJson(projectKey, id) {
  if (!UUID.test(id)) return undefined;
  const { byId } = RESOURCE_SQL;
  return (await pool.query({ name: byId.name, text: byId.text, values: byId.values({ id, projectKey }) })).rows[0]?.json;
}

const notFound = (id) => `{"statusCode":404,"message":"The resource with ID '${id}' was not found.","errors":[{"code":"ResourceNotFound"}]}`;

async function fastifyFloor() {
  const app = Fastify({ logger: false });
  app.get('/health/ready', async () => ({ status: 'ok' }));
  app.get('/:projectKey/resource/:id', async (request, reply) => {
    const { projectKey, id } = request.params;
    const json = await resourceJson(projectKey, id);
    reply.type(JSON_TYPE);
    if (json === undefined) reply.code(404);
    return json ?? notFound(id);
  });
  return {
    listen: async (port) => {
      await app.listen({ port, host: '127.0.0.1' });
      return app.server.address().port;
    },
    close: () => app.close(),
  };
}

async function nestFloor() {
  // The decorators a TypeScript controller would carry, applied by hand (this file is plain JavaScript).
  class ResourceController {
    async get(projectKey, id) {
      const json = await resourceJson(projectKey, id);
      if (json === undefined) throw new NotFoundException(`The resource with ID '${id}' was not found.`);
      return json;
    }
  }
  class HealthController {
    ready() {
      return { status: 'ok' };
    }
  }
  const method = (target, name, ...decorators) => {
    const descriptor = Object.getOwnPropertyDescriptor(target.prototype, name);
    for (const decorate of decorators) decorate(target.prototype, name, descriptor);
  };
  Controller(':projectKey/resource')(ResourceController);
  method(ResourceController, 'get', Get(':id'), Header('Content-Type', JSON_TYPE));
  Param('projectKey')(ResourceController.prototype, 'get', 0);
  Param('id')(ResourceController.prototype, 'get', 1);
  Controller('health')(HealthController);
  method(HealthController, 'ready', Get('ready'));
  class FloorModule {}
  Module({ controllers: [ResourceController, HealthController] })(FloorModule);
  const app = await NestFactory.create(FloorModule, new FastifyAdapter(), { logger: false });
  return {
    listen: async (port) => {
      await app.listen(port, '127.0.0.1');
      return app.getHttpServer().address().port;
    },
    close: () => app.close(),
  };
}

const server = FLOOR === 'fastify' ? await fastifyFloor() : await nestFloor();
const port = await server.listen(Number(process.env.PORT ?? 0));
process.stdout.write(`listening ${port}\n`);

function stop() {
  server.close().finally(() => pool.end().finally(() => process.exit(0)));
  setTimeout(() => process.exit(0), 2000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
