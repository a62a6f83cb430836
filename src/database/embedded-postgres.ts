import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { fuzzystrmatch } from '@electric-sql/pglite/contrib/fuzzystrmatch';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { HEAP_GROWING_PERCENT, limitHeapGrowth } from '../heap-growth.js';

/**
 * Extensions every opener of an embedded data directory must load, or writes fail once an index
 * uses them. The app and the operator CLI both open the directory through this file.
 */
const EXTENSIONS = { pg_trgm, fuzzystrmatch, btree_gin };

/**
 * PostgreSQL settings of the embedded database, after PGlite's own. Its buffer cache lives in the
 * server process's memory (WebAssembly memory never shrinks): PostgreSQL's default of 128 MB made most
 * of the process's resident memory under load, while the data files are still cached by the OS.
 */
const SETTINGS = ['-c', 'shared_buffers=32MB'];

export class DataDirectoryLockedError extends Error {}

export interface EmbeddedPostgres {
  /** Connection settings for `pg` (a unix socket inside the data directory, or loopback TCP). */
  connection: { host: string; port: number; user: string; database: string };
  /**
   * Closes the database and opens it again, the directory's lock held: a new WebAssembly memory. Answers
   * the new connection. Absent on a database another process serves.
   */
  reopen?(): Promise<EmbeddedPostgres['connection']>;
  stop(): Promise<void>;
}

/**
 * Starts PGlite on `dataDir` and serves it over the Postgres wire protocol, so the app reaches it
 * through the same `pg` + TypeORM path as a real PostgreSQL. A lock file makes a second process on
 * the same directory refuse to start: nothing else stops two PGlite instances from silently losing
 * each other's writes.
 */
export async function startEmbeddedPostgres(dataDir: string, maxConnections: number): Promise<EmbeddedPostgres> {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const releaseLock = acquireLock(join(dir, 'server.lock'));
  // The database shares the process: the JavaScript heap grows less (heap-growth.ts).
  limitHeapGrowth(HEAP_GROWING_PERCENT.EMBEDDED);
  try {
    const socketPath = join(dir, '.s.PGSQL.5432');
    const useSocket = socketPath.length < 100;
    const serve = async () => {
      const db = await PGlite.create({ dataDir: join(dir, 'pgdata'), extensions: EXTENSIONS, startParams: [...PGlite.defaultStartParams, ...SETTINGS] });
      if (useSocket) rmSync(socketPath, { force: true });
      const server = new PGLiteSocketServer(
        useSocket ? { db, path: socketPath, maxConnections } : { db, host: '127.0.0.1', port: 0, maxConnections },
      );
      await server.start();
      const port = useSocket ? 5432 : Number(server.getServerConn().split(':').pop());
      const close = async () => {
        await server.stop();
        await db.close();
        if (useSocket) rmSync(socketPath, { force: true });
      };
      return { close, connection: { host: useSocket ? dir : '127.0.0.1', port, user: 'postgres', database: 'postgres' } };
    };
    let served = await serve();
    return {
      get connection() {
        return served.connection;
      },
      async reopen() {
        await served.close();
        served = await serve();
        return served.connection;
      },
      async stop() {
        await served.close();
        releaseLock();
      },
    };
  } catch (error) {
    releaseLock();
    throw error;
  }
}

/**
 * The connection to the embedded database a running server in `dataDir` serves on its unix socket, or
 * undefined when no server holds the directory (or it serves on loopback TCP, a path too long for a socket).
 * Another process (the CLI) may then use the database through that server's PGlite, never beside it.
 */
export function runningServerConnection(dataDir: string): EmbeddedPostgres['connection'] | undefined {
  const dir = resolve(dataDir);
  const lock = join(dir, 'server.lock');
  if (!existsSync(lock) || !existsSync(join(dir, '.s.PGSQL.5432')) || !isAlive(readFileSync(lock, 'utf8').trim())) return undefined;
  return { host: dir, port: 5432, user: 'postgres', database: 'postgres' };
}

function acquireLock(path: string): () => void {
  const owner = `${process.pid}@${hostname()}`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, owner);
      closeSync(fd);
      // Released however the process ends: an exit forced by the shutdown bound leaves no stale lock either.
      const release = (): void => rmSync(path, { force: true });
      process.once('exit', release);
      return () => {
        process.removeListener('exit', release);
        release();
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readFileSync(path, 'utf8').trim();
      if (isAlive(holder)) {
        throw new DataDirectoryLockedError(
          `The embedded database in ${resolve(path, '..')} is in use by process ${holder} (lock file ${path}). ` +
            'Stop that process, or set DATA_DIR to another directory, or DATABASE_URL to a PostgreSQL server.',
        );
      }
      rmSync(path, { force: true });
    }
  }
  throw new DataDirectoryLockedError(`Could not take the lock file ${path}.`);
}

/** A lock is stale when its process is gone (same host) or it is unreadable. */
function isAlive(holder: string): boolean {
  const [pid, host] = holder.split('@');
  if (host !== hostname()) return true;
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
