import { toJsonText } from '../common/lossless-json.js';
import type { MessageType } from '../query-language/message.catalogue.js';
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
  /** The messages of the write, one per action in action order (docs/change-log-and-subscriptions.md#change-log). */
  messages: ActionMessage[];
}

/**
 * A message of an update action: its type `t` (one of the catalogue's, so a misspelt or retired type does
 * not compile) and payload `p` (the type's members as JSON text without
 * braces). `o` names the field whose value before the write the message also carries (`oldSomeProperty`,
 * `oldKey`): the statement adds it from the row, read under its lock. When an earlier action of the same
 * list set that field, the old value is that action's, and `p` has it already.
 */
export interface ActionMessage {
  t: MessageType;
  p: string;
  o?: 'someProperty' | 'key';
}

/**
 * Every update action (docs/api-guide.md#update-with-actions) sets fields of the resource, so a validated, ordered list
 * reduces to one set of assignments: the last writer of a field wins, and the whole list is one
 * conditional UPDATE (all or nothing). `changes`: the effect of earlier changes of the same write, which the
 * actions follow (an overwrite, or the client's actions that an extension's follow).
 */
export function reduceActions(request: Pick<UpdateRequestDto, 'actions'>, changes: ResourceChanges = { publishImages: false, messages: [] }): ResourceChanges {
  for (const action of request.actions) {
    changes.messages.push(message(action, changes));
    apply(action, changes);
  }
  return changes;
}

/** `"name":<JSON of value>`, or nothing when the value is absent. */
const member = (name: string, value: string | null | undefined): string[] => (value == null ? [] : [`"${name}":${JSON.stringify(value)}`]);

/** The action's message; `changes` is the net effect of the actions before it. */
function message(action: UpdateAction, changes: ResourceChanges): ActionMessage {
  switch (action.action) {
    case 'doSomeThing':
      return { t: 'SomeThingDone', p: '' };
    case 'changeSomeProperty':
      return changes.someProperty === undefined
        ? { t: 'SomePropertyChanged', p: member('someProperty', action.someProperty).join(), o: 'someProperty' }
        : { t: 'SomePropertyChanged', p: [...member('someProperty', action.someProperty), ...member('oldSomeProperty', changes.someProperty)].join() };
    case 'importFooForSecondPropertyToUpdate':
      return { t: 'SecondPropertyToUpdateImported', p: member('secondPropertyToUpdate', action.secondPropertyToUpdate).join() };
    case 'setKey':
      return changes.key === undefined
        ? { t: 'KeySet', p: member('key', action.key).join(), o: 'key' }
        : { t: 'KeySet', p: [...member('key', action.key), ...member('oldKey', changes.key)].join() };
    case 'setObjectTypeProperty':
      return { t: 'ObjectTypePropertySet', p: `"objectTypeProperty":${toJsonText(action.objectTypeProperty)}` };
    case 'publish':
      return { t: 'ResourcePublished', p: '' };
    case 'unpublish':
      return { t: 'ResourceUnpublished', p: '' };
  }
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
