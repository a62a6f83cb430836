import fc from 'fast-check';
import { QuerySyntaxError as SearchExpressionError } from './lexer.js';
import { RESOURCE_CATALOGUE } from './resource.catalogue.js';
import { parseFacet as parseFacetIn, parseFilter as parseFilterIn } from './search-expression.parser.js';

// The expressions over the resource's catalogue.
const parseFilter = (text: string) => parseFilterIn(RESOURCE_CATALOGUE, text);
const parseFacet = (text: string) => parseFacetIn(RESOURCE_CATALOGUE, text);
const SEARCH_PATHS = RESOURCE_CATALOGUE.searchPaths;

const INTS = 'objectTypeProperty.arrayOfIntExample';
const STRINGS = 'objectTypeProperty.arrayOfStringExample';
const BIG = 'objectTypeProperty.arrayOfObjectType.integerExample';

/** The parse error of `fn`, or undefined when it parses. */
function errorOf(fn: () => unknown): SearchExpressionError | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    if (error instanceof SearchExpressionError) return error;
    throw error;
  }
}

describe('parseFilter', () => {
  it.each([
    [`key:"a"`, 'key', [{ kind: 'text', value: 'a' }]],
    [`key : "a" , "b"`, 'key', [{ kind: 'text', value: 'a' }, { kind: 'text', value: 'b' }]],
    [`key:"say \\"hi\\" \\\\ bye"`, 'key', [{ kind: 'text', value: 'say "hi" \\ bye' }]],
    [`key:"a:b,(c) to *"`, 'key', [{ kind: 'text', value: 'a:b,(c) to *' }]],
    [`${STRINGS}:"Häuser"`, STRINGS, [{ kind: 'text', value: 'Häuser' }]],
    [`${INTS}:1,-2,3.5,1e3`, INTS, ['1', '-2', '3.5', '1e3'].map((value) => ({ kind: 'number', value }))],
    [`${BIG}:9223372036854775807`, BIG, [{ kind: 'number', value: '9223372036854775807' }]],
    [`${INTS}:range (1 to 5)`, INTS, [{ kind: 'range', range: { from: '1', to: '5' } }]],
    [`${INTS}:RANGE(1 TO 5),(10 to *)`, INTS, [{ kind: 'range', range: { from: '1', to: '5' } }, { kind: 'range', range: { from: '10', to: undefined } }]],
    [`${INTS}:range (* to -1), 7`, INTS, [{ kind: 'range', range: { from: undefined, to: '-1' } }, { kind: 'number', value: '7' }]],
    [`${INTS}:missing`, INTS, [{ kind: 'missing' }]],
    [`${INTS}:Exists`, INTS, [{ kind: 'exists' }]],
    [`key:"a", missing`, 'key', [{ kind: 'text', value: 'a' }, { kind: 'missing' }]],
    ['published:true', 'published', [{ kind: 'boolean', value: true }]],
    ['published:FALSE', 'published', [{ kind: 'boolean', value: false }]],
    ['version:range (2 to *)', 'version', [{ kind: 'range', range: { from: '2', to: undefined } }]],
  ])('%s', (text, path, items) => {
    const parsed = parseFilter(text);
    expect(parsed.path.name).toBe(path);
    expect(parsed.items).toEqual(items);
  });

  it.each([
    ['', 1, /expected a path/],
    ['key', 4, /expected ':'/],
    ['key:', 5, /expected a value/],
    ['nope:1', 1, /unknown path 'nope'/],
    ['objectTypeProperty:1', 1, /unknown path/],
    ['key:1', 5, /key holds strings, not numbers/],
    [`${INTS}:"1"`, INTS.length + 2, /holds numbers, not strings/],
    ['published:"true"', 11, /booleans/],
    ['key:"abc', 5, /unterminated string/],
    ['key:"a\\nb"', 7, /backslash/],
    [`${INTS}:01`, INTS.length + 2, /malformed number/],
    [`${INTS}:1.`, INTS.length + 2, /malformed number/],
    [`${INTS}:1e1001`, INTS.length + 2, /out of range/],
    [`${INTS}:range (1 to 2`, INTS.length + 15, /expected '\)'/],
    [`${INTS}:range (1 2)`, INTS.length + 11, /expected 'to'/],
    [`${INTS}:range ("a" to 2)`, INTS.length + 9, /a number or \*/],
    [`${INTS}:range 1 to 2`, INTS.length + 8, /expected '\('/],
    [`${STRINGS}:range (1 to 2)`, STRINGS.length + 2, /range needs a numeric path/],
    ['key:"a" "b"', 9, /end of the expression/],
    ['key:"a",', 9, /expected a value/],
    ['key:"a";', 8, /unexpected character ';'/],
    ['key:*', 5, /expected a value/],
  ])('refuses %j at column %i', (text, column, reason) => {
    const error = errorOf(() => parseFilter(text));
    expect(error).toBeInstanceOf(SearchExpressionError);
    expect(error!.message).toMatch(reason);
    expect(error!.column).toBe(column);
    expect(error!.message).toMatch(new RegExp(`\\(column ${column}\\)$`));
  });

  it('limits the length and the number of values', () => {
    expect(errorOf(() => parseFilter(`key:"${'a'.repeat(2000)}"`))?.message).toMatch(/longer than 2000/);
    expect(errorOf(() => parseFilter(`${INTS}:${Array.from({ length: 101 }, (_, i) => i).join(',')}`))?.message).toMatch(/at most 100 values/);
    expect(parseFilter(`${INTS}:${Array.from({ length: 100 }, (_, i) => i).join(',')}`).items).toHaveLength(100);
  });
});

