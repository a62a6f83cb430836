import fc from 'fast-check';
import { accepts, parseAccept, preferredMediaType } from './accept-header.js';

/** Accept negotiation: most specific range decides a type's quality; q=0 excludes. */

const JSON_TYPE = 'application/json';
const FORM = 'application/x-www-form-urlencoded';

describe('accepts(header, application/json)', () => {
  it.each([
    [undefined, true],
    ['', true],
    ['   ', true],
    ['application/json', true],
    ['Application/JSON', true],
    ['application/json; charset=utf-8', true],
    ['*/*', true],
    ['application/*', true],
    ['text/html, application/json;q=0.001', true],
    ['application/json;q=0, */*', false],
    ['*/*;q=0.5, application/json;q=0', false],
    ['text/html', false],
    ['application/xml, text/*', false],
    ['*/*;q=0', false],
    ['application/*;q=0, application/json', true],
    ['garbage', false],
    ['application/json;q=2', false],
    ['application/json;q=abc', false],
    ['*/json', false],
  ])('%p → %p', (header, expected) => {
    expect(accepts(header, JSON_TYPE)).toBe(expected);
  });
});

describe('preferredMediaType(header, [json, form])', () => {
  it.each([
    [undefined, JSON_TYPE],
    ['', JSON_TYPE],
    [FORM, FORM],
    [`${JSON_TYPE};q=0.5, ${FORM}`, FORM],
    [`${FORM};q=0.5, ${JSON_TYPE}`, JSON_TYPE],
    [`${FORM}, ${JSON_TYPE}`, FORM],
    [`${JSON_TYPE}, ${FORM}`, JSON_TYPE],
    [`application/*, ${FORM}`, FORM],
    [`${FORM};q=0.9, */*;q=0.1`, FORM],
    [`${FORM};q=0`, JSON_TYPE],
    ['*/*', JSON_TYPE],
    ['application/*', JSON_TYPE],
    ['text/html', JSON_TYPE],
    [`${FORM}, ${JSON_TYPE};q=1.000`, FORM],
    [`*/*;q=0.8, ${JSON_TYPE};q=0.7`, FORM],
  ])('%p → %s', (header, expected) => {
    expect(preferredMediaType(header, [JSON_TYPE, FORM])).toBe(expected);
  });

  const qvalue = fc.integer({ min: 0, max: 1000 }).map((n) => n / 1000);

  it('property: an explicit higher quality always wins', () => {
    fc.assert(
      fc.property(qvalue, qvalue, fc.boolean(), (qJson, qForm, formFirst) => {
        fc.pre(qJson !== qForm && Math.max(qJson, qForm) > 0);
        const parts = [`${JSON_TYPE};q=${qJson}`, `${FORM};q=${qForm}`];
        const header = (formFirst ? parts.reverse() : parts).join(', ');
        expect(preferredMediaType(header, [JSON_TYPE, FORM])).toBe(qForm > qJson ? FORM : JSON_TYPE);
      }),
    );
  });

  it('property: never throws and always answers a candidate', () => {
    fc.assert(
      fc.property(fc.string(), (header) => {
        expect([JSON_TYPE, FORM]).toContain(preferredMediaType(header, [JSON_TYPE, FORM]));
        expect(typeof accepts(header, JSON_TYPE)).toBe('boolean');
      }),
    );
  });
});

describe('parseAccept', () => {
  it('skips malformed ranges and keeps positions', () => {
    expect(parseAccept('text/html;level=1;q=0.5, bad, */*;q=0.1')).toEqual([
      { type: 'text', subtype: 'html', q: 0.5, position: 0 },
      { type: '*', subtype: '*', q: 0.1, position: 2 },
    ]);
  });
});
