import fc from 'fast-check';
import { QuerySyntaxError as PredicateError } from './lexer.js';
import { RESOURCE_CATALOGUE } from './resource.catalogue.js';
import { parseWhere as parseIn, type Predicate, WHERE_LIMITS } from './where-parser.js';
import { SqlParams, translateWhere as translateIn, type Variables, type WhereHints, whereToSql as whereToSqlIn } from './where-sql.js';

// The language over the resource's catalogue.
const parseWhere = (text: string) => parseIn(RESOURCE_CATALOGUE, text);
const translateWhere = (text: string, predicate: Predicate, variables: Variables, params: SqlParams, projectKey: string) =>
  translateIn(RESOURCE_CATALOGUE, text, predicate, variables, params, projectKey);
const whereToSql = (wheres: string[], variables: Variables, params: SqlParams, projectKey: string, hints?: WhereHints) =>
  whereToSqlIn(RESOURCE_CATALOGUE, wheres, variables, params, projectKey, hints);

/** The AST without source offsets (`at`), for readable expectations. */
function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'at').map(([k, v]) => [k, strip(v)]));
  }
  return value;
}

const str = (value: string) => ({ kind: 'string', value });
const num = (text: string) => ({ kind: 'number', text });
const bool = (value: boolean) => ({ kind: 'boolean', value });
const variable = (name: string) => ({ kind: 'variable', name });
const list = (...items: unknown[]) => ({ kind: 'list', items });
const cmp = (field: string, op: string, value: unknown) => ({ kind: 'compare', field, op, value });
const otp = (predicate: unknown) => ({ kind: 'nested', field: 'objectTypeProperty', predicate });
const aot = (predicate: unknown) => otp({ kind: 'nested', field: 'arrayOfObjectType', predicate });
const KEY_A = cmp('key', '=', str('a'));
/** The project-tagged document the GIN index resource_project_document_idx covers. */
const DOC = "jsonb_set('{}'::jsonb, ARRAY[r.project_key::text], r.object_type_property)";
const V1 = cmp('version', '=', num('1'));
const V2 = cmp('version', '=', num('2'));

/** Parses and translates; the error's message (with position) or the SQL and its values. */
function translate(text: string, vars: Record<string, string[]> = {}): { sql: string; values: unknown[] } {
  const params = new SqlParams(2);
  const sql = translateWhere(text, parseWhere(text), new Map(Object.entries(vars)), params, 'p');
  return { sql, values: params.values };
}

function errorOf(run: () => unknown): { message: string; line: number; column: number } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(PredicateError);
    const e = error as PredicateError;
    return { message: e.message, line: e.line, column: e.column };
  }
  throw new Error('expected a PredicateError');
}

const FIELDS = 'id, key, version, createdAt, lastModifiedAt, published, someProperty, secondPropertyToUpdate, objectTypeProperty';
const OPS = '=, !=, <>, <, >, <=, >=, in, not in, contains any, contains all, is empty, is defined';

