import { type ActionDeclaration } from './action-declaration.js';
import { ActionTable } from './action-table.js';

const store = (key: string): ActionDeclaration['handler'] => ({ type: 'store', key });
const GET = { method: 'GET', path: 'namespace-action' } as const;
const POST = { method: 'POST', path: 'namespace-action' } as const;

describe('ActionTable', () => {
  const defaults: ActionDeclaration[] = [
    { ...GET, handler: store('default-get') },
    { ...POST, handler: store('default-post') },
  ];

  it.each([
    ['no declarations: the default', [], 'any', 'default-get'],
    ['a declaration for every project', [{ ...GET, handler: store('all') }], 'any', 'all'],
    ['a project declaration wins over one for every project', [{ ...GET, handler: store('all') }, { ...GET, projects: ['mine'], handler: store('mine') }], 'mine', 'mine'],
    ['other projects keep the one for every project', [{ ...GET, handler: store('all') }, { ...GET, projects: ['mine'], handler: store('mine') }], 'yours', 'all'],
    ['other projects keep the default', [{ ...GET, projects: ['mine'], handler: store('mine') }], 'yours', 'default-get'],
  ] as Array<[string, ActionDeclaration[], string, string]>)('%s', (_label, declarations, projectKey, key) => {
    expect(new ActionTable(defaults, declarations).handlerFor(GET, projectKey)).toEqual(store(key));
  });

  it('a declaration concerns its own endpoint only', () => {
    const table = new ActionTable(defaults, [{ ...GET, handler: store('all') }]);
    expect(table.handlerFor(POST, 'any')).toEqual(store('default-post'));
  });
});
