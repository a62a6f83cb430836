import { parseJson } from '../common/lossless-json.js';
import type { Modifier } from './resource.entity.js';
import type { ResourceChanges } from './update-actions.js';

/*
 * The resource as a write would leave it, built in memory before the write (docs/extensions.md): what an
 * extension receives as `obj` and what its conditions are evaluated on. The shape is GET by id's (fields
 * in the catalogue's order, absent optional fields left out); 64-bit integers stay `bigint`.
 */

import type { ResourceValue } from '../extensions/condition.js';

export type { ResourceValue };

const now = () => new Date().toISOString();
const modifier = (by: Modifier) => (by.customerId !== undefined ? { clientId: by.clientId, customerId: by.customerId } : { clientId: by.clientId });

/** A resource in GET by id's member order, without absent members. */
function ordered(r: ResourceValue): ResourceValue {
  const out: ResourceValue = {};
  for (const name of ORDER) if (r[name] !== undefined && r[name] !== null) out[name] = r[name];
  return out;
}
const ORDER = ['id', 'key', 'version', 'createdAt', 'lastModifiedAt', 'createdBy', 'lastModifiedBy', 'published', 'objectTypeProperty', 'someProperty', 'secondPropertyToUpdate', 'images'];

/** A resource a create would write (version 1). */
export function newResource(id: string, draft: { key?: string; objectTypeProperty: unknown; publish?: boolean }, by: Modifier): ResourceValue {
  const at = now();
  return ordered({
    id,
    key: draft.key,
    version: 1,
    createdAt: at,
    lastModifiedAt: at,
    createdBy: modifier(by),
    lastModifiedBy: modifier(by),
    published: draft.publish ?? true,
    objectTypeProperty: draft.objectTypeProperty,
    images: [],
  });
}

/** A stored resource (GET by id's JSON text) as a value. */
export function storedResource(json: string): ResourceValue {
  return parseJson(json) as ResourceValue;
}

/** `resource` after `changes`; `version` is the one the write produces (the next, or 1 for a create). */
export function applyChanges(resource: ResourceValue, changes: ResourceChanges, by: Modifier, version: number): ResourceValue {
  const next: ResourceValue = { ...resource, version };
  if (version > 1) {
    next.lastModifiedAt = now();
    next.lastModifiedBy = modifier(by);
  }
  if (changes.someProperty !== undefined) next.someProperty = changes.someProperty;
  if (changes.secondPropertyToUpdate !== undefined) next.secondPropertyToUpdate = changes.secondPropertyToUpdate;
  if (changes.key !== undefined) next.key = changes.key ?? undefined;
  if (changes.objectTypeProperty !== undefined) next.objectTypeProperty = parseJson(changes.objectTypeProperty);
  if (changes.published !== undefined) next.published = changes.published;
  if (changes.publishImages && Array.isArray(resource.images)) next.images = resource.images.map((image) => ({ ...(image as object), staged: false }));
  return ordered(next);
}

/**
 * The resource as an update by `changes` to `version` leaves it, as far as the update decides it whatever
 * the stored resource holds (`known`): its id, version and modification, and the fields its actions set.
 * The others (and `images`, which `publish` changes from the stored ones) come from the stored resource.
 * Built for a condition's few reads: the modification time and the document only when read.
 */
export function decidedByUpdate(id: string, changes: ResourceChanges, by: Modifier, version: number): { partial: ResourceValue; known: (field: string) => boolean } {
  let document: unknown;
  const partial: ResourceValue = {
    id,
    version,
    get lastModifiedAt() {
      return now();
    },
    lastModifiedBy: modifier(by),
    someProperty: changes.someProperty,
    secondPropertyToUpdate: changes.secondPropertyToUpdate,
    key: changes.key ?? undefined,
    get objectTypeProperty() {
      if (changes.objectTypeProperty !== undefined) document ??= parseJson(changes.objectTypeProperty);
      return document;
    },
    published: changes.published,
  };
  return { partial, known: (field) => KNOWN_ALWAYS.has(field) || (KNOWN_WHEN_SET.has(field) && changes[field as keyof ResourceChanges] !== undefined) };
}
const KNOWN_ALWAYS = new Set(['id', 'version', 'lastModifiedAt', 'lastModifiedBy']);
const KNOWN_WHEN_SET = new Set(['someProperty', 'secondPropertyToUpdate', 'key', 'objectTypeProperty', 'published']);

/**
 * The changes of an overwrite by a draft (collection POST/PUT/PATCH of an existing key, an import line) as
 * update changes: the document set, and the flag with its message when it changes, the messages an
 * overwrite records (`ObjectTypePropertySet`, then `ResourcePublished`/`ResourceUnpublished`). Staged
 * images stay staged, as with an overwrite.
 */
export function overwriteChanges(current: ResourceValue, document: string, publish: boolean): ResourceChanges {
  const changes: ResourceChanges = {
    objectTypeProperty: document,
    published: publish,
    publishImages: false,
    messages: [{ t: 'ObjectTypePropertySet', p: `"objectTypeProperty":${document}` }],
  };
  if (current.published !== publish) changes.messages.push({ t: publish ? 'ResourcePublished' : 'ResourceUnpublished', p: '' });
  return changes;
}
