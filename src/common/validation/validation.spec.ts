import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsArray, ValidateNested } from 'class-validator';
import { DomainError, type ErrorDetail } from '../domain-error.js';
import { parseJson } from '../lossless-json.js';
import {
  BoundedString,
  Elements,
  int64Element,
  IsInt32,
  IsInt64,
  Optional,
  QueryBoolean,
  QueryInt64,
  QueryNumber,
  QueryString,
  Repeatable,
  Required,
  WholeNumber,
} from './decorators.js';
import { IndexedErrors, validateBody, validateQuery } from './validation.pipe.js';

/** The custom decorators and the mapping of class-validator's error trees to the error envelope. */

function errorsOf(run: () => unknown): ErrorDetail[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).status).toBe(400);
    return (error as DomainError).errors;
  }
  throw new Error('accepted');
}

class Int64Holder {
  @Required()
  @IsInt64()
  value: unknown;
}

class Int32Holder {
  @Required()
  @IsInt32()
  value: unknown;
}

const TWO_63 = 2n ** 63n;

describe('IsInt64', () => {
  it.each<[string, unknown]>([
    ['2^63 - 1 as bigint', TWO_63 - 1n],
    ['-2^63 as bigint', -TWO_63],
    ['0', 0],
    ['1.0 from JSON (a zero fraction is an integer)', (parseJson('{"v": 1.0}') as { v: number }).v],
    ['-5', -5],
    ['2^53 + 2 as a number', 2 ** 53 + 2],
  ])('accepts %s', (_name, value) => {
    expect(validateBody(Int64Holder, { value }).value).toBe(value);
  });

  it.each<[string, unknown]>([
    ['2^63 as bigint', TWO_63],
    ['-2^63 - 1 as bigint', -TWO_63 - 1n],
    ['2^64 as a number', 2 ** 64],
    ['1.5', 1.5],
    ['"1"', '1'],
    ['null', null],
    ['true', true],
    ['NaN', Number.NaN],
  ])('rejects %s with InvalidField and the value', (_name, value) => {
    const [error, ...rest] = errorsOf(() => validateBody(Int64Holder, { value }));
    expect(rest).toEqual([]);
    expect(error).toMatchObject({ code: 'InvalidField', field: 'value', message: 'value: must be an integer in the signed 64-bit range.' });
    expect(error.invalidValue).toEqual(typeof value === 'bigint' ? value.toString() : value);
  });

  it('a 64-bit value from lossless JSON text stays exact', () => {
    const body = parseJson('{"value": 9223372036854775807}');
    expect(validateBody(Int64Holder, body).value).toBe(TWO_63 - 1n);
    expect(errorsOf(() => validateBody(Int64Holder, parseJson('{"value": 9223372036854775808}')))[0].code).toBe('InvalidField');
  });
});

describe('IsInt32', () => {
  it.each([2 ** 31 - 1, -(2 ** 31), 0, 1.0])('accepts %p', (value) => {
    expect(validateBody(Int32Holder, { value }).value).toBe(value);
  });

  it.each<unknown>([2 ** 31, -(2 ** 31) - 1, 1.5, '1', TWO_63 - 1n, null])('rejects %p', (value) => {
    expect(errorsOf(() => validateBody(Int32Holder, { value }))).toEqual([
      expect.objectContaining({ code: 'InvalidField', field: 'value', message: 'value: must be an integer in the signed 32-bit range.' }),
    ]);
  });
});

class Item {
  @Required()
  @IsInt64()
  a: number;

  @Required()
  @IsInt32()
  b: number;
}

class Inner {
  @Required()
  @IsArray()
  @Elements(int64Element, { unique: true })
  ints: number[];

  @Optional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => Item)
  items?: Item[];

  @Optional()
  @BoundedString(5)
  text?: string;
}

class Outer {
  @Required()
  @ValidateNested()
  @Type(() => Inner)
  inner: Inner;
}

