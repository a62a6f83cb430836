import { Injectable } from '@nestjs/common';
import type { WhenSent } from '../common/answer-sent.js';
import { DomainError } from '../common/domain-error.js';
import { tooLarge } from '../database/bounded-list.js';
import { ListAnswers } from '../database/list-answers.js';
import type { Principal } from '../common/principal.js';
import { toJsonText } from '../common/lossless-json.js';
import { ResourceRepository, type UpsertInput, type WrittenResource } from './resource.repository.js';
import { KEY_PATTERN, KeyedObjectTestTypeDraftDto, ObjectTestTypeDraftDto, UpdateRequestDto } from './resource.dto.js';
import { buildResourceFilter, GetResourcesQueryDto, HeadResourcesQueryDto } from './resource-filter.js';
import { reduceActions } from './update-actions.js';

/**
 * Resources are answered as JSON text built by the database (see `RESOURCE_JSON`). Ids reach this
 * service as UUIDs: the `{id}` routes match nothing else (`@ParamPatterns`).
 */
@Injectable()
export class ResourceService {
  constructor(
    private readonly resources: ResourceRepository,
    private readonly answers: ListAnswers,
  ) {}

  async getById(projectKey: string, id: string): Promise<string> {
    return (await this.resources.findJsonById(projectKey, id)) ?? notFound(id);
  }

  async getByKey(projectKey: string, key: string): Promise<string> {
    const json = KEY_PATTERN.test(key) ? await this.resources.findJsonByKey(projectKey, key) : undefined;
    return json ?? notFoundByKey(key);
  }

  /**
   * GET /resource: the merge and the match count; 400 past HTTP_MAX_RESPONSE_BYTES (docs/rules.md#limits). Built within the
   * project's share of memory until the answer has been sent (ListAnswers).
   */
  async query(projectKey: string, query: GetResourcesQueryDto, whenSent: WhenSent): Promise<{ json: string; total: number }> {
    const filter = buildResourceFilter(query, projectKey, 2);
    return this.answers.build(projectKey, whenSent, async (max) => {
      const { json, total } = await this.resources.merge(projectKey, filter, max);
      if (json === null) throw tooLarge(max, 'narrow the filter so that fewer resources are merged');
      return { json, total };
    });
  }

  async assertAnyMatches(projectKey: string, query: HeadResourcesQueryDto): Promise<void> {
    if (!(await this.resources.exists(projectKey, buildResourceFilter(query, projectKey, 2)))) {
      throw DomainError.notFound('No resource matches the query.');
    }
  }

  /**
   * POST and PUT /resource: create, or replace the resource with the draft's key (docs/api-guide.md#create).
   * The checks (version, owner) and the write are one statement; when it writes nothing, a read tells
   * the client why. When nothing stood in the way (the key was taken or freed by another writer in
   * between), the statement runs again.
   */
  async createOrReplace(projectKey: string, draft: ObjectTestTypeDraftDto, by: Principal): Promise<WrittenResource> {
    const input = { ...upsertInput(draft), ownerCustomerId: by.customerOnly ? by.customerId : undefined };
    if (input.key === undefined) return this.resources.create(projectKey, input, by);
    let version: number | undefined;
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const written = await this.resources.upsert(projectKey, input, by);
      if (written) return written;
      const state = await this.resources.findStateByKey(projectKey, draft.key!);
      if (!state) continue;
      if (by.customerOnly && state.customerId !== by.customerId) notFoundByKey(draft.key!);
      if (input.expectedVersion !== undefined && state.version !== input.expectedVersion) throw DomainError.concurrentModification(state.version);
      version = state.version;
    }
    throw version === undefined ? DomainError.notFound() : DomainError.concurrentModification(version);
  }

  /** PATCH /resource: replace the resource with the draft's key, which must exist. */
  async replaceExisting(projectKey: string, draft: KeyedObjectTestTypeDraftDto, by: Principal): Promise<WrittenResource> {
    const written = await this.resources.replaceByKey(projectKey, draft.key, upsertInput(draft), by);
    if (written) return written;
    const state = await this.resources.findStateByKey(projectKey, draft.key);
    if (!state) notFoundByKey(draft.key);
    throw DomainError.concurrentModification(state.version);
  }

  /** POST /resource/{id}: the actions in order, all or nothing, as one conditional UPDATE. */
  async update(projectKey: string, id: string, request: UpdateRequestDto, by: Principal): Promise<string> {
    if (request.actions.length > 0) {
      const json = await this.resources.update(projectKey, id, request.version, reduceActions(request), by);
      if (json) return json;
    }
    const state = await this.resources.findStateById(projectKey, id);
    if (!state) notFound(id);
    if (state.version !== request.version) throw DomainError.concurrentModification(state.version);
    return state.json;
  }

  async delete(projectKey: string, id: string, version: number | undefined, by: Principal): Promise<string> {
    const json = await this.resources.delete(projectKey, id, version, by);
    if (json) return json;
    const state = await this.resources.findStateById(projectKey, id);
    if (!state) notFound(id);
    throw DomainError.concurrentModification(state.version);
  }
}

/** How often a create-or-replace runs when other writers keep taking or freeing the key in between. */
const WRITE_ATTEMPTS = 5;

/** A validated draft as the repository writes it; `version` is the expected version of an update. */
function upsertInput(draft: ObjectTestTypeDraftDto | KeyedObjectTestTypeDraftDto): UpsertInput {
  return {
    key: draft.key,
    objectTypeProperty: toJsonText(draft.objectTypeProperty),
    publish: draft.publish ?? true,
    expectedVersion: draft.version,
  };
}

function notFound(id: string): never {
  throw DomainError.notFound(`The resource with ID '${id}' was not found.`);
}

function notFoundByKey(key: string): never {
  throw DomainError.notFound(`The resource with key '${key}' was not found.`);
}
