import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { INT64_MAX } from '../support/fixtures.js';
import { onPostgres } from '../support/test-app.js';
import { authHeader, bootstrapEnv, freePort, ROOT, ServerProcess, sleep } from '../support/server-process.js';

/**
 * Bulk export and import against a real server process (docs/bulk-and-cli.md): the export's memory stays flat
 * while a client reads 50,000 resources slowly, and the operator CLI drives both operations over HTTP.
 */

const CLIENT = { projectKey: 'bulk-srv', clientId: 'bulk-client', clientSecret: 'bulk-test-secret-0123' };
const PROJECT = CLIENT.projectKey;
const COUNT = 50_000;
const run = promisify(execFile);
const cliEnv = { ...process.env, RESOURCE_API_CLIENT_ID: CLIENT.clientId, RESOURCE_API_CLIENT_SECRET: CLIENT.clientSecret };

function cli(args: string[]) {
  return run(process.execPath, [join(ROOT, 'dist/src/cli.js'), ...args], {
    env: cliEnv,
    timeout: 300_000,
    maxBuffer: 256 * 1024 * 1024,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

/**
 * The CLI piped into a consumer that reads nothing for its first 2 s. An output a little larger than the pipe's
 * 64 KiB leaves the rest of it in the CLI's own buffer: it must not exit before the kernel has taken it.
 */
function cliIntoLatePipe(args: string[]) {
  const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;
  const lateReader = 'setTimeout(() => process.stdin.pipe(process.stdout), 2000)';
  const pipeline = `${quote(process.execPath)} ${[join(ROOT, 'dist/src/cli.js'), ...args].map(quote).join(' ')} | ${quote(process.execPath)} -e ${quote(lateReader)}`;
  return run('bash', ['-c', `set -o pipefail; ${pipeline}`], { env: cliEnv, timeout: 300_000 }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
}

/** The server's resident set, in bytes, as the kernel counts it. */
function rss(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match![1]) * 1024;
}

const draftLine = (i: number) =>
  `{"key":"r-${i}","objectTypeProperty":{"arrayOfIntExample":[${i},${INT64_MAX}],"arrayOfUniqueIntExample":[],"arrayOfTwonumbersExample":[1,2],` +
  `"arrayOfFloatExample":[0.5],"arrayOfNumberNoDefaultsExample":[],"arrayOfStringExample":["s${i}","${'x'.repeat(200)}"],` +
  `"arrayOfObjectType":[{"integerExample":${INT64_MAX},"integerExampleInt32":${i % 1000}}]}}`;

describe('bulk export and import against a server process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'resource-api-bulk-'));
  let server: ServerProcess;
  let auth: Record<string, string>;

  beforeAll(async () => {
    server = new ServerProcess('bulk', await freePort(), { ...bootstrapEnv(CLIENT), LOG_LEVEL: 'warn', ...(onPostgres ? {} : { DATA_DIR: join(dir, 'data') }) });
    await server.waitReady();
    auth = await authHeader(server, CLIENT);
    // Seeded through the import itself (the server holds the embedded database): 50,000 small resources.
    const seed = join(dir, 'seed.ndjson');
    writeFileSync(seed, Array.from({ length: COUNT }, (_, i) => draftLine(i)).join('\n') + '\n');
    const seeded = await cli(['import', '--url', server.base, '--project', PROJECT, seed]);
    if (seeded.code !== 0) throw new Error(`seeding failed: ${seeded.stderr}\n${server.describe()}`);
  }, 900_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('exports 50,000 resources to a slow reader without the server growing by 50 MB', async () => {
    const pid = server.child.pid!;
    await sleep(500);
    const before = rss(pid);
    let peak = before;
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpRequest(`${server.base}/${PROJECT}/resource/export`, { headers: auth }, resolve);
      req.on('error', reject);
      req.end();
    });
    expect(response.statusCode).toBe(200);
    let bytes = 0;
    let lines = 0;
    let tail = '';
    // Slowly: one read of at most 64 KiB every 5 ms, well below what the server could send.
    response.pause();
    const ended = new Promise<void>((resolve) => response.once('end', resolve));
    let done = false;
    void ended.then(() => (done = true));
    while (!done) {
      let chunk: Buffer | null;
      while ((chunk = response.read(65_536) as Buffer | null) !== null) {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
        tail = (tail + chunk.toString('latin1')).slice(-100);
        break;
      }
      peak = Math.max(peak, rss(pid));
      await sleep(5);
      if (chunk === null) await Promise.race([new Promise((resolve) => response.once('readable', resolve)), ended]);
    }
    expect(lines).toBe(COUNT + 1);
    expect(tail.endsWith(`{"summary":{"count":${COUNT}}}\n`)).toBe(true);
    expect(bytes).toBeGreaterThan(COUNT * 300);
    expect(peak - before).toBeLessThan(50 * 1024 * 1024);
  }, 600_000);

  it('npm run cli -- export writes the whole export to stdout, progress lines to stderr, exit 0', async () => {
    const result = await cli(['export', '--url', server.base, '--project', PROJECT, '--where', 'key in :keys', '--var', 'keys=r-1', '--var', 'keys=r-2', '--progress-interval', '0.001']);
    expect(result.code).toBe(0);
    const out = result.stdout.trimEnd().split('\n');
    expect(out).toHaveLength(3);
    expect(out[2]).toBe('{"summary":{"count":2}}');
    expect(out[0]).toContain(INT64_MAX);
    expect(result.stderr).toMatch(/export: 2 resources, \d+\/s, \d+ s elapsed/);

    const all = await cli(['export', '--url', server.base, '--project', PROJECT]);
    expect(all.code).toBe(0);
    writeFileSync(join(dir, 'export.ndjson'), all.stdout);
    expect(all.stdout.endsWith(`{"summary":{"count":${COUNT}}}\n`)).toBe(true);

    // Into a pipe read late: about 70 KB of resources, more than the pipe holds and less than the CLI buffers
    // without waiting. What the kernel had not taken when the export ended arrives all the same.
    const keys: string[] = [];
    let size = 0;
    for (const line of all.stdout.split('\n')) {
      if (size > 70_000) break;
      size += line.length + 1;
      keys.push((JSON.parse(line) as { key: string }).key);
    }
    const piped = await cliIntoLatePipe(['export', '--url', server.base, '--project', PROJECT, '--where', 'key in :keys', ...keys.flatMap((key) => ['--var', `keys=${key}`])]);
    expect(piped.code).toBe(0);
    expect(piped.stdout.length).toBeGreaterThan(70_000);
    expect(piped.stdout.endsWith(`{"summary":{"count":${keys.length}}}\n`)).toBe(true);
  }, 300_000);

  it('npm run cli -- import of an export: every line unchanged, exit 0; a failing line makes exit 1', async () => {
    const again = await cli(['import', '--url', server.base, '--project', PROJECT, join(dir, 'export.ndjson')]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`{"summary":{"lines":${COUNT},"created":0,"updated":0,"unchanged":${COUNT},"failed":0}}`);

    const bad = join(dir, 'bad.ndjson');
    writeFileSync(bad, `${draftLine(COUNT + 1)}\nnot json\n${draftLine(COUNT + 2)}\n`);
    const failed = await cli(['import', '--url', server.base, '--project', PROJECT, bad]);
    expect(failed.code).toBe(1);
    const results = failed.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(results.map((r) => r.status ?? 'summary')).toEqual([201, 400, 201, 'summary']);
    expect(failed.stderr).toContain('"failed":1');
  }, 300_000);

  it('--help for each command; missing options are exit 2', async () => {
    for (const command of ['export', 'import']) {
      const help = await cli([command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stderr).toContain(`npm run cli -- ${command} --url <base> --project <key>`);
    }
    const missing = await cli(['import', '--url', server.base, join(dir, 'bad.ndjson')]);
    expect(missing.code).toBe(2);
  });
});
