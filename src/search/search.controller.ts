import { Controller, Get, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../auth/access.decorator.js';
import { AnswerSent, type WhenSent } from '../common/answer-sent.js';
import { ApiListErrors } from '../common/error.dto.js';
import { JsonText } from '../common/json-text.js';
import { ProjectKey } from '../common/project-key.js';
import { ApiProjectKeyParam } from '../common/api-project-key-param.decorator.js';
import type { RawQuery } from '../common/query-params.js';
import { FilterFacetResultDto, RangeFacetResultDto, SearchQueryDto, SearchResponseDto, TermsFacetResultDto } from './search.dto.js';
import { SearchService } from './search.service.js';
import { LANGUAGE_CONFIGS } from './text-search.js';

const LANGUAGES = Object.entries(LANGUAGE_CONFIGS).map(([code, config]) => `${code} (${config})`).join(', ');

/**
 * The search route. `searchApiPattern` is a static segment: Fastify's router prefers it to the
 * `{id}` parameter of the item routes.
 */
@ApiTags('search')
@ApiProjectKeyParam()
@ApiExtraModels(TermsFacetResultDto, RangeFacetResultDto, FilterFacetResultDto)
@Controller(':projectKey/resource')
export class SearchController {
  constructor(private readonly search: SearchService) {}

  @Get('searchApiPattern')
  @RequireScope(['manage_test', 'view_test'])
  @JsonText()
  @ApiOperation({
    summary: 'Searches resources: full text, fuzzy, filters and facets',
    description:
      'Full-text search over key, someProperty, secondPropertyToUpdate and arrayOfStringExample with the stemming of the language in ' +
      '`text.<lang>`, ranked by relevance. Languages with stemming, when the server indexes them (setting SEARCH_LANGUAGES, ' +
      'default `en` alone): ' + LANGUAGES + '; any other language, and one the server does not index, matches words without stemming. ' +
      'All words of a text must match; several `text.*` values must all match and their relevance adds up.',
  })
  @ApiQuery({
    name: 'text.<lang>',
    required: false,
    schema: { type: 'string', maxLength: 1000 },
    description: 'Any parameter named like `text.[a-z]{2}(-[A-Z]{2})?` (text.en, text.de-DE, …): at most 1000 characters, 1–20 words. Repeatable.',
  })
  @ApiResponse({ status: 200, type: SearchResponseDto })
  @ApiListErrors(400)
  searchResources(@ProjectKey() projectKey: string, @Query() query: SearchQueryDto, @Query() raw: RawQuery, @AnswerSent() whenSent: WhenSent): Promise<string> {
    return this.search.search(projectKey, query, raw, whenSent);
  }
}
