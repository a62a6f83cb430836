import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A call the receiver got. */
export interface ExtensionCall {
  path: string;
  headers: IncomingHttpHeaders;
  json: any;
}

/** What to answer: a status and a body (text, or a value sent as JSON), after `delayMs`. */
export interface ExtensionAnswer {
  status: number;
  body?: unknown;
  delayMs?: number;
}

/**
 * A real HTTP endpoint on loopback playing a project's extension: records every call and answers
 * `respond(call)`, per path (default: 200 with no body).
 */
export class ExtensionReceiver {
  readonly calls: ExtensionCall[] = [];
  readonly answers = new Map<string, (call: ExtensionCall) => ExtensionAnswer>();
  /** Calls being answered now, and the most there were at once. */
  inFlight = 0;
  maxInFlight = 0;
  private readonly server: Server;

  private constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const call = { path: req.url ?? '/', headers: req.headers, json: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') };
        this.calls.push(call);
        this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
        const answer: ExtensionAnswer = (this.answers.get(call.path) ?? (() => ({ status: 200 })))(call);
        if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
        this.inFlight--;
        if (res.destroyed) return;
        res.statusCode = answer.status;
        if (answer.body === undefined) return res.end();
        res.setHeader('content-type', 'application/json');
        res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
      });
    });
  }

  static async start(): Promise<ExtensionReceiver> {
    const receiver = new ExtensionReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  at(path: string): ExtensionCall[] {
    return this.calls.filter((c) => c.path === path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
