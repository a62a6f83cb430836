import { canonicalInt64, canonicalNumber } from './query-params.js';

/** Canonical text of numbers given as query text (exact for integers of any size). */

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
