import { DomainError, type ErrorDetail } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import { MAX_KEY_LENGTH } from './complex-path.dto.js';

/*
 * The complex-path answer (docs/api-guide.md#complex-path): an ArrayTestType echoing how the request
 * was decoded, as JSON or form-encoded. Pure functions.
 */

/** The body's string fields in the order of the API description's table. */
export const ECHOED_BODY_FIELDS = [
  'id',
  'version',
  'key',
  'createdAt',
  'lastModifiedAt',
  'createdBy.firstName',
  'createdBy.lastName',
  'lastModifiedBy.firstName',
  'lastModifiedBy.lastName',
  'custom',
  'eigthProperty',
  'ninthProperty',
  'tenthProperty',
  'eleventhPropery',
  'twelthProperty',
  'thirteenthProperty',
  'fourteenthProperty',
  'fifteenthProperty',
] as const;

interface EchoInput {
  uriParameterOne: string;
  uriParameterTwo: string;
  /** Canonical number text (exact for integers of any size), when given. */
  queryParameterOne?: string;
  queryParameterTwo?: string;
  body: object;
  /** 1 on create, +1 per replace. */
  revision: number;
  /** Records stored under this uriParameterOne/uriParameterTwo. */
  count: number;
}

export type ArrayTestType = {
  arrayOfIntExample: unknown[];
  arrayOfUniqueIntExample: unknown[];
  arrayOfTwonumbersExample: number[];
  arrayOfFloatExample: Array<number | bigint>;
  arrayOfNumberNoDefaultsExample: unknown[];
  arrayOfStringExample: string[];
  arrayOfObjectType: Array<Record<string, unknown>>;
};

function field(body: object, path: string): string {
  return path.split('.').reduce<unknown>((value, name) => (value as Record<string, unknown>)[name], body) as string;
}

/** A number from canonical number text: exact (`bigint`) beyond 2^53. */
export function numberOf(text: string): number | bigint {
  const value = Number(text);
  return /^-?\d+$/.test(text) && !Number.isSafeInteger(value) ? BigInt(text) : value;
}

export function buildEcho(input: EchoInput): ArrayTestType {
  return {
    arrayOfIntExample: [],
    arrayOfUniqueIntExample: [],
    arrayOfTwonumbersExample: [input.revision, input.count],
    arrayOfFloatExample: input.queryParameterOne === undefined ? [] : [numberOf(input.queryParameterOne)],
    arrayOfNumberNoDefaultsExample: [],
    arrayOfStringExample: [
      input.uriParameterOne,
      input.uriParameterTwo,
      ...(input.queryParameterTwo === undefined ? [] : [input.queryParameterTwo]),
      ...ECHOED_BODY_FIELDS.map((path) => field(input.body, path)),
    ],
    arrayOfObjectType: [],
  };
}

/** WHATWG application/x-www-form-urlencoded encoding of one value (space → `+`). */
function encodeValue(value: unknown): string {
  return new URLSearchParams([['', String(value)]]).toString().slice(1);
}

/**
 * Form-encodes an object of arrays: `name=v1&name=v2` per array, objects in arrays as
 * `name[i][member]=v`, an empty array as `name=`. Names are written as they are (they are ASCII
 * identifiers); values are percent-encoded.
 */
export function toFormUrlEncoded(object: Record<string, unknown>): string {
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(object)) {
    if (!Array.isArray(value)) {
      pairs.push(`${name}=${encodeValue(value)}`);
    } else if (value.length === 0) {
      pairs.push(`${name}=`);
    } else {
      value.forEach((item, index) => {
        if (typeof item === 'object' && item !== null) {
          for (const [member, memberValue] of Object.entries(item)) pairs.push(`${name}[${index}][${member}]=${encodeValue(memberValue)}`);
        } else {
          pairs.push(`${name}=${encodeValue(item)}`);
        }
      });
    }
  }
  return pairs.join('&');
}

/** The path parameters as the router decoded them: 1–200 characters without NUL; 400 otherwise. */
export function checkPathParameters(parameters: Record<'uriParameterOne' | 'uriParameterTwo', string>): void {
  const errors: ErrorDetail[] = [];
  for (const [name, value] of Object.entries(parameters)) {
    if (value.length === 0 || value.length > MAX_KEY_LENGTH || value.includes('\u0000')) {
      errors.push({
        code: ErrorCode.InvalidField,
        message: `${name}: must be 1 to ${MAX_KEY_LENGTH} characters without NUL characters.`,
        field: name,
        invalidValue: value.slice(0, 64),
      });
    }
  }
  if (errors.length > 0) throw new DomainError(errors, errors.length === 1 ? errors[0].message : 'Both path parameters are invalid; see errors.');
}
