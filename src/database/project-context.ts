import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/** The project a request works for, while its handler runs: `Database` counts its statements per project. */
export const projectContext = new AsyncLocalStorage<string>();

/**
 * Fastify's `preHandler` hook: the rest of a request on a route with a `:projectKey` (Nest's guards, pipes
 * and handler) runs inside `projectContext`, so that each statement it sends is counted against that
 * project's share of the pool.
 *
 * A hook rather than a Nest interceptor: the only interceptor of the app made every handler go through
 * Nest's RxJS interceptor chain. GET by id (`npm run bench`, PostgreSQL, builds alternated twice) ran at
 * 0.67 and 0.64 of the same-SQL baseline with the hook, 0.57 and 0.56 with the interceptor; CPU profiles
 * of one server each showed 12 µs of Node internals, 7 of `@nestjs/core`, 6 of garbage collection and 4 of
 * RxJS less per request. The guards run inside the context
 * too: a request refused there sends at most the cached client check under the project it named.
 */
export function enterProjectContext(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const projectKey = (request.params as Record<string, unknown> | undefined)?.projectKey;
  if (typeof projectKey !== 'string') return done();
  projectContext.run(projectKey, done);
}
