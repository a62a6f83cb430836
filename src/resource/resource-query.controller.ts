import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../auth/access.decorator.js';
import { AnswerSent, type WhenSent } from '../common/answer-sent.js';
import { ApiListErrors, ErrorResponseDto } from '../common/error.dto.js';
import { JsonText } from '../common/json-text.js';
import { ProjectKey } from '../common/project-key.js';
import { ApiProjectKeyParam } from '../common/api-project-key-param.decorator.js';
import { ResourcePagedQueryResponseDto, ResourceQueryDto } from './query/query.dto.js';
import { ApiQueryVariables, QueryVariables } from '../query-language/predicate-query.dto.js';
import { malformedWhereExample } from '../query-language/predicate-query.js';
import { RESOURCE_CATALOGUE } from '../query-language/resource.catalogue.js';
import type { Variables } from '../query-language/where-sql.js';
import { ResourceQueryService } from './resource-query.service.js';

const BAD_WHERE = malformedWhereExample(RESOURCE_CATALOGUE, 'colour = "red"');

/**
 * GET /{projectKey}/resource/sorted-query-parameters. A static segment: Fastify's router prefers it to
 * the `{id}` routes of ResourceItemController.
 */
@ApiTags('resource')
@ApiProjectKeyParam()
@Controller(':projectKey/resource')
export class ResourceQueryController {
  constructor(private readonly queries: ResourceQueryService) {}

  @Get('sorted-query-parameters')
  @RequireScope(['manage_test', 'view_test'])
  @JsonText()
  @ApiOperation({
    summary: 'Queries resources with predicates, sorting and paging',
    description:
      'Answers `{limit, offset, count, total?, results}`; the results are resources exactly as GET by id answers them. ' +
      'To page through every match: `sort=id asc`, `withTotal=false`, `limit=N` and `where=id > "<last id>"` ANDed with your predicate.',
  })
  @ApiQueryVariables('where=key in :keys and version >= :v&var.keys=alpha&var.keys=beta&var.v=2')
  @ApiResponse({ status: 200, type: ResourcePagedQueryResponseDto, description: 'A page of the matching resources, in the requested order (ties by id).' })
  @ApiResponse({
    status: 400,
    type: ErrorResponseDto,
    description: 'Malformed `where` (InvalidInput, with line and column), `sort`, `expand`, `limit`, `offset` or `withTotal` (InvalidField).',
    example: { statusCode: 400, message: BAD_WHERE, errors: [{ code: 'InvalidInput', message: BAD_WHERE }] },
  })
  @ApiListErrors()
  queryResourcesWithPredicates(
    @ProjectKey() projectKey: string,
    @Query() query: ResourceQueryDto,
    @QueryVariables() variables: Variables,
    @AnswerSent() whenSent: WhenSent,
  ): Promise<string> {
    return this.queries.query(projectKey, query, variables, whenSent);
  }
}
