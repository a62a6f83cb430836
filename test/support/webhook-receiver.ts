import { createHmac } from 'node:crypto';
import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the receiver got. */
export interface ReceivedWebhook {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  json: any;
}

/**
 * A real webhook receiver on loopback for the subscription tests: records every POST and answers
 * `respond(request)` (default 204). `url(path)` is its address.
 */
export class WebhookReceiver {
  /** Accepted requests (answered 2xx). */
  readonly received: ReceivedWebhook[] = [];
  /** Every request, accepted or not, with the status answered. */
  readonly attempts: Array<ReceivedWebhook & { status: number }> = [];
  respond: (request: ReceivedWebhook) => number | Promise<number> = () => 204;
  private readonly server: Server;

  private constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        const request = { path: req.url ?? '/', headers: req.headers, body, json };
        const status = await this.respond(request);
        this.attempts.push({ ...request, status });
        if (status >= 200 && status < 300) this.received.push(request);
        res.statusCode = status;
        if (status >= 300 && status < 400) res.setHeader('location', '/elsewhere');
        res.end();
      });
    });
  }

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** What reached `path` (accepted requests only). */
  at(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/**
 * Verifies a Standard Webhooks signature as a consumer would, from the specification's text: the
 * HMAC-SHA256 of `id.timestamp.body` keyed with the base64-decoded secret after `whsec_`, base64, as
 * one of the space-separated `v1,<signature>` entries.
 */
export function verifyStandardWebhook(secret: string, request: ReceivedWebhook): boolean {
  const id = String(request.headers['webhook-id']);
  const timestamp = String(request.headers['webhook-timestamp']);
  const key = Buffer.from(secret.split('_')[1], 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest('base64');
  const given = String(request.headers['webhook-signature']).split(' ');
  return given.includes(`v1,${expected}`) && Math.abs(Date.now() / 1000 - Number(timestamp)) < 300;
}
