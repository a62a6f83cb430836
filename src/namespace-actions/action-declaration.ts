/**
 * What an operator declares for a namespace-action endpoint (docs/rules.md#namespace-actions):
 * the endpoint (method and path), the projects it applies to, and the handler that answers it.
 */

/** The namespace-action endpoints (docs/api-guide.md#namespace-actions): the only method and path pairs an action can answer. */
export const ACTION_ENDPOINTS = [
  { method: 'POST', path: 'namespace-action' },
  { method: 'GET', path: 'namespace-action' },
  { method: 'GET', path: 'namespace-action-with-example' },
  { method: 'GET', path: 'namespace-action-with-headers' },
  { method: 'PUT', path: 'json-serializable-primitive-type' },
] as const;

export type ActionEndpoint = (typeof ACTION_ENDPOINTS)[number];
type ActionMethod = ActionEndpoint['method'];
type ActionPath = ActionEndpoint['path'];

/** `GET namespace-action`: how an endpoint is named in messages and lookups. */
export function endpointName(endpoint: { method: string; path: string }): string {
  return `${endpoint.method} ${endpoint.path}`;
}

/** Answers with a declared status, headers and JSON body. */
interface StaticHandler {
  type: 'static';
  status: number;
  headers: Record<string, string>;
  /** The body as JSON text (exact for 64-bit integers). */
  body: string;
}

/** Writes (POST, PUT) or reads (GET) one JSON value of the project's key-value store. */
interface StoreHandler {
  type: 'store';
  key: string;
}

/** Calls an HTTP backend and answers what it answers. */
export interface ForwardHandler {
  type: 'forward';
  /** Absolute http(s) URL; `Path-Header` (namespace-action-with-headers) is appended to its path. */
  url: string;
  /** Absent → the configured default (ACTIONS_FORWARD_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Fixed headers sent to the backend (for example its API key). */
  headers: Record<string, string>;
  /** Request headers copied to the backend when the caller sends them (lower case). */
  forwardHeaders: string[];
}

export type ActionHandler = StaticHandler | StoreHandler | ForwardHandler;

export interface ActionDeclaration {
  method: ActionMethod;
  path: ActionPath;
  /** Project keys it applies to; absent → every project. */
  projects?: string[];
  handler: ActionHandler;
}
