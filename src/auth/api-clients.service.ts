import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import type { PageQueryDto } from '../common/page-query.dto.js';
import type { Principal } from '../common/principal.js';
import { ApiClientDraftDto, ApiClientDto, ApiClientPageDto, CreatedApiClientDto, toApiClientDto } from './api-client.dto.js';
import { ApiClientsRepository, type StoredApiClient } from './api-clients.repository.js';
import { DUMMY_SECRET_HASH, generateSecret, hashSecret, verifySecret } from './secret-hash.js';
import { insufficientScope } from './auth.errors.js';
import { authConfig, type AuthConfig } from './auth.config.js';
import { type ClientScopes, invalidClientScope, invalidCustomerScope, lackingScopes, splitScopes } from './scopes.js';

interface NewClient {
  id?: string;
  name: string;
  scope: string;
  customerId?: string;
  secret?: string;
}

/** The operator: the server creating the bootstrap and demo clients at start, and the CLI. */
export const OPERATOR = 'operator';

/**
 * Who creates or deletes a client: an API client, which may grant only what it holds itself (the
 * bootstrap client excepted), or the operator, which may grant any scope of the project.
 */
type ClientManager = Principal | typeof OPERATOR;

/**
 * A validated draft as a new client: its scopes must all be of `projectKey`, and a customer-bound
 * client holds neither `manage_test` nor `manage_api_clients` (either would lift the restriction to
 * its customer: see `invalidCustomerScope`). Rules of the project and of the combination, not of the
 * body's shape, so they are checked here rather than by the DTO; they bind the operator too.
 */
export function toNewClient(draft: ApiClientDraftDto, projectKey: string): NewClient {
  const problem = invalidClientScope(draft.scope, projectKey) ?? (draft.customerId ? invalidCustomerScope(draft.scope) : undefined);
  if (problem) {
    throw DomainError.of(ErrorCode.InvalidField, `scope: ${problem}.`, { field: 'scope', invalidValue: draft.scope });
  }
  return { name: draft.name, scope: splitScopes(draft.scope).join(' '), customerId: draft.customerId };
}

@Injectable()
export class ApiClientsService {
  constructor(
    private readonly clients: ApiClientsRepository,
    @Inject(authConfig.KEY) private readonly config: Pick<AuthConfig, 'bootstrap'>,
  ) {}

  async create(projectKey: string, client: NewClient, by: ClientManager): Promise<CreatedApiClientDto> {
    this.assertWithin(by, client, 'create');
    const secret = client.secret ?? generateSecret();
    const stored = await this.clients.insert({
      id: client.id ?? randomBytes(12).toString('hex'),
      projectKey,
      name: client.name,
      secretHash: await hashSecret(secret),
      scope: client.scope,
      customerId: client.customerId ?? null,
    });
    if (!stored) throw DomainError.of(ErrorCode.DuplicateField, `An API client with the id '${client.id}' exists.`, { field: 'id', duplicateValue: client.id });
    return { ...toApiClientDto(stored), secret };
  }

  async list(projectKey: string, { limit, offset }: PageQueryDto): Promise<ApiClientPageDto> {
    const { results, total } = await this.clients.list(projectKey, limit, offset);
    return { limit, offset, count: results.length, total, results: results.map(toApiClientDto) };
  }

  async get(projectKey: string, id: string): Promise<ApiClientDto> {
    const client = await this.clients.findById(id);
    if (!client || client.projectKey !== projectKey) throw DomainError.notFound(`The API client '${id}' was not found.`);
    return toApiClientDto(client);
  }

  async delete(projectKey: string, id: string, by: ClientManager): Promise<ApiClientDto> {
    const client = await this.clients.findById(id);
    if (!client || client.projectKey !== projectKey) throw DomainError.notFound(`The API client '${id}' was not found.`);
    this.assertWithin(by, client, 'delete');
    const deleted = await this.clients.delete(projectKey, id);
    if (!deleted) throw DomainError.notFound(`The API client '${id}' was not found.`);
    return toApiClientDto(deleted);
  }

  /**
   * 403 `insufficient_scope` naming what `by` lacks, unless every scope of `client` is among its own
   * (`lackingScopes`). The operator and the bootstrap client (BOOTSTRAP_CLIENT_ID, the project's first
   * administrator) may create and delete clients with any scope of the project.
   */
  private assertWithin(by: ClientManager, client: ClientScopes, action: 'create' | 'delete'): void {
    if (by === OPERATOR || by.clientId === this.config.bootstrap?.clientId) return;
    const lacking = lackingScopes(by.scopeSet, client).join(' ');
    if (lacking === '') return;
    const bound = by.customerId ? ` (the caller holds its scopes for customer '${by.customerId}' only)` : '';
    throw insufficientScope(`An API client may ${action} only clients whose scopes are all among its own${bound}; the caller lacks ${lacking}.`, lacking);
  }

  /**
   * The client of these credentials, or undefined. An unknown id and a wrong secret look the same, and
   * take the same time: an unknown id's secret is verified against a dummy hash of the same cost.
   * `hashing` runs the one scrypt (the token endpoints bound how many run at once).
   */
  async authenticate(id: string, secret: string, hashing: <T>(task: () => Promise<T>) => Promise<T> = (task) => task()): Promise<StoredApiClient | undefined> {
    const client = await this.clients.findById(id);
    const matches = await hashing(() => verifySecret(secret, client?.secretHash ?? DUMMY_SECRET_HASH));
    if (!client || !matches) return undefined;
    await this.clients.touch(id);
    return client;
  }
}
