/**
 * Live streams with several server processes on one PostgreSQL (docs/live-changes.md): writes through one
 * process reach the streams held by another, every message once and in order per resource, and a stream
 * moved to the other process with Last-Event-ID goes on without gap or repeat.
 */
import { randomBytes } from 'node:crypto';
import { draft } from '../support/fixtures.js';
import { EventStreamClient } from '../support/event-stream.js';
import { authHeader, bootstrapEnv, call, freePort, ServerProcess } from '../support/server-process.js';

const CLIENT = { projectKey: 'live-replicas', clientId: 'live-replicas-client', clientSecret: 'live-replicas-test-secret' };
const PK = CLIENT.projectKey;
const TIMEOUT_MS = 180_000;
const children: ServerProcess[] = [];
const streams: EventStreamClient[] = [];

afterAll(async () => {
  await Promise.all(streams.map((s) => s.close()));
  await Promise.all(children.map((child) => child.stop()));
}, TIMEOUT_MS);

async function start(name: string): Promise<ServerProcess> {
  const server = new ServerProcess(name, await freePort(), { ...bootstrapEnv(CLIENT), DATABASE_URL: process.env.DATABASE_URL });
  children.push(server);
  await server.waitReady();
  return server;
}

(process.env.DATABASE_URL ? describe : describe.skip)('live streams on two server processes', () => {
  it(
    'a write on one process reaches the stream held by the other, in order per resource, and resumes on either',
    async () => {
      const [a, b] = [await start('A'), await start('B')];
      const [authA, authB] = [await authHeader(a, CLIENT), await authHeader(b, CLIENT)];
      const prefix = `rep-${randomBytes(4).toString('hex')}`;
      const where = `?where=${encodeURIComponent(`resourceUserProvidedIdentifiers(key in ("${prefix}-0", "${prefix}-1", "${prefix}-2", "${prefix}-3"))`)}`;
      const onB = new EventStreamClient(`${b.base}/${PK}/messages${where}`, authB);
      streams.push(onB);
      await onB.opened();
      // Four resources, each written 10 times, alternately through A and B, the four at once.
      await Promise.all(
        [0, 1, 2, 3].map(async (i) => {
          const created = await call(a, 'POST', `/${PK}/resource`, authA, { ...draft(), key: `${prefix}-${i}` });
          expect(created.status).toBe(201);
          let version = created.body.version as number;
          for (let n = 0; n < 9; n++) {
            const [server, auth] = n % 2 === 0 ? [b, authB] : [a, authA];
            const res = await call(server, 'POST', `/${PK}/resource/${created.body.id}`, auth, { version, actions: [{ action: 'changeSomeProperty', someProperty: `v${n}` }] });
            expect(res.status).toBe(200);
            version = res.body.version;
          }
        }),
      );
      const events = await onB.waitMessages(40, 20_000);
      const bySeq = new Map<string, number[]>();
      for (const e of events) {
        const m = JSON.parse(e.data);
        bySeq.set(m.resource.id, [...(bySeq.get(m.resource.id) ?? []), m.sequenceNumber]);
      }
      expect([...bySeq.values()]).toEqual([1, 2, 3, 4].map(() => [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]));
      // The same stream, moved to A after its 25th event: the 15 others, none twice.
      const onA = new EventStreamClient(`${a.base}/${PK}/messages${where}`, { ...authA, 'Last-Event-ID': events[24].id! });
      streams.push(onA);
      const rest = await onA.waitMessages(15);
      await new Promise((r) => setTimeout(r, 500));
      expect(onA.messages()).toHaveLength(15);
      expect(rest.map((e) => e.id)).toEqual(events.slice(25).map((e) => e.id));
      expect(onB.messages()).toHaveLength(40);
    },
    TIMEOUT_MS,
  );
});