describe('parseWhere: valid predicates → AST', () => {
  const cases: Array<[string, unknown]> = [
    ['key = "abc"', cmp('key', '=', str('abc'))],
    ['version > 5', cmp('version', '>', num('5'))],
    ['version >= -3', cmp('version', '>=', num('-3'))],
    ['version < 5', cmp('version', '<', num('5'))],
    ['version <= 5', cmp('version', '<=', num('5'))],
    ['id != "x"', cmp('id', '!=', str('x'))],
    ['id <> "x"', cmp('id', '!=', str('x'))],
    ['version>5', cmp('version', '>', num('5'))],
    ['version<>5', cmp('version', '!=', num('5'))],
    ['published = true', cmp('published', '=', bool(true))],
    ['published = FALSE', cmp('published', '=', bool(false))],
    ['key in ("a", "b")', { kind: 'in', field: 'key', negated: false, values: list(str('a'), str('b')) }],
    ['key not in ("a")', { kind: 'in', field: 'key', negated: true, values: list(str('a')) }],
    ['key NOT IN ("a")', { kind: 'in', field: 'key', negated: true, values: list(str('a')) }],
    ['key in :keys', { kind: 'in', field: 'key', negated: false, values: variable('keys') }],
    ['key in (:a, "b")', { kind: 'in', field: 'key', negated: false, values: list(variable('a'), str('b')) }],
    ['key = :k1', cmp('key', '=', variable('k1'))],
    ['key is defined', { kind: 'defined', field: 'key', negated: false }],
    ['key is not defined', { kind: 'defined', field: 'key', negated: true }],
    ['key IS   NOT\tDefined', { kind: 'defined', field: 'key', negated: true }],
    ['objectTypeProperty is defined', { kind: 'defined', field: 'objectTypeProperty', negated: false }],
    ['objectTypeProperty(arrayOfStringExample contains any ("a", "b"))', otp({ kind: 'contains', field: 'arrayOfStringExample', mode: 'any', values: list(str('a'), str('b')) })],
    ['objectTypeProperty(arrayOfStringExample CONTAINS ALL ("a"))', otp({ kind: 'contains', field: 'arrayOfStringExample', mode: 'all', values: list(str('a')) })],
    ['objectTypeProperty(arrayOfIntExample contains any :v)', otp({ kind: 'contains', field: 'arrayOfIntExample', mode: 'any', values: variable('v') })],
    ['objectTypeProperty(arrayOfIntExample is empty)', otp({ kind: 'empty', field: 'arrayOfIntExample', negated: false })],
    ['objectTypeProperty(arrayOfIntExample is not empty)', otp({ kind: 'empty', field: 'arrayOfIntExample', negated: true })],
    ['objectTypeProperty(arrayOfObjectType is empty)', otp({ kind: 'empty', field: 'arrayOfObjectType', negated: false })],
    ['objectTypeProperty(arrayOfFloatExample = 0.5)', otp(cmp('arrayOfFloatExample', '=', num('0.5')))],
    ['objectTypeProperty(arrayOfFloatExample > -10.25)', otp(cmp('arrayOfFloatExample', '>', num('-10.25')))],
    ['objectTypeProperty(arrayOfIntExample = 9223372036854775807)', otp(cmp('arrayOfIntExample', '=', num('9223372036854775807')))],
    [
      'objectTypeProperty(arrayOfObjectType(integerExample > 5 and integerExampleInt32 = 1))',
      aot({ kind: 'and', operands: [cmp('integerExample', '>', num('5')), cmp('integerExampleInt32', '=', num('1'))] }),
    ],
    ['objectTypeProperty(arrayOfObjectType(not (integerExample = 1)))', aot({ kind: 'not', operand: cmp('integerExample', '=', num('1')) })],
    ['key = "a" or version = 1 and version = 2', { kind: 'or', operands: [KEY_A, { kind: 'and', operands: [V1, V2] }] }],
    ['key = "a" and version = 1 or version = 2', { kind: 'or', operands: [{ kind: 'and', operands: [KEY_A, V1] }, V2] }],
    ['(key = "a" or version = 1) and version = 2', { kind: 'and', operands: [{ kind: 'or', operands: [KEY_A, V1] }, V2] }],
    ['not (key = "a") and version = 1', { kind: 'and', operands: [{ kind: 'not', operand: KEY_A }, V1] }],
    ['not (key = "a" or version = 1)', { kind: 'not', operand: { kind: 'or', operands: [KEY_A, V1] } }],
    ['NOT(key = "a")', { kind: 'not', operand: KEY_A }],
    ['key = "a" AND version = 1 And version = 2', { kind: 'and', operands: [KEY_A, V1, V2] }],
    ['key = "a" OR version = 1 oR version = 2', { kind: 'or', operands: [KEY_A, V1, V2] }],
    ['((key = "a"))', KEY_A],
    ['key="a"and version=1', { kind: 'and', operands: [KEY_A, V1] }],
    ['key = "a\\"b\\\\c"', cmp('key', '=', str('a"b\\c'))],
    ['key = "ü€😀 \' ; -- /*"', cmp('key', '=', str('ü€😀 \' ; -- /*'))],
    ['key = ""', cmp('key', '=', str(''))],
    ['\n  key = "a"\r\n  and\tversion = 1\n', { kind: 'and', operands: [KEY_A, V1] }],
    ['createdAt > "2026-01-01T00:00:00.000Z"', cmp('createdAt', '>', str('2026-01-01T00:00:00.000Z'))],
  ];

  it.each(cases)('%s', (text, ast) => {
    expect(strip(parseWhere(text))).toEqual(ast);
  });

  it('records the offset of every value, for type errors found later', () => {
    expect(parseWhere('key = "a"')).toEqual({ kind: 'compare', field: 'key', op: '=', value: { kind: 'string', value: 'a', at: 6 } });
  });
});

