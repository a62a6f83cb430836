import { toJsonText } from '../common/lossless-json.js';
import type { UpdateAction, UpdateRequestDto } from './resource.dto.js';

/** The net effect of an action list: `undefined` leaves a field as it is, `null` clears it. */
export interface ResourceChanges {
  someProperty?: string;
  secondPropertyToUpdate?: string;
  key?: string | null;
  /** JSON text, exact for 64-bit integers. */
  objectTypeProperty?: string;
  published?: boolean;
  /** A `publish` action makes staged images current. */
  publishImages: boolean;
}

/**
 * Every update action (CONTRACT.md §4) sets fields of the resource, so a validated, ordered list
 * reduces to one set of assignments: the last writer of a field wins, and the whole list is one
 * conditional UPDATE (all or nothing).
 */
export function reduceActions(request: UpdateRequestDto): ResourceChanges {
  const changes: ResourceChanges = { publishImages: false };
  for (const action of request.actions) apply(action, changes);
  return changes;
}

function apply(action: UpdateAction, changes: ResourceChanges): void {
  switch (action.action) {
    case 'doSomeThing':
      return;
    case 'changeSomeProperty':
      changes.someProperty = action.someProperty;
      return;
    case 'importFooForSecondPropertyToUpdate':
      changes.secondPropertyToUpdate = action.secondPropertyToUpdate;
      return;
    case 'setKey':
      changes.key = action.key ?? null;
      return;
    case 'setObjectTypeProperty':
      changes.objectTypeProperty = toJsonText(action.objectTypeProperty);
      return;
    case 'publish':
      changes.published = true;
      changes.publishImages = true;
      return;
    case 'unpublish':
      changes.published = false;
      return;
  }
}
