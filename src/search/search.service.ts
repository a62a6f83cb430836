import { Inject, Injectable } from '@nestjs/common';
import type { WhenSent } from '../common/answer-sent.js';
import { searchConfig, type SearchConfig } from './search.config.js';
import { tooLarge } from '../database/bounded-list.js';
import { ListAnswers } from '../database/list-answers.js';
import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import type { RawQuery } from '../common/query-params.js';
import { QuerySyntaxError } from '../query-language/lexer.js';
import { RESOURCE_CATALOGUE } from '../query-language/resource.catalogue.js';
import { type FacetExpression, type FilterExpression, parseFacet, parseFilter } from '../query-language/search-expression.parser.js';
import { SEARCH_LIMITS, SearchQueryDto } from './search.dto.js';
import { type FuzzyWord, type SearchPlan, SearchRepository, type SortField, type TextCondition } from './search.repository.js';
import {
  charLength,
  configFor,
  defaultFuzzyLevel,
  FUZZY_MAX_WORD_LENGTH,
  splitWords,
  TEXT_LIMITS,
  TEXT_PARAMETER,
  wordDistance,
} from './text-search.js';

/** Relevance, then the resource's sortable fields. */
const SORT_FIELDS: ReadonlySet<SortField> = new Set(['score', ...RESOURCE_CATALOGUE.sortFields.keys()]);
const SORT = /^\s*([A-Za-z]+)\s+(asc|desc)\s*$/i;

interface Text {
  parameter: string;
  config: string;
  text: string;
  words: string[];
}

function invalidField(name: string, value: unknown, reason: string): DomainError {
  return DomainError.of(ErrorCode.InvalidField, `Malformed parameter: ${name}: ${reason}.`, { field: name, invalidValue: value });
}

function malformed(name: string, reason: string): DomainError {
  return DomainError.of(ErrorCode.InvalidInput, `Malformed parameter: ${name}: ${reason}.`, { field: name });
}

/** Parses each expression of a parameter; a parse error becomes 400 naming the parameter and the expression. */
function parseAll<T>(name: string, texts: string[] | undefined, parse: (catalogue: typeof RESOURCE_CATALOGUE, text: string) => T): T[] {
  return (texts ?? []).map((text) => {
    try {
      return parse(RESOURCE_CATALOGUE, text);
    } catch (error) {
      if (error instanceof QuerySyntaxError) {
        const shown = text.length > 100 ? `${text.slice(0, 100)}…` : text;
        throw malformed(name, `${error.message} in '${shown}'`);
      }
      throw error;
    }
  });
}

/**
 * GET /{projectKey}/resource/searchApiPattern (docs/rules.md#search): full text per language, fuzzy
 * matching, filters at three stages, facets. Several `text.*` values (other languages, or a repeated
 * parameter) must all match; their relevance adds up.
 */
@Injectable()
export class SearchService {
  /** The configurations with rows of their own (SEARCH_LANGUAGES, and `simple`). */
  private readonly indexed: ReadonlySet<string>;

  constructor(
    private readonly repository: SearchRepository,
    @Inject(searchConfig.KEY) config: SearchConfig,
    private readonly answers: ListAnswers,
  ) {
    this.indexed = new Set(config.configs);
  }

  /** The answer is built within the project's share of memory until it has been sent (ListAnswers). */
  async search(projectKey: string, query: SearchQueryDto, raw: RawQuery, whenSent: WhenSent): Promise<string> {
    const texts = readTexts(raw, this.indexed);
    if (query.fuzzyLevel !== undefined) {
      for (const t of texts) {
        const level = defaultFuzzyLevel(charLength(t.text.trim()));
        if (query.fuzzyLevel > level) {
          throw invalidField('fuzzyLevel', query.fuzzyLevel, `must not exceed ${level}, the default level for the text '${t.text}' of ${t.parameter}`);
        }
      }
    }
    const facets = parseAll('facet', query.facet, parseFacet);
    const plan: Omit<SearchPlan, 'maxBytes'> = {
      staged: query.staged ?? false,
      texts: await this.textConditions(projectKey, texts, query.fuzzy === true, query.fuzzyLevel),
      queryFilters: parseAll<FilterExpression>('filter.query', query['filter.query'], parseFilter),
      resultFilters: parseAll<FilterExpression>('filter', query.filter, parseFilter),
      facetFilters: parseAll<FilterExpression>('filter.facets', query['filter.facets'], parseFilter),
      facets: nameFacets(query.facet ?? [], facets),
      sort: parseSort(query.sort, texts.length > 0),
      limit: query.limit ?? SEARCH_LIMITS.defaultLimit,
      offset: query.offset ?? 0,
    };
    return this.answers.build(projectKey, whenSent, async (maxBytes) => {
      const answer = await this.repository.search(projectKey, { ...plan, maxBytes });
      if (answer === null) throw tooLarge(maxBytes);
      return answer;
    });
  }

