import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestApp, onPostgres, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { listenOnFreePort } from '../support/listening-app.js';
import { draft } from '../support/fixtures.js';

const run = promisify(execFile);

/** The operator CLI, run as operators run it: the built `dist/src/cli.js` in its own process. */
function cli(args: string[], env: Record<string, string>) {
  return run(process.execPath, ['dist/src/cli.js', ...args], { env: { ...process.env, ...env }, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

describe('npm run cli -- client create', () => {
  const projectKey = uniqueProjectKey('cli');
  const dataDir = mkdtempSync(join(tmpdir(), 'resource-api-cli-'));
  const env: Record<string, string> = onPostgres ? {} : { DATA_DIR: dataDir };
  let t: TestApp | undefined;

  afterAll(async () => {
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates a client whose credentials obtain a token, printing only JSON on stdout', async () => {
    const result = await cli(['client', 'create', '--project', projectKey, '--name', 'ops', '--scope', `manage_my_profile_test:${projectKey} view_test:${projectKey}`, '--customer-id', 'cust-7'], env);
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout);
    expect(created).toEqual({ id: expect.any(String), secret: expect.any(String), projectKey, scope: `manage_my_profile_test:${projectKey} view_test:${projectKey}` });

    t = await createTestApp(env);
    const token = await t.http.post('/oauth/token').auth(created.id, created.secret).type('form').send({ grant_type: 'client_credentials' });
    expect(token.status).toBe(200);
    expect(token.body.scope.split(' ')).toEqual(expect.arrayContaining([`manage_my_profile_test:${projectKey}`, 'customer_id_test:cust-7']));
  });

  it('refuses a customer-bound client with manage_test (exit code 1): it would skip the customer restriction', async () => {
    const result = await cli(['client', 'create', '--project', projectKey, '--name', 'ops', '--scope', `manage_test:${projectKey}`, '--customer-id', 'cust-7'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('customer-bound');
    expect(result.stdout).toBe('');
  });

  it('refuses a customer-bound client with manage_api_clients (exit code 1)', async () => {
    const refused = await cli(['client', 'create', '--project', projectKey, '--name', 'ops', '--scope', `manage_api_clients:${projectKey}`, '--customer-id', 'cust-7'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`customer-bound client (customerId) may not hold 'manage_api_clients:${projectKey}'`);
    expect(refused.stdout).toBe('');
  });

  it('rejects invalid input with a message and exit code 1', async () => {
    const result = await cli(['client', 'create', '--project', projectKey, '--name', 'ops', '--scope', 'manage_test:another-project'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('names another project');
    expect(result.stdout).toBe('');
  });

  it('prints usage and exits 2 without the required options', async () => {
    const result = await cli(['client', 'create', '--project', projectKey], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage:');
  });

  it('works while a server runs on the same database: on an embedded data directory, through that server', async () => {
    // The app started in the first test runs in this process and holds the embedded directory's lock.
    const result = await cli(['client', 'create', '--project', projectKey, '--name', 'ops2', '--scope', `manage_test:${projectKey}`], env);
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout);
    expect(created.projectKey).toBe(projectKey);
    // The running server knows the new client at once: its credentials obtain a token there.
    const token = await t!.http.post('/oauth/token').auth(created.id, created.secret).type('form').send({ grant_type: 'client_credentials' });
    expect(token.status).toBe(200);
    expect(token.body.scope).toBe(`manage_test:${projectKey}`);
  });

  it('the bulk round trip between two projects, as documented: a client for each, created while the server runs', async () => {
    const source = uniqueProjectKey('src');
    const target = uniqueProjectKey('dst');
    const client = async (project: string, scope: string) => {
      const result = await cli(['client', 'create', '--project', project, '--name', `copy-${project}`, '--scope', `${scope}:${project}`], env);
      expect(result.code).toBe(0);
      return JSON.parse(result.stdout) as { id: string; secret: string };
    };
    const reader = await client(source, 'manage_test');
    const writer = await client(target, 'manage_test');
    const url = await listenOnFreePort(t!);
    const token = (await t!.http.post('/oauth/token').auth(reader.id, reader.secret).type('form').send({ grant_type: 'client_credentials' })).body.access_token;
    for (const key of ['key-a', 'key-b', 'key-c']) {
      const created = await t!.http.post(`/${source}/resource`).set('Authorization', `Bearer ${token}`).send(draft({ key }));
      expect(created.status).toBe(201);
    }
    const credentials = (c: { id: string; secret: string }) => ['--client-id', c.id, '--client-secret', c.secret];
    const exported = await cli(['export', '--url', url, '--project', source, ...credentials(reader)], {});
    // The export's stderr is part of the failure when it fails.
    expect({ code: exported.code, stderr: exported.code === 0 ? '' : exported.stderr }).toEqual({ code: 0, stderr: '' });
    const file = join(dataDir, 'round-trip.ndjson');
    writeFileSync(file, exported.stdout);
    const imported = await cli(['import', '--url', url, '--project', target, ...credentials(writer), file], {});
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout.trimEnd().split('\n').at(-1)!)).toEqual({ summary: { lines: 3, created: 3, updated: 0, unchanged: 0, failed: 0 } });
    const copy = await cli(['export', '--url', url, '--project', target, ...credentials(writer)], {});
    const keys = copy.stdout.trimEnd().split('\n').map((line) => JSON.parse(line)).filter((line) => line.key).map((line) => line.key);
    expect(keys.sort()).toEqual(['key-a', 'key-b', 'key-c']);
    // A secret that begins with "-" is the option's value, not an option: it reaches the server (and is wrong).
    const dashed = await cli(['export', '--url', url, '--project', target, '--client-id', writer.id, '--client-secret', `-${writer.secret}`], {});
    expect({ code: dashed.code, stderr: dashed.stderr }).toEqual({ code: 1, stderr: expect.stringContaining('No token for this client: 401') });
  });

  it('refuses an embedded data directory another process holds without serving it (a lock but no socket)', async () => {
    const held = mkdtempSync(join(tmpdir(), 'resource-api-cli-held-'));
    try {
      // The lock of a live process (this one) that serves no socket there.
      writeFileSync(join(held, 'server.lock'), `${process.pid}@${hostname()}`);
      const result = await cli(['client', 'create', '--project', projectKey, '--name', 'ops3', '--scope', `manage_test:${projectKey}`], { DATA_DIR: held, DATABASE_URL: '' });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/in use by process/);
    } finally {
      rmSync(held, { recursive: true, force: true });
    }
  });
});
