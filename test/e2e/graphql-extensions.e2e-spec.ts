import { createTestApp, type TestApp, uniqueProjectKey } from '../support/test-app.js';
import { draft } from '../support/fixtures.js';
import { ExtensionReceiver } from '../support/extension-receiver.js';

/*
 * GraphQL mutations take the write path REST takes, API extensions included: an extension's refusal is the
 * mutation's error with the REST code and the extension's id in `extensions`, and nothing is written; an
 * extension's actions are applied in the same version, with their messages.
 */
describe('GraphQL mutations and API extensions', () => {
  let t: TestApp;
  let receiver: ExtensionReceiver;

  beforeAll(async () => {
    receiver = await ExtensionReceiver.start();
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  /** A project whose one extension, at `path`, is called on creates and updates. */
  async function projectWithExtension(path: string) {
    const pk = uniqueProjectKey('gx');
    const created = await t.http
      .post(`/${pk}/extensions`)
      .set(await t.auth('manage_extensions', { projectKey: pk }))
      .send({ key: 'gate', destination: { type: 'HTTP', url: receiver.url(path) }, triggers: [{ resourceTypeId: 'resource', actions: ['Create', 'Update'] }] });
    expect(created.status).toBe(201);
    const gql = async (query: string, variables?: Record<string, unknown>) =>
      t.http.post(`/${pk}/graphql`).set(await t.auth('manage_test view_messages', { projectKey: pk })).send({ query, variables });
    return { pk, extensionId: created.body.id as string, gql };
  }

  it('a refused create is the mutation error with the extension\'s code and id, and writes nothing', async () => {
    const p = await projectWithExtension('/gql-refuse');
    receiver.answers.set('/gql-refuse', () => ({ status: 400, body: { errors: [{ code: 'InvalidInput', message: 'no thanks', extensionExtraInfo: { why: 'test' } }] } }));
    const res = await p.gql('mutation ($d: ResourceDraft!) { createResource(draft: $d) { id } }', { d: draft({ key: 'refused-by-extension' }) });
    expect(res.status).toBe(200);
    expect(res.body.data?.createResource ?? null).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].message).toBe('no thanks');
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'InvalidInput', extensionId: p.extensionId, extensionKey: 'gate', extensionExtraInfo: { why: 'test' } });
    expect(receiver.at('/gql-refuse')).toHaveLength(1);
    const read = await p.gql('{ resource(key: "refused-by-extension") { id } }');
    expect(read.body.data).toEqual({ resource: null });
  });

  it('an extension\'s actions are applied to a create and an update in the same version, with their messages', async () => {
    const p = await projectWithExtension('/gql-amend');
    receiver.answers.set('/gql-amend', (call) => ({
      status: 200,
      body: { actions: [{ action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: `set on ${call.json.action}` }] },
    }));
    const created = await p.gql('mutation ($d: ResourceDraft!) { createResource(draft: $d) { id version secondPropertyToUpdate } }', { d: draft({ key: 'amended' }) });
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createResource).toMatchObject({ version: 1, secondPropertyToUpdate: 'set on Create' });
    const id = created.body.data.createResource.id as string;
    const updated = await p.gql(
      'mutation ($id: String!) { updateResource(id: $id, version: 1, actions: [{ changeSomeProperty: { someProperty: "by client" } }]) { version someProperty secondPropertyToUpdate } }',
      { id },
    );
    expect(updated.body.errors).toBeUndefined();
    expect(updated.body.data.updateResource).toEqual({ version: 2, someProperty: 'by client', secondPropertyToUpdate: 'set on Update' });
    const messages = await p.gql(`{ messages(where: "resource(id = \\"${id}\\")", sort: ["sequenceNumber asc"]) { results { type resourceVersion } } }`);
    expect(messages.body.errors).toBeUndefined();
    expect(messages.body.data.messages.results).toEqual([
      { type: 'ResourceCreated', resourceVersion: 1 },
      { type: 'SecondPropertyToUpdateImported', resourceVersion: 1 },
      { type: 'SomePropertyChanged', resourceVersion: 2 },
      { type: 'SecondPropertyToUpdateImported', resourceVersion: 2 },
    ]);
  });
});
