import fc from 'fast-check';
import { DomainError } from '../common/domain-error.js';
import { buildEcho, checkPathParameters, ECHOED_BODY_FIELDS, numberOf, toFormUrlEncoded } from './complex-path-echo.js';
import { dateTimeProblem } from './complex-path.dto.js';

const BODY = {
  id: 'i', version: 'v', key: 'k', createdAt: 'c', lastModifiedAt: 'l',
  createdBy: { firstName: 'cf', lastName: 'cl' }, lastModifiedBy: { firstName: 'lf', lastName: 'll' },
  custom: 'cu', eigthProperty: '8', ninthProperty: '9', tenthProperty: '10', eleventhPropery: '11', twelthProperty: '12',
  thirteenthProperty: '13', fourteenthProperty: '14', fifteenthProperty: '15',
};

describe('buildEcho', () => {
  it('lists the path, the query and the body strings in the documented order', () => {
    const echo = buildEcho({ uriParameterOne: 'one', uriParameterTwo: 'two', queryParameterOne: '1.5', queryParameterTwo: 'q', body: BODY, revision: 3, count: 2 });
    expect(echo).toEqual({
      arrayOfIntExample: [],
      arrayOfUniqueIntExample: [],
      arrayOfTwonumbersExample: [3, 2],
      arrayOfFloatExample: [1.5],
      arrayOfNumberNoDefaultsExample: [],
      arrayOfStringExample: ['one', 'two', 'q', 'i', 'v', 'k', 'c', 'l', 'cf', 'cl', 'lf', 'll', 'cu', '8', '9', '10', '11', '12', '13', '14', '15'],
      arrayOfObjectType: [],
    });
    expect(ECHOED_BODY_FIELDS).toHaveLength(18);
  });

  it('leaves out absent query parameters', () => {
    const echo = buildEcho({ uriParameterOne: 'a', uriParameterTwo: 'b', body: BODY, revision: 1, count: 1 });
    expect(echo.arrayOfStringExample.slice(0, 3)).toEqual(['a', 'b', 'i']);
    expect(echo.arrayOfFloatExample).toEqual([]);
  });

  it.each([
    ['1.5', 1.5],
    ['-3', -3],
    ['9007199254740993', 9007199254740993n],
    ['-9223372036854775808', -9223372036854775808n],
    ['1e+300', 1e300],
  ])('numberOf(%s) = %p', (text, value) => {
    expect(numberOf(text)).toBe(value);
  });
});

describe('toFormUrlEncoded', () => {
  it.each([
    ['repeated keys for an array', { a: [1, 2] }, 'a=1&a=2'],
    ['an empty array as name=', { a: [], b: ['x'] }, 'a=&b=x'],
    ['objects with indexes', { arrayOfObjectType: [{ integerExample: 1, integerExampleInt32: 2 }, { integerExample: 9223372036854775807n }] }, 'arrayOfObjectType[0][integerExample]=1&arrayOfObjectType[0][integerExampleInt32]=2&arrayOfObjectType[1][integerExample]=9223372036854775807'],
    ['values percent-encoded, spaces as +', { s: ['a b&c=d/e', 'ä', '+%'] }, 's=a+b%26c%3Dd%2Fe&s=%C3%A4&s=%2B%25'],
    ['a scalar member', { n: 5 }, 'n=5'],
  ])('%s', (_label, object, text) => {
    expect(toFormUrlEncoded(object as Record<string, unknown>)).toBe(text);
  });

  it('property: non-empty string arrays parse back with URLSearchParams', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[A-Za-z]{1,8}$/), fc.array(fc.string(), { minLength: 1, maxLength: 5 })), (object) => {
        const parsed = new URLSearchParams(toFormUrlEncoded(object));
        for (const [name, values] of Object.entries(object)) expect(parsed.getAll(name)).toEqual(values);
      }),
    );
  });
});

describe('checkPathParameters', () => {
  it.each([
    ['a', 'b', []],
    ['x'.repeat(200), 'y', []],
    ['x'.repeat(201), 'y', ['uriParameterOne']],
    ['a\u0000', '', ['uriParameterOne', 'uriParameterTwo']],
  ])('%p, %p → invalid %p', (one, two, fields) => {
    let error: unknown;
    try {
      checkPathParameters({ uriParameterOne: one, uriParameterTwo: two });
    } catch (e) {
      error = e;
    }
    if (fields.length === 0) return expect(error).toBeUndefined();
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).errors.map((e) => e.field)).toEqual(fields);
    expect((error as DomainError).status).toBe(400);
  });
});

describe('dateTimeProblem', () => {
  it.each(['2026-01-31T12:00:00Z', '2026-01-31T12:00:00.123Z', '2026-01-31T12:00:00+02:00', '2024-02-29T00:00:00.123456789-05:30'])(
    '%s is a date-time',
    (value) => {
      expect(dateTimeProblem(value)).toBeUndefined();
    },
  );

  it.each(['2026-01-31', '2026-01-31T12:00:00', '2026-01-31T12:00Z', '2026-13-01T00:00:00Z', '2025-02-29T00:00:00Z', '2026-01-31 12:00:00Z', '2026-01-31t12:00:00z', 'yesterday', 20260131, null])(
    '%p is not',
    (value) => {
      expect(dateTimeProblem(value)).toMatch(/^must be an ISO 8601 date-time/);
    },
  );
});