describe('parseWhere: invalid predicates → what was expected, with line and column', () => {
  const cases: Array<[string, string, number, number]> = [
    ['', `expected a field (${FIELDS}) but found the end of the predicate`, 1, 1],
    ['   ', `expected a field (${FIELDS}) but found the end of the predicate`, 1, 4],
    ['foo = 1', `expected a field (${FIELDS}) but found unknown field "foo"`, 1, 1],
    ['KEY = "a"', `expected a field (${FIELDS}) but found unknown field "KEY"`, 1, 1],
    ['key', `expected an operator (${OPS}) after key but found the end of the predicate`, 1, 4],
    ['key = ', 'expected a value (a "string", a number, true, false or a :variable) but found the end of the predicate', 1, 7],
    ['key = "abc', 'expected a closing " for this string', 1, 7],
    ['key == "a"', 'expected a value (a "string", a number, true, false or a :variable) but found "="', 1, 6],
    ['key = "a" and', `expected a field (${FIELDS}) but found the end of the predicate`, 1, 14],
    ['key = "a" or or', `expected a field (${FIELDS}) but found unknown field "or"`, 1, 14],
    ['(key = "a"', 'expected ")" to close "(" but found the end of the predicate', 1, 11],
    ['key = "a")', 'expected "and", "or" or the end (this ")" closes nothing) but found ")"', 1, 10],
    ['key = "a" version = 1', 'expected "and", "or" or the end but found "version"', 1, 11],
    ['not key = "a"', 'expected "(" after "not" but found "key"', 1, 5],
    ['key = "a" and not (version = 1', 'expected ")" to close "not (" but found the end of the predicate', 1, 31],
    ['key in "a"', 'expected a list of values in parentheses ("a", "b") or a :variable but found the string "a"', 1, 8],
    ['key in ()', 'expected a value (a "string", a number, true, false or a :variable) but found ")"', 1, 9],
    ['key in ("a",)', 'expected a value (a "string", a number, true, false or a :variable) but found ")"', 1, 13],
    ['key in ("a" "b")', 'expected "," or ")" in a list of values but found the string "b"', 1, 13],
    ['key in (', 'expected a value (a "string", a number, true, false or a :variable) but found the end of the predicate', 1, 9],
    ['key not "a"', 'expected "in" after "key not" but found the string "a"', 1, 9],
    ['key contains any ("a")', 'expected an operator (=, !=, <>, <, >, <=, >=, in, not in, is defined) after key: "contains" applies to arrays', 1, 5],
    ['objectTypeProperty(arrayOfStringExample contains ("a"))', 'expected "any" or "all" after "contains" but found "("', 1, 50],
    ['key is empty', 'expected "defined" after "is" (key is not an array; "is empty" applies to arrays)', 1, 8],
    ['key is null', 'expected "empty" or "defined" after "is" but found "null"', 1, 8],
    ['objectTypeProperty = 1', 'expected objectTypeProperty(<predicate on its fields>) or objectTypeProperty is defined but found "="', 1, 20],
    ['objectTypeProperty(key = "a")', 'expected a field of objectTypeProperty (arrayOfIntExample, arrayOfUniqueIntExample, arrayOfTwonumbersExample, arrayOfFloatExample, arrayOfNumberNoDefaultsExample, arrayOfStringExample, arrayOfObjectType) but found unknown field "key"', 1, 20],
    ['objectTypeProperty(arrayOfObjectType(foo = 1))', 'expected a field of arrayOfObjectType (integerExample, integerExampleInt32) but found unknown field "foo"', 1, 38],
    ['objectTypeProperty(arrayOfObjectType = 1)', 'expected arrayOfObjectType(<predicate on its elements>), arrayOfObjectType is empty or arrayOfObjectType is defined but found "="', 1, 38],
    ['objectTypeProperty(arrayOfObjectType(integerExample = 1)', 'expected ")" to close "objectTypeProperty(" but found the end of the predicate', 1, 57],
    ['key("a")', `expected an operator (${OPS}) after key, which has no members, but found "("`, 1, 4],
    ['key = "a\\x"', 'expected \\" or \\\\ after a backslash in a string', 1, 9],
    ['key ! "a"', 'expected "!=" (an exclamation mark must be followed by =)', 1, 5],
    ['version = 5.', 'expected a digit after the decimal point', 1, 13],
    ['version = -', 'expected a digit after "-"', 1, 11],
    ['version = 5abc', 'expected a space, an operator or a parenthesis after a number', 1, 12],
    ['key = @', 'expected a field, a value, an operator or a parenthesis but found "@"', 1, 7],
    ['key = ;', 'expected a field, a value, an operator or a parenthesis but found ";"', 1, 7],
    ['key = "a"; DROP TABLE resource', 'expected a field, a value, an operator or a parenthesis but found ";"', 1, 10],
    ["key = 'a'", 'expected a field, a value, an operator or a parenthesis but found "\'"', 1, 7],
    ['key = "a" -- comment', 'expected a digit after "-"', 1, 11],
    ['key = "a" /* x */', 'expected a field, a value, an operator or a parenthesis but found "/"', 1, 11],
    ['key = :', 'expected a variable name (letters and digits) after ":"', 1, 8],
    ['key = "a"\nand foo = 1', `expected a field (${FIELDS}) but found unknown field "foo"`, 2, 5],
    ['key = "ü€"\n\n  and 😀', 'expected a field, a value, an operator or a parenthesis but found "😀"', 3, 7],
    ['key = "a\u0000"', 'expected a string without NUL characters', 1, 9],
    ['version = true and', `expected a field (${FIELDS}) but found the end of the predicate`, 1, 19],
  ];

  it.each(cases)('%j', (text, expected, line, column) => {
    expect(errorOf(() => parseWhere(text))).toEqual({ message: `${expected} (line ${line}, column ${column})`, line, column });
  });

  it(`refuses more than ${WHERE_LIMITS.depth} levels of nesting`, () => {
    const text = `${'('.repeat(40)}key = "a"${')'.repeat(40)}`;
    expect(errorOf(() => parseWhere(text)).message).toBe(`expected at most ${WHERE_LIMITS.depth} levels of nesting (line 1, column 34)`);
    const nots = `${'not ('.repeat(40)}key = "a"${')'.repeat(40)}`;
    expect(errorOf(() => parseWhere(nots)).message).toMatch(/^expected at most 32 levels of nesting/);
    expect(() => parseWhere(`${'('.repeat(30)}key = "a"${')'.repeat(30)}`)).not.toThrow();
  });

  it(`refuses lists of more than ${WHERE_LIMITS.listSize} values`, () => {
    const values = (n: number) => Array.from({ length: n }, (_, i) => `"k${i}"`).join(',');
    expect(() => parseWhere(`key in (${values(500)})`)).not.toThrow();
    expect(errorOf(() => parseWhere(`key in (${values(501)})`)).message).toMatch(/^expected at most 500 values in a list \(line 1, column \d+\)$/);
  });

  it(`refuses predicates longer than ${WHERE_LIMITS.length} characters`, () => {
    const long = `key = "${'a'.repeat(WHERE_LIMITS.length)}"`;
    expect(errorOf(() => parseWhere(long))).toEqual({ message: `expected a predicate of at most ${WHERE_LIMITS.length} characters (line 1, column 10001)`, line: 1, column: 10001 });
  });
});

