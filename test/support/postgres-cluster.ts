/**
 * PostgreSQL 15 clusters of a test's own: `initdb` in a temporary directory, a free loopback port, stopped
 * and removed by `destroy()`; a streaming replica of one made with `pg_basebackup -R`. The machine's
 * shared server is never touched. initdb and pg_ctl refuse to run as root, so as root (CI) every server
 * program runs as the `postgres` user, which then owns the directory.
 *
 * The binaries are Debian's (`postgresql-15`, `postgresql-client-15`; `bash scripts/test-prerequisites.sh`
 * installs them with DATABASE_URL set): when one is missing the test fails saying which, never skips.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './server-process.js';

export const PG_BIN = '/usr/lib/postgresql/15/bin';
const run = promisify(execFile);

/** Fails with what to install when a server program this test needs is absent. */
export function assertPostgresBinaries(programs: string[]): void {
  const missing = programs.map((p) => join(PG_BIN, p)).filter((path) => !existsSync(path));
  if (missing.length > 0) {
    throw new Error(
      `PostgreSQL 15 programs missing: ${missing.join(', ')}. This test runs PostgreSQL servers of its own: ` +
        'install postgresql-15 and postgresql-client-15 (as root: bash scripts/test-prerequisites.sh with DATABASE_URL set does).',
    );
  }
}

export class PostgresCluster {
  readonly dir: string;
  readonly data: string;
  port = 0;
  private initialised = false;

  /** `settings`: `-c name=value` server settings of every start. */
  constructor(
    prefix: string,
    private readonly settings: string[] = [],
  ) {
    this.dir = mkdtempSync(join(tmpdir(), prefix));
    this.data = join(this.dir, 'data');
  }

  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** A new cluster, started. */
  async create(): Promise<void> {
    assertPostgresBinaries(['initdb', 'pg_ctl', 'postgres']);
    this.ownDirectory();
    this.port = await freePort();
    // --no-sync only spares initdb's own final sync; the running server keeps its settings (fsync on by default).
    await this.pg('initdb', ['-D', this.data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    this.initialised = true;
    await this.start();
  }

  /**
   * A streaming replica of `primary` (hot standby), started: `pg_basebackup -R` copies the primary and writes
   * `standby.signal` and `primary_conninfo`. initdb's pg_hba.conf already lets replication connect over loopback.
   */
  async createStandbyOf(primary: PostgresCluster): Promise<void> {
    assertPostgresBinaries(['pg_basebackup', 'pg_ctl', 'postgres']);
    this.ownDirectory();
    this.port = await freePort();
    await this.pg('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', this.data, '-R', '-X', 'stream', '--checkpoint=fast', '--no-sync']);
    this.initialised = true;
    await this.start();
  }

  /** Returns once the server accepts connections (`-w`; a standby once it is consistent). */
  async start(): Promise<void> {
    const options = [`-p ${this.port}`, `-k ${this.dir}`, '-c listen_addresses=127.0.0.1', ...this.settings.map((s) => `-c ${s}`)].join(' ');
    await this.pg('pg_ctl', ['start', '-w', '-t', '60', '-D', this.data, '-l', join(this.dir, 'server.log'), '-o', options]);
  }

  async stop(mode: 'fast' | 'immediate'): Promise<void> {
    await this.pg('pg_ctl', ['stop', '-w', '-t', '60', '-D', this.data, '-m', mode]);
  }

  async destroy(): Promise<void> {
    if (this.initialised && existsSync(join(this.data, 'postmaster.pid'))) await this.stop('immediate').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** One statement on a connection of its own. */
  async sql<R extends pg.QueryResultRow = Record<string, unknown>>(text: string, values: unknown[] = [], database = 'postgres'): Promise<R[]> {
    const client = new pg.Client({ connectionString: this.url(database) });
    await client.connect();
    try {
      return (await client.query<R>(text, values)).rows;
    } finally {
      await client.end();
    }
  }

  private ownDirectory(): void {
    if (process.getuid?.() !== 0) return;
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    chownSync(this.dir, uid, gid);
  }

  private async pg(command: string, args: string[]): Promise<void> {
    const binary = join(PG_BIN, command);
    const [file, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args];
    try {
      await run(file, argv, { cwd: this.dir, timeout: 90_000 });
    } catch (error) {
      const e = error as { stderr?: string; message?: string };
      throw new Error(`${command} failed: ${e.stderr || e.message}`);
    }
  }
}
