/**
 * Scopes are `<name>:<projectKey>`, plus `customer_id_test:<id>` on customer-bound clients
 * (CONTRACT.md §7). Pure functions: the guard, the token endpoint and the client API use them.
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

export interface Grant {
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

/** Whether `scopes` satisfy `rule` for `projectKey`; `manage_test` also satisfies `view_test`. */
export function grant(rule: AccessRule, held: ReadonlySet<string>, projectKey: string): Grant | undefined {
  const has = (name: ScopeName) =>
    held.has(`${name}:${projectKey}`) || (name === 'view_test' && held.has(`manage_test:${projectKey}`));
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
 * Checks the scopes of a customer-bound client: none may lift the customer restriction. `manage_test`
 * grants every write without it (`grant` gives `customerOnly: false`), so a client holding both would
 * act as its customer on creates and as nobody in particular everywhere else.
 */
export function invalidCustomerScope(scope: string): string | undefined {
  const lifting = splitScopes(scope).find((s) => s.startsWith('manage_test:'));
  return lifting ? `a customer-bound client (customerId) may not hold '${lifting}', which is not restricted to its customer; use manage_my_profile_test` : undefined;
}