describe('translateWhere: values of the wrong type, and variables', () => {
  const cases: Array<[string, Record<string, string[]>, string, number]> = [
    ['version = "5"', {}, 'expected an integer in the signed 64-bit range for version but found the string "5"', 11],
    ['version = 5.5', {}, 'expected an integer in the signed 64-bit range for version but found the number 5.5', 11],
    ['version = 9223372036854775808', {}, 'expected an integer in the signed 64-bit range for version but found the number 9223372036854775808', 11],
    ['version > -9223372036854775809', {}, 'expected an integer in the signed 64-bit range for version but found the number -9223372036854775809', 11],
    ['key = 5', {}, 'expected a string for key but found the number 5', 7],
    ['key = true', {}, 'expected a string for key but found true', 7],
    ['published = "true"', {}, 'expected true or false for published but found the string "true"', 13],
    ['published = 1', {}, 'expected true or false for published but found the number 1', 13],
    ['createdAt > "yesterday"', {}, 'expected a date-time string such as "2026-01-05T10:00:00.000Z" or a date "2026-01-05" for createdAt but found the string "yesterday"', 13],
    ['lastModifiedAt > "2026-02-30T00:00:00Z"', {}, 'expected a date-time string such as "2026-01-05T10:00:00.000Z" or a date "2026-01-05" for lastModifiedAt but found the string "2026-02-30T00:00:00Z"', 18],
    ['createdAt > "2026-01-05T10:00:00"', {}, 'expected a date-time string such as "2026-01-05T10:00:00.000Z" or a date "2026-01-05" for createdAt but found the string "2026-01-05T10:00:00"', 13],
    ['createdAt > 5', {}, 'expected a date-time string such as "2026-01-05T10:00:00.000Z" or a date "2026-01-05" for createdAt but found the number 5', 13],
    ['key = :k', {}, 'expected a value for the variable :k (the query parameter var.k is missing)', 7],
    ['key in :ks', { k: ['a'] }, 'expected a value for the variable :ks (the query parameter var.ks is missing)', 8],
    ['key = :k', { k: ['a', 'b'] }, 'expected one value for :k here, but var.k was given 2 times', 7],
    ['version = :v', { v: ['abc'] }, 'expected an integer in the signed 64-bit range for version but found :v = "abc"', 11],
    ['version in :v', { v: ['1', '2x'] }, 'expected an integer in the signed 64-bit range for version but found :v = "2x"', 12],
    ['published = :p', { p: ['yes'] }, 'expected true or false for published but found :p = "yes"', 13],
    ['key in ("a", 5)', {}, 'expected a string for key but found the number 5', 14],
    ['objectTypeProperty(arrayOfFloatExample = "a")', {}, 'expected a number for arrayOfFloatExample but found the string "a"', 42],
    ['objectTypeProperty(arrayOfStringExample = 1)', {}, 'expected a string for arrayOfStringExample but found the number 1', 43],
    ['objectTypeProperty(arrayOfIntExample contains any (1, 2.5))', {}, 'expected an integer in the signed 64-bit range for arrayOfIntExample but found the number 2.5', 55],
    ['objectTypeProperty(arrayOfObjectType(integerExample = "x"))', {}, 'expected an integer in the signed 64-bit range for integerExample but found the string "x"', 55],
    ['key = "a"\n  and version = "x"', {}, 'expected an integer in the signed 64-bit range for version but found the string "x"', 17],
  ];

  it.each(cases)('%j with %j', (text, vars, expected, column) => {
    const error = errorOf(() => translate(text, vars));
    expect(error.message).toBe(`${expected} (line ${text.includes('\n') ? 2 : 1}, column ${column})`);
  });
});

