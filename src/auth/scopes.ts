/**
 * Scopes are `<name>:<projectKey>`, plus `customer_id_test:<id>` on the tokens of customer-bound
 * clients. Pure functions: the guard, the token endpoint and the client API use them.
 */
export const SCOPE_NAMES = [
  'manage_test',
  'view_test',
  'manage_my_profile_test',
  'manage_products',
  'manage_api_clients',
  'view_messages',
  'view_audit_log',
  'manage_subscriptions',
  'view_subscriptions',
  'manage_extensions',
] as const;
export type ScopeName = (typeof SCOPE_NAMES)[number];
export const CUSTOMER_SCOPE = 'customer_id_test';

/** Which scopes a route accepts. `scopes` are alternatives; `customerBound` is the POST /resource extra path. */
export interface AccessRule {
  public?: boolean;
  scopes?: ScopeName[];
  /** Also accepted: this scope together with `customer_id_test:<id>`; the caller then acts as that customer. */
  customerBound?: ScopeName;
}

interface Grant {
  /** The caller may act only on what its customer created. */
  customerOnly: boolean;
}

export function splitScopes(scope: string | undefined): string[] {
  return (scope ?? '').split(' ').filter(Boolean);
}

/** The customer id of a `customer_id_test:<id>` scope among `scopes`. */
export function customerOf(scopes: readonly string[]): string | undefined {
  const scope = scopes.find((s) => s.startsWith(`${CUSTOMER_SCOPE}:`));
  return scope?.slice(CUSTOMER_SCOPE.length + 1) || undefined;
}

/** The scope that also grants a scope: `manage_test` grants everything `view_test` does. */
const IMPLIED_BY = new Map<string, ScopeName>([['view_test', 'manage_test']]);

/** Whether `held` grants `scope` (`<name>:<projectKey>`), itself or through the scope that implies it. */
function holds(held: ReadonlySet<string>, scope: string): boolean {
  if (held.has(scope)) return true;
  const [name, projectKey] = scope.split(':');
  const implying = IMPLIED_BY.get(name);
  return implying !== undefined && held.has(`${implying}:${projectKey}`);
}

/** Whether `scopes` satisfy `rule` for `projectKey`; `manage_test` also satisfies `view_test`. */
export function grant(rule: AccessRule, held: ReadonlySet<string>, projectKey: string): Grant | undefined {
  const has = (name: ScopeName) => holds(held, `${name}:${projectKey}`);
  if (rule.scopes?.some(has)) return { customerOnly: false };
  if (rule.customerBound && has(rule.customerBound) && customerOf([...held]) !== undefined) return { customerOnly: true };
  return undefined;
}

/** The scope strings a rule names for `projectKey`, for error messages and WWW-Authenticate. */
export function describeRule(rule: AccessRule, projectKey: string): string {
  const alternatives = (rule.scopes ?? []).map((name) => `${name}:${projectKey}`);
  if (rule.customerBound) alternatives.push(`${rule.customerBound}:${projectKey} with ${CUSTOMER_SCOPE}:<id>`);
  return alternatives.join(' or ');
}

/** Checks a client's requested scope string: known names, this project only. Returns the problem, if any. */
export function invalidClientScope(scope: string, projectKey: string): string | undefined {
  const scopes = splitScopes(scope);
  if (scopes.length === 0) return 'at least one scope is required';
  for (const s of scopes) {
    const [name, project, ...rest] = s.split(':');
    if (rest.length > 0 || !SCOPE_NAMES.includes(name as ScopeName)) {
      return `'${s}' is not a known scope (${SCOPE_NAMES.map((n) => `${n}:${projectKey}`).join(', ')})`;
    }
    if (project !== projectKey) return `'${s}' names another project; scopes must be of project ${projectKey}`;
  }
  return undefined;
}

/**
 * Scopes a customer-bound client may not hold, and why: `manage_test` grants every write without the
 * customer restriction (`grant` gives `customerOnly: false`), so a client holding both would act as its
 * customer on creates and as nobody in particular everywhere else; `manage_api_clients` would let it
 * make clients that are not bound to its customer's limits.
 */
const NOT_FOR_CUSTOMERS = new Map<string, string>([
  ['manage_test', 'it is not restricted to its customer; use manage_my_profile_test'],
  ['manage_api_clients', 'only clients that are not customer-bound manage API clients'],
]);

/** Checks the scopes of a customer-bound client: none may lift the customer restriction. Returns the problem, if any. */
export function invalidCustomerScope(scope: string): string | undefined {
  for (const s of splitScopes(scope)) {
    const reason = NOT_FOR_CUSTOMERS.get(s.split(':')[0]);
    if (reason) return `a customer-bound client (customerId) may not hold '${s}': ${reason}`;
  }
  return undefined;
}

/** What an API client holds: its scopes (`<name>:<projectKey>`), and the customer it is bound to. */
export interface ClientScopes {
  scope: string;
  customerId?: string | null;
}

/**
 * The scopes of `client` that a caller holding `held` (its token's scopes) lacks to create or delete it.
 * A scope is the caller's when its token holds it, or the scope implying it (`manage_test` covers
 * `view_test`, as on routes). A customer-bound caller (its token carries `customer_id_test:<c>`) holds
 * its scopes for customer c only: it covers only clients bound to c, and lacks every scope of an unbound
 * client or of one bound to another customer. An unbound caller covers clients bound to any customer:
 * the binding only narrows what a client may do.
 */
export function lackingScopes(held: ReadonlySet<string>, client: ClientScopes): string[] {
  const scopes = splitScopes(client.scope);
  const customer = customerOf([...held]);
  if (customer !== undefined && client.customerId !== customer) return scopes;
  return scopes.filter((s) => !holds(held, s));
}
