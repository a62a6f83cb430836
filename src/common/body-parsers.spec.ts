import { parseForm } from './body-parsers.js';

describe('parseForm', () => {
  it.each<[string, Record<string, string | string[]>]>([
    ['a=1&b=2', { a: '1', b: '2' }],
    ['a=', { a: '' }],
    ['a+b=c%20d+e', { 'a b': 'c d e' }],
    ['a=1&b=2&a=3', { a: ['1', '3'], b: '2' }],
    ['a=1&a=1&a=2', { a: ['1', '1', '2'] }],
    ['a=x%00', { a: 'x\u0000' }],
  ])('%s → %j', (text, expected) => {
    expect(parseForm(text)).toEqual(expected);
  });

  it('keeps __proto__ as a parameter of its own, not the prototype', () => {
    const form = parseForm('__proto__=x&__proto__=y');
    expect(Object.getPrototypeOf(form)).toBe(Object.prototype);
    expect(Object.entries(form)).toEqual([['__proto__', ['x', 'y']]]);
  });
});