describe('parseFacet', () => {
  it.each([
    [INTS, { kind: 'terms', countingResources: false }],
    [`${INTS} counting resources`, { kind: 'terms', countingResources: true }],
    [`${INTS} as ints`, { kind: 'terms', countingResources: false, alias: 'ints' }],
    [`${INTS} COUNTING Resources AS ints`, { kind: 'terms', countingResources: true, alias: 'ints' }],
    [`${INTS} as ints counting resources`, { kind: 'terms', countingResources: true, alias: 'ints' }],
    [`${INTS}:range (0 to 10), (10 to *) as r`, { kind: 'range', ranges: [{ from: '0', to: '10' }, { from: '10', to: undefined }], alias: 'r' }],
    [`${STRINGS}:"red" as reds`, { kind: 'filter', items: [{ kind: 'text', value: 'red' }], alias: 'reds' }],
    [`${INTS}:range (1 to 2), 5`, { kind: 'filter', items: [{ kind: 'range', range: { from: '1', to: '2' } }, { kind: 'number', value: '5' }] }],
    ['key:missing counting resources', { kind: 'filter', items: [{ kind: 'missing' }], countingResources: true }],
    ['published as pub.lished-1', { kind: 'terms', alias: 'pub.lished-1' }],
  ])('%s', (text, expected) => {
    expect(parseFacet(text)).toMatchObject(expected);
  });

  it.each([
    ['', /expected a path/],
    ['key as', /expected an alias/],
    ['key as "x"', /expected an alias/],
    ['key counting', /expected 'resources'/],
    ['key counting products', /expected 'resources'/],
    ['key as a as b', /'counting resources', 'as <alias>' or the end|end of the expression/],
    ['key counting resources counting resources', /expected/],
    ['key:range (1 to 2)', /range needs a numeric path/],
    ['key extra', /expected 'counting resources'/],
    [`key as ${'a'.repeat(101)}`, /alias longer than 100/],
  ])('refuses %j', (text, reason) => {
    expect(errorOf(() => parseFacet(text))?.message).toMatch(reason);
  });
});

describe('property: the parsers throw nothing but a clean parse error', () => {
  const pieces = fc.constantFrom(
    ...[...SEARCH_PATHS.keys()],
    ':', ',', '(', ')', '*', ' ', 'to', 'range', 'missing', 'exists', 'true', 'false', 'counting', 'resources', 'as',
    '"a"', '"', '\\', '-', '1', '2.5', '1e3', '9223372036854775807', 'x', '.', ';', 'é',
  );
  const expression = fc.oneof(fc.string({ maxLength: 60 }), fc.array(pieces, { maxLength: 14 }).map((p) => p.join('')));

  it('parseFilter and parseFacet: a value or a SearchExpressionError with a column inside the text (+1)', () => {
    fc.assert(
      fc.property(expression, (text) => {
        for (const parse of [parseFilter, parseFacet]) {
          try {
            parse(text);
          } catch (error) {
            expect(error).toBeInstanceOf(SearchExpressionError);
            const { column } = error as SearchExpressionError;
            expect(column).toBeGreaterThanOrEqual(1);
            expect(column).toBeLessThanOrEqual(text.length + 1);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('a well-formed filter round-trips: printed values parse back to the same items', () => {
    const text = fc.string({ maxLength: 20 });
    const integer = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 5 }), fc.array(integer, { minLength: 1, maxLength: 5 }), (strings, numbers) => {
        const quoted = strings.map((s) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(', ');
        expect(parseFilter(`key:${quoted}`).items).toEqual(strings.map((value) => ({ kind: 'text', value })));
        expect(parseFilter(`${BIG}:${numbers.join(',')}`).items).toEqual(numbers.map((n) => ({ kind: 'number', value: n.toString() })));
      }),
    );
  });
});
