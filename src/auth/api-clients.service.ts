import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import type { PageQueryDto } from '../common/page-query.dto.js';
import { ApiClientDraftDto, ApiClientDto, ApiClientPageDto, CreatedApiClientDto, toApiClientDto } from './api-client.dto.js';
import { ApiClientsRepository, type StoredApiClient } from './api-clients.repository.js';
import { DUMMY_SECRET_HASH, generateSecret, hashSecret, verifySecret } from './secret-hash.js';
import { invalidClientScope, invalidCustomerScope, splitScopes } from './scopes.js';

export interface NewClient {
  id?: string;
  name: string;
  scope: string;
  customerId?: string;
  secret?: string;
}

/**
 * A validated draft as a new client: its scopes must all be of `projectKey`, and a customer-bound
 * client holds no `manage_test` (CONTRACT.md §10: `manage_test` grants every write without the
 * customer restriction, so together they would make the binding meaningless). Rules of the project and
 * of the combination, not of the body's shape, so they are checked here rather than by the DTO.
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
  constructor(private readonly clients: ApiClientsRepository) {}

  async create(projectKey: string, client: NewClient): Promise<CreatedApiClientDto> {
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

  async delete(projectKey: string, id: string): Promise<ApiClientDto> {
    const client = await this.clients.delete(projectKey, id);
    if (!client) throw DomainError.notFound(`The API client '${id}' was not found.`);
    return toApiClientDto(client);
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
