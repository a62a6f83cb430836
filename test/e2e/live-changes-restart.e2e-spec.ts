/**
 * Live streams across server processes (docs/live-changes.md), with real `node dist/src/main.js` processes on
 * the run's database (PostgreSQL when DATABASE_URL is set, else one embedded DATA_DIR the processes take in
 * turn): a stream resumed with Last-Event-ID after its server was killed (SIGKILL) and another started gets
 * every message written meanwhile, none twice; a SIGTERM closes open streams and the process exits 0;
 * the `access_token` of a stream appears in no log line and no metric.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { draft } from '../support/fixtures.js';
import { EventStreamClient } from '../support/event-stream.js';
import { authHeader, bootstrapEnv, call, freePort, ServerProcess } from '../support/server-process.js';

const CLIENT = { projectKey: 'live-restart', clientId: 'live-restart-client', clientSecret: 'live-restart-test-secret' };
const PK = CLIENT.projectKey;
const TIMEOUT_MS = 180_000;
const METRICS_TOKEN = `metrics-${randomBytes(16).toString('hex')}`;

const workDir = mkdtempSync(join(tmpdir(), 'live-restart-'));
const databaseUrl = process.env.DATABASE_URL;
const children: ServerProcess[] = [];
const streams: EventStreamClient[] = [];

afterAll(async () => {
  await Promise.all(streams.map((s) => s.close()));
  await Promise.all(children.map((child) => child.stop()));
  rmSync(workDir, { recursive: true, force: true });
}, TIMEOUT_MS);

async function start(name: string): Promise<{ server: ServerProcess; auth: Record<string, string> }> {
  const server = new ServerProcess(name, await freePort(), {
    ...bootstrapEnv(CLIENT),
    LOG_LEVEL: 'debug',
    METRICS_TOKEN,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATABASE_URL: undefined, DATA_DIR: join(workDir, 'data') }),
  });
  children.push(server);
  await server.waitReady();
  return { server, auth: await authHeader(server, CLIENT) };
}

function open(server: ServerProcess, query: string, headers: Record<string, string> = {}): EventStreamClient {
  const stream = new EventStreamClient(`${server.base}/${PK}/messages${query}`, headers);
  streams.push(stream);
  return stream;
}

describe('live streams across server restarts', () => {
  it(
    'resumes after Last-Event-ID on a new process, after the first was killed, without gap or repeat',
    async () => {
      const key = `restart-${randomBytes(4).toString('hex')}`;
      const where = `?where=${encodeURIComponent(`resourceUserProvidedIdentifiers(key = "${key}")`)}`;
      const first = await start('first');
      const stream = await open(first.server, where, first.auth).opened();
      expect(stream.status).toBe(200);
      const created = await call(first.server, 'POST', `/${PK}/resource`, first.auth, { ...draft(), key });
      expect(created.status).toBe(201);
      const [seen] = await stream.waitMessages(1);
      first.server.child.kill('SIGKILL');
      await first.server.exited;
      await stream.until(() => stream.ended, 10_000, 'the stream to break');

      const second = await start('second');
      let version = created.body.version as number;
      for (const value of ['a', 'b']) {
        const res = await call(second.server, 'POST', `/${PK}/resource/${created.body.id}`, second.auth, { version, actions: [{ action: 'changeSomeProperty', someProperty: value }] });
        expect(res.status).toBe(200);
        version = res.body.version;
      }
      const resumed = await open(second.server, where, { ...second.auth, 'Last-Event-ID': seen.id! }).opened();
      await resumed.waitMessages(2);
      const res = await call(second.server, 'POST', `/${PK}/resource/${created.body.id}`, second.auth, { version, actions: [{ action: 'changeSomeProperty', someProperty: 'c' }] });
      expect(res.status).toBe(200);
      const events = await resumed.waitMessages(3);
      await new Promise((r) => setTimeout(r, 500));
      expect(resumed.messages().map((e) => JSON.parse(e.data).sequenceNumber)).toEqual([2, 3, 4]);
      expect(events.map((e) => JSON.parse(e.data).someProperty)).toEqual(['a', 'b', 'c']);

      // The access_token of a stream: in no log line, no metric.
      const token = second.auth.Authorization.slice('Bearer '.length);
      const byQuery = await open(second.server, `?access_token=${token}&lastEventId=${seen.id}`).opened();
      expect(byQuery.status).toBe(200);
      await byQuery.waitMessages(3);
      const refused = await fetch(`${second.server.base}/${PK}/messages?access_token=${token}x`, { headers: { Accept: 'text/event-stream' } });
      expect(refused.status).toBe(401);
      const metrics = await fetch(`${second.server.base}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
      const text = await metrics.text();
      expect(text).toMatch(/^live_streams_open 2$/m);
      expect(text).not.toContain(token.slice(-40));

      // SIGTERM: the open streams end, the process exits 0 at once.
      const stopped = Date.now();
      second.server.child.kill('SIGTERM');
      expect(await second.server.exited).toBe(0);
      expect(Date.now() - stopped).toBeLessThan(5_000);
      await byQuery.until(() => byQuery.ended && resumed.ended, 5_000, 'the streams to end');
      const output = first.server.output + second.server.output;
      expect(output).toContain('request completed');
      expect(output).not.toContain(token.slice(-40));
      expect(output).not.toContain('access_token=');
    },
    TIMEOUT_MS,
  );
});
