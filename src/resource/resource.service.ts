import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/domain-error.js';
import { queryParam, RawQuery } from '../common/query-params.js';
import type { Principal } from '../common/principal.js';
import { ResourceRepository, WrittenResource } from './resource.repository.js';
import { checkDraft, KEY_PATTERN } from './resource-draft.js';
import { buildResourceFilter } from './resource-filter.js';
import { checkUpdateRequest } from './update-actions.js';


/**
 * Resources are answered as JSON text built by the database (see `RESOURCE_JSON`). Ids reach this
 * service as UUIDs: the `{id}` routes match nothing else (`@ParamPatterns`).
 */
@Injectable()
export class ResourceService {
  constructor(private readonly resources: ResourceRepository) {}

  async getById(projectKey: string, id: string): Promise<string> {
    return (await this.resources.findJsonById(projectKey, id)) ?? notFound(id);
  }

  async getByKey(projectKey: string, key: string): Promise<string> {
    const json = KEY_PATTERN.test(key) ? await this.resources.findJsonByKey(projectKey, key) : undefined;
    return json ?? notFoundByKey(key);
  }

  query(projectKey: string, query: RawQuery): Promise<{ json: string; total: number }> {
    return this.resources.merge(projectKey, buildResourceFilter(query, 'get', 2));
  }

  async assertAnyMatches(projectKey: string, query: RawQuery): Promise<void> {
    if (!(await this.resources.exists(projectKey, buildResourceFilter(query, 'head', 2)))) {
      throw DomainError.notFound('No resource matches the query.');
    }
  }

  /**
   * POST and PUT /resource: create, or replace the resource with the draft's key (CONTRACT.md §2).
   * The checks (version, owner) and the write are one statement; when it writes nothing, a read
   * tells the client why. A resource deleted in between is simply created on the next attempt.
   */
  async createOrReplace(projectKey: string, body: unknown, by: Principal, keyRequired: boolean): Promise<WrittenResource> {
    const draft = checkDraft(body, { keyRequired });
    const input = { ...draft, ownerCustomerId: by.customerOnly ? by.customerId : undefined, expectedVersion: draft.version };
    for (let attempt = 0; attempt < 3; attempt++) {
      const written = await this.resources.upsert(projectKey, input, by);
      if (written) return written;
      const state = await this.resources.findStateByKey(projectKey, draft.key!);
      if (state) {
        if (by.customerOnly && state.customerId !== by.customerId) notFoundByKey(draft.key!);
        throw DomainError.concurrentModification(state.version);
      }
    }
    throw DomainError.notFound();
  }

  /** PATCH /resource: replace the resource with the draft's key, which must exist. */
  async replaceExisting(projectKey: string, body: unknown, by: Principal): Promise<WrittenResource> {
    const draft = checkDraft(body, { keyRequired: true });
    const written = await this.resources.replaceByKey(projectKey, draft.key!, { ...draft, expectedVersion: draft.version }, by);
    if (written) return written;
    const state = await this.resources.findStateByKey(projectKey, draft.key!);
    if (!state) notFoundByKey(draft.key!);
    throw DomainError.concurrentModification(state.version);
  }

  /** POST /resource/{id}: the actions in order, all or nothing, as one conditional UPDATE. */
  async update(projectKey: string, id: string, body: unknown, by: Principal): Promise<string> {
    const request = checkUpdateRequest(body);
    if (request.actionCount > 0) {
      const json = await this.resources.update(projectKey, id, request.version, request.changes, by);
      if (json) return json;
    }
    const state = await this.resources.findStateById(projectKey, id);
    if (!state) notFound(id);
    if (state.version !== request.version) throw DomainError.concurrentModification(state.version);
    return state.json;
  }

  async delete(projectKey: string, id: string, query: RawQuery): Promise<string> {
    const version = queryParam.wholeNumber(query, 'version', 1, 2_147_483_647);
    const json = await this.resources.delete(projectKey, id, version);
    if (json) return json;
    const state = await this.resources.findStateById(projectKey, id);
    if (!state) notFound(id);
    throw DomainError.concurrentModification(state.version);
  }
}

function notFound(id: string): never {
  throw DomainError.notFound(`The resource with ID '${id}' was not found.`);
}

function notFoundByKey(key: string): never {
  throw DomainError.notFound(`The resource with key '${key}' was not found.`);
}
