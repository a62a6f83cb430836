import fc from 'fast-check';
import { parse as losslessParse } from 'lossless-json';
import { describeJsonError, parseJson, stringifyJson, toJsonText } from './lossless-json.js';

/** parseJson / stringifyJson: 64-bit integers exact, everything else as JSON.parse / JSON.stringify. */

describe('parseJson', () => {
  it.each([
    ['int64 max', '9223372036854775807', 9223372036854775807n],
    ['int64 min', '-9223372036854775808', -9223372036854775808n],
    ['2^53 + 1 (first unsafe odd integer)', '9007199254740993', 9007199254740993n],
    ['beyond int64 (exact, range is the validator\'s job)', '123456789012345678901234567890', 123456789012345678901234567890n],
    ['int64 max with a zero fraction', '9223372036854775807.0', 9223372036854775807n],
    ['int64 min with zero fraction digits', '-9223372036854775808.000', -9223372036854775808n],
  ])('%s: %s → bigint', (_name, text, expected) => {
    const value = parseJson(text);
    expect(typeof value).toBe('bigint');
    expect(value).toBe(expected);
  });

  it.each([
    ['small integer', '42', 42],
    ['negative', '-7', -7],
    ['zero', '0', 0],
    ['max safe integer (16 digits: lossless path)', '9007199254740991', 9007199254740991],
    ['min safe integer', '-9007199254740991', -9007199254740991],
    ['1.0 → 1', '1.0', 1],
    ['-3.00 → -3', '-3.00', -3],
    ['float', '0.1', 0.1],
    ['float with exponent', '1.5e3', 1500],
    ['16 significant digits with a fraction stays a float', '1234567890123456.5', 1234567890123456.5],
    ['tiny float', '5e-324', 5e-324],
  ])('%s: %s → number %p', (_name, text, expected) => {
    const value = parseJson(text);
    expect(typeof value).toBe('number');
    expect(value).toBe(expected);
  });

  it('keeps safe integers as numbers and unsafe ones as bigint in one document', () => {
    expect(parseJson('{"a": [1, 2.0, 9223372036854775807, -9223372036854775808, 0.25], "b": "12345678901234567890"}')).toEqual({
      a: [1, 2, 9223372036854775807n, -9223372036854775808n, 0.25],
      b: '12345678901234567890',
    });
  });

  it('1.0 becomes 1 on the lossless path too', () => {
    expect(parseJson('[1.0, 9223372036854775807]')).toEqual([1, 9223372036854775807n]);
  });

  it('leaves digit runs inside strings alone', () => {
    expect(parseJson('{"id": "9223372036854775807"}')).toEqual({ id: '9223372036854775807' });
  });

  it('digit runs, quotes and backslashes inside strings stay text beside marked integers', () => {
    const text = '{"a\\"9223372036854775807": "x\\\\", "b": [9223372036854775807, "\\"12345678901234567890\\"", -9223372036854775808.0]}';
    expect(parseJson(text)).toEqual({ 'a"9223372036854775807': 'x\\', b: [9223372036854775807n, '"12345678901234567890"', -9223372036854775808n] });
  });

  it('a text that holds \\u0000 keeps the NUL a string holds', () => {
    expect(parseJson('["\\u0000123", 9223372036854775807]')).toEqual(['\u0000123', 9223372036854775807n]);
  });

  it('answers what lossless-json\'s parser answers, or throws where it throws, on generated and garbled documents', () => {
    const reference = (text: string) =>
      losslessParse(text, null, (n: string) => {
        const value = Number(n);
        if (Number.isSafeInteger(value) || !/^-?\d+(?:\.0+)?$/.test(n)) return value;
        return BigInt(n.includes('.') ? n.slice(0, n.indexOf('.')) : n);
      });
    const outcome = (parse: (text: string) => unknown, text: string): { value?: unknown; error?: string } => {
      try {
        return { value: parse(text) };
      } catch (error) {
        return { error: String(error) };
      }
    };
    const number = fc.oneof(fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String), fc.double({ noNaN: true, noDefaultInfinity: true }).map(String), fc.constantFrom('9223372036854775807.0', '-0', '1e400', '12345678901234567e2'));
    const text = fc.string({ unit: fc.constantFrom('a', '"', '\\', '1', '9', ' ', '\n', 'é') }).map((s) => JSON.stringify(s));
    const { value: json } = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, number, text, fc.constantFrom('true', 'false', 'null'), tie('array'), tie('object')),
      array: fc.array(tie('value'), { maxLength: 5 }).map((items) => `[${items.join(', ')}]`),
      object: fc.array(fc.tuple(text, tie('value')), { maxLength: 5 }).map((members) => `{${members.map(([k, v]) => `${k}:${v}`).join(',')}}`),
    }));
    const garbled = fc.tuple(json, fc.nat(), fc.constantFrom('', ',', '"', '\\', ']', '9223372036854775807', '-')).map(([doc, at, insert]) => doc.slice(0, at % (doc.length + 1)) + insert + doc.slice(at % (doc.length + 1)));
    fc.assert(
      fc.property(fc.oneof(json, garbled), (doc) => {
        const expected = outcome(reference, doc);
        // lossless-json refuses a member name given twice; JSON.parse keeps the last (next test).
        fc.pre(!/duplicate key/i.test(expected.error ?? ''));
        const actual = outcome(parseJson, doc);
        expect([actual.value, actual.error !== undefined]).toEqual([expected.value, expected.error !== undefined]);
      }),
      { numRuns: 3000 },
    );
  });

  it('a member name given twice keeps the last value, with or without 64-bit integers', () => {
    expect(parseJson('{"a": 1, "a": 2}')).toEqual({ a: 2 });
    expect(parseJson('{"a": 9223372036854775807, "a": -9223372036854775808}')).toEqual({ a: -9223372036854775808n });
  });

  it.each([
    ['truncated', '{'],
    ['empty', ''],
    ['trailing comma', '[1,]'],
    ['truncated on the lossless path', '{"a": 12345678901234567'],
    ['garbage on the lossless path', '[9223372036854775807,,]'],
    ['a leading zero on a 64-bit integer', '[-09223372036854775807]'],
    ['single quotes', "{'a': 1}"],
    ['NaN', 'NaN'],
  ])('throws on %s', (_name, text) => {
    expect(() => parseJson(text)).toThrow();
  });
});

