import fc from 'fast-check';
import { findUnstorableText, unstorableText } from './storable-text.js';

/** Every character outside printable ASCII as a `\uXXXX` escape: how a client may spell any string. */
function escapedJson(value: unknown): string {
  return JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The rule spelled the slow way: every string and member name is well-formed UTF-16 without NUL. */
function storable(value: unknown): boolean {
  if (typeof value === 'string') return !value.includes('\u0000') && (value as unknown as { isWellFormed(): boolean }).isWellFormed();
  if (Array.isArray(value)) return value.every(storable);
  if (typeof value === 'object' && value !== null) return Object.entries(value).every(([name, member]) => storable(name) && storable(member));
  return true;
}

describe('unstorableText', () => {
  it.each([
    ['plain text', 'abc', undefined],
    ['a surrogate pair', 'a\ud83d\ude00b', undefined],
    ['the replacement character', '\ufffd', undefined],
    ['a NUL', 'a\u0000b', 'a NUL character (\\u0000)'],
    ['a lone high surrogate', '\ud800', 'a lone UTF-16 surrogate (\\ud800)'],
    ['a lone low surrogate', 'x\udc00', 'a lone UTF-16 surrogate (\\udc00)'],
    ['a pair in the wrong order', '\udc00\ud800', 'a lone UTF-16 surrogate (\\udc00)'],
    ['a high surrogate at the end after a pair', '\ud83d\ude00\udbff', 'a lone UTF-16 surrogate (\\udbff)'],
  ])('%s', (_name, text, expected) => {
    expect(unstorableText(text)).toBe(expected);
  });
});

describe('findUnstorableText', () => {
  const find = (text: string) => findUnstorableText(text, JSON.parse(text));

  it.each([
    ['a string in an array', '{"o":{"list":["ok","\\ud800"]}}', { path: 'o.list[1]', problem: 'a lone UTF-16 surrogate (\\ud800)' }],
    ['a lone low surrogate', '{"a":"x\\udc00y"}', { path: 'a', problem: 'a lone UTF-16 surrogate (\\udc00)' }],
    ['a NUL', '{"a":[{"b":"\\u0000"}]}', { path: 'a[0].b', problem: 'a NUL character (\\u0000)' }],
    ['a surrogate in a member name', '{"o":[{"\\ud800":1}]}', { path: 'o[0]', problem: 'a lone UTF-16 surrogate (\\ud800) in a member name' }],
    ['a surrogate inside a known name', '{"o":{"name\\udfff":1}}', { path: 'o', problem: 'a lone UTF-16 surrogate (\\udfff) in a member name' }],
    ['a NUL in a top-level member name', '{"a\\u0000":1}', { path: '', problem: 'a NUL character (\\u0000) in a member name' }],
    ['the value itself', '"\\ud800"', { path: '', problem: 'a lone UTF-16 surrogate (\\ud800)' }],
    ['the first in document order', '{"a":["\\u0000"],"b":"\\ud800"}', { path: 'a[0]', problem: 'a NUL character (\\u0000)' }],
  ])('%s', (_name, text, expected) => {
    expect(find(text)).toEqual(expected);
  });

  it.each([
    ['a pair spelled as escapes', '{"a":"\\ud83d\\ude00"}'],
    ['an escaped backslash before u0000', '{"a":"\\\\u0000","b":"\\\\ud800"}'],
    ['nothing suspect', '{"a":[1,2,{"b":"c"}],"d":null}'],
  ])('%s: nothing', (_name, text) => {
    expect(find(text)).toBeUndefined();
  });

  it('walks deep nesting without recursion', () => {
    const depth = 50_000;
    const text = `${'['.repeat(depth)}"\\ud800"${']'.repeat(depth)}`;
    expect(find(text)?.problem).toBe('a lone UTF-16 surrogate (\\ud800)');
  });

  it('agrees with the slow rule on any JSON, however it is spelled', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'é', '😀', '\u0000', '\ud800', '\udbff', '\udc00', '\udfff', '\\', '"'), maxLength: 6 });
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(text, tie('value'), { maxKeys: 3 })),
    })).value;
    fc.assert(
      fc.property(json, fc.boolean(), (value, escaped) => {
        const spelled = escaped ? escapedJson(value) : JSON.stringify(value);
        expect(findUnstorableText(spelled, JSON.parse(spelled)) === undefined).toBe(storable(value));
      }),
      { numRuns: 2_000 },
    );
  });
});