describe('error mapping', () => {
  it('names nested members and array elements by their JSON path', () => {
    const errors = errorsOf(() =>
      validateBody(Outer, { inner: { ints: [1], items: [{ a: 1, b: 2 }, { a: 1, b: 2 ** 40 }] } }),
    );
    expect(errors).toEqual([expect.objectContaining({ code: 'InvalidField', field: 'inner.items[1].b', invalidValue: 2 ** 40 })]);
  });

  it('reports each offending element of an element rule at its index, duplicates included', () => {
    const errors = errorsOf(() => validateBody(Outer, { inner: { ints: [1, 'x', 1, 2.5] } }));
    expect(errors.map((e) => [e.field, e.invalidValue])).toEqual([
      ['inner.ints[1]', 'x'],
      ['inner.ints[2]', 1],
      ['inner.ints[3]', 2.5],
    ]);
    expect(errors[1].message).toBe('inner.ints[2]: duplicate element; elements must be unique.');
  });

  it('lists several violations at once: missing, wrong type, unknown members at any depth', () => {
    const errors = errorsOf(() => validateBody(Outer, { inner: { items: [{ a: 'x', c: 1 }], text: 'too long' }, extra: true }));
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'InvalidField', field: 'extra', message: 'extra: unknown field.' }),
        expect.objectContaining({ code: 'RequiredField', field: 'inner.ints', message: 'inner.ints: a value is required.' }),
        expect.objectContaining({ code: 'InvalidField', field: 'inner.items[0].c' }),
        expect.objectContaining({ code: 'InvalidField', field: 'inner.items[0].a' }),
        expect.objectContaining({ code: 'RequiredField', field: 'inner.items[0].b' }),
        expect.objectContaining({ code: 'InvalidField', field: 'inner.text', message: 'inner.text: must have at most 5 characters.' }),
      ]),
    );
    expect(errors).toHaveLength(6);
    expect(errors.find((e) => e.code === 'RequiredField')).not.toHaveProperty('invalidValue');
  });

  it('null is present (InvalidField), absent is RequiredField', () => {
    expect(errorsOf(() => validateBody(Int64Holder, { value: null }))[0].code).toBe('InvalidField');
    expect(errorsOf(() => validateBody(Int64Holder, {}))[0]).toMatchObject({ code: 'RequiredField', field: 'value' });
  });

  it('a value that is not an array or object is one error, not one per rule', () => {
    expect(errorsOf(() => validateBody(Outer, { inner: { ints: 'nope' } }))).toEqual([
      expect.objectContaining({ code: 'InvalidField', field: 'inner.ints', message: 'inner.ints: must be an array.' }),
    ]);
    expect(errorsOf(() => validateBody(Outer, { inner: 5 }))).toEqual([
      expect.objectContaining({ code: 'InvalidField', field: 'inner', message: 'inner: must be an object.' }),
    ]);
    expect(errorsOf(() => validateBody(Outer, { inner: { ints: [], items: [5] } }))).toEqual([
      expect.objectContaining({ code: 'InvalidField', field: 'inner.items[0]' }),
    ]);
  });

  it('a body that is not an object, or that is nested too deeply, is a 400', () => {
    for (const body of [null, [], 'x', 1, undefined]) expect(errorsOf(() => validateBody(Outer, body))[0].code).toBe('InvalidField');
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = { x: deep };
    expect(errorsOf(() => validateBody(Outer, { inner: { ints: [], deep } }))[0].code).toMatch(/^Invalid(Input|Field)$/);
  });

  it('a path prefix places the errors of an embedded body', () => {
    expect(errorsOf(() => validateBody(Int64Holder, { value: 'x' }, 'objectParameter'))[0]).toMatchObject({
      field: 'objectParameter.value',
      message: 'objectParameter.value: must be an integer in the signed 64-bit range.',
    });
  });
});

class Step {
  @Required()
  @QueryString()
  kind: string;
}

@IndexedErrors({ array: 'steps', member: 'stepIndex', discriminator: 'kind' })
class Steps {
  @Required()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => Step)
  steps: Step[];

  @Optional()
  @IsInt32()
  n?: number;
}

describe('bounds on the shape of a body', () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => i);
  const members = (n: number) => Object.fromEntries(many(n).map((i) => [`m${i}`, i]));

  it('names the array or object past its bound by its JSON path, through arrays and objects', () => {
    const body = { inner: { ints: [1], items: [{ a: 1, b: 2 }, { a: 1, b: 2, extra: { '0': { list: many(10_001) } } }] } };
    expect(errorsOf(() => validateBody(Outer, body))).toEqual([
      { code: 'InvalidField', field: 'inner.items[1].extra.0.list', message: 'inner.items[1].extra.0.list: must have at most 10000 elements.', invalidValue: 10_001 },
    ]);
    expect(errorsOf(() => validateBody(Outer, { inner: { ints: [1], items: [members(101)] } }))).toEqual([
      { code: 'InvalidField', field: 'inner.items[0]', message: 'inner.items[0]: must have at most 100 members.', invalidValue: 101 },
    ]);
    expect(errorsOf(() => validateBody(Outer, members(101)))[0]).toMatchObject({ field: '', message: 'The request body: must have at most 100 members.' });
  });

  it('the first bound passed in document order is the one reported', () => {
    const body = { inner: { ints: many(10_001) }, later: members(101) };
    expect(errorsOf(() => validateBody(Outer, body))[0].field).toBe('inner.ints');
  });

  it('counts every value at any depth: more than 200,000 is refused', () => {
    const wide = (n: number) => Array.from({ length: n }, () => many(99));
    // The body, inner, ints and its number, x, 2,020 arrays and 2,020 × 99 numbers: 202,005 values.
    expect(errorsOf(() => validateBody(Outer, { inner: { ints: [1] }, x: wide(2_020) }))[0].message).toBe('The request body holds more than 200000 values.');
    // The same with 1,900 arrays: 190,005 values, within the bound; the DTO refuses the unknown member.
    expect(errorsOf(() => validateBody(Outer, { inner: { ints: [1] }, x: wide(1_900) }))[0].field).toBe('x');
  });
});

