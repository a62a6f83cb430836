/**
 * Real server processes for tests: `node dist/src/main.js` (built by `pretest`) with its own port and
 * environment, its output kept for diagnostics, stopped by SIGTERM (SIGKILL after 15 s) in `stopAll`.
 * Requests carry the bootstrap client's bearer token (BOOTSTRAP_* in `bootstrapEnv`).
 */
import { spawn, ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deadline, sleep } from './timing.js';
import { SERVER_ENV } from '../../scripts/server-env.mjs';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const MAIN = join(ROOT, 'dist', 'src', 'main.js');
export const START_TIMEOUT_MS = 90_000;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

// Also offered here, beside the server processes whose tests wait and race.
export { deadline, sleep };

/**
 * One `node dist/src/main.js` child with its own port, its output kept for diagnostics, run with the
 * allocator and V8 settings `npm start` and the container give the server (SERVER_ENV; `env` may
 * override them).
 */
export class ServerProcess {
  readonly child: ChildProcess;
  readonly base: string;
  output = '';
  exitCode: number | null | undefined = undefined;
  exitSignal: NodeJS.Signals | null = null;
  readonly exited: Promise<number | null>;

  constructor(
    readonly name: string,
    readonly port: number,
    env: Record<string, string | undefined>,
  ) {
    this.base = `http://127.0.0.1:${port}`;
    const childEnv: Record<string, string> = {};
    // The test runner's NODE_OPTIONS (Jest's --experimental-vm-modules) is not the server's business.
    const settings = { ...SERVER_ENV, ...process.env, NODE_OPTIONS: SERVER_ENV.NODE_OPTIONS, ...env, PORT: String(port), HOST: '127.0.0.1' };
    for (const [name, value] of Object.entries(settings)) {
      if (value !== undefined) childEnv[name] = value;
    }
    this.child = spawn(process.execPath, [MAIN], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer) => {
      if (this.output.length < 200_000) this.output += chunk.toString('utf8');
    };
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exitCode = code;
        this.exitSignal = signal;
        resolve(code);
      });
    });
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  describe(): string {
    return `${this.name} (port ${this.port}, exit ${String(this.exitCode)} ${String(this.exitSignal)}):\n${this.output.slice(-4000)}`;
  }

  async waitReady(timeoutMs = START_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`server exited before it was ready: ${this.describe()}`);
      try {
        const res = await fetch(`${this.base}/health/ready`, { signal: AbortSignal.timeout(2_000) });
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      await sleep(200);
    }
    throw new Error(`server not ready within ${timeoutMs} ms: ${this.describe()}`);
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const stopped = await Promise.race([this.exited.then(() => true), deadline(15_000).then(() => false)]);
    if (!stopped) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }
}

/** The bootstrap client every process of a test shares (created only when absent: a reused database keeps the first secret). */
export interface BootstrapClient {
  projectKey: string;
  clientId: string;
  clientSecret: string;
}

export function bootstrapEnv(client: BootstrapClient): Record<string, string> {
  return {
    LOG_LEVEL: 'log',
    BOOTSTRAP_PROJECT_KEY: client.projectKey,
    BOOTSTRAP_CLIENT_ID: client.clientId,
    BOOTSTRAP_CLIENT_SECRET: client.clientSecret,
    BOOTSTRAP_SCOPES: `manage_test:${client.projectKey} view_test:${client.projectKey}`,
  };
}

/** Authorization header with a bearer token from POST /oauth/token for the bootstrap client. */
export async function authHeader(server: ServerProcess, client: BootstrapClient): Promise<Record<string, string>> {
  const res = await fetch(`${server.base}/oauth/token`, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  const body = (await res.json()) as { access_token?: string };
  if (res.status !== 200 || !body.access_token) {
    throw new Error(`POST /oauth/token answered ${res.status}: ${JSON.stringify(body)}`);
  }
  return { Authorization: `Bearer ${body.access_token}` };
}

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/** One JSON request to a server process; the body is parsed when there is one. */
export async function call(
  server: ServerProcess,
  method: string,
  path: string,
  auth: Record<string, string>,
  body?: unknown,
): Promise<Answer> {
  const res = await fetch(`${server.base}${path}`, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}