  /** Each word with its alternatives: itself, plus (fuzzy) the project's words within its distance. */
  private async textConditions(projectKey: string, texts: Text[], fuzzy: boolean, fuzzyLevel: number | undefined): Promise<TextCondition[]> {
    const lookups: FuzzyWord[] = [];
    const slots: Array<Array<number | undefined>> = texts.map((t) =>
      t.words.map((word) => {
        const distance = fuzzy ? wordDistance(word, t.text, fuzzyLevel) : 0;
        // The vocabulary holds no words with digits (ids, numbers): those match exactly.
        if (distance === 0 || charLength(word) > FUZZY_MAX_WORD_LENGTH || /\d/.test(word)) return undefined;
        lookups.push({ word: word.toLowerCase(), distance });
        return lookups.length - 1;
      }),
    );
    const neighbours = await this.repository.findNeighbours(projectKey, lookups);
    return texts.map((t, i) => ({
      config: t.config,
      words: t.words.map((word, j) => {
        const slot = slots[i][j];
        return slot === undefined ? [word] : [word, ...neighbours[slot]];
      }),
    }));
  }
}

/** Every value of every `text.<lang>` parameter; other names starting `text.` are unknown parameters (ignored). */
function readTexts(raw: RawQuery, indexed: ReadonlySet<string>): Text[] {
  const texts: Text[] = [];
  for (const [parameter, value] of Object.entries(raw ?? {})) {
    if (!TEXT_PARAMETER.test(parameter)) continue;
    for (const text of [value].flat()) {
      if (typeof text !== 'string' || text.includes('\u0000')) throw invalidField(parameter, text, 'must be text without NUL characters');
      if (charLength(text) > TEXT_LIMITS.length) throw invalidField(parameter, text, `must have at most ${TEXT_LIMITS.length} characters`);
      const words = splitWords(text);
      if (words.length === 0) throw invalidField(parameter, text, 'must contain at least one word');
      if (words.length > TEXT_LIMITS.words) throw invalidField(parameter, text, `must have at most ${TEXT_LIMITS.words} words`);
      texts.push({ parameter, config: configFor(parameter, indexed)!, text, words });
    }
  }
  if (texts.length > SEARCH_LIMITS.texts) throw malformed('text', `at most ${SEARCH_LIMITS.texts} text.<lang> values`);
  return texts;
}

/** Facets are keyed by alias, else by the parameter text; two facets with one name are refused. */
function nameFacets(texts: string[], facets: FacetExpression[]): SearchPlan['facets'] {
  const named = facets.map((facet, i) => ({ name: facet.alias ?? texts[i], facet }));
  const seen = new Set<string>();
  for (const { name } of named) {
    if (seen.has(name)) throw malformed('facet', `two facets are named '${name}'; give one an alias with 'as <name>'`);
    seen.add(name);
  }
  return named;
}

function parseSort(sorts: string[] | undefined, hasText: boolean): SearchPlan['sort'] {
  if (!sorts || sorts.length === 0) return hasText ? [{ field: 'score', descending: true }] : [{ field: 'createdAt', descending: false }];
  return sorts.map((sort) => {
    const match = SORT.exec(sort);
    if (!match || !SORT_FIELDS.has(match[1])) {
      throw malformed('sort', `expected '<field> asc|desc' with a field among ${[...SORT_FIELDS].join(', ')}, found '${sort.slice(0, 100)}'`);
    }
    return { field: match[1], descending: match[2].toLowerCase() === 'desc' };
  });
}
