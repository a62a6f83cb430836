import { DomainError } from '../common/domain-error.js';
import { checkArrayTestType, isPlainObject, toJsonText, Violations } from './array-test-type.validator.js';

export const KEY_PATTERN = /^[A-Za-z0-9_-]{2,256}$/;

/** A checked ObjectTestTypeDraft (body of POST, PUT and PATCH /resource). */
export interface ResourceDraft {
  /** JSON text of `objectTypeProperty`, exact for 64-bit integers. */
  objectTypeProperty: string;
  key?: string;
  version?: number;
  publish: boolean;
}

const DRAFT_MEMBERS = ['objectTypeProperty', 'key', 'version', 'publish'] as const;

export function checkKey(value: unknown, path: string, violations: Violations): string | undefined {
  if (typeof value === 'string' && KEY_PATTERN.test(value)) return value;
  violations.invalid(path, value, 'must be 2 to 256 characters of A-Z, a-z, 0-9, _ and -');
  return undefined;
}

export function checkVersion(value: unknown, path: string, violations: Violations): number | undefined {
  const version = asVersion(value);
  if (version === undefined) violations.invalid(path, value, 'must be a whole number from 1');
  return version;
}

/** A resource version: a whole number ≥ 1 within int32 (`3.0` counts). */
export function asVersion(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 2_147_483_647 ? value : undefined;
}

export function checkDraft(body: unknown, options: { keyRequired: boolean }): ResourceDraft {
  const violations = new Violations();
  if (!isPlainObject(body)) {
    violations.invalid('', body, 'the body must be a JSON object');
    throw new DomainError(violations.list, 'The request body must be a JSON object.');
  }
  violations.unknownMembers(body, DRAFT_MEMBERS, '');
  const draft: Partial<ResourceDraft> = { publish: true };
  if (body.objectTypeProperty === undefined) {
    violations.required('objectTypeProperty');
  } else {
    const value = checkArrayTestType(body.objectTypeProperty, 'objectTypeProperty', violations, { partial: false });
    if (value) draft.objectTypeProperty = toJsonText(value, violations);
  }
  if (body.key !== undefined) draft.key = checkKey(body.key, 'key', violations);
  else if (options.keyRequired) violations.required('key');
  if (body.version !== undefined) draft.version = checkVersion(body.version, 'version', violations);
  if (body.publish !== undefined) {
    if (typeof body.publish === 'boolean') draft.publish = body.publish;
    else violations.invalid('publish', body.publish, 'must be a boolean');
  }
  throwIfAny(violations);
  return draft as ResourceDraft;
}

/**
 * A possibly partial ObjectTestType used as a containment pattern (`objectParameter`,
 * `unionParameter`, `Test-Header`): `{version?, objectTypeProperty?}` with partial arrays.
 */
export interface ObjectPattern {
  version?: number;
  objectTypeProperty?: string;
}

export function checkObjectPattern(value: unknown, path: string, violations: Violations): ObjectPattern | undefined {
  if (!isPlainObject(value)) {
    violations.invalid(path, value, 'must be a JSON object');
    return undefined;
  }
  violations.unknownMembers(value, ['version', 'objectTypeProperty'], path);
  const pattern: ObjectPattern = {};
  if (value.version !== undefined) pattern.version = checkVersion(value.version, `${path}.version`, violations);
  if (value.objectTypeProperty !== undefined) {
    const otp = checkArrayTestType(value.objectTypeProperty, `${path}.objectTypeProperty`, violations, { partial: true });
    if (otp) pattern.objectTypeProperty = toJsonText(otp, violations);
  }
  return pattern;
}

export function throwIfAny(violations: Violations): void {
  if (violations.list.length > 0) {
    const count = violations.list.length;
    throw new DomainError(
      violations.list,
      count === 1 ? violations.list[0].message : `The request has ${count} invalid fields; see errors.`,
    );
  }
}
