import { matchesEtag, prefersAsync } from './image-headers.js';

describe('prefersAsync', () => {
  it.each<[string | undefined, boolean]>([
    [undefined, false],
    ['', false],
    ['respond-async', true],
    ['Respond-Async', true],
    ['respond-async, wait=10', true],
    ['wait=10, respond-async', true],
    ['respond-async; x=1', true],
    ['return=minimal', false],
    ['respond-asynchronously', false],
    ['wait=respond-async', false],
  ])('%s → %s', (header, expected) => {
    expect(prefersAsync(header)).toBe(expected);
  });
});

describe('matchesEtag', () => {
  const etag = '"abc"';
  it.each<[string | undefined, boolean]>([
    [undefined, false],
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    [' "x" ,W/"abc" ', true],
    ['*', true],
    ['"ABC"', false],
    ['abc', false],
    ['"abcd"', false],
    ['', false],
  ])('%s → %s', (header, expected) => {
    expect(matchesEtag(header, etag)).toBe(expected);
  });
});
