import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ROOT } from '../support/server-process.js';
import { until } from '../support/timing.js';

/*
 * `npm start` as a new user runs it, on the embedded database: what it prints at the default level, and
 * that stopping npm's own process (kill -TERM <npm's pid>, as a process manager does) stops the server
 * gracefully: the port is free and the data directory's lock is gone.
 */

const METRICS_TOKEN = 'npm-start-metrics-token-0123456789';

/** The server's memory outside V8's heap (`nodejs_external_memory_bytes`): the embedded database's WebAssembly memory, mostly. */
async function externalMemoryMb(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  return Number(/^nodejs_external_memory_bytes (\S+)$/m.exec(text)?.[1]) / 1_048_576;
}

interface Started {
  npm: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

async function npmStart(dataDir: string, port: number): Promise<Started> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), METRICS_TOKEN };
  // The embedded database, whatever database the suite runs on; the default log level.
  delete env.DATABASE_URL;
  delete env.LOG_LEVEL;
  delete env.NODE_OPTIONS;
  const npm = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  npm.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  npm.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  await until('npm start: "listening on"', () => output.includes('listening on'), 60_000);
  return { npm, output: () => output, exited };
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

describe('npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'npm-start-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints about ten lines, the demo credentials and a ready-to-paste token command among them; SIGTERM to npm stops the server', async () => {
    const port = await freePort();
    const started = await npmStart(dataDir, port);
    try {
      const lines = started.output().trimEnd().split('\n');
      expect(lines.length).toBeLessThanOrEqual(12);
      expect(started.output()).toMatch(/client_id: [0-9a-f]+ {2}client_secret: \S+/);
      expect(started.output()).toMatch(new RegExp(`Get a token: curl -s -u '[0-9a-f]+:\\S+' -d grant_type=client_credentials http://localhost:${port}/oauth/token`));
      expect(started.output()).not.toMatch(/Mapped \{|dependencies initialized/);
      expect(await portAnswers(port)).toBe(true);
      expect(existsSync(join(dataDir, 'server.lock'))).toBe(true);
      // A new data directory is opened again once created: its creation's 600 MB do not stay (about 140 MB).
      expect(await externalMemoryMb(port)).toBeLessThan(300);
    } finally {
      started.npm.kill('SIGTERM');
    }
    expect(await started.exited).toBe(0);
    expect(started.output()).toMatch(/SIGTERM received/);
    expect(started.output()).toMatch(/"msg":"closed"/);
    expect(await portAnswers(port)).toBe(false);
    expect(existsSync(join(dataDir, 'server.lock'))).toBe(false);
  });

  it('a restart with nothing changed compiles nothing and prints no credentials again', async () => {
    const port = await freePort();
    const started = await npmStart(dataDir, port);
    started.npm.kill('SIGTERM');
    expect(await started.exited).toBe(0);
    expect(started.output()).not.toMatch(/compiled src\//);
    expect(started.output()).not.toMatch(/client_secret/);
    expect(existsSync(join(dataDir, 'server.lock'))).toBe(false);
  });
});
