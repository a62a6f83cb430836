import { KeyedObjectTestTypeDraftDto, ObjectTestTypeDraftDto, ARRAY_TEST_TYPE_EXAMPLE, UpdateRequestDto } from '../resource/resource.dto.js';
import { SubscriptionDraftDto, SubscriptionUpdateDto } from '../subscriptions/subscription.dto.js';
import { DomainError } from './domain-error.js';
import { KEY_PATTERN } from './object-key.js';
import { validateBody } from './validation/validation.pipe.js';

/*
 * The key of a resource and of a subscription (docs/rules.md#addressing-and-input): one rule, one message, in every
 * body that carries a key: drafts and the `setKey` actions of both.
 */

const MESSAGE = 'must be 2 to 256 characters of A-Z, a-z, 0-9, _ and -';
const SUBSCRIPTION_DRAFT = { destination: { type: 'HTTP', url: 'https://example.com/hook' }, changes: [{ resourceTypeId: 'resource' }] };

/** Each body class with a body carrying `key`, and the path of `key` in its errors. */
const CARRIERS: Array<[string, (key: unknown) => unknown, new () => object, string]> = [
  ['resource draft (POST)', (key) => ({ key, objectTypeProperty: ARRAY_TEST_TYPE_EXAMPLE }), ObjectTestTypeDraftDto, 'key'],
  ['resource draft (PUT, PATCH)', (key) => ({ key, objectTypeProperty: ARRAY_TEST_TYPE_EXAMPLE }), KeyedObjectTestTypeDraftDto, 'key'],
  ['resource setKey', (key) => ({ version: 1, actions: [{ action: 'setKey', key }] }), UpdateRequestDto, 'actions[0].key'],
  ['subscription draft', (key) => ({ key, ...SUBSCRIPTION_DRAFT }), SubscriptionDraftDto, 'key'],
  ['subscription setKey', (key) => ({ version: 1, actions: [{ action: 'setKey', key }] }), SubscriptionUpdateDto, 'actions[0].key'],
];

function errorsOf(dto: new () => object, body: unknown): DomainError['errors'] {
  try {
    validateBody(dto, body);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return (error as DomainError).errors;
  }
  return [];
}

describe('the key of a resource or a subscription', () => {
  const valid = ['ab', 'A-z_09', 'k'.repeat(256)];
  const invalid = ['a', 'k'.repeat(257), 'with space', 'dot.ted', 'ümlaut', 12345];

  it.each(CARRIERS)('%s accepts 2 to 256 characters of [A-Za-z0-9_-]', (_name, body, dto) => {
    for (const key of valid) expect(errorsOf(dto, body(key))).toEqual([]);
  });

  it.each(CARRIERS)('%s refuses anything else with the one message', (_name, body, dto, field) => {
    for (const key of invalid) {
      expect(errorsOf(dto, body(key))).toEqual([expect.objectContaining({ code: 'InvalidField', field, message: expect.stringContaining(MESSAGE) })]);
    }
  });

  it.each(CARRIERS.filter(([name]) => name.endsWith('setKey')))('%s removes the key when it is null or absent', (_name, _body, dto) => {
    expect(errorsOf(dto, { version: 1, actions: [{ action: 'setKey', key: null }] })).toEqual([]);
    expect(errorsOf(dto, { version: 1, actions: [{ action: 'setKey' }] })).toEqual([]);
  });

  it('is the pattern the service checks a key of a path against', () => {
    expect(valid.every((key) => KEY_PATTERN.test(key))).toBe(true);
    expect(invalid.some((key) => typeof key === 'string' && KEY_PATTERN.test(key))).toBe(false);
  });
});
