import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DomainError, ErrorDetail } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import { queryParam, RawQuery } from '../common/query-params.js';
import { ApiClientDto, ApiClientPageDto, CreatedApiClientDto, toApiClientDto } from './api-client.dto.js';
import { ApiClientsRepository, StoredApiClient } from './api-clients.repository.js';
import { generateSecret, hashSecret, verifySecret } from './secret-hash.js';
import { invalidClientScope, splitScopes } from './scopes.js';

export interface NewClient {
  id?: string;
  name: string;
  scope: string;
  customerId?: string;
  secret?: string;
}

/** Validates an API client draft `{name, scope, customerId?}` (CONTRACT.md §10). */
export function checkApiClientDraft(body: unknown, projectKey: string): NewClient {
  const errors: ErrorDetail[] = [];
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  for (const key of Object.keys(b)) {
    if (!['name', 'scope', 'customerId'].includes(key)) errors.push({ code: ErrorCode.InvalidField, message: `${key}: unknown field.`, field: key, invalidValue: b[key] });
  }
  const field = (name: string, pattern: RegExp, required: boolean, reason: string): string | undefined => {
    const value = b[name];
    if (value === undefined) {
      if (required) errors.push({ code: ErrorCode.RequiredField, message: `${name}: a value is required.`, field: name });
      return undefined;
    }
    if (typeof value !== 'string' || !pattern.test(value)) {
      errors.push({ code: ErrorCode.InvalidField, message: `${name}: ${reason}.`, field: name, invalidValue: value });
      return undefined;
    }
    return value;
  };
  const name = field('name', /^[^\u0000-\u001f]{1,256}$/, true, 'must be 1 to 256 printable characters');
  const scope = field('scope', /^[\w:\- ]{1,2048}$/, true, 'must be space-separated scopes');
  const customerId = field('customerId', /^[A-Za-z0-9_.@-]{1,256}$/, false, 'must be 1 to 256 characters of A-Z, a-z, 0-9, _ . @ -');
  const problem = scope === undefined ? undefined : invalidClientScope(scope, projectKey);
  if (problem) errors.push({ code: ErrorCode.InvalidField, message: `scope: ${problem}.`, field: 'scope', invalidValue: scope });
  if (errors.length > 0) throw new DomainError(errors);
  return { name: name!, scope: splitScopes(scope).join(' '), customerId };
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

  async list(projectKey: string, query: RawQuery): Promise<ApiClientPageDto> {
    const limit = queryParam.wholeNumber(query, 'limit', 0, 500) ?? 20;
    const offset = queryParam.wholeNumber(query, 'offset', 0, 10_000) ?? 0;
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

  /** The client of these credentials, or undefined (unknown id and wrong secret look the same). */
  async authenticate(id: string, secret: string): Promise<StoredApiClient | undefined> {
    const client = await this.clients.findById(id);
    if (!client || !(await verifySecret(secret, client.secretHash))) return undefined;
    await this.clients.touch(id);
    return client;
  }
}
