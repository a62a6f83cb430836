import type { IncomingMessage } from 'node:http';
import { requestIdOf } from './request-id.js';

/** Fastify's request id: the client's X-Request-Id when well-formed, else a fresh UUID. */
describe('requestIdOf', () => {
  const of = (value?: string | string[]) => requestIdOf({ headers: value === undefined ? {} : { 'x-request-id': value } } as unknown as IncomingMessage);
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it.each(['a', 'Req-42_a.b:c', '01HZX3K9V5Q6W7E8R9T0Y1U2I3', 'f'.repeat(128)])('keeps %s', (id) => {
    expect(of(id)).toBe(id);
  });

  it.each([undefined, '', 'f'.repeat(129), 'a b', 'a,b', 'a\r\nb', 'a\tb', 'a/b', 'a;b', 'caf\u00e9', '<x>', ['a', 'b']])('replaces %j with a UUID', (id) => {
    expect(of(id)).toMatch(UUID);
  });
});
