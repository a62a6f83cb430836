import { Controller, Get, Header, HttpCode, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiExcludeEndpoint, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public, RequireScope } from '../auth/access.decorator.js';
import { AnswerSent, type WhenSent } from '../common/answer-sent.js';
import { ApiErrors } from '../common/error.dto.js';
import { CurrentPrincipal, type Principal } from '../common/principal.js';
import { ApiProjectKeyParam } from '../common/api-project-key-param.decorator.js';
import { ProjectKey } from '../common/project-key.js';
import { RequestBody } from '../common/request-body.js';
import { DeclareRoute } from '../common/route-config.js';
import { GRAPHQL_ROUTE_ACCESS } from './graphql-access.js';
import { GRAPHIQL_PAGE, GRAPHIQL_POLICY } from './graphiql-page.js';
import { GRAPHQL_LIMITS } from './graphql-limits.js';
import { type GraphqlAnswer, type GraphqlRequest, GraphqlService } from './graphql.service.js';

const DESCRIPTION =
  'GraphQL over the same resources (docs/graphql.md): `resource`, `resources`, `message`, `messages`, `resourceVersions`, ' +
  '`Resource.versions`; mutations `createResource`, `updateResource`, `deleteResource`. Each field needs the scope of its REST twin ' +
  '(a missing one is a GraphQL error `insufficient_scope` for that field, HTTP 200). Errors carry the REST code and fields in `extensions`. ' +
  `Parse and validation errors, and documents past the limits (depth ${GRAPHQL_LIMITS.maxDepth}, ${GRAPHQL_LIMITS.maxCost} result objects, ` +
  `${GRAPHQL_LIMITS.maxDocumentBytes / 1024} KiB, one operation per request) are HTTP 400. A console that asks for a token: [/graphiql](/graphiql).`;

const EXAMPLE = { query: 'query ($id: String) { resource(id: $id) { id version key objectTypeProperty { arrayOfIntExample } } }', variables: { id: '8d5b1f0e-6c1a-4f3e-bb0a-1d2e3f4a5b6c' } };

function send(reply: FastifyReply, answer: GraphqlAnswer): string {
  reply.status(answer.status).header('Content-Type', 'application/json; charset=utf-8');
  return answer.body;
}

@ApiTags('graphql')
@Controller()
export class GraphqlController {
  constructor(private readonly graphql: GraphqlService) {}

  @Post(':projectKey/graphql')
  @HttpCode(200)
  @ApiProjectKeyParam()
  @RequireScope(GRAPHQL_ROUTE_ACCESS.scopes!, { customerBound: GRAPHQL_ROUTE_ACCESS.customerBound })
  @ApiOperation({ summary: 'Runs a GraphQL query or mutation', description: DESCRIPTION })
  @ApiBody({ schema: { type: 'object', properties: { query: { type: 'string' }, variables: { type: 'object' }, operationName: { type: 'string' } }, required: ['query'] }, examples: { byId: { value: EXAMPLE } } })
  @ApiResponse({ status: 200, description: '`{data, errors?}`: field errors (insufficient_scope, ResourceNotFound, ConcurrentModification, …) are in `errors`.' })
  @ApiErrors(400, 413, 415)
  runGraphql(@ProjectKey() projectKey: string, @RequestBody() body: GraphqlRequest, @CurrentPrincipal() principal: Principal, @AnswerSent() whenSent: WhenSent, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    return this.answer(reply, body, projectKey, principal, whenSent, 'POST');
  }

  @Get(':projectKey/graphql')
  @ApiProjectKeyParam()
  @RequireScope(GRAPHQL_ROUTE_ACCESS.scopes!, { customerBound: GRAPHQL_ROUTE_ACCESS.customerBound })
  @ApiOperation({ summary: 'Runs a GraphQL query (GET: queries only)', description: DESCRIPTION })
  @ApiQuery({ name: 'query', required: true, type: String })
  @ApiQuery({ name: 'variables', required: false, type: String, description: 'JSON of an object.' })
  @ApiQuery({ name: 'operationName', required: false, type: String })
  @ApiResponse({ status: 200, description: '`{data, errors?}`.' })
  @ApiErrors(400)
  runGraphqlQuery(@ProjectKey() projectKey: string, @Query() query: Record<string, unknown>, @CurrentPrincipal() principal: Principal, @AnswerSent() whenSent: WhenSent, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    return this.answer(reply, { query: query.query, variables: query.variables, operationName: query.operationName }, projectKey, principal, whenSent, 'GET');
  }

  @Get('graphiql')
  @Public()
  @DeclareRoute({ securityHeaders: 'docs' })
  @ApiExcludeEndpoint()
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Content-Security-Policy', GRAPHIQL_POLICY)
  showGraphiql(): string {
    return GRAPHIQL_PAGE;
  }

  private async answer(reply: FastifyReply, body: GraphqlRequest, projectKey: string, principal: Principal, whenSent: WhenSent, method: 'GET' | 'POST'): Promise<string> {
    return send(reply, await this.graphql.execute(body, { projectKey, principal, whenSent, versionBatches: new Map() }, method));
  }
}
