import { AsyncLocalStorage } from 'node:async_hooks';
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Observable } from 'rxjs';

/** The project a request works for, while its handler runs: `Database` counts its statements per project. */
export const projectContext = new AsyncLocalStorage<string>();

/**
 * Runs every handler of a route with a `:projectKey` inside `projectContext` (after the guards, which
 * checked the key), so that each statement it sends is counted against that project's share of the pool.
 */
@Injectable()
export class ProjectContextInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const projectKey = (context.switchToHttp().getRequest<FastifyRequest>().params as Record<string, unknown> | undefined)?.projectKey;
    if (typeof projectKey !== 'string') return next.handle();
    // next.handle() calls the handler when subscribed: inside run(), so its async work keeps the context.
    return new Observable((subscriber) => projectContext.run(projectKey, () => next.handle().subscribe(subscriber)));
  }
}
