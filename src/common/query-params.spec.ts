import { DomainError } from './domain-error.js';
import { canonicalInt64, canonicalNumber, queryParam, RawQuery } from './query-params.js';

/** Typed readers of query parameters: canonical text for numbers, 400 DomainError for bad values. */

function expectBadParameter(read: () => unknown, name: string): void {
  let error: unknown;
  try {
    read();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(DomainError);
  const domain = error as DomainError;
  expect(domain.status).toBe(400);
  expect(domain.errors[0].code).toBe('InvalidField');
  expect(domain.errors[0].field).toBe(name);
  expect(domain.errors[0].message).toMatch(new RegExp(`^Malformed parameter: ${name.replace('.', '\\.')}: `));
}

describe('canonicalInt64', () => {
  it.each([
    ['0', '0'],
    ['5', '5'],
    ['+5', '5'],
    ['-0', '0'],
    ['007', '7'],
    ['5.0', '5'],
    ['5.', '5'],
    ['-12.000', '-12'],
    ['9223372036854775807', '9223372036854775807'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['9223372036854775807.0', '9223372036854775807'],
  ])('%s → %s', (raw, expected) => {
    expect(canonicalInt64(raw)).toBe(expected);
  });

  it.each(['', ' ', 'abc', '5.5', '1e3', '0x10', ' 5', '5 ', '--5', '9223372036854775808', '-9223372036854775809', '99999999999999999999', 'NaN', 'Infinity'])(
    '%j → undefined',
    (raw) => {
      expect(canonicalInt64(raw)).toBeUndefined();
    },
  );
});

describe('canonicalNumber', () => {
  it.each([
    ['10', '10'],
    ['10.0', '10'],
    ['1.50', '1.5'],
    ['.5', '0.5'],
    ['-0.25', '-0.25'],
    ['1e3', '1000'],
    ['1.5E-3', '0.0015'],
    ['+2', '2'],
    ['9223372036854775807', '9223372036854775807'],
    ['-9223372036854775808', '-9223372036854775808'],
  ])('%s → %s', (raw, expected) => {
    expect(canonicalNumber(raw)).toBe(expected);
  });

  it.each(['', 'abc', '1e400', '-1e400', 'NaN', 'Infinity', '0x10', '1,5', '1.2.3', ' 1', 'e5'])('%j → undefined', (raw) => {
    expect(canonicalNumber(raw)).toBeUndefined();
  });
});

describe('queryParam', () => {
  describe('strings (repeatable)', () => {
    it.each<[RawQuery, string[]]>([
      [{}, []],
      [{ a: 'x' }, ['x']],
      [{ a: ['x', 'y', 'x'] }, ['x', 'y', 'x']],
      [{ a: '' }, ['']],
    ])('%j → %j', (query, expected) => {
      expect(queryParam.strings(query, 'a')).toEqual(expected);
    });

    it('rejects non-string values', () => {
      expectBadParameter(() => queryParam.strings({ a: { nested: 'x' } }, 'a'), 'a');
      expectBadParameter(() => queryParam.strings({ a: ['x', { y: 1 }] }, 'a'), 'a');
    });
  });

  describe('string (at most once)', () => {
    it('reads one value or undefined', () => {
      expect(queryParam.string({ a: 'x' }, 'a')).toBe('x');
      expect(queryParam.string({}, 'a')).toBeUndefined();
    });
    it('rejects a repeated parameter', () => {
      expectBadParameter(() => queryParam.string({ a: ['x', 'y'] }, 'a'), 'a');
    });
  });

  describe('number', () => {
    it.each([
      ['1.0', '1'],
      ['2.5', '2.5'],
      ['9223372036854775807', '9223372036854775807'],
    ])('%s → %s', (raw, expected) => {
      expect(queryParam.number({ floatParameter: raw }, 'floatParameter')).toBe(expected);
    });
    it('absent → undefined', () => {
      expect(queryParam.number({}, 'floatParameter')).toBeUndefined();
    });
    it.each<[RawQuery]>([[{ floatParameter: 'x' }], [{ floatParameter: '' }], [{ floatParameter: '1e400' }], [{ floatParameter: ['1', '2'] }]])('%j → 400', (query) => {
      expectBadParameter(() => queryParam.number(query, 'floatParameter'), 'floatParameter');
    });
  });

  describe('int64', () => {
    it.each([
      ['5', '5'],
      ['5.0', '5'],
      ['-9223372036854775808', '-9223372036854775808'],
      ['9223372036854775807', '9223372036854775807'],
    ])('%s → %s', (raw, expected) => {
      expect(queryParam.int64({ integerParameter: raw }, 'integerParameter')).toBe(expected);
    });
    it.each<[RawQuery]>([
      [{ integerParameter: '1.5' }],
      [{ integerParameter: '9223372036854775808' }],
      [{ integerParameter: 'abc' }],
      [{ integerParameter: '' }],
      [{ integerParameter: ['1', '1'] }],
    ])('%j → 400', (query) => {
      expectBadParameter(() => queryParam.int64(query, 'integerParameter'), 'integerParameter');
    });
  });

  describe('wholeNumber', () => {
    it.each([
      ['0', 0],
      ['5', 5],
      ['5.0', 5],
      ['500', 500],
    ])('%s → %d (0..500)', (raw, expected) => {
      expect(queryParam.wholeNumber({ limit: raw }, 'limit', 0, 500)).toBe(expected);
    });
    it('absent → undefined', () => {
      expect(queryParam.wholeNumber({}, 'limit', 0, 500)).toBeUndefined();
    });
    it.each(['5.5', '-1', '501', '', ' ', 'abc', 'Infinity', 'NaN'])('%j → 400 (0..500)', (raw) => {
      expectBadParameter(() => queryParam.wholeNumber({ limit: raw }, 'limit', 0, 500), 'limit');
    });
    it('repeated → 400', () => {
      expectBadParameter(() => queryParam.wholeNumber({ limit: ['1', '2'] }, 'limit', 0, 500), 'limit');
    });
  });

  describe('boolean', () => {
    it.each([
      ['true', true],
      ['false', false],
    ])('%s → %p', (raw, expected) => {
      expect(queryParam.boolean({ staged: raw }, 'staged')).toBe(expected);
    });
    it('absent → undefined', () => {
      expect(queryParam.boolean({}, 'staged')).toBeUndefined();
    });
    it.each(['TRUE', 'True', '1', '0', 'yes', '', 'truee'])('%j → 400', (raw) => {
      expectBadParameter(() => queryParam.boolean({ staged: raw }, 'staged'), 'staged');
    });
    it('repeated → 400', () => {
      expectBadParameter(() => queryParam.boolean({ staged: ['true', 'true'] }, 'staged'), 'staged');
    });
  });

  it('names the parameter exactly, dots included (var.name, text.en)', () => {
    expectBadParameter(() => queryParam.string({ 'text.en': ['a', 'b'] }, 'text.en'), 'text.en');
  });
});
