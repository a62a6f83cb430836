import { Inject, Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import type { Principal } from '../common/principal.js';
import { type ActionEndpoint, type ForwardHandler } from './action-declaration.js';
import { ActionTable } from './action-table.js';
import { actionsConfig, type ActionsConfig } from './actions.config.js';
import { checkActionHeaders } from './action-headers.js';
import { validateActions } from './actions-file.js';
import { ActionStoreRepository, type StoredValue } from './action-store.repository.js';
import { type ActionAnswer, BackendClient } from './backend-client.js';
import { backendUrl } from './backend-url.js';
import { CALLER_HEADERS } from './http-headers.js';
import { DEFAULT_ACTIONS } from './default-actions.js';
import { jsonText } from './json-value.js';

/** A request to a namespace-action endpoint, as the handlers need it. */
export interface ActionRequest {
  /** The parsed JSON body; undefined when there is none. */
  body?: unknown;
  /** The query string as sent, without `?`. */
  queryString: string;
  headers: IncomingHttpHeaders;
  /** The caller, from its access token. */
  principal: Principal;
}

const FORM_TYPE = /^application\/x-www-form-urlencoded\b/i;

/**
 * Runs the declared action of a namespace-action endpoint (docs/rules.md#namespace-actions).
 * Declarations come from ACTIONS_FILE (validated at start-up by the configuration) over the
 * built-in defaults, which serve the API description's examples.
 */
@Injectable()
export class NamespaceActionsService {
  private readonly table: ActionTable;
  private readonly forwardTimeoutMs: number;

  constructor(
    @Inject(actionsConfig.KEY) config: ActionsConfig,
    private readonly store: ActionStoreRepository,
    private readonly backend: BackendClient,
  ) {
    this.forwardTimeoutMs = config.forwardTimeoutMs;
    this.table = new ActionTable(validateActions(DEFAULT_ACTIONS), config.declarations);
  }

  /** `namespace-action-with-headers`: its header rules first (406, then 400), then its action. */
  runWithHeaders(endpoint: ActionEndpoint, projectKey: string, request: ActionRequest): Promise<ActionAnswer> {
    const backendPath = checkActionHeaders({
      accept: single(request.headers.accept),
      testHeader: single(request.headers['test-header']),
      pathHeader: single(request.headers['path-header']),
    });
    return this.run(endpoint, projectKey, request, backendPath);
  }

  async run(endpoint: ActionEndpoint, projectKey: string, request: ActionRequest, backendPath?: string): Promise<ActionAnswer> {
    const handler = this.table.handlerFor(endpoint, projectKey);
    const writes = endpoint.method !== 'GET';
    if (writes && FORM_TYPE.test(single(request.headers['content-type']) ?? '')) {
      throw DomainError.of(ErrorCode.UnsupportedMediaType, 'This endpoint reads application/json bodies only.');
    }
    switch (handler.type) {
      case 'static':
        return { status: handler.status, headers: handler.headers, json: handler.body };
      case 'store':
        return writes
          ? storedAnswer(await this.store.write(projectKey, handler.key, bodyText(request.body ?? null)))
          : storedAnswer(await this.store.read(projectKey, handler.key));
      case 'forward':
        return this.forward(handler, endpoint, projectKey, request, backendPath);
    }
  }

  /**
   * Calls the backend: the declared URL and headers, the caller's selected headers, and who calls
   * (CALLER_HEADERS, set last so that nothing the caller sends can stand in for them).
   */
  private forward(handler: ForwardHandler, endpoint: ActionEndpoint, projectKey: string, request: ActionRequest, backendPath?: string): Promise<ActionAnswer> {
    const url = backendUrl(handler.url, backendPath, request.queryString);
    if (!url) {
      throw DomainError.of(ErrorCode.InvalidField, "Path-Header: must not leave the action's backend path (no /../, no %2e, %2f or %5c).", {
        field: 'Path-Header',
        invalidValue: backendPath,
      });
    }
    const headers: Record<string, string> = { accept: 'application/json' };
    for (const name of handler.forwardHeaders) {
      const value = request.headers[name];
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    Object.assign(headers, handler.headers);
    for (const name of Object.values(CALLER_HEADERS)) delete headers[name];
    headers[CALLER_HEADERS.projectKey] = projectKey;
    headers[CALLER_HEADERS.clientId] = request.principal.clientId;
    if (request.principal.customerId) headers[CALLER_HEADERS.customerId] = request.principal.customerId;
    const body = endpoint.method !== 'GET' && request.body !== undefined ? bodyText(request.body) : undefined;
    if (body !== undefined) headers['content-type'] = 'application/json';
    return this.backend.call({ method: endpoint.method, url, headers, body, timeoutMs: handler.timeoutMs ?? this.forwardTimeoutMs });
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

function bodyText(value: unknown): string {
  const result = jsonText(value);
  if ('problem' in result) throw DomainError.of(ErrorCode.InvalidInput, `The request body cannot be stored: ${result.problem}.`);
  return result.text;
}

/** A store value and its version (`ETag`); `null` when nothing was stored yet. */
function storedAnswer(stored: StoredValue | undefined): ActionAnswer {
  if (!stored) return { status: 200, headers: {}, json: 'null' };
  return { status: 200, headers: { etag: `"${stored.version}"` }, json: stored.json };
}
