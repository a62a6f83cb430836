import { type AccessRule, customerOf, describeRule, grant, invalidClientScope, invalidCustomerScope, lackingScopes, splitScopes } from './scopes.js';

const VIEW: AccessRule = { scopes: ['manage_test', 'view_test'] };
const MANAGE: AccessRule = { scopes: ['manage_test'] };
const CREATE: AccessRule = { scopes: ['manage_test'], customerBound: 'manage_my_profile_test' };
const set = (scope: string) => new Set(splitScopes(scope));

describe('grant', () => {
  it.each([
    ['view_test:p', VIEW, { customerOnly: false }],
    ['manage_test:p', VIEW, { customerOnly: false }],
    ['view_test:q', VIEW, undefined],
    ['view_test:p', MANAGE, undefined],
    ['manage_products:p', VIEW, undefined],
    ['', VIEW, undefined],
    ['manage_test:p', CREATE, { customerOnly: false }],
    ['manage_my_profile_test:p customer_id_test:c1', CREATE, { customerOnly: true }],
    ['manage_my_profile_test:p', CREATE, undefined],
    ['manage_my_profile_test:q customer_id_test:c1', CREATE, undefined],
    ['manage_my_profile_test:p customer_id_test:c1', MANAGE, undefined],
    ['manage_test:p customer_id_test:c1 manage_my_profile_test:p', CREATE, { customerOnly: false }],
    ['view_test:p-extra', VIEW, undefined],
  ])('%s against %j for project p → %j', (scope, rule, expected) => {
    expect(grant(rule, set(scope), 'p')).toEqual(expected);
  });

  it('a public rule grants nothing through scopes (the guard lets public routes through before this)', () => {
    expect(grant({ public: true }, set('manage_test:p'), 'p')).toBeUndefined();
  });
});

describe('customerOf', () => {
  it.each([
    [['customer_id_test:abc', 'view_test:p'], 'abc'],
    [['view_test:p'], undefined],
    [['customer_id_test:'], undefined],
  ])('%j → %s', (scopes, expected) => expect(customerOf(scopes)).toBe(expected));
});

describe('describeRule', () => {
  it('lists the alternatives for the project', () => {
    expect(describeRule(CREATE, 'p')).toBe('manage_test:p or manage_my_profile_test:p with customer_id_test:<id>');
  });
});

describe('invalidClientScope', () => {
  it.each([
    ['manage_test:p view_test:p', undefined],
    ['', 'at least one scope is required'],
    ['manage_test:q', 'names another project'],
    ['superuser:p', 'is not a known scope'],
    ['manage_test:p:x', 'is not a known scope'],
    ['customer_id_test:p', 'is not a known scope'],
  ])('%s → %s', (scope, problem) => {
    const result = invalidClientScope(scope, 'p');
    if (problem === undefined) expect(result).toBeUndefined();
    else expect(result).toContain(problem);
  });
});

describe('invalidCustomerScope', () => {
  it.each([
    ['manage_my_profile_test:p', undefined],
    ['manage_my_profile_test:p view_test:p', undefined],
    ['manage_test:p', "may not hold 'manage_test:p'"],
    ['manage_my_profile_test:p manage_test:p', "may not hold 'manage_test:p'"],
    ['manage_api_clients:p', "may not hold 'manage_api_clients:p'"],
    ['view_test:p manage_api_clients:p', "may not hold 'manage_api_clients:p'"],
    ['constructor:p toString:p', undefined],
  ])('%s → %s', (scope, expected) => {
    const problem = invalidCustomerScope(scope);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toContain(expected);
  });
});

describe('lackingScopes', () => {
  it.each<[string, string, string | undefined, string[]]>([
    // Unbound callers: each scope held itself, or through the scope implying it.
    ['manage_api_clients:p', 'manage_api_clients:p', undefined, []],
    ['manage_api_clients:p', 'manage_api_clients:p manage_test:p', undefined, ['manage_test:p']],
    ['manage_api_clients:p view_test:p', 'manage_test:p view_test:p', undefined, ['manage_test:p']],
    ['manage_api_clients:p manage_test:p', 'view_test:p', undefined, []],
    ['manage_api_clients:p manage_test:p', 'manage_test:p view_test:p', undefined, []],
    ['manage_api_clients:p view_test:p', 'view_test:p', undefined, []],
    ['manage_api_clients:p manage_test:p', 'manage_my_profile_test:p', undefined, ['manage_my_profile_test:p']],
    ['manage_api_clients:p', 'manage_api_clients:p view_messages:p view_subscriptions:p', undefined, ['view_messages:p', 'view_subscriptions:p']],
    ['manage_api_clients:p manage_subscriptions:p', 'view_subscriptions:p', undefined, ['view_subscriptions:p']],
    // Only the caller's own project counts.
    ['manage_api_clients:q manage_test:q', 'manage_test:p', undefined, ['manage_test:p']],
    // An unbound caller may bind a client to any customer: the binding only narrows.
    ['manage_api_clients:p manage_my_profile_test:p', 'manage_my_profile_test:p', 'c1', []],
    ['manage_api_clients:p', 'manage_my_profile_test:p', 'c1', ['manage_my_profile_test:p']],
    // A bound caller covers clients bound to its own customer only.
    ['manage_my_profile_test:p view_test:p customer_id_test:c1', 'manage_my_profile_test:p', 'c1', []],
    ['manage_my_profile_test:p view_test:p customer_id_test:c1', 'manage_my_profile_test:p view_test:p', undefined, ['manage_my_profile_test:p', 'view_test:p']],
    ['manage_my_profile_test:p view_test:p customer_id_test:c1', 'view_test:p', 'c2', ['view_test:p']],
    ['manage_my_profile_test:p customer_id_test:c1', 'manage_my_profile_test:p view_test:p', 'c1', ['view_test:p']],
  ])('a caller holding %s, for a client with %s bound to %s → lacks %j', (held, scope, customerId, lacking) => {
    expect(lackingScopes(set(held), { scope, customerId })).toEqual(lacking);
  });
});