describe('IndexedErrors', () => {
  it('reports only the first failing element, naming its index in a member and the message', () => {
    const errors = errorsOf(() => validateBody(Steps, { steps: [{ kind: 'a' }, { kind: 1 }, {}] }));
    expect(errors).toEqual([expect.objectContaining({ field: 'steps[1].kind', stepIndex: 1 })]);
    expect(errors[0].message).toBe('steps[1]: kind: must be text without NUL characters.');
  });

  it('a wrong discriminator hides the rest of its element; errors outside the list come first and alone', () => {
    expect(errorsOf(() => validateBody(Steps, { steps: [{ other: 1 }] }))).toEqual([expect.objectContaining({ field: 'steps[0].kind', code: 'RequiredField' })]);
    expect(errorsOf(() => validateBody(Steps, { steps: [{}], n: 'x' }))).toEqual([expect.objectContaining({ field: 'n' })]);
  });
});

class Params {
  @Optional()
  @WholeNumber(0, 500)
  limit: number = 20;

  @Optional()
  @QueryBoolean()
  flag?: boolean;

  @Optional()
  @QueryNumber()
  num?: string;

  @Optional()
  @QueryInt64()
  int?: string;

  @Optional()
  @Repeatable()
  many?: string[];

  @Optional()
  @QueryString()
  one?: string;
}

class RequiredParam {
  @Required()
  @QueryString()
  sku: string;
}

describe('query parameters', () => {
  it('converts text to its type and keeps defaults for absent parameters', () => {
    expect({ ...validateQuery(Params, {}) }).toMatchObject({ limit: 20 });
    expect({ ...validateQuery(Params, { limit: '5.0', flag: 'false', num: '1.50', int: '9223372036854775807', many: 'a', one: 'x' }) }).toEqual({
      limit: 5,
      flag: false,
      num: '1.5',
      int: '9223372036854775807',
      many: ['a'],
      one: 'x',
    });
    expect(validateQuery(Params, { many: ['a', 'b'] }).many).toEqual(['a', 'b']);
  });

  it('ignores unknown parameters', () => {
    expect(validateQuery(Params, { 'text.en': 'x', other: ['1', '2'] })).not.toHaveProperty('other');
  });

  it.each<[string, Record<string, unknown>]>([
    ['limit', { limit: '5.5' }],
    ['limit', { limit: 'abc' }],
    ['limit', { limit: '' }],
    ['limit', { limit: '501' }],
    ['limit', { limit: '-1' }],
    ['limit', { limit: '1e2' }],
    ['limit', { limit: '0x10' }],
    ['limit', { limit: ' 5 ' }],
    ['limit', { limit: ['1', '2'] }],
    ['flag', { flag: 'yes' }],
    ['num', { num: '1e400' }],
    ['int', { int: '9223372036854775808' }],
    ['int', { int: '1.5' }],
    ['one', { one: ['a', 'b'] }],
    ['one', { one: 'a\u0000' }],
    ['many', { many: ['a', 'b\u0000'] }],
  ])('%s %j → 400 InvalidField "Malformed parameter: …"', (name, query) => {
    const [error, ...rest] = errorsOf(() => validateQuery(Params, query));
    expect(rest).toEqual([]);
    expect(error).toMatchObject({ code: 'InvalidField', field: name });
    expect(error.message).toMatch(new RegExp(`^Malformed parameter: ${name}: .+\\.$`));
  });

  it('a missing required parameter → RequiredField', () => {
    expect(errorsOf(() => validateQuery(RequiredParam, {}))).toEqual([
      { code: 'RequiredField', field: 'sku', message: 'Malformed parameter: sku: a value is required.' },
    ]);
  });
});
