import { DomainError } from '../common/domain-error.js';
import { parseJson } from '../common/lossless-json.js';
import { validateBody } from '../common/validation/validation.pipe.js';
import { MAX_UPDATE_ACTIONS, UpdateRequestDto } from './resource.dto.js';
import { reduceActions } from './update-actions.js';

/** UpdateRequestDto and reduceActions: request shape, reduction of the action list (last writer wins), action errors. */

function checkUpdateRequest(body: unknown) {
  const request = validateBody(UpdateRequestDto, body);
  const { messages, ...changes } = reduceActions(request);
  expect(messages).toHaveLength(request.actions.length);
  return { version: request.version, actionCount: request.actions.length, changes };
}

const ARRAYS = {
  arrayOfIntExample: [1, 2, 2],
  arrayOfUniqueIntExample: [1, 2, 3],
  arrayOfTwonumbersExample: [1.5, 2.5],
  arrayOfFloatExample: [0.5],
  arrayOfNumberNoDefaultsExample: [1500],
  arrayOfStringExample: ['test'],
  arrayOfObjectType: [{ integerExample: 1, integerExampleInt32: 2 }],
};

function failure(body: unknown): DomainError {
  try {
    checkUpdateRequest(body);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).status).toBe(400);
    return error as DomainError;
  }
  throw new Error(`accepted ${JSON.stringify(body)}`);
}

describe('the messages of an action list (docs/change-log-and-subscriptions.md#change-log)', () => {
  const messagesOf = (actions: unknown[]) => reduceActions(validateBody(UpdateRequestDto, { version: 1, actions })).messages;

  it('gives one message per action, in order, with the new value and where the old one comes from', () => {
    expect(
      messagesOf([
        { action: 'doSomeThing' },
        { action: 'changeSomeProperty', someProperty: 'a' },
        { action: 'changeSomeProperty', someProperty: 'b"c' },
        { action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: 's' },
        { action: 'setKey', key: 'k-1' },
        { action: 'setKey' },
        { action: 'setKey', key: 'k-2' },
        { action: 'publish' },
        { action: 'unpublish' },
      ]),
    ).toEqual([
      { t: 'SomeThingDone', p: '' },
      { t: 'SomePropertyChanged', p: '"someProperty":"a"', o: 'someProperty' },
      { t: 'SomePropertyChanged', p: '"someProperty":"b\\"c","oldSomeProperty":"a"' },
      { t: 'SecondPropertyToUpdateImported', p: '"secondPropertyToUpdate":"s"' },
      { t: 'KeySet', p: '"key":"k-1"', o: 'key' },
      { t: 'KeySet', p: '"oldKey":"k-1"' },
      { t: 'KeySet', p: '"key":"k-2"' },
      { t: 'ResourcePublished', p: '' },
      { t: 'ResourceUnpublished', p: '' },
    ]);
  });

  it('keeps 64-bit integers of setObjectTypeProperty exact', () => {
    const request = validateBody(UpdateRequestDto, parseJson(`{"version":1,"actions":[{"action":"setObjectTypeProperty","objectTypeProperty":${JSON.stringify(ARRAYS).replace('[1,2,2]', '[9223372036854775807]')}}]}`));
    expect(reduceActions(request).messages[0].p).toContain('"arrayOfIntExample":[9223372036854775807]');
  });
});