describe('stringifyJson', () => {
  it.each([
    ['int64 max', { a: 9223372036854775807n }, '{"a":9223372036854775807}'],
    ['int64 min', [-9223372036854775808n], '[-9223372036854775808]'],
    ['mixed', { n: 1, f: 0.5, s: 'x', b: true, z: null, big: 9007199254740993n }, '{"n":1,"f":0.5,"s":"x","b":true,"z":null,"big":9007199254740993}'],
  ])('with bigints: %s', (_name, value, text) => {
    expect(stringifyJson(value, true)).toBe(text);
  });

  it.each([
    ['object', { a: 1, b: [1.5, 'x'] }],
    ['float', 0.1],
    ['large float', 1e21],
    ['string with quotes', 'a"b'],
    ['null', null],
  ])('without bigints equals JSON.stringify: %s', (_name, value) => {
    expect(stringifyJson(value, false)).toBe(JSON.stringify(value));
    expect(stringifyJson(value, true)).toBe(JSON.stringify(value));
  });
});

describe('round trip: stringifyJson(parseJson(text)) === text (compact JSON)', () => {
  it.each([
    '9223372036854775807',
    '-9223372036854775808',
    '{"arrayOfIntExample":[9223372036854775807,-9223372036854775808,0,1],"arrayOfFloatExample":[0.5,10.25]}',
    '[{"integerExample":9223372036854775807,"integerExampleInt32":2147483647}]',
    '{"a":"text","b":[true,false,null],"c":{"d":-1.5e-7}}',
    '[1,2,3]',
  ])('%s', (text) => {
    const value = parseJson(text);
    expect(stringifyJson(value, text.match(/\d{16}/) !== null)).toBe(text);
  });
});

describe('describeJsonError', () => {
  it('turns a position into line and column', () => {
    const text = '{\n  "a": }';
    expect(describeJsonError(text, new SyntaxError('Unexpected token } in JSON at position 9'))).toBe('Unexpected token } (line 2, column 8)');
  });

  it('works with the lossless parser\'s messages', () => {
    const text = '{\n "a": 12345678901234567,}';
    let error: unknown;
    try {
      parseJson(text);
    } catch (e) {
      error = e;
    }
    expect(describeJsonError(text, error)).toMatch(/\(line 2, column \d+\)$/);
  });

  it('returns the message when no position is known', () => {
    expect(describeJsonError('x', new Error('Unexpected end'))).toBe('Unexpected end');
    expect(describeJsonError('x', 'plain string')).toBe('plain string');
  });

  it('always answers a non-empty string for what JSON.parse throws', () => {
    for (const text of ['{', '{"a": }', '[1,]', 'tru']) {
      let error: unknown;
      try {
        JSON.parse(text);
      } catch (e) {
        error = e;
      }
      expect(describeJsonError(text, error).length).toBeGreaterThan(0);
    }
  });
});

describe('toJsonText', () => {
  it.each([
    ['a bigint alone', 9223372036854775807n, '9223372036854775807'],
    ['deep in arrays and objects, after plain values', { a: [1, 'x', { b: [null, [true, { c: -9223372036854775808n }]] }] }, '{"a":[1,"x",{"b":[null,[true,{"c":-9223372036854775808}]]}]}'],
    ['in the first member', { big: 9007199254740993n, n: 0.5 }, '{"big":9007199254740993,"n":0.5}'],
  ])('keeps 64-bit integers exact: %s', (_name, value, text) => {
    expect(toJsonText(value)).toBe(text);
  });

  it.each([
    ['object', { a: 1, b: [1.5, 'x', null], c: { d: true } }],
    ['string', 'a"b'],
    ['number', 0.1],
    ['null', null],
    ['a member undefined', { a: undefined, b: 1 }],
    ['a date', { at: new Date(0) }],
  ])('without bigints equals JSON.stringify: %s', (_name, value) => {
    expect(toJsonText(value)).toBe(JSON.stringify(value));
  });

  it('a parsed body with 64-bit integers comes back as it was sent', () => {
    const text = '{"a":[9223372036854775807,1,{"b":-9223372036854775808}],"c":"12345678901234567890"}';
    expect(toJsonText(parseJson(text))).toBe(text);
  });
});