describe('translateWhere: SQL shapes with bound values', () => {
  const UUID = '3F2504E0-4F89-11D3-9A0C-0305E82C3301';
  const cases: Array<[string, Record<string, string[]>, string, unknown[]]> = [
    ['key = "a"', {}, '(r.key = $2::text)', ['a']],
    ['key > "a"', {}, '(r.key COLLATE "C" > $2::text)', ['a']],
    ['version > 5', {}, '(r.version > $2::bigint)', ['5']],
    ['version = 5.0', {}, '(r.version = $2::bigint)', ['5']],
    ['version = -9223372036854775808', {}, '(r.version = $2::bigint)', ['-9223372036854775808']],
    [`id = "${UUID}"`, {}, '(r.id = $2::uuid)', [UUID]],
    ['id > "ABC"', {}, '(r.id::text COLLATE "C" > $2::text)', ['abc']],
    ['published != true', {}, '(r.published <> $2::boolean)', [true]],
    ['createdAt >= "2026-01-05"', {}, '(r.created_at >= $2::timestamptz)', ['2026-01-05T00:00:00Z']],
    ['lastModifiedAt < "2026-01-05T10:00:00.123+01:00"', {}, '(r.last_modified_at < $2::timestamptz)', ['2026-01-05T10:00:00.123+01:00']],
    ['key in ("a", "b")', {}, '(r.key = ANY($2::text[]))', [['a', 'b']]],
    ['key not in ("a")', {}, '(r.key <> ALL($2::text[]))', [['a']]],
    ['key in :ks', { ks: ['a', 'b'] }, '(r.key = ANY($2::text[]))', [['a', 'b']]],
    ['key in :ks', { ks: ['only'] }, '(r.key = ANY($2::text[]))', [['only']]],
    ['key = :k', { k: ['x'], unused: ['y', 'z'] }, '(r.key = $2::text)', ['x']],
    ['version >= :v', { v: ['9223372036854775807'] }, '(r.version >= $2::bigint)', ['9223372036854775807']],
    ['key is defined', {}, '(r.key IS NOT NULL)', []],
    ['someProperty is not defined', {}, '(r.some_property IS NULL)', []],
    ['version is defined', {}, 'TRUE', []],
    ['version is not defined', {}, 'FALSE', []],
    ['not (key = "a")', {}, '(((r.key = $2::text)) IS NOT TRUE)', ['a']],
    ['key = "a" or version = 1 and version = 2', {}, '((r.key = $2::text) OR ((r.version = $3::bigint) AND (r.version = $4::bigint)))', ['a', '1', '2']],
    ['objectTypeProperty(arrayOfStringExample = "x")', {}, '((' + DOC + ' @> $2::jsonb))', ['{"p":{"arrayOfStringExample":["x"]}}']],
    ['objectTypeProperty(arrayOfStringExample = "5")', {}, '((' + DOC + ' @> $2::jsonb))', ['{"p":{"arrayOfStringExample":["5"]}}']],
    ['objectTypeProperty(arrayOfStringExample = "a\\"b")', {}, '((' + DOC + ' @> $2::jsonb))', ['{"p":{"arrayOfStringExample":["a\\"b"]}}']],
    ['objectTypeProperty(arrayOfFloatExample = -007.50)', {}, '((' + DOC + ' @> $2::jsonb))', ['{"p":{"arrayOfFloatExample":[-7.50]}}']],
    ['objectTypeProperty(arrayOfIntExample = 9223372036854775807)', {}, '((' + DOC + ' @> $2::jsonb))', ['{"p":{"arrayOfIntExample":[9223372036854775807]}}']],
    ['objectTypeProperty(arrayOfStringExample contains any ("a", "b"))', {}, '((' + DOC + ' @> $2::jsonb OR ' + DOC + ' @> $3::jsonb))', ['{"p":{"arrayOfStringExample":["a"]}}', '{"p":{"arrayOfStringExample":["b"]}}']],
    ['objectTypeProperty(arrayOfStringExample contains all :v)', { v: ['a', 'b'] }, '((' + DOC + ' @> $2::jsonb))', ['{"p":{"arrayOfStringExample":["a","b"]}}']],
    ['objectTypeProperty(arrayOfIntExample in (1, 2))', {}, '((' + DOC + ' @> $2::jsonb OR ' + DOC + ' @> $3::jsonb))', ['{"p":{"arrayOfIntExample":[1]}}', '{"p":{"arrayOfIntExample":[2]}}']],
    ['objectTypeProperty(arrayOfIntExample > 5)', {}, "(EXISTS (SELECT 1 FROM jsonb_array_elements_text(r.object_type_property->'arrayOfIntExample') AS e(v) WHERE e.v::numeric > $2::bigint))", ['5']],
    ['objectTypeProperty(arrayOfStringExample < "m")', {}, "(EXISTS (SELECT 1 FROM jsonb_array_elements_text(r.object_type_property->'arrayOfStringExample') AS e(v) WHERE e.v COLLATE \"C\" < $2::text))", ['m']],
    ['objectTypeProperty(arrayOfFloatExample not in (1.5))', {}, "(EXISTS (SELECT 1 FROM jsonb_array_elements_text(r.object_type_property->'arrayOfFloatExample') AS e(v) WHERE e.v::numeric <> ALL($2::numeric[])))", [['1.5']]],
    ['objectTypeProperty(arrayOfIntExample is empty)', {}, "((jsonb_array_length(r.object_type_property->'arrayOfIntExample') = 0))", []],
    ['objectTypeProperty(arrayOfObjectType is not empty)', {}, "((jsonb_array_length(r.object_type_property->'arrayOfObjectType') <> 0))", []],
    [
      'objectTypeProperty(arrayOfObjectType(integerExample = 1 and integerExampleInt32 = 2))',
      {},
      '((' + DOC + ' @> $2::jsonb))',
      ['{"p":{"arrayOfObjectType":[{"integerExample":1,"integerExampleInt32":2}]}}'],
    ],
    [
      'objectTypeProperty(arrayOfObjectType(integerExample > 5 and integerExampleInt32 = 1))',
      {},
      "((" + DOC + " @> $2::jsonb AND EXISTS (SELECT 1 FROM jsonb_array_elements(r.object_type_property->'arrayOfObjectType') AS e(o) WHERE (((e.o->>'integerExample')::numeric > $3::numeric) AND ((e.o->>'integerExampleInt32')::numeric = $4::numeric)))))",
      ['{"p":{"arrayOfObjectType":[{"integerExampleInt32":1}]}}', '5', '1'],
    ],
    [
      'objectTypeProperty(arrayOfObjectType(integerExample in (1, 2)))',
      {},
      "((EXISTS (SELECT 1 FROM jsonb_array_elements(r.object_type_property->'arrayOfObjectType') AS e(o) WHERE ((e.o->>'integerExample')::numeric = ANY($2::numeric[])))))",
      [['1', '2']],
    ],
  ];

  it.each(cases)('%s with %j', (text, vars, sql, values) => {
    expect(translate(text, vars)).toEqual({ sql, values });
  });

  it.each([
    ['objectTypeProperty(arrayOfStringExample = "x")', true],
    ['key = "a" and objectTypeProperty(arrayOfStringExample contains any ("x", "y"))', true],
    ['objectTypeProperty(arrayOfIntExample in (1, 2) and arrayOfIntExample > 0)', true],
    ['objectTypeProperty(arrayOfObjectType(integerExample = 1 and integerExampleInt32 > 2))', true],
    ['objectTypeProperty(arrayOfObjectType(integerExample > 1))', false],
    ['objectTypeProperty(arrayOfIntExample > 5)', false],
    ['key = "a" or objectTypeProperty(arrayOfStringExample = "x")', false],
    ['not (objectTypeProperty(arrayOfStringExample = "x"))', false],
    ['objectTypeProperty(arrayOfIntExample not in (1))', false],
    ['key = "a"', false],
  ])('hints: %s → an index containment among the conjuncts: %s', (text, containment) => {
    const hints = { containment: false };
    whereToSql([text], new Map(), new SqlParams(2), 'p', hints);
    expect(hints.containment).toBe(containment);
  });

  it('ANDs several where parameters, numbering placeholders across them', () => {
    const params = new SqlParams(2);
    const sql = whereToSql(['key = "a"', 'version > 1'], new Map(), params, 'p');
    expect(sql).toBe('((r.key = $2::text)) AND ((r.version > $3::bigint))');
    expect(params.values).toEqual(['a', '1']);
    expect(whereToSql([], new Map(), new SqlParams(2), 'p')).toBe('TRUE');
  });
});

