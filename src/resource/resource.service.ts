import { Injectable } from '@nestjs/common';
import type { WhenSent } from '../common/answer-sent.js';
import { DomainError } from '../common/domain-error.js';
import { ListAnswers } from '../database/list-answers.js';
import type { Principal } from '../common/principal.js';
import { toJsonText } from '../common/lossless-json.js';
import { ResourceRepository, type UpsertInput, type WrittenResource } from './resource.repository.js';
import { KeyedObjectTestTypeDraftDto, ObjectTestTypeDraftDto, UpdateRequestDto } from './resource.dto.js';
import { KEY_PATTERN } from '../common/object-key.js';
import { buildResourceFilter, GetResourcesQueryDto, HeadResourcesQueryDto } from './resource-filter.js';
import { reduceActions, type ResourceChanges } from './update-actions.js';
import { ExtensionGate } from '../extensions/extension-gate.js';
import type { ProjectExtensions } from '../extensions/extension-registry.js';
import { applyChanges, decidedByUpdate, type ResourceValue, storedResource } from './resource-preview.js';
import { ExtendedWrites } from './extended-writes.js';
import { ResourceErrors } from './resource.errors.js';

/**
 * Resources are answered as JSON text built by the database (see `RESOURCE_JSON`). Ids reach this
 * service as UUIDs: the `{id}` routes match nothing else (`@ParamPatterns`).
 */
@Injectable()
export class ResourceService {
  constructor(
    private readonly resources: ResourceRepository,
    private readonly answers: ListAnswers,
    private readonly extensions: ExtensionGate,
    private readonly extended: ExtendedWrites,
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
  async merge(projectKey: string, query: GetResourcesQueryDto, whenSent: WhenSent): Promise<{ json: string; total: number }> {
    const filter = buildResourceFilter(query, projectKey, 2);
    return this.answers.build(projectKey, whenSent, async (max) => {
      const { json, total } = await this.resources.merge(projectKey, filter, max);
      if (json === null) throw ResourceErrors.mergeTooLarge(max);
      return { json, total };
    });
  }

  async assertAnyMatches(projectKey: string, query: HeadResourcesQueryDto): Promise<void> {
    if (!(await this.resources.exists(projectKey, buildResourceFilter(query, projectKey, 2)))) {
      throw ResourceErrors.noMatch();
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
    const extensions = await this.extensions.of(projectKey);
    if (extensions.triggers.Create || extensions.triggers.Update) {
      const written = await this.createOrReplaceExtended(projectKey, draft, by, extensions);
      if (written) return written;
    }
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
    throw version === undefined ? ResourceErrors.gone() : DomainError.concurrentModification(version);
  }

  /** PATCH /resource: replace the resource with the draft's key, which must exist. */
  async replaceExisting(projectKey: string, draft: KeyedObjectTestTypeDraftDto, by: Principal): Promise<WrittenResource> {
    const extensions = await this.extensions.of(projectKey);
    if (extensions.triggers.Update) {
      const json = await this.resources.findJsonByKey(projectKey, draft.key);
      if (!json) notFoundByKey(draft.key);
      const extended = await this.overwriteExtended(projectKey, storedResource(json), draft, by, extensions);
      if (extended) return extended;
    }
    const written = await this.resources.replaceByKey(projectKey, draft.key, upsertInput(draft), by);
    if (written) return written;
    const state = await this.resources.findStateByKey(projectKey, draft.key);
    if (!state) notFoundByKey(draft.key);
    throw DomainError.concurrentModification(state.version);
  }

  /** POST /resource/{id}: the actions in order, all or nothing, as one conditional UPDATE. */
  async update(projectKey: string, id: string, request: UpdateRequestDto, by: Principal): Promise<string> {
    if (request.actions.length > 0) {
      const extensions = await this.extensions.of(projectKey);
      const changes = reduceActions(request);
      const written = !extensions.triggers.Update || extensions.noneApplies('Update', decidedByUpdate(id, changes, by, request.version + 1))
        ? changes
        : await this.updateExtended(projectKey, id, request.version, changes, by, extensions);
      const json = await this.resources.update(projectKey, id, request.version, written, by);
      if (json) return json;
    }
    const state = await this.resources.findStateById(projectKey, id);
    if (!state) notFound(id);
    if (state.version !== request.version) throw DomainError.concurrentModification(state.version);
    return state.json;
  }

  /*
   * Writes that extensions may have a say on (ExtendedWrites): with no extension applying, the write takes
   * its usual path.
   */

  /** POST/PUT /resource with extensions of the project: undefined when none applies (the usual path follows). */
  private async createOrReplaceExtended(projectKey: string, draft: ObjectTestTypeDraftDto, by: Principal, extensions: ProjectExtensions): Promise<WrittenResource | undefined> {
    const currentJson = draft.key === undefined ? undefined : await this.resources.findJsonByKey(projectKey, draft.key);
    if (currentJson !== undefined) {
      if (!extensions.triggers.Update) return undefined;
      const current = storedResource(currentJson);
      if (by.customerOnly && (current.createdBy as { customerId?: string }).customerId !== by.customerId) notFoundByKey(draft.key!);
      return this.overwriteExtended(projectKey, current, draft, by, extensions);
    }
    if (!extensions.triggers.Create) return undefined;
    const plan = this.extended.plan(extensions, undefined, draft, by);
    return plan.applying.length === 0 ? undefined : this.extended.write(projectKey, plan, by);
  }

  /** An overwrite of `current` by a draft: undefined when no extension applies. */
  private async overwriteExtended(projectKey: string, current: ResourceValue, draft: ObjectTestTypeDraftDto, by: Principal, extensions: ProjectExtensions): Promise<WrittenResource | undefined> {
    if (draft.version !== undefined && draft.version !== current.version) throw DomainError.concurrentModification(current.version as number);
    const plan = this.extended.plan(extensions, current, draft, by);
    return plan.applying.length === 0 ? undefined : this.extended.write(projectKey, plan, by);
  }

  /**
   * POST /resource/{id} when an extension may apply: the changes to write, the extensions' actions included.
   * When the actions alone show that none applies (`noneApplies`), the update takes its usual path: no read.
   */
  private async updateExtended(projectKey: string, id: string, version: number, changes: ResourceChanges, by: Principal, extensions: ProjectExtensions): Promise<ResourceChanges> {
    const state = await this.resources.stateOf(projectKey, id);
    if (!state) notFound(id);
    if (state.version !== version) throw DomainError.concurrentModification(state.version);
    const next = applyChanges(storedResource(state.json), changes, by, state.version + 1);
    const applying = extensions.applying('Update', next);
    return applying.length === 0 ? changes : this.extended.amend(applying, 'Update', next, by, changes);
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
  throw ResourceErrors.notFound(id);
}

function notFoundByKey(key: string): never {
  throw ResourceErrors.keyNotFound(key);
}
