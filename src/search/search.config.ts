import { configSection } from '../config/env-reader.js';
import { LANGUAGE_CONFIGS } from './text-search.js';

/** Full-text search (docs/rules.md#search): the languages indexed with their own stemming. */
export interface SearchConfig {
  /** PostgreSQL text-search configurations (`english`, …) of SEARCH_LANGUAGES; `simple` is always indexed too. */
  configs: string[];
}

/**
 * SEARCH_LANGUAGES: a comma list of language codes, English among them (docs/operations.md#configuration): the
 * languages the server is configured to index, English at least; default `en`.
 */
export const searchConfig = configSection('search', (read): SearchConfig => {
  const languages = read.string('SEARCH_LANGUAGES', 'en');
  const codes = languages.split(',').map((code) => code.trim());
  const known = (code: string) => Object.hasOwn(LANGUAGE_CONFIGS, code);
  if (!codes.every(known) || !codes.includes('en')) {
    read.problems.push(`SEARCH_LANGUAGES: a comma list of ${Object.keys(LANGUAGE_CONFIGS).join(', ')} with en among them (got '${languages}')`);
  }
  return { configs: [...new Set(codes.filter(known).map((code) => LANGUAGE_CONFIGS[code]))] };
});
