import { DomainError, type ErrorDetail } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import { parseJson } from '../common/lossless-json.js';
import { toObjectPattern } from '../common/object-pattern.js';
import { accepts } from '../common/accept-header.js';

/** `Path-Header` begins with a slash (docs/rules.md#namespace-actions). */
const PATH_HEADER_PATTERN = /^\/.*$/;

/**
 * What a `Path-Header` may not contain: a climb (`..`), a path parameter (`;`: `/..;/admin` is a climb
 * to a Java backend or a proxy before it), encoded dots, slashes or backslashes (decoded into a climb
 * after this check), a backslash (a slash to some backends).
 */
const PATH_HEADER_FORBIDDEN = /\.\.|;|%2e|%2f|%5c|\\/i;

interface ActionHeaders {
  accept?: string;
  testHeader?: string;
  pathHeader?: string;
}

/**
 * The request headers of `namespace-action-with-headers` (docs/rules.md#namespace-actions): an `Accept` that
 * excludes application/json → 406, checked first (absent → application/json); then every header
 * problem at once (400): `Test-Header` and `Path-Header` required, `Path-Header` matching `^/.*$`
 * without `..`, `;`, `%2e`, `%2f`, `%5c` or a backslash (InvalidField),
 * `Test-Header` JSON of a possibly partial ObjectTestType whose present fields are valid.
 * Returns the backend path (`Path-Header`).
 */
export function checkActionHeaders({ accept, testHeader, pathHeader }: ActionHeaders): string {
  if (!accepts(accept, 'application/json')) {
    throw DomainError.of(ErrorCode.NotAcceptable, 'This endpoint answers application/json only; the Accept header excludes it.');
  }
  const errors: ErrorDetail[] = [];
  if (testHeader === undefined) {
    errors.push(required('Test-Header'));
  } else {
    errors.push(...testHeaderErrors(testHeader));
  }
  if (pathHeader === undefined) {
    errors.push(required('Path-Header'));
  } else if (!PATH_HEADER_PATTERN.test(pathHeader)) {
    errors.push(invalid('Path-Header', pathHeader, 'must match ^/.*$ (begin with a slash)'));
  } else if (PATH_HEADER_FORBIDDEN.test(pathHeader)) {
    errors.push(invalid('Path-Header', pathHeader, "must not contain '..', ';', '%2e', '%2f', '%5c' or a backslash"));
  }
  if (errors.length > 0) {
    throw new DomainError(errors, errors.length === 1 ? errors[0].message : `The request has ${errors.length} invalid headers; see errors.`);
  }
  return pathHeader!;
}

function testHeaderErrors(text: string): ErrorDetail[] {
  let value: unknown;
  try {
    value = parseJson(text);
  } catch {
    return [invalid('Test-Header', text, 'must be JSON of an ObjectTestType')];
  }
  try {
    toObjectPattern(value, 'Test-Header');
    return [];
  } catch (error) {
    if (error instanceof DomainError) return error.errors;
    throw error;
  }
}

function required(field: string): ErrorDetail {
  return { code: ErrorCode.RequiredField, message: `${field}: a value is required.`, field };
}

function invalid(field: string, value: unknown, reason: string): ErrorDetail {
  return { code: ErrorCode.InvalidField, message: `${field}: ${reason}.`, field, invalidValue: value };
}
