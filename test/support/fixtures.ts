import { ARRAY_TEST_TYPE_EXAMPLE } from '../../src/resource/resource.dto.js';

/** The seven arrays of an ArrayTestType, in the API description's order (written out here, not taken from src/). */
export const ARRAY_FIELDS = [
  'arrayOfIntExample',
  'arrayOfUniqueIntExample',
  'arrayOfTwonumbersExample',
  'arrayOfFloatExample',
  'arrayOfNumberNoDefaultsExample',
  'arrayOfStringExample',
  'arrayOfObjectType',
] as const;

/** A resource as the API answers it (the members the tests read). */
export interface ResourceBody {
  id: string;
  key?: string;
  version: number;
  createdAt: string;
  lastModifiedAt: string;
  published: boolean;
  someProperty?: string;
  secondPropertyToUpdate?: string;
  objectTypeProperty: Record<string, unknown[]>;
  images: unknown[];
  [member: string]: unknown;
}

/** A valid ArrayTestType (a copy of the OpenAPI document's example, which tests cannot change); override members per test. */
export function arrays(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...structuredClone(ARRAY_TEST_TYPE_EXAMPLE), ...overrides };
}

/** A valid ObjectTestTypeDraft. */
export function draft(overrides: Record<string, unknown> = {}, arrayOverrides: Record<string, unknown> = {}) {
  return { objectTypeProperty: arrays(arrayOverrides), ...overrides };
}

/**
 * Sends `body` as raw JSON text, so 64-bit integers reach the server exactly (JSON.stringify in
 * supertest would round them). Use with `.set('Content-Type', 'application/json').send(rawJson(...))`.
 */
export const INT64_MAX = '9223372036854775807';
export const INT64_MIN = '-9223372036854775808';
