import { ClientError, GraphQLClient } from 'graphql-request';
import { parse as losslessParse, stringify as losslessStringify } from 'lossless-json';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { listenOnFreePort } from '../support/listening-app.js';
import { draft, INT64_MAX, INT64_MIN } from '../support/fixtures.js';
import { createResource, newKey, resourcePath } from '../support/resources.js';

/*
 * A real GraphQL client (graphql-request) against the server listening on a port (docs/graphql.md): queries
 * with variables, a mutation, and errors as the client surfaces them. `Long` comes back as a JSON number: with
 * the client's default `JSON.parse` a value beyond 2^53 is rounded, so a client that needs every digit gives
 * graphql-request a lossless JSON serializer, as shown here.
 */

const RESOURCE = /* GraphQL */ `
  query ($id: String) {
    resource(id: $id) { id version key objectTypeProperty { arrayOfIntExample arrayOfObjectType { integerExample } } }
  }
`;

/** Integers beyond 2^53 as `bigint`, everything else as `JSON.parse` reads it. */
const lossless = {
  parse: (text: string) =>
    losslessParse(text, null, (digits: string) => {
      const value = Number(digits);
      return Number.isSafeInteger(value) || !/^-?\d+$/.test(digits) ? value : BigInt(digits);
    }),
  stringify: (value: unknown) => losslessStringify(value) as string,
};

