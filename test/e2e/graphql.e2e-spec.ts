import type { Response } from 'supertest';
import { createTestApp, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { draft, INT64_MAX, INT64_MIN } from '../support/fixtures.js';
import { createResource, newKey, resourcePath } from '../support/resources.js';
import { expectErrorEnvelope } from '../support/expect-error.js';
import { Database } from '../../src/database/database.js';

/*
 * Black-box tests of POST/GET /{projectKey}/graphql (docs/graphql.md): every query field and mutation, scopes per
 * field, errors with the REST codes, the limits, 64-bit values, and the same answers as REST.
 */

const gqlPath = (pk: string) => `/${pk}/graphql`;

interface GraphqlBody {
  data?: Record<string, any> | null;
  errors?: Array<{ message: string; path?: string[]; extensions: Record<string, unknown> }>;
}

const RESOURCE_FIELDS = `id key version createdAt lastModifiedAt createdBy { clientId customerId } lastModifiedBy { clientId customerId } published
  objectTypeProperty { arrayOfIntExample arrayOfUniqueIntExample arrayOfTwonumbersExample arrayOfFloatExample arrayOfNumberNoDefaultsExample
    arrayOfStringExample arrayOfObjectType { integerExample integerExampleInt32 } }
  someProperty secondPropertyToUpdate images { id url filename contentType width height size variant staged createdAt }`;

/** A REST resource as GraphQL shows it: absent optional members are null. */
function asGraphql(resource: Record<string, any>): Record<string, unknown> {
  const modifier = (m: { clientId: string; customerId?: string }) => ({ clientId: m.clientId, customerId: m.customerId ?? null });
  return {
    ...resource,
    key: resource.key ?? null,
    someProperty: resource.someProperty ?? null,
    secondPropertyToUpdate: resource.secondPropertyToUpdate ?? null,
    createdBy: modifier(resource.createdBy),
    lastModifiedBy: modifier(resource.lastModifiedBy),
  };
}

describe('POST /{projectKey}/graphql', () => {
  let t: TestApp;
  let pk: string;

  beforeAll(async () => {
    t = await createTestApp();
    pk = t.projectKey;
  });
  afterAll(async () => {
    await t.close();
  });

  async function gql(query: string, variables?: Record<string, unknown>, scopes = 'manage_test', project = pk): Promise<Response & { body: GraphqlBody }> {
    return t.http.post(gqlPath(project)).set(await t.auth(scopes, { projectKey: project })).send({ query, variables });
  }

  /** Sends `text` as the raw JSON body (64-bit integers stay exact). */
  async function gqlRaw(text: string, scopes = 'manage_test'): Promise<Response & { body: GraphqlBody }> {
    return t.http.post(gqlPath(pk)).set(await t.auth(scopes, { projectKey: pk })).set('Content-Type', 'application/json').send(text);
  }

  describe('queries', () => {
    it('resource by id and by key answers every field as GET by id does', async () => {
      const created = await createResource(t, pk, draft({ key: newKey('gq') }));
      const rest = (await t.http.get(resourcePath(pk, created.id)).set(await t.auth('view_test'))).body;
      const byId = await gql(`query ($id: String) { resource(id: $id) { ${RESOURCE_FIELDS} } }`, { id: created.id }, 'view_test');
      expect(byId.status).toBe(200);
      expect(byId.body).toEqual({ data: { resource: asGraphql(rest) } });
      const byKey = await gql(`{ resource(key: "${created.key}") { id version } }`, undefined, 'view_test');
      expect(byKey.body).toEqual({ data: { resource: { id: created.id, version: 1 } } });
    });

    it('a resource that does not exist is null; a malformed id too', async () => {
      const res = await gql('{ a: resource(id: "00000000-0000-4000-8000-000000000000") { id } b: resource(id: "nope") { id } c: resource(key: "no-such-key") { id } }');
      expect(res.body).toEqual({ data: { a: null, b: null, c: null } });
    });

    it('resource with both id and key, or neither, is InvalidInput', async () => {
      const res = await gql('{ resource { id } }');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ resource: null });
      expect(res.body.errors![0].extensions.code).toBe('InvalidInput');
      expect(res.body.errors![0].path).toEqual(['resource']);
    });

    it('resources pages with where and sort as the REST query does', async () => {
      const own = uniqueProjectKey('gq');
      const made = [];
      for (const n of [3, 1, 2]) made.push(await createResource(t, own, draft({ key: `sorted-${n}` }, { arrayOfIntExample: [n] })));
      const rest = await t.http.get(`/${own}/resource/sorted-query-parameters`).query({ where: 'key in ("sorted-1", "sorted-3")', sort: 'key desc', limit: '1', offset: '0' }).set(await t.auth('view_test', { projectKey: own }));
      const res = await gql(`{ resources(where: "key in (\\"sorted-1\\", \\"sorted-3\\")", sort: ["key desc"], limit: 1, offset: 0) { limit offset count total results { ${RESOURCE_FIELDS} } } }`, undefined, 'view_test', own);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data!.resources).toEqual({ ...rest.body, results: rest.body.results.map(asGraphql) });
      expect(res.body.data!.resources.results[0].key).toBe('sorted-3');
      const noTotal = await gql('{ resources(withTotal: false) { total count } }', undefined, 'view_test', own);
      expect(noTotal.body.data!.resources).toEqual({ total: null, count: 3 });
      expect(made).toHaveLength(3);
    });

    it('a malformed where, sort or limit carries the REST error in extensions', async () => {
      const res = await gql('{ a: resources(where: "colour = \\"red\\"") { count } }', undefined, 'view_test');
      expect(res.status).toBe(200);
      expect(res.body.errors![0].extensions.code).toBe('InvalidInput');
      expect(res.body.errors![0].message).toMatch(/^Malformed parameter: where: .*\(line 1, column \d+\)/);
      const sort = await gql('{ resources(sort: ["key"]) { count } }', undefined, 'view_test');
      expect(sort.body.errors![0].extensions).toMatchObject({ code: 'InvalidField', field: 'sort' });
      const limit = await gql('{ resources(limit: 501) { count } }', undefined, 'view_test');
      expect(limit.body.errors![0].extensions).toMatchObject({ code: 'InvalidField', field: 'limit' });
    });

    describe('where variables (REST: var.<name>)', () => {
      let own: string;
      const restQuery = async (path: string, params: Array<[string, string]>, scope = 'view_test') =>
        t.http.get(`/${own}${path}?${params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`).set(await t.auth(scope, { projectKey: own }));
      const keysOf = (page: { results: Array<{ key: string }> }) => page.results.map((r) => r.key);

      beforeAll(async () => {
        own = uniqueProjectKey('gqv');
        for (const n of [1, 2, 3]) await createResource(t, own, JSON.stringify(draft({ key: `var-${n}` })).replace('"arrayOfIntExample":[1,2,2]', `"arrayOfIntExample":[${n === 2 ? INT64_MAX : n}]`));
      });

      it('bind :name in where as var.<name> does: one value, a list, a Long with every digit, and through GraphQL variables', async () => {
        const list = await gql('{ resources(where: "key in :ks and version >= :v", variables: [{name: "ks", values: ["var-1", "var-3"]}, {name: "v", values: ["1"]}], sort: ["key asc"]) { results { key } } }', undefined, 'view_test', own);
        const rest = await restQuery('/resource/sorted-query-parameters', [['where', 'key in :ks and version >= :v'], ['var.ks', 'var-1'], ['var.ks', 'var-3'], ['var.v', '1'], ['sort', 'key asc']]);
        expect(list.body.errors).toBeUndefined();
        expect(keysOf(list.body.data!.resources)).toEqual(['var-1', 'var-3']);
        expect(keysOf(list.body.data!.resources)).toEqual(keysOf(rest.body));
        const long = await gql('query ($vars: [WhereVariable!]) { resources(where: "objectTypeProperty(arrayOfIntExample = :n)", variables: $vars) { results { key } } }', { vars: [{ name: 'n', values: [INT64_MAX] }] }, 'view_test', own);
        expect(keysOf(long.body.data!.resources)).toEqual(['var-2']);
        const nearly = await gql(`{ resources(where: "objectTypeProperty(arrayOfIntExample = :n)", variables: [{name: "n", values: ["9223372036854775806"]}]) { count } }`, undefined, 'view_test', own);
        expect(nearly.body.data!.resources.count).toBe(0);
        // A name given twice adds its values, as a repeated var.<name> does; unused variables are ignored.
        const twice = await gql('{ resources(where: "key in :ks", variables: [{name: "ks", values: ["var-1"]}, {name: "ks", values: ["var-2"]}, {name: "unused", values: []}], sort: ["key asc"]) { results { key } } }', undefined, 'view_test', own);
        expect(keysOf(twice.body.data!.resources)).toEqual(['var-1', 'var-2']);
      });

      it('messages take them too', async () => {
        const res = await gql('{ messages(where: "type in :t and resourceUserProvidedIdentifiers(key = :k)", variables: [{name: "t", values: ["ResourceCreated", "ResourceDeleted"]}, {name: "k", values: ["var-3"]}]) { results { type resourceVersion } } }', undefined, 'view_messages', own);
        expect(res.body.errors).toBeUndefined();
        expect(res.body.data!.messages.results).toEqual([{ type: 'ResourceCreated', resourceVersion: 1 }]);
      });

      it('an unbound variable, a list where one value is expected and a value of the wrong type are REST\'s errors, message for message', async () => {
        const cases: Array<[string, Array<{ name: string; values: string[] }>, Array<[string, string]>]> = [
          ['key = "var-1" or key = :missing', [], []],
          ['key = :k', [{ name: 'k', values: ['a', 'b'] }], [['var.k', 'a'], ['var.k', 'b']]],
          ['version = :v', [{ name: 'v', values: ['1.5'] }], [['var.v', '1.5']]],
          ['key = :k', [{ name: 'k', values: [] }], []],
          ['key in :ks', [{ name: 'ks', values: Array.from({ length: 501 }, (_, i) => `k${i}`) }], Array.from({ length: 501 }, (_, i): [string, string] => ['var.ks', `k${i}`])],
        ];
        for (const [where, variables, params] of cases) {
          const res = await gql('query ($w: String, $vars: [WhereVariable!]) { resources(where: $w, variables: $vars) { count } }', { w: where, vars: variables }, 'view_test', own);
          const rest = await restQuery('/resource/sorted-query-parameters', [['where', where], ...params]);
          expectErrorEnvelope(rest, 400, 'InvalidInput');
          expect(res.status).toBe(200);
          expect(res.body.data).toBeNull();
          expect(res.body.errors).toEqual([expect.objectContaining({ message: rest.body.message, path: ['resources'], extensions: { code: 'InvalidInput' } })]);
        }
      });

      it('a name other than letters and digits is InvalidField naming it; a value that is not a string is a 400', async () => {
        const res = await gql('{ resources(where: "key = :k", variables: [{name: "k", values: ["a"]}, {name: "a-b", values: ["x"]}]) { count } }', undefined, 'view_test', own);
        expect(res.body.errors).toEqual([expect.objectContaining({ path: ['resources'], extensions: { code: 'InvalidField', field: 'variables[1].name', invalidValue: 'a-b' } })]);
        const messages = await gql('{ messages(variables: [{name: "", values: ["x"]}]) { count } }', undefined, 'view_messages', own);
        expect(messages.body.errors![0].extensions).toEqual({ code: 'InvalidField', field: 'variables[0].name', invalidValue: '' });
        const number = await gql('{ resources(where: "version = :v", variables: [{name: "v", values: [1]}]) { count } }', undefined, 'view_test', own);
        expect(number.status).toBe(400);
        const noValues = await gql('query ($vars: [WhereVariable!]) { resources(variables: $vars) { count } }', { vars: [{ name: 'v' }] }, 'view_test', own);
        expect(noValues.status).toBe(400);
      });
    });

    it('a read answers what graphql-js\'s executor answers: aliases, fragments, __typename, nested pages, nulls and 64-bit values', async () => {
      const own = uniqueProjectKey('gqp');
      const key = newKey('plan');
      await createResource(t, own, JSON.stringify(draft({ key })).replace('"integerExample":1', `"integerExample":${INT64_MIN}`));
      await createResource(t, own, draft());
      const document = (directive: string) => `query ($l: Int) {
        __typename
        page: resources(limit: $l, sort: ["createdAt asc"]) ${directive} { ...Page total }
        again: resources(limit: 1) { count results { id __typename } }
        one: resource(key: "${key}") { ... on Resource { key version } objectTypeProperty { arrayOfObjectType { integerExample } } }
        none: resource(key: "no-such-key") { id }
      }
      fragment Page on ResourceQueryResult { count results { __typename ${RESOURCE_FIELDS} latest: versions(limit: 1) { results { version types } } versions { total } } }`;
      // A directive is answered by graphql-js's executor alone: the two answers must be the same text.
      const planned = await gql(document(''), { l: 5 }, 'view_test', own);
      const executed = await gql(document('@include(if: true)'), { l: 5 }, 'view_test', own);
      expect(planned.status).toBe(200);
      expect(planned.body.errors).toBeUndefined();
      expect(planned.body.data!.page.count).toBe(2);
      expect(planned.text).toContain(`"integerExample":${INT64_MIN}`);
      expect(planned.text).toBe(executed.text);
      // A field's error (here a missing scope) is answered as graphql-js answers it, with its path.
      const refused = await gql(document(''), { l: 5 }, 'view_messages', own);
      expect(refused.body.errors![0]).toMatchObject({ path: ['page'], extensions: { code: 'insufficient_scope' } });
      expect(refused.text).toBe((await gql(document('@include(if: true)'), { l: 5 }, 'view_messages', own)).text);
    });

    it('64-bit integers are exact in answers and in variables', async () => {
      const key = newKey('long');
      const text = JSON.stringify(draft({ key })).replace('"arrayOfIntExample":[1,2,2]', `"arrayOfIntExample":[${INT64_MAX},${INT64_MIN}]`)
        .replace('"integerExample":1', `"integerExample":${INT64_MAX}`);
      await createResource(t, pk, text);
      const res = await gqlRaw(JSON.stringify({ query: `{ resource(key: "${key}") { objectTypeProperty { arrayOfIntExample arrayOfObjectType { integerExample } } } }` }), 'view_test');
      expect(res.text).toContain(`"arrayOfIntExample":[${INT64_MAX},${INT64_MIN}]`);
      expect(res.text).toContain(`"integerExample":${INT64_MAX}`);
      // A Long through variables: a mutation's draft with the full range.
      const created = await gqlRaw(
        `{"query":"mutation ($d: ResourceDraft!) { createResource(draft: $d) { objectTypeProperty { arrayOfUniqueIntExample } } }","variables":{"d":${JSON.stringify(draft()).replace('"arrayOfUniqueIntExample":[1,2,3]', `"arrayOfUniqueIntExample":[${INT64_MIN},${INT64_MAX}]`)}}}`,
      );
      expect(created.text).toContain(`"arrayOfUniqueIntExample":[${INT64_MIN},${INT64_MAX}]`);
      // A literal Long past 64 bits is a validation error (400).
      const past = await gql('mutation { deleteResource(key: "x", version: 9223372036854775808) { id } }');
      expect(past.status).toBe(400);
    });

    it('whole numbers past 2^53 in number arrays come back with every digit (a Number, not a Float)', async () => {
      const key = newKey('number');
      const text = JSON.stringify(draft({ key })).replace(/"arrayOfFloatExample":\[[^\]]*\]/, `"arrayOfFloatExample":[9007199254740993,${INT64_MAX}0,1.5]`);
      await createResource(t, pk, text);
      const res = await gqlRaw(JSON.stringify({ query: `{ resource(key: "${key}") { objectTypeProperty { arrayOfFloatExample } } }` }), 'view_test');
      expect(res.status).toBe(200);
      expect(res.text).toContain(`"arrayOfFloatExample":[9007199254740993,${INT64_MAX}0,1.5]`);
      expect(res.body.errors).toBeUndefined();
    });

    it('versions on Resource and resourceVersions answer the version history', async () => {
      const created = await createResource(t, pk, draft({ key: newKey('ver') }));
      await t.http.post(resourcePath(pk, created.id)).set(await t.auth('manage_test')).send({ version: 1, actions: [{ action: 'changeSomeProperty', someProperty: 'x' }] }).expect(200);
      const rest = (await t.http.get(`${resourcePath(pk, created.id)}/versions`).set(await t.auth('view_test'))).body;
      const res = await gql(`{ resource(id: "${created.id}") { versions { limit offset count total results { version modifiedAt modifiedBy { clientId customerId } types } } }
        resourceVersions(id: "${created.id}", limit: 1) { count total results { version types } } none: resourceVersions(id: "00000000-0000-4000-8000-000000000000") { count } }`, undefined, 'view_test');
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data!.resource.versions).toEqual({ ...rest, results: rest.results.map((v: any) => ({ ...v, modifiedBy: { customerId: null, ...v.modifiedBy } })) });
      expect(res.body.data!.resourceVersions).toEqual({ count: 1, total: 2, results: [{ version: 2, types: ['SomePropertyChanged'] }] });
      expect(res.body.data!.none).toBeNull();
    });

    it('message and messages answer the change log as REST does', async () => {
      const created = await createResource(t, pk, draft({ key: newKey('msg') }));
      const rest = (await t.http.get(`/${pk}/messages`).query({ where: `resource(id = "${created.id}")` }).set(await t.auth('view_messages'))).body;
      const res = await gql(`{ messages(where: "resource(id = \\"${created.id}\\")") { count total results { id type sequenceNumber resourceVersion resource { typeId id } representation { id version } } } }`, undefined, 'view_messages');
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data!.messages).toEqual({
        count: 1,
        total: 1,
        results: [{ id: rest.results[0].id, type: 'ResourceCreated', sequenceNumber: 1, resourceVersion: 1, resource: { typeId: 'resource', id: created.id }, representation: { id: created.id, version: 1 } }],
      });
      const one = await gql(`{ message(id: "${rest.results[0].id}") { id type } missing: message(id: "00000000-0000-4000-8000-000000000000") { id } }`, undefined, 'view_messages');
      expect(one.body).toEqual({ data: { message: { id: rest.results[0].id, type: 'ResourceCreated' }, missing: null } });
    });

    it('GET runs queries; a mutation over GET is 405', async () => {
      const ok = await t.http.get(gqlPath(pk)).query({ query: '{ resources(limit: 0) { limit } }' }).set(await t.auth('view_test'));
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ data: { resources: { limit: 0 } } });
      const withVariables = await t.http.get(gqlPath(pk)).query({ query: 'query ($l: Int) { resources(limit: $l) { limit } }', variables: '{"l": 2}' }).set(await t.auth('view_test'));
      expect(withVariables.body).toEqual({ data: { resources: { limit: 2 } } });
      const mutation = await t.http.get(gqlPath(pk)).query({ query: 'mutation { deleteResource(key: "x", version: 1) { id } }' }).set(await t.auth('manage_test'));
      expect(mutation.status).toBe(405);
    });

    it('accepts application/graphql bodies', async () => {
      const res = await t.http.post(gqlPath(pk)).set(await t.auth('view_test')).set('Content-Type', 'application/graphql').send('{ resources(limit: 0) { limit } }');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: { resources: { limit: 0 } } });
    });
  });

  describe('mutations', () => {
    it('createResource, updateResource and deleteResource write as REST does', async () => {
      const key = newKey('mut');
      const created = await gql(`mutation ($d: ResourceDraft!) { createResource(draft: $d) { id key version published } }`, { d: draft({ key, publish: false }) });
      expect(created.body.errors).toBeUndefined();
      expect(created.body.data!.createResource).toMatchObject({ key, version: 1, published: false });
      const id = created.body.data!.createResource.id;
      const updated = await gql(
        `mutation { updateResource(key: "${key}", version: 1, actions: [{changeSomeProperty: {someProperty: "a"}}, {importFooForSecondPropertyToUpdate: {secondPropertyToUpdate: "b"}}, {doSomeThing: true}, {publish: true}, {setKey: {key: "${key}-2"}}]) { ${RESOURCE_FIELDS} } }`,
      );
      expect(updated.body.errors).toBeUndefined();
      const rest = (await t.http.get(resourcePath(pk, id)).set(await t.auth('view_test'))).body;
      expect(updated.body.data!.updateResource).toEqual(asGraphql(rest));
      expect(rest).toMatchObject({ version: 2, someProperty: 'a', secondPropertyToUpdate: 'b', published: true, key: `${key}-2` });
      const objectSet = await gql(`mutation ($o: ArrayTestTypeInput!) { updateResource(id: "${id}", version: 2, actions: [{setObjectTypeProperty: {objectTypeProperty: $o}}, {unpublish: true}]) { version published objectTypeProperty { arrayOfStringExample } } }`, { o: draft({}, { arrayOfStringExample: ['z'] }).objectTypeProperty });
      expect(objectSet.body.data!.updateResource).toEqual({ version: 3, published: false, objectTypeProperty: { arrayOfStringExample: ['z'] } });
      const deleted = await gql(`mutation { deleteResource(id: "${id}", version: 3) { id version } }`);
      expect(deleted.body.data!.deleteResource).toEqual({ id, version: 3 });
      await t.http.get(resourcePath(pk, id)).set(await t.auth('view_test')).expect(404);
    });

    it('a stale version is ConcurrentModification with currentVersion; a missing resource ResourceNotFound', async () => {
      const created = await createResource(t, pk, draft());
      const stale = await gql(`mutation { updateResource(id: "${created.id}", version: 7, actions: [{doSomeThing: true}]) { id } }`);
      expect(stale.status).toBe(200);
      expect(stale.body.data).toEqual({ updateResource: null });
      expect(stale.body.errors).toEqual([expect.objectContaining({ path: ['updateResource'], extensions: { code: 'ConcurrentModification', currentVersion: 1 } })]);
      const gone = await gql('mutation { deleteResource(id: "00000000-0000-4000-8000-000000000000", version: 1) { id } }');
      expect(gone.body.errors![0].extensions.code).toBe('ResourceNotFound');
    });

    it('invalid drafts and actions list every violation with the REST codes and fields', async () => {
      const bad = await gql('mutation ($d: ResourceDraft!) { createResource(draft: $d) { id } }', { d: draft({}, { arrayOfTwonumbersExample: [1], arrayOfUniqueIntExample: [1, 1] }) });
      expect(bad.status).toBe(200);
      const fields = bad.body.errors!.map((e: { extensions: unknown }) => e.extensions);
      expect(fields).toEqual(expect.arrayContaining([
        expect.objectContaining({ code: 'InvalidField', field: 'objectTypeProperty.arrayOfTwonumbersExample' }),
        expect.objectContaining({ code: 'InvalidField', field: 'objectTypeProperty.arrayOfUniqueIntExample[1]', invalidValue: 1 }),
      ]));
      const two = await gql('mutation { updateResource(key: "x", version: 1, actions: [{doSomeThing: true, publish: true}]) { id } }');
      expect(two.body.errors![0].extensions.code).toMatch(/InvalidInput|ResourceNotFound/);
      const created = await createResource(t, pk, draft());
      const both = await gql(`mutation { updateResource(id: "${created.id}", version: 1, actions: [{doSomeThing: true}, {doSomeThing: true, publish: true}]) { id } }`);
      expect(both.body.errors![0].extensions).toEqual({ code: 'InvalidInput', actionIndex: 1 });
      const taken = await createResource(t, pk, draft({ key: newKey('taken') }));
      const duplicate = await gql(`mutation { updateResource(id: "${created.id}", version: 1, actions: [{setKey: {key: "${taken.key}"}}]) { id } }`);
      expect(duplicate.body.errors![0].extensions).toMatchObject({ code: 'DuplicateField', field: 'key' });
    });

    it('the same writes through both doors give the same resources and messages', async () => {
      const doors = { rest: uniqueProjectKey('eqr'), graphql: uniqueProjectKey('eqg') };
      const answers: Record<string, unknown[]> = { rest: [], graphql: [] };
      // REST
      {
        const p = doors.rest;
        const auth = await t.auth('manage_test', { projectKey: p });
        const c = (await t.http.post(resourcePath(p)).set(auth).send(draft({ key: 'same' }))).body;
        const u = (await t.http.post(resourcePath(p, c.id)).set(auth).send({ version: 1, actions: [{ action: 'changeSomeProperty', someProperty: 'v' }, { action: 'setKey', key: 'same-2' }] })).body;
        const o = (await t.http.post(resourcePath(p)).set(auth).send(draft({ key: 'same-2', publish: false }, { arrayOfStringExample: ['o'] }))).body;
        const d = (await t.http.delete(resourcePath(p, c.id)).query({ version: '3' }).set(auth)).body;
        answers.rest.push(c, u, o, d);
      }
      // GraphQL
      {
        const p = doors.graphql;
        const q = (query: string, variables?: Record<string, unknown>) => gql(query, variables, 'manage_test', p);
        const c = (await q(`mutation ($d: ResourceDraft!) { createResource(draft: $d) { ${RESOURCE_FIELDS} } }`, { d: draft({ key: 'same' }) })).body.data!.createResource;
        const u = (await q(`mutation { updateResource(id: "${c.id}", version: 1, actions: [{changeSomeProperty: {someProperty: "v"}}, {setKey: {key: "same-2"}}]) { ${RESOURCE_FIELDS} } }`)).body.data!.updateResource;
        const o = (await q(`mutation ($d: ResourceDraft!) { createResource(draft: $d) { ${RESOURCE_FIELDS} } }`, { d: draft({ key: 'same-2', publish: false }, { arrayOfStringExample: ['o'] }) })).body.data!.createResource;
        const d = (await q(`mutation { deleteResource(key: "same-2", version: 3) { ${RESOURCE_FIELDS} } }`)).body.data!.deleteResource;
        answers.graphql.push(c, u, o, d);
      }
      const normalise = (value: unknown, ids: Map<string, string>): unknown =>
        JSON.parse(JSON.stringify(value, (name, v) => (['createdAt', 'lastModifiedAt', 'modifiedAt', 'clientId'].includes(name) ? '<t>' : name === 'id' || name === 'resource' && typeof v === 'string' ? (ids.get(v) ?? ids.set(v, `id${ids.size}`).get(v)) : v)));
      expect(normalise(answers.graphql, new Map())).toEqual(normalise(answers.rest.map((r) => asGraphql(r as Record<string, unknown>)), new Map()));
      const messages = async (p: string) => (await t.http.get(`/${p}/messages`).set(await t.auth('view_messages', { projectKey: p }))).body.results;
      expect(normalise(await messages(doors.graphql), new Map())).toEqual(normalise(await messages(doors.rest), new Map()));
    });
  });

  describe('access', () => {
    it('a token with view_test reads, and gets insufficient_scope on a mutation (HTTP 200)', async () => {
      const res = await gql('mutation { deleteResource(key: "x", version: 1) { id } }', undefined, 'view_test');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ deleteResource: null });
      expect(res.body.errors![0]).toMatchObject({ path: ['deleteResource'], extensions: { code: 'insufficient_scope' } });
      const create = await gql('mutation ($d: ResourceDraft!) { createResource(draft: $d) { id } }', { d: draft() }, 'view_test');
      expect(create.body.errors![0].extensions.code).toBe('insufficient_scope');
    });

    it('each field needs its REST twin\'s scope: view_messages reads messages but not resources', async () => {
      const none = '"00000000-0000-4000-8000-000000000000"';
      const res = await gql(`{ messages(limit: 0) { limit } resource(id: ${none}) { id } }`, undefined, 'view_messages');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ messages: { limit: 0 }, resource: null });
      expect(res.body.errors).toEqual([expect.objectContaining({ path: ['resource'], extensions: { code: 'insufficient_scope' } })]);
      // A non-null field refused takes its parent with it (GraphQL's null propagation): here the whole data.
      const strict = await gql('{ resources { count } }', undefined, 'view_messages');
      expect(strict.body.data).toBeNull();
      expect(strict.body.errors![0].extensions.code).toBe('insufficient_scope');
      const audit = await gql(`{ resourceVersions(id: ${none}) { count } message(id: ${none}) { id } }`, undefined, 'view_audit_log');
      expect(audit.body.data).toEqual({ resourceVersions: null, message: null });
      expect(audit.body.errors!.map((e: { path: string[] }) => e.path)).toEqual([['message']]);
    });

    it('a customer-bound token creates as its customer', async () => {
      const auth = await t.auth('manage_my_profile_test', { customerId: 'cust-9' });
      const created = await t.http.post(gqlPath(pk)).set(auth).send({ query: 'mutation ($d: ResourceDraft!) { createResource(draft: $d) { createdBy { customerId } } }', variables: { d: draft() } });
      expect(created.body).toEqual({ data: { createResource: { createdBy: { customerId: 'cust-9' } } } });
      const res = await t.http.post(gqlPath(pk)).set(auth).send({ query: '{ resource(key: "x") { id } }' });
      expect(res.body.errors).toEqual([expect.objectContaining({ path: ['resource'], extensions: { code: 'insufficient_scope' } })]);
    });

    it('no token is 401, a token of another project or without any field\'s scope 403, in the REST envelope', async () => {
      expectErrorEnvelope(await t.http.post(gqlPath(pk)).send({ query: '{ resources { count } }' }), 401, 'invalid_token');
      expectErrorEnvelope(await t.http.post(gqlPath(pk)).set(await t.auth('view_test', { projectKey: t.otherProjectKey })).send({ query: '{ resources { count } }' }), 403, 'insufficient_scope');
      expectErrorEnvelope(await t.http.post(gqlPath(pk)).set(await t.auth('manage_extensions')).send({ query: '{ resources { count } }' }), 403, 'insufficient_scope');
    });

    it('projects are isolated: another project\'s resource is null', async () => {
      const other = await createResource(t, t.otherProjectKey, draft());
      const res = await gql(`{ resource(id: "${other.id}") { id } }`, undefined, 'view_test');
      expect(res.body).toEqual({ data: { resource: null } });
    });
  });

  describe('request errors and limits (400 before anything runs)', () => {
    const expect400 = (res: Response & { body: GraphqlBody }, pattern: RegExp) => {
      expect(res.status).toBe(400);
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors![0].message).toMatch(pattern);
      expect(res.body.errors![0].extensions.code).toBe('InvalidInput');
    };

    it('parse and validation errors', async () => {
      expect400(await gql('{ resources { '), /Syntax Error/);
      expect400(await gql('{ resources { colour } }'), /Cannot query field "colour"/);
      expect400(await gql('query ($l: Int) { resources(limit: $l) { count } }', { l: 'x' }), /Int cannot represent/);
      expect400(await t.http.post(gqlPath(pk)).set(await t.auth('view_test')).send({ variables: {} }) as any, /query/);
    });

    it('depth past 10 of the API\'s fields is refused; introspection may nest 15', async () => {
      const fragments = 'fragment F on Resource { versions { results { modifiedBy { clientId } } } }';
      // resources → results → versions → results → modifiedBy → clientId: 6 levels, through a fragment.
      expect((await gql(`{ a: resources(limit: 1) { results { ...F } } } ${fragments}`)).status).toBe(200);
      // An inline fragment adds no level.
      const eleven = `{ resources(limit: 1) { results { ... on Resource { versions(limit: 1) { results { modifiedBy { clientId } } } } } } }`;
      expect((await gql(eleven)).status).toBe(200);
      // No path of this schema is deeper than 7; deeper documents are refused before they are validated.
      let text = 'clientId';
      for (let i = 0; i < 9; i++) text = `createdBy { ${text} }`;
      expect400(await gql(`{ resources(limit: 1) { results { ${text} } } }`), /nested too deeply/);
      // __schema → types → fields → type → ofType × n → name: 5 + n levels.
      const introspection = (n: number) => `{ __schema { types { fields { type { ${'ofType { '.repeat(n)}name${' }'.repeat(n)} } } } } }`;
      expect400(await gql(introspection(11)), /nested too deeply/);
      expect((await gql(introspection(10))).status).toBe(200);
    });

    it('more than 500 result objects are refused, counted from the paging arguments', async () => {
      expect400(await gql('{ resources(limit: 100) { results { versions(limit: 20) { results { version } } } } }'), /up to 2100 result objects/);
      expect400(await gql('{ a: resources(limit: 300) { count } b: resources(limit: 300) { results { id } } c: resources(limit: 300) { results { id } } }'), /up to 600/);
      expect400(await gql('query ($l: Int) { resources(limit: $l) { results { versions(limit: 2) { results { version } } } } }', { l: 500 }), /up to 1500/);
      expect((await gql('{ resources(limit: 100) { results { id versions(limit: 1) { results { version } } } } }')).status).toBe(200);
    });

    it('fragments that spread to more than 2,000 selections are refused at once; a document nested past the parser too', async () => {
      // Each fragment spreads the next twice: 2^60 selections if walked naively.
      const fragments = Array.from({ length: 60 }, (_, i) => (i === 59 ? 'fragment F59 on Resource { id }' : `fragment F${i} on Resource { ...F${i + 1} ...F${i + 1} }`)).join(' ');
      const started = performance.now();
      expect400(await gql(`{ resources(limit: 1) { results { ...F0 } } } ${fragments}`), /more than 2000 selections/);
      expect(performance.now() - started).toBeLessThan(2_000);
      expect400(await gql(`{ resources { ${'count '.repeat(2_001)}} }`), /more than 2000 selections/);
      expect400(await gql(`{ ${'a{'.repeat(6_000)}id${'}'.repeat(6_000)} }`), /^The document is nested too deeply to parse\.$/);
    });

    it('documents over 64 KiB and batches are refused', async () => {
      expect400(await gql(`{ resources { count } } #${'x'.repeat(65_536)}`), /larger than 65536 bytes/);
      const batch = await t.http.post(gqlPath(pk)).set(await t.auth('view_test')).send([{ query: '{ resources { count } }' }, { query: '{ resources { count } }' }]);
      expect400(batch as any, /Batching is not supported/);
    });
  });

  it('GET /graphiql serves the console without a token; it asks for one', async () => {
    const res = await t.http.get('/graphiql');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('Bearer token');
    expect(res.headers['content-security-policy']).toContain("script-src 'sha256-");
  });

  it('the OpenAPI document describes the route and links to the console', async () => {
    const doc = (await t.http.get('/openapi.json')).body;
    expect(doc.paths['/{projectKey}/graphql'].post.description).toContain('/graphiql');
  });
  describe('derived from the same definitions as REST', () => {
    interface GqlType { name: string | null; kind: string; ofType: GqlType | null }
    const OPENAPI_SCALARS: Record<string, string> = { string: 'String', boolean: 'Boolean', number: 'Number', integer: 'Int' };
    /** An OpenAPI property as GraphQL should show it, e.g. `[Long!]!`. */
    function expected(schema: any, required: boolean, names: Record<string, string>): string {
      let inner: string;
      if (schema.$ref) inner = names[schema.$ref.split('/').pop()];
      else if (schema.allOf) inner = names[schema.allOf[0].$ref.split('/').pop()];
      else if (schema.type === 'array') inner = `[${expected(schema.items, true, names)}]`;
      else inner = schema.format === 'int64' ? 'Long' : OPENAPI_SCALARS[schema.type];
      return required ? `${inner}!` : inner;
    }
    const shown = (t: GqlType): string => (t.kind === 'NON_NULL' ? `${shown(t.ofType!)}!` : t.kind === 'LIST' ? `[${shown(t.ofType!)}]` : t.name!);

    it('Resource, ArrayTestType and ObjectTypeItem have the OpenAPI schema\'s fields, field by field', async () => {
      const doc = (await t.http.get('/openapi.json')).body;
      const names = { ObjectTestTypeDto: 'Resource', ArrayTestTypeDto: 'ArrayTestType', ObjectTypeItemDto: 'ObjectTypeItem', ModifierDto: 'Modifier', ImageDto: 'Image' };
      const typeRef = 'type { name kind ofType { name kind ofType { name kind ofType { name kind } } } }';
      const res = await gql(`{ ${Object.entries(names).map(([, n]) => `${n}: __type(name: "${n}") { fields { name ${typeRef} } }`).join(' ')} }`, undefined, 'view_test');
      for (const [component, typeName] of Object.entries(names)) {
        const schema = doc.components.schemas[component];
        const graphqlFields = Object.fromEntries(res.body.data![typeName].fields.map((f: { name: string; type: GqlType }) => [f.name, shown(f.type)]));
        delete graphqlFields.versions; // resolved: the version history, GET /resource/{id}/versions
        const openapiFields = Object.fromEntries(Object.entries(schema.properties).map(([name, property]) => [name, expected(property, (schema.required ?? []).includes(name), names)]));
        expect({ type: typeName, fields: graphqlFields }).toEqual({ type: typeName, fields: openapiFields });
      }
      expect(res.body.data!.Resource.fields.map((f: { name: string }) => f.name)).toContain('versions');
    });
  });

  describe('N+1', () => {
    it('resources { results { versions } } costs the same statements whatever the page size', async () => {
      const own = uniqueProjectKey('nq');
      for (let i = 0; i < 30; i++) await createResource(t, own, draft());
      const pool = t.app.get(Database).pool;
      const original = pool.query.bind(pool);
      let statements = 0;
      (pool as any).query = (...args: unknown[]) => {
        // The statements on resources and their versions (background workers poll other tables meanwhile).
        if (/\bFROM (resource|resource_version)\b|unnest/.test(String((args[0] as { text?: string }).text ?? args[0]))) statements++;
        return (original as any)(...args);
      };
      try {
        const counts: number[] = [];
        for (const limit of [2, 30]) {
          await gql('{ resources(limit: 1) { count } }', undefined, 'view_test', own); // the token is verified and cached
          statements = 0;
          const res = await gql(`{ resources(limit: ${limit}) { results { id versions(limit: 1) { total results { version types } } } } }`, undefined, 'view_test', own);
          expect(res.body.errors).toBeUndefined();
          expect(res.body.data!.resources.results).toHaveLength(limit);
          expect(res.body.data!.resources.results.every((r: any) => r.versions.results[0].version === 1)).toBe(true);
          counts.push(statements);
        }
        expect(counts[1]).toBe(counts[0]);
        expect(counts[1]).toBeLessThanOrEqual(4);
      } finally {
        (pool as any).query = original;
      }
    });
  });
});
