import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on loopback in front of a real service (a broker), for outage tests: `cut()` ends every
 * connection through it and refuses new ones (reset at once) until `restore()`. The service itself keeps
 * running, so other tests and the test's own consumers are not disturbed.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private down = false;
  /** Connections cut or refused while down: shows an outage was felt. */
  failed = 0;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
    let proxy: TcpProxy | undefined;
    const server = createServer((client) => proxy!.accept(client, targetHost, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new TcpProxy(server, (server.address() as { port: number }).port);
    return proxy;
  }

  private accept(client: Socket, host: string, port: number): void {
    if (this.down) {
      this.failed++;
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(port, host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /** Ends every connection through the proxy and refuses new ones. */
  cut(): void {
    this.down = true;
    this.failed += this.sockets.size / 2;
    for (const socket of this.sockets) socket.resetAndDestroy();
  }

  restore(): void {
    this.down = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
