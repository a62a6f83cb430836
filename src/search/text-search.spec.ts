import { charLength, configFor, defaultFuzzyLevel, LANGUAGE_CONFIGS, splitWords, wordDistance } from './text-search.js';

describe('text-search helpers', () => {
  it.each([
    ['text.en', 'english'],
    ['text.de-DE', 'german'],
    ['text.fr', 'french'],
    ['text.es-MX', 'spanish'],
    ['text.it', 'italian'],
    ['text.nl', 'dutch'],
    ['text.pt-BR', 'portuguese'],
    ['text.sv', 'simple'],
    ['text.ja-JP', 'simple'],
    ['text.EN', undefined],
    ['text.en-us', undefined],
    ['text.eng', undefined],
    ['textXen', undefined],
  ])('configFor(%s) = %s', (name, config) => {
    expect(configFor(name, new Set(Object.values(LANGUAGE_CONFIGS)))).toBe(config);
  });

  it('answers a language the server does not index from simple', () => {
    const indexed = new Set(['english']);
    expect(configFor('text.en-GB', indexed)).toBe('english');
    expect(configFor('text.de', indexed)).toBe('simple');
    expect(configFor('text.de', new Set())).toBe('simple');
  });

  it('splits on white space and trims punctuation around words', () => {
    expect(splitWords('  Running, shoes!  foo-bar a@b.com ... ')).toEqual(['Running', 'shoes', 'foo-bar', 'a@b.com']);
    expect(splitWords(' ,;! ')).toEqual([]);
  });

  it('levels: 0 for 1–2 characters, 1 for 3–5, 2 for more; a word gets the smaller of the text level and its own', () => {
    expect([1, 2, 3, 5, 6, 50].map(defaultFuzzyLevel)).toEqual([0, 0, 1, 1, 2, 2]);
    expect(charLength('Häuser😀')).toBe(7);
    expect(wordDistance('elephnt', 'elephnt', undefined)).toBe(2);
    expect(wordDistance('elephnt', 'elephnt', 1)).toBe(1);
    expect(wordDistance('cot', 'cot elephant', undefined)).toBe(1);
    expect(wordDistance('ox', 'ox elephant', 2)).toBe(0);
  });
});