describe('checkUpdateRequest', () => {
  describe('reduction of the action list', () => {
    it.each<[string, unknown[], Record<string, unknown>]>([
      ['no actions', [], { publishImages: false }],
      ['doSomeThing changes no field', [{ action: 'doSomeThing' }], { publishImages: false }],
      ['changeSomeProperty', [{ action: 'changeSomeProperty', someProperty: 'a' }], { someProperty: 'a', publishImages: false }],
      [
        'last changeSomeProperty wins',
        [
          { action: 'changeSomeProperty', someProperty: 'a' },
          { action: 'doSomeThing' },
          { action: 'changeSomeProperty', someProperty: 'b' },
        ],
        { someProperty: 'b', publishImages: false },
      ],
      [
        'importFooForSecondPropertyToUpdate',
        [{ action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: 'x' }],
        { secondPropertyToUpdate: 'x', publishImages: false },
      ],
      ['setKey', [{ action: 'setKey', key: 'k-1' }], { key: 'k-1', publishImages: false }],
      ['setKey without key removes it', [{ action: 'setKey' }], { key: null, publishImages: false }],
      ['setKey then setKey without key', [{ action: 'setKey', key: 'k-1' }, { action: 'setKey' }], { key: null, publishImages: false }],
      ['setKey without key then setKey', [{ action: 'setKey' }, { action: 'setKey', key: 'k-2' }], { key: 'k-2', publishImages: false }],
      ['publish sets published and publishImages', [{ action: 'publish' }], { published: true, publishImages: true }],
      ['unpublish', [{ action: 'unpublish' }], { published: false, publishImages: false }],
      ['publish then unpublish: unpublished, staged images still published', [{ action: 'publish' }, { action: 'unpublish' }], { published: false, publishImages: true }],
      ['unpublish then publish', [{ action: 'unpublish' }, { action: 'publish' }], { published: true, publishImages: true }],
      [
        'independent fields combine',
        [
          { action: 'changeSomeProperty', someProperty: 'a' },
          { action: 'importFooForSecondPropertyToUpdate', secondPropertyToUpdate: 'b' },
          { action: 'setKey', key: 'kk' },
        ],
        { someProperty: 'a', secondPropertyToUpdate: 'b', key: 'kk', publishImages: false },
      ],
    ])('%s', (_name, actions, changes) => {
      const request = checkUpdateRequest({ version: 3, actions });
      expect(request.version).toBe(3);
      expect(request.actionCount).toBe(actions.length);
      expect(request.changes).toEqual(changes);
    });

    it('setObjectTypeProperty keeps 64-bit integers exact in its JSON text', () => {
      const body = parseJson(
        `{"version": 1, "actions": [{"action": "setObjectTypeProperty", "objectTypeProperty": ${JSON.stringify({
          ...ARRAYS,
          arrayOfObjectType: [{ integerExample: 0, integerExampleInt32: 1 }],
        }).replace('"integerExample":0', '"integerExample":9223372036854775807')}}]}`,
      );
      const { changes } = checkUpdateRequest(body);
      expect(typeof changes.objectTypeProperty).toBe('string');
      expect(changes.objectTypeProperty).toContain('"integerExample":9223372036854775807');
      expect(parseJson(changes.objectTypeProperty!)).toMatchObject({ arrayOfObjectType: [{ integerExample: 9223372036854775807n }] });
    });

    it('the last setObjectTypeProperty wins', () => {
      const { changes } = checkUpdateRequest({
        version: 1,
        actions: [
          { action: 'setObjectTypeProperty', objectTypeProperty: { ...ARRAYS, arrayOfStringExample: ['first'] } },
          { action: 'setObjectTypeProperty', objectTypeProperty: { ...ARRAYS, arrayOfStringExample: ['second'] } },
        ],
      });
      expect(JSON.parse(changes.objectTypeProperty!).arrayOfStringExample).toEqual(['second']);
    });

    it(`accepts ${MAX_UPDATE_ACTIONS} actions`, () => {
      const actions = Array.from({ length: MAX_UPDATE_ACTIONS }, (_, i) => ({ action: 'changeSomeProperty', someProperty: `v${i}` }));
      const request = checkUpdateRequest({ version: 1, actions });
      expect(request.actionCount).toBe(MAX_UPDATE_ACTIONS);
      expect(request.changes.someProperty).toBe(`v${MAX_UPDATE_ACTIONS - 1}`);
    });

    it('version 2.0 counts as the whole number 2', () => {
      expect(checkUpdateRequest(parseJson('{"version": 2.0, "actions": []}')).version).toBe(2);
    });
  });

  describe('request shape errors', () => {
    it.each<[string, unknown, string, string]>([
      ['version missing', { actions: [] }, 'RequiredField', 'version'],
      ['actions missing', { version: 1 }, 'RequiredField', 'actions'],
      ['version as a string', { version: '1', actions: [] }, 'InvalidField', 'version'],
      ['version 0', { version: 0, actions: [] }, 'InvalidField', 'version'],
      ['version 1.5', { version: 1.5, actions: [] }, 'InvalidField', 'version'],
      ['version negative', { version: -1, actions: [] }, 'InvalidField', 'version'],
      ['actions not an array', { version: 1, actions: {} }, 'InvalidField', 'actions'],
      ['too many actions', { version: 1, actions: Array.from({ length: MAX_UPDATE_ACTIONS + 1 }, () => ({ action: 'doSomeThing' })) }, 'InvalidField', 'actions'],
      ['unknown member', { version: 1, actions: [], extra: true }, 'InvalidField', 'extra'],
    ])('%s → 400 %s on %s', (_name, body, code, field) => {
      const error = failure(body);
      expect(error.errors).toEqual(expect.arrayContaining([expect.objectContaining({ code, field })]));
    });

    it('lists every shape problem at once', () => {
      const error = failure({ extra: 1 });
      expect(error.errors.map((e) => e.field).sort()).toEqual(['actions', 'extra', 'version']);
    });

    it.each([null, [], 'text', 42, true])('a body that is not an object (%j) → 400 InvalidField', (body) => {
      expect(failure(body).errors[0].code).toBe('InvalidField');
    });
  });

  describe('action errors name the index', () => {
    it.each<[string, unknown[], number, string, string]>([
      ['unknown action', [{ action: 'doSomeThing' }, { action: 'doSomeThing' }, { action: 'nope' }], 2, 'InvalidField', 'actions[2].action'],
      ['action name missing', [{ someProperty: 'x' }], 0, 'RequiredField', 'actions[0].action'],
      ['action name not a string', [{ action: 5 }], 0, 'InvalidField', 'actions[0].action'],
      ['action not an object', [{ action: 'doSomeThing' }, 'publish'], 1, 'InvalidField', 'actions[1]'],
      ['unknown field in an action', [{ action: 'doSomeThing' }, { action: 'publish', foo: 1 }], 1, 'InvalidField', 'actions[1].foo'],
      ['field of another action', [{ action: 'changeSomeProperty', someProperty: 'a', key: 'kk' }], 0, 'InvalidField', 'actions[0].key'],
      ['changeSomeProperty without someProperty', [{ action: 'changeSomeProperty' }], 0, 'RequiredField', 'actions[0].someProperty'],
      ['changeSomeProperty with a number', [{ action: 'changeSomeProperty', someProperty: 5 }], 0, 'InvalidField', 'actions[0].someProperty'],
      ['importFoo… without its field', [{ action: 'importFooForSecondPropertyToUpdate' }], 0, 'RequiredField', 'actions[0].secondPropertyToUpdate'],
      ['setKey with a bad key', [{ action: 'doSomeThing' }, { action: 'setKey', key: 'a' }], 1, 'InvalidField', 'actions[1].key'],
      ['setObjectTypeProperty without its field', [{ action: 'setObjectTypeProperty' }], 0, 'RequiredField', 'actions[0].objectTypeProperty'],
      [
        'setObjectTypeProperty with a bad pair',
        [{ action: 'setObjectTypeProperty', objectTypeProperty: { ...ARRAYS, arrayOfTwonumbersExample: [] } }],
        0,
        'InvalidField',
        'actions[0].objectTypeProperty.arrayOfTwonumbersExample',
      ],
    ])('%s', (_name, actions, index, code, field) => {
      const error = failure({ version: 1, actions });
      expect(error.errors[0]).toMatchObject({ code, field, actionIndex: index });
      expect(error.errors[0].message.startsWith(`actions[${index}]:`)).toBe(true);
      expect(error.message.startsWith(`actions[${index}]:`)).toBe(true);
    });

    it('the first failing action is reported (index 1, not 3)', () => {
      const error = failure({ version: 1, actions: [{ action: 'doSomeThing' }, { action: 'bad' }, { action: 'doSomeThing' }, { action: 'worse' }] });
      expect(error.errors.every((e) => e.actionIndex === 1)).toBe(true);
    });

    it('every violation of one action carries its index and prefix', () => {
      const error = failure({
        version: 1,
        actions: [
          { action: 'doSomeThing' },
          { action: 'setObjectTypeProperty', objectTypeProperty: { ...ARRAYS, arrayOfTwonumbersExample: [1], arrayOfStringExample: [1], unknown: [] } },
        ],
      });
      expect(error.errors.length).toBeGreaterThanOrEqual(3);
      for (const detail of error.errors) {
        expect(detail.actionIndex).toBe(1);
        expect(detail.message.startsWith('actions[1]:')).toBe(true);
        expect(String(detail.field)).toMatch(/^actions\[1\]\.objectTypeProperty\./);
      }
    });

    it('shape errors take precedence over action errors', () => {
      const error = failure({ actions: [{ action: 'nope' }] });
      expect(error.errors[0]).toMatchObject({ code: 'RequiredField', field: 'version' });
      expect(error.errors[0].actionIndex).toBeUndefined();
    });
  });
});
