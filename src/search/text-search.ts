/**
 * Pure helpers of the full-text part of the search: which PostgreSQL text-search configuration (and so
 * which partition of `resource_search`, see migration 1763700000006) serves a `text.<lang>` parameter, how a text
 * splits into words, and the fuzzy levels (docs/rules.md#search).
 */

/** `text.en`, `text.de-DE`, …: the parameter names the API description accepts. */
export const TEXT_PARAMETER = /^text\.([a-z]{2})(-[A-Z]{2})?$/;

/**
 * Languages with their own stemming, when SEARCH_LANGUAGES names them; every other language uses
 * `simple` (lower-casing, no stemming).
 */
export const LANGUAGE_CONFIGS: Readonly<Record<string, string>> = {
  en: 'english',
  de: 'german',
  fr: 'french',
  es: 'spanish',
  it: 'italian',
  nl: 'dutch',
  pt: 'portuguese',
};
export const FALLBACK_CONFIG = 'simple';

/** Limits on one text: characters, and words after splitting. */
export const TEXT_LIMITS = { length: 1000, words: 20 };
/** Longest word fuzzy matching considers (longer words match by stemming only); the vocabulary keeps ≤ 64. */
export const FUZZY_MAX_WORD_LENGTH = 64;
/** At most this many neighbours per query word, nearest first. */
export const FUZZY_MAX_ALTERNATIVES = 20;

/**
 * The configuration whose rows answer a `text.<lang>` parameter: the language's own when the server
 * indexes it (`indexed`, from SEARCH_LANGUAGES), else `simple` (words without stemming).
 */
export function configFor(parameter: string, indexed: ReadonlySet<string>): string | undefined {
  const match = TEXT_PARAMETER.exec(parameter);
  if (!match) return undefined;
  const config = LANGUAGE_CONFIGS[match[1]];
  return config !== undefined && indexed.has(config) ? config : FALLBACK_CONFIG;
}

/**
 * Splits on white space and trims punctuation at both ends of each word; what is left of a word
 * (`foo-bar`, `a@b.com`) is parsed by PostgreSQL exactly as the same text in a resource is.
 */
export function splitWords(text: string): string[] {
  return text
    .split(/\s+/u)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter((w) => w.length > 0);
}

/** Length in characters (code points), as the fuzzy levels count it. */
export function charLength(text: string): number {
  return [...text].length;
}

/** The default fuzzy level for a text or word of that many characters: 0 for 1–2, 1 for 3–5, 2 for more. */
export function defaultFuzzyLevel(length: number): number {
  return length <= 2 ? 0 : length <= 5 ? 1 : 2;
}

/**
 * The edit distance allowed for one word: the smaller of the requested level (or the default for
 * the whole text) and the default for the word's own length.
 */
export function wordDistance(word: string, text: string, fuzzyLevel: number | undefined): number {
  const level = fuzzyLevel ?? defaultFuzzyLevel(charLength(text.trim()));
  return Math.min(level, defaultFuzzyLevel(charLength(word)));
}
