import type { AccessRule } from '../auth/scopes.js';

/**
 * The scopes each GraphQL field needs: those of its REST twin (GET /resource/{id}, GET /messages,
 * GET /resource/{id}/versions, POST /resource, POST /resource/{id}, DELETE /resource/{id}). A field missing
 * here needs nothing beyond the route's rule.
 */
export const FIELD_ACCESS: Record<string, AccessRule> = {
  'Query.resource': { scopes: ['manage_test', 'view_test'] },
  'Query.resources': { scopes: ['manage_test', 'view_test'] },
  'Query.message': { scopes: ['view_messages', 'manage_test'] },
  'Query.messages': { scopes: ['view_messages', 'manage_test'] },
  'Query.resourceVersions': { scopes: ['view_audit_log', 'view_test'] },
  'Resource.versions': { scopes: ['view_audit_log', 'view_test'] },
  'Mutation.createResource': { scopes: ['manage_test'], customerBound: 'manage_my_profile_test' },
  'Mutation.updateResource': { scopes: ['manage_test'] },
  'Mutation.deleteResource': { scopes: ['manage_test'] },
};

/** The route admits a token that holds the scope of at least one field; each field then checks its own. */
export const GRAPHQL_ROUTE_ACCESS: AccessRule = {
  scopes: [...new Set(Object.values(FIELD_ACCESS).flatMap((rule) => rule.scopes ?? []))],
  customerBound: 'manage_my_profile_test',
};
