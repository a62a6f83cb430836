import { DomainError, ErrorDetail } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import { checkArrayTestType, checkString, isPlainObject, toJsonText, Violations } from './array-test-type.validator.js';
import { asVersion, checkKey } from './resource-draft.js';

export const MAX_ACTIONS = 500;

/**
 * The update actions (CONTRACT.md §4) and the fields each takes. Every action sets fields of the
 * resource, so an ordered list reduces to one set of assignments: the last writer of a field wins.
 */
const ACTION_FIELDS = {
  doSomeThing: [],
  changeSomeProperty: ['someProperty'],
  importFooForSecondPropertyToUpdate: ['secondPropertyToUpdate'],
  setKey: ['key'],
  setObjectTypeProperty: ['objectTypeProperty'],
  publish: [],
  unpublish: [],
} as const satisfies Record<string, readonly string[]>;

export type ActionName = keyof typeof ACTION_FIELDS;
export const ACTION_NAMES = Object.keys(ACTION_FIELDS) as ActionName[];

/** The net effect of an action list: `undefined` leaves a field as it is, `null` clears it. */
export interface ResourceChanges {
  someProperty?: string;
  secondPropertyToUpdate?: string;
  key?: string | null;
  objectTypeProperty?: string;
  published?: boolean;
  /** A `publish` action makes staged images current. */
  publishImages: boolean;
}

export interface UpdateRequest {
  version: number;
  actionCount: number;
  changes: ResourceChanges;
}

export function checkUpdateRequest(body: unknown): UpdateRequest {
  if (!isPlainObject(body)) throw invalid('', body, 'the body must be a JSON object with version and actions');
  const violations = new Violations();
  violations.unknownMembers(body, ['version', 'actions'], '');
  let version: number | undefined;
  if (body.version === undefined) violations.required('version');
  else if ((version = asVersion(body.version)) === undefined) {
    violations.invalid('version', body.version, 'must be a whole number from 1');
  }
  const actions = body.actions;
  if (actions === undefined) violations.required('actions');
  else if (!Array.isArray(actions)) violations.invalid('actions', actions, 'must be an array');
  else if (actions.length > MAX_ACTIONS) violations.invalid('actions', actions.length, `must have at most ${MAX_ACTIONS} actions`);
  if (violations.list.length > 0) throw new DomainError(violations.list);
  const list = actions as unknown[];
  return { version: version!, actionCount: list.length, changes: reduceActions(list) };
}

function reduceActions(actions: unknown[]): ResourceChanges {
  const changes: ResourceChanges = { publishImages: false };
  actions.forEach((action, index) => {
    const path = `actions[${index}]`;
    if (!isPlainObject(action)) throw actionError(index, invalidDetail(path, action, 'must be an object'));
    const name = action.action;
    if (typeof name !== 'string' || !(name in ACTION_FIELDS)) {
      throw actionError(
        index,
        name === undefined
          ? { code: ErrorCode.RequiredField, message: `${path}.action: a value is required.`, field: `${path}.action` }
          : invalidDetail(`${path}.action`, name, `unknown action; known actions: ${ACTION_NAMES.join(', ')}`),
      );
    }
    const violations = new Violations();
    violations.unknownMembers(action, ['action', ...ACTION_FIELDS[name as ActionName]], path);
    applyAction(name as ActionName, action, path, violations, changes);
    if (violations.list.length > 0) throw actionError(index, violations.list[0], violations.list);
  });
  return changes;
}

function applyAction(
  name: ActionName,
  action: Record<string, unknown>,
  path: string,
  violations: Violations,
  changes: ResourceChanges,
): void {
  const required = (field: string): unknown => {
    if (action[field] === undefined) violations.required(`${path}.${field}`);
    return action[field];
  };
  switch (name) {
    case 'doSomeThing':
      return;
    case 'changeSomeProperty': {
      const value = required('someProperty');
      if (value !== undefined) changes.someProperty = checkString(value, `${path}.someProperty`, violations);
      return;
    }
    case 'importFooForSecondPropertyToUpdate': {
      const value = required('secondPropertyToUpdate');
      if (value !== undefined) {
        changes.secondPropertyToUpdate = checkString(value, `${path}.secondPropertyToUpdate`, violations);
      }
      return;
    }
    case 'setKey':
      changes.key = action.key === undefined || action.key === null ? null : checkKey(action.key, `${path}.key`, violations);
      return;
    case 'setObjectTypeProperty': {
      const value = required('objectTypeProperty');
      if (value === undefined) return;
      const otp = checkArrayTestType(value, `${path}.objectTypeProperty`, violations, { partial: false });
      if (otp) changes.objectTypeProperty = toJsonText(otp, violations);
      return;
    }
    case 'publish':
      changes.published = true;
      changes.publishImages = true;
      return;
    case 'unpublish':
      changes.published = false;
      return;
  }
}

function invalidDetail(field: string, value: unknown, reason: string): ErrorDetail {
  return { code: ErrorCode.InvalidField, message: `${field}: ${reason}.`, field, invalidValue: value };
}

function invalid(field: string, value: unknown, reason: string): DomainError {
  return new DomainError([invalidDetail(field, value, reason)]);
}

/** An action's error names its index: `errors[0].actionIndex` and a message starting `actions[i]:`. */
function actionError(index: number, first: ErrorDetail, all: ErrorDetail[] = [first]): DomainError {
  const errors = all.map((detail) => {
    const message = `actions[${index}]: ${detail.message.replace(`actions[${index}].`, '')}`;
    return { ...detail, message, actionIndex: index };
  });
  return new DomainError(errors);
}
