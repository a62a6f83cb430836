import type { FastifyInstance } from 'fastify';
import { preferredMediaType } from '../common/accept-header.js';

/** The value of the `liveStream` route constraint of the routes that answer a live stream. */
export const LIVE_STREAM = 'text/event-stream';

/**
 * A Fastify route constraint (`@RouteConstraints({ liveStream: LIVE_STREAM })`): a request whose `Accept`
 * prefers `text/event-stream` to JSON goes to the route that streams; any other to the route without the
 * constraint on the same path (the page). Routing decides, so each handler stays a plain handler.
 */
export function addLiveStreamConstraint(fastify: FastifyInstance): void {
  fastify.addConstraintStrategy({
    name: 'liveStream',
    storage() {
      const handlers = new Map<string, unknown>();
      return {
        get: (value: string) => (handlers.get(value) ?? null) as never,
        set: (value: string, handler: unknown) => void handlers.set(value, handler),
      };
    },
    deriveConstraint(request: { headers: Record<string, string | string[] | undefined> }) {
      const accept = request.headers.accept;
      if (typeof accept !== 'string' || !accept.includes('event-stream')) return undefined as unknown as string;
      return preferredMediaType(accept, ['application/json', LIVE_STREAM]) === LIVE_STREAM ? LIVE_STREAM : (undefined as unknown as string);
    },
    mustMatchWhenDerived: false,
  });
}
