import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DomainError } from '../common/domain-error.js';
import { toJsonText } from '../common/lossless-json.js';
import type { Principal } from '../common/principal.js';
import { validateBody } from '../common/validation/validation.pipe.js';
import { ExtensionGate } from '../extensions/extension-gate.js';
import type { ActiveExtension, ProjectExtensions } from '../extensions/extension-registry.js';
import type { TriggerAction } from '../extensions/extension.dto.js';
import { applyChanges, newResource, overwriteChanges, type ResourceValue } from './resource-preview.js';
import { UpdateRequestDto, type UpdateAction } from './resource.dto.js';
import type { Modifier } from './resource.entity.js';
import { ResourceRepository, type WrittenResource } from './resource.repository.js';
import { reduceActions, type ResourceChanges } from './update-actions.js';

/** A draft as a write by key takes it (collection POST/PUT/PATCH, an import line). */
export interface DraftValues {
  key?: string;
  /** The validated document, as a value (64-bit integers as `bigint`). */
  objectTypeProperty: unknown;
  publish?: boolean;
}

/**
 * A draft's write as its extensions see it: a create, or an overwrite of the stored resource at the version
 * read; the resource as the write would leave it (what conditions are evaluated on and what `obj` holds),
 * and the extensions that apply to it (none: the write takes its usual path).
 */
export type PlannedWrite =
  | { kind: 'Create'; id: string; draft: DraftValues; next: ResourceValue; applying: ActiveExtension[] }
  | { kind: 'Update'; id: string; version: number; changes: ResourceChanges; next: ResourceValue; applying: ActiveExtension[] };

/**
 * Writes that extensions have a say on (docs/extensions.md), shared by the collection writes and the import:
 * `plan` computes the resource as the draft would leave it and which extensions apply; `write` calls them
 * with nothing locked, adds their actions after the draft's, and writes with the version it read as the
 * expected version (a create: only if the key is still free), so a resource changed meanwhile ends 409 and
 * nothing is written.
 */
@Injectable()
export class ExtendedWrites {
  constructor(
    private readonly resources: ResourceRepository,
    private readonly gate: ExtensionGate,
  ) {}

  /** A draft's write over `current` (GET by id's value), or a create when there is none. */
  plan(extensions: ProjectExtensions, current: ResourceValue | undefined, draft: DraftValues, by: Modifier): PlannedWrite {
    if (current === undefined) {
      const id = randomUUID();
      const next = newResource(id, draft, by);
      return { kind: 'Create', id, draft, next, applying: extensions.applying('Create', next) };
    }
    const version = current.version as number;
    const changes = overwriteChanges(current, toJsonText(draft.objectTypeProperty), draft.publish ?? true);
    const next = applyChanges(current, changes, by, version + 1);
    return { kind: 'Update', id: String(current.id), version, changes, next, applying: extensions.applying('Update', next) };
  }

  /** Calls the planned write's extensions, then writes it with their actions; throws their error, or 409 when the resource changed meanwhile. */
  async write(projectKey: string, plan: PlannedWrite, by: Principal): Promise<WrittenResource> {
    if (plan.kind === 'Update') {
      const changes = await this.amend(plan.applying, 'Update', plan.next, by, plan.changes);
      const json = await this.resources.update(projectKey, plan.id, plan.version, changes, by);
      if (json) return { id: plan.id, json, created: false };
      throw DomainError.concurrentModification((await this.resources.findStateById(projectKey, plan.id))?.version ?? plan.version);
    }
    const { id, draft } = plan;
    const changes = await this.amend(plan.applying, 'Create', plan.next, by, { key: draft.key, publishImages: false, messages: [] });
    // A key the extensions' actions set or keep, and the old key their `setKey` messages name: the draft's.
    const messages = changes.messages.map((m) => (m.o === 'key' && draft.key !== undefined ? { t: m.t, p: [m.p, `"oldKey":${JSON.stringify(draft.key)}`].filter(Boolean).join(',') } : m));
    const written = await this.resources.createComplete(projectKey, {
      id,
      key: changes.key ?? undefined,
      published: changes.published ?? draft.publish ?? true,
      objectTypeProperty: changes.objectTypeProperty ?? toJsonText(draft.objectTypeProperty),
      someProperty: changes.someProperty,
      secondPropertyToUpdate: changes.secondPropertyToUpdate,
      messages,
    }, by);
    if (written) return { ...written, created: true };
    // The key was created by another writer while the extensions were called.
    const state = await this.resources.findStateByKey(projectKey, draft.key!);
    throw DomainError.concurrentModification(state?.version ?? 1);
  }

  /** `changes` followed by the actions the extensions answer about `next` (the client's messages, then the extensions'); throws their error. */
  async amend(applying: readonly ActiveExtension[], kind: TriggerAction, next: ResourceValue, by: Principal, changes: ResourceChanges): Promise<ResourceChanges> {
    const added = await this.gate.check(applying, kind, next, by.requestId ?? String(next.id), extensionActions);
    if (added.length === 0) return changes;
    return reduceActions({ actions: added }, { ...changes, messages: [...changes.messages] });
  }
}

/** An extension's actions, validated as a client's update actions are. */
const extensionActions = (actions: unknown[]): UpdateAction[] => validateBody(UpdateRequestDto, { version: 1, actions }).actions;
