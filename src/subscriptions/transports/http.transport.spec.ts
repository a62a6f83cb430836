import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HostPolicy } from '../../outbound/host-policy.js';
import { DeliveryError } from '../delivery-error.js';
import { HttpTransport } from './http.transport.js';

/** The webhook transport connects only to addresses it checked: a name is resolved once, by the policy. */
describe('HttpTransport', () => {
  let server: Server;
  let port: number;
  let requests = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests++;
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const names: Record<string, string[]> = { 'receiver.test': ['127.0.0.1'], 'metadata.test': ['169.254.169.254'], 'nat64.test': ['64:ff9b::a9fe:a9fe'] };
  const transport = new HttpTransport(new HostPolicy([], async (host) => names[host] ?? []), 2_000);
  afterAll(() => transport.close());
  const target = (host: string) => ({ type: 'HTTP' as const, destination: { type: 'HTTP', url: `http://${host}:${port}/hook` }, credentials: { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } });
  const notification = { id: 'n-1', body: '{}', contentType: 'application/json' };

  it('delivers to a name the policy resolved to an allowed address', async () => {
    const before = requests;
    await transport.deliver(target('receiver.test'), notification, 2_000);
    expect(requests).toBe(before + 1);
  });

  it.each(['metadata.test', 'nat64.test'])(
    'refuses %s, resolving to a link-local address at connection time, as a lasting "host not allowed", without connecting',
    async (host) => {
      const before = requests;
      const error = await transport.deliver(target(host), notification, 2_000).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DeliveryError);
      expect(error).toMatchObject({ kind: 'ConfigurationError', detail: expect.stringMatching(/link-local address 169\.254\.169\.254/) });
      expect((error as DeliveryError).message).toBe('host not allowed');
      expect(requests).toBe(before);
    },
  );
});