/* ------------------------------------------------------------------ properties */

const TOKENS = [
  'key', 'version', 'id', 'published', 'createdAt', 'objectTypeProperty', 'arrayOfIntExample', 'arrayOfStringExample',
  'arrayOfObjectType', 'integerExample', 'and', 'or', 'not', 'in', 'contains', 'any', 'all', 'is', 'empty', 'defined',
  'true', 'false', '=', '!=', '<>', '<', '>', '<=', '>=', '(', ')', ',', '"a"', '"\\""', '5', '-1.5', ':v', ':w', ' ', '\n', '"', '\\', ';', "'",
];

/** Anything thrown is a clean PredicateError with a position inside the text (or just after it). */
function expectCleanFailure(text: string, vars: Variables): void {
  try {
    whereToSql([text], vars, new SqlParams(2), 'p');
  } catch (error) {
    if (!(error instanceof PredicateError)) throw error;
    expect(error.line).toBeGreaterThanOrEqual(1);
    expect(error.column).toBeGreaterThanOrEqual(1);
    expect(error.offset).toBeLessThanOrEqual(text.length);
    expect(error.message).toMatch(/^expected .+ \(line \d+, column \d+\)$/s);
  }
}

const VARS: Variables = new Map([
  ['v', ['5']],
  ['w', ['a', 'b']],
]);