describe('GraphQL through graphql-request', () => {
  let t: TestApp;
  let url: string;
  let headers: Record<string, string>;

  beforeAll(async () => {
    t = await createTestApp();
    url = `${await listenOnFreePort(t)}/${t.projectKey}/graphql`;
    headers = await t.auth('manage_test');
  });
  afterAll(async () => {
    await t.close();
  });

  /** A resource whose arrays hold the ends of the 64-bit range (created over REST from raw JSON text). */
  async function withLongs(): Promise<{ id: string; key: string }> {
    const key = newKey('gqc');
    const text = JSON.stringify(draft({ key }))
      .replace('"arrayOfIntExample":[1,2,2]', `"arrayOfIntExample":[${INT64_MAX},${INT64_MIN},7]`)
      .replace('"integerExample":1', `"integerExample":${INT64_MAX}`);
    const created = await createResource(t, t.projectKey, text);
    return { id: created.id, key };
  }

  it('a query with variables: Long values come back as JSON numbers, exact with a lossless serializer', async () => {
    const { id, key } = await withLongs();
    type Answer = { resource: { id: string; version: number; key: string; objectTypeProperty: { arrayOfIntExample: Array<number | bigint>; arrayOfObjectType: Array<{ integerExample: number | bigint }> } } };

    // The default client: JSON.parse turns every Long into a `number`, which cannot hold 2^63 - 1.
    const plain = await new GraphQLClient(url, { headers }).request<Answer>(RESOURCE, { id });
    expect(plain.resource).toMatchObject({ id, version: 1, key });
    const rounded = plain.resource.objectTypeProperty.arrayOfIntExample;
    expect(rounded.map((n) => typeof n)).toEqual(['number', 'number', 'number']);
    expect(rounded[2]).toBe(7);
    expect(BigInt(rounded[0] as number)).not.toBe(BigInt(INT64_MAX));

    // With a lossless serializer every digit arrives.
    const exact = await new GraphQLClient(url, { headers, jsonSerializer: lossless }).request<Answer>(RESOURCE, { id });
    expect(exact.resource.objectTypeProperty.arrayOfIntExample).toEqual([BigInt(INT64_MAX), BigInt(INT64_MIN), 7]);
    expect(exact.resource.objectTypeProperty.arrayOfObjectType[0].integerExample).toBe(BigInt(INT64_MAX));
  });

  it('a mutation with variables writes what REST then reads, 64-bit values included', async () => {
    const client = new GraphQLClient(url, { headers, jsonSerializer: lossless });
    const key = newKey('gqm');
    const body = draft({ key }, { arrayOfUniqueIntExample: [BigInt(INT64_MIN), 0, BigInt(INT64_MAX)] });
    const created = await client.request<{ createResource: { id: string; version: number; objectTypeProperty: { arrayOfUniqueIntExample: bigint[] } } }>(
      'mutation ($draft: ResourceDraft!) { createResource(draft: $draft) { id version objectTypeProperty { arrayOfUniqueIntExample } } }',
      { draft: body },
    );
    expect(created.createResource.version).toBe(1);
    expect(created.createResource.objectTypeProperty.arrayOfUniqueIntExample).toEqual([BigInt(INT64_MIN), 0, BigInt(INT64_MAX)]);

    const updated = await client.request<{ updateResource: { version: number; someProperty: string } }>(
      'mutation ($id: String, $version: Long!, $actions: [ResourceUpdateAction!]!) { updateResource(id: $id, version: $version, actions: $actions) { version someProperty } }',
      { id: created.createResource.id, version: 1, actions: [{ changeSomeProperty: { someProperty: 'changed' } }] },
    );
    expect(updated.updateResource).toEqual({ version: 2, someProperty: 'changed' });

    const rest = await t.http.get(resourcePath(t.projectKey, created.createResource.id)).set(headers).buffer(true).parse((res, done) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk));
      res.on('end', () => done(null, text));
    });
    expect(rest.body).toContain(`"arrayOfUniqueIntExample":[${INT64_MIN},0,${INT64_MAX}]`);
    expect(rest.body).toContain('"someProperty":"changed"');
    expect(rest.body).toContain('"version":2');
  });

  it('a field error surfaces as a ClientError with the REST code and fields in extensions', async () => {
    const client = new GraphQLClient(url, { headers });
    const { id } = await withLongs();
    const stale = client.request('mutation ($id: String) { updateResource(id: $id, version: 9, actions: [{ changeSomeProperty: { someProperty: "x" } }]) { version } }', { id });
    const error = (await stale.catch((e: unknown) => e)) as ClientError;
    expect(error).toBeInstanceOf(ClientError);
    expect(error.response.status).toBe(200);
    expect(error.response.data).toEqual({ updateResource: null });
    expect(error.response.errors).toEqual([
      expect.objectContaining({ path: ['updateResource'], extensions: expect.objectContaining({ code: 'ConcurrentModification', currentVersion: 1 }) }),
    ]);

    // The errorPolicy 'all' gives data and errors side by side, as the answer holds them.
    const both = await new GraphQLClient(url, { headers, errorPolicy: 'all' }).rawRequest<{ ok: { id: string } | null; refused: unknown }>(
      'mutation ($id: String) { refused: updateResource(id: $id, version: 1, actions: [{ changeSomeProperty: { someProperty: "x" }, publish: true }]) { version } }',
      { id },
    );
    expect(both.data).toEqual({ refused: null });
    expect(both.errors![0].extensions).toMatchObject({ code: 'InvalidInput', actionIndex: 0 });
  });

  it('a request error (a document that does not validate, a token without the scope) is a ClientError with its HTTP status', async () => {
    const invalid = (await new GraphQLClient(url, { headers }).request('{ resources { colour } }').catch((e: unknown) => e)) as ClientError;
    expect(invalid).toBeInstanceOf(ClientError);
    expect(invalid.response.status).toBe(400);
    expect(invalid.response.errors![0]).toMatchObject({ message: expect.stringMatching(/Cannot query field "colour"/), extensions: { code: 'InvalidInput' } });

    const reader = new GraphQLClient(url, { headers: await t.auth('view_test') });
    const denied = (await reader.request('mutation { deleteResource(id: "00000000-0000-4000-8000-000000000000", version: 1) { id } }').catch((e: unknown) => e)) as ClientError;
    expect(denied).toBeInstanceOf(ClientError);
    expect(denied.response.status).toBe(200);
    expect(denied.response.errors![0].extensions).toMatchObject({ code: 'insufficient_scope' });
  });
});
