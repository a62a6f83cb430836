import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Server } from 'node:http';

/** After the bound has cut the requests: how long the rest of the close (database, lock file) may take. */
const CLEANUP_GRACE_MS = 3_000;

/** While closing: how often connections that have become idle (a keep-alive one after its answer) are closed. */
const IDLE_SWEEP_MS = 100;

/**
 * Graceful stop on SIGTERM and SIGINT (docs/operations.md#shutdown). `app.close()` runs Nest's sequence:
 * new requests on open connections answer 503 (`return503OnClosing`), the images worker finishes its
 * job, the listening socket closes (new connections are refused) and idle keep-alive connections and
 * connections that have sent nothing with it, the in-flight requests finish, then the pool closes and the embedded database stops (releasing
 * DATA_DIR/server.lock). The process then exits 0.
 *
 * `timeoutMs` bounds the wait for in-flight requests: past it their connections are cut, the close
 * goes on (for at most CLEANUP_GRACE_MS more), and the process exits 1, since requests were lost.
 * A second signal while closing changes nothing. Replaces Nest's `enableShutdownHooks()`, which
 * waits without a bound and ends the process by re-raising the signal.
 */
export function stopGracefullyOnSignals(app: NestFastifyApplication, timeoutMs: number): void {
  const logger = new Logger('Shutdown');
  let closing = false;
  const stop = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    logger.log(`${signal} received: closing; in-flight requests have ${timeoutMs} ms to finish`);
    const server = app.getHttpServer() as Server;
    // Node closes the idle connections once, when the listener closes; a keep-alive connection whose
    // request finishes later would otherwise stay open until the client or the keep-alive timeout ends it.
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    let cut = false;
    const bound = setTimeout(() => {
      cut = true;
      logger.warn(`requests still running after ${timeoutMs} ms: closing their connections`);
      server.closeAllConnections();
      setTimeout(() => {
        logger.error(`the close did not finish within ${CLEANUP_GRACE_MS} ms after the requests were cut: exiting`);
        process.exit(1);
      }, CLEANUP_GRACE_MS).unref();
    }, timeoutMs);
    app.close().then(
      () => {
        clearInterval(sweep);
        clearTimeout(bound);
        logger.log(cut ? 'closed after cutting requests that outlived the bound' : 'closed');
        process.exit(cut ? 1 : 0);
      },
      (error: unknown) => {
        logger.error(`closing failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