describe('properties (fast-check)', () => {
  it('arbitrary strings never throw anything but a clean parse error', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => expectCleanFailure(text, VARS)), { numRuns: 2000 });
  });

  it('arbitrary sequences of the language\'s tokens never throw anything but a clean parse error', () => {
    const text = fc.array(fc.constantFrom(...TOKENS), { maxLength: 40 }).map((tokens) => tokens.join(' '));
    fc.assert(fc.property(text, (t) => expectCleanFailure(t, VARS)), { numRuns: 3000 });
  });

  // Well-formed predicates over typed fields with arbitrary values: they parse and translate, every
  // value travels as a bound parameter, and the SQL text is only the translator's own fragments.
  const quote = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  const safeString = fc.string({ unit: 'grapheme', maxLength: 20 }).filter((s) => !s.includes('\u0000'));
  const int = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String);
  const decimal = fc.tuple(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.nat(9999)).map(([i, f]) => `${i}.${f}`);
  const op = fc.constantFrom('=', '!=', '<>', '<', '>', '<=', '>=');

  const condition: fc.Arbitrary<{ text: string; strings: string[] }> = fc.oneof(
    fc.tuple(fc.constantFrom('key', 'someProperty', 'secondPropertyToUpdate'), op, safeString).map(([f, o, s]) => ({ text: `${f} ${o} ${quote(s)}`, strings: [s] })),
    fc.tuple(op, int).map(([o, n]) => ({ text: `version ${o} ${n}`, strings: [] })),
    fc.array(safeString, { minLength: 1, maxLength: 4 }).map((ss) => ({ text: `key in (${ss.map(quote).join(', ')})`, strings: ss })),
    fc.array(safeString, { minLength: 1, maxLength: 4 }).map((ss) => ({ text: `objectTypeProperty(arrayOfStringExample contains any (${ss.map(quote).join(', ')}))`, strings: ss })),
    fc.array(safeString, { minLength: 1, maxLength: 4 }).map((ss) => ({ text: `objectTypeProperty(arrayOfStringExample contains all (${ss.map(quote).join(', ')}))`, strings: ss })),
    fc.tuple(op, safeString).map(([o, s]) => ({ text: `objectTypeProperty(arrayOfStringExample ${o} ${quote(s)})`, strings: [s] })),
    fc.tuple(op, decimal).map(([o, d]) => ({ text: `objectTypeProperty(arrayOfFloatExample ${o} ${d})`, strings: [] })),
    fc.tuple(op, int, int).map(([o, a, b]) => ({ text: `objectTypeProperty(arrayOfObjectType(integerExample ${o} ${a} and integerExampleInt32 = ${b}))`, strings: [] })),
    fc.boolean().map((b) => ({ text: `published = ${b}`, strings: [] })),
    fc.constantFrom('key is defined', 'someProperty is not defined', 'objectTypeProperty(arrayOfIntExample is not empty)').map((text) => ({ text, strings: [] })),
  );
  const predicate: fc.Arbitrary<{ text: string; strings: string[] }> = fc.letrec<{ p: { text: string; strings: string[] } }>((tie) => ({
    p: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      condition,
      fc.tuple(tie('p'), fc.constantFrom('and', 'or', 'AND', 'Or'), tie('p')).map(([a, k, b]) => ({ text: `(${a.text}) ${k} (${b.text})`, strings: [...a.strings, ...b.strings] })),
      tie('p').map((a) => ({ text: `not (${a.text})`, strings: a.strings })),
    ),
  })).p;

  /** What SQL text may contain: the translator's fixed vocabulary. */
  const SQL_VOCABULARY =
    /^(?:\s+|\(|\)|,|\$\d+::(?:text|uuid|bigint|numeric|boolean|timestamptz|jsonb)(?:\[\])?|<>|<=|>=|=|<|>|@>|->>|->|::numeric|::text|::jsonb|'(?:arrayOf\w+|integerExample\w*|\{\})'|\[|\]|"C"|[A-Za-z_][A-Za-z_.]*|\d+)/;

  it('well-formed predicates translate, and every value reaches SQL as a bound parameter', () => {
    fc.assert(
      fc.property(predicate, ({ text, strings }) => {
        const params = new SqlParams(2);
        const sql = translateWhere(text, parseWhere(text) as Predicate, new Map(), params, 'p');
        let rest = sql;
        while (rest.length > 0) {
          const match = SQL_VOCABULARY.exec(rest);
          if (!match) throw new Error(`unexpected SQL text at: ${rest.slice(0, 40)}`);
          rest = rest.slice(match[0].length);
        }
        const placeholders = new Set([...sql.matchAll(/\$(\d+)::/g)].map((m) => Number(m[1])));
        expect([...placeholders].sort((a, b) => a - b)).toEqual(params.values.map((_, i) => i + 2));
        for (const s of strings) expect(params.values.some((v) => (Array.isArray(v) ? v.includes(s) : v === s || (typeof v === 'string' && v.includes(JSON.stringify(s)))))).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});
