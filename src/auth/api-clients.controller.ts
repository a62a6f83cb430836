import { Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { RequestBody } from '../common/request-body.js';
import { ApiErrors, ErrorResponseDto } from '../common/error.dto.js';
import { PageQueryDto } from '../common/page-query.dto.js';
import { ProjectKey } from '../common/project-key.js';
import { CurrentPrincipal, type Principal } from '../common/principal.js';
import { ApiProjectKeyParam } from '../common/api-project-key-param.decorator.js';
import { RequireScope } from './access.decorator.js';
import { ApiClientDraftDto, ApiClientDto, ApiClientPageDto, CreatedApiClientDto } from './api-client.dto.js';
import { ApiClientsService, toNewClient } from './api-clients.service.js';

/** The rule both writes follow, as the OpenAPI description states it. */
const WITHIN_CALLER =
  'The caller may create or delete only clients whose scopes are all among the scopes of its token; ' +
  'manage_test counts as holding view_test too. A caller whose token carries customer_id_test:<id> holds its scopes for that customer only: ' +
  'it may create or delete only clients bound to that customer (customerId), never an unbound client or one bound to another customer. ' +
  'A caller that is not customer-bound may bind a client to any customer. ' +
  'Otherwise 403 insufficient_scope, naming the scopes the caller lacks (also in WWW-Authenticate). ' +
  'The bootstrap client (BOOTSTRAP_CLIENT_ID) may create and delete clients with any scope of its project.';

const REFUSED = { status: 403, description: 'The token lacks manage_api_clients, or the client holds scopes the caller lacks (insufficient_scope).', type: ErrorResponseDto };

@ApiTags('api-clients')
@ApiProjectKeyParam()
@RequireScope(['manage_api_clients'])
@Controller(':projectKey/api-clients')
export class ApiClientsController {
  constructor(private readonly clients: ApiClientsService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Creates an API client; the secret is shown once',
    description: `${WITHIN_CALLER} A customer-bound client (customerId) may hold neither manage_test nor manage_api_clients (400 InvalidField).`,
  })
  @ApiBody({ type: ApiClientDraftDto })
  @ApiResponse({ status: 201, type: CreatedApiClientDto })
  @ApiResponse(REFUSED)
  @ApiErrors(400, 413, 415)
  createApiClient(@ProjectKey() projectKey: string, @RequestBody() draft: ApiClientDraftDto, @CurrentPrincipal() by: Principal): Promise<CreatedApiClientDto> {
    return this.clients.create(projectKey, toNewClient(draft, projectKey), by);
  }

  @Get()
  @ApiOperation({ summary: 'Lists the project\'s API clients' })
  @ApiResponse({ status: 200, type: ApiClientPageDto })
  @ApiErrors(400)
  listApiClients(@ProjectKey() projectKey: string, @Query() query: PageQueryDto): Promise<ApiClientPageDto> {
    return this.clients.list(projectKey, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Gets an API client' })
  @ApiResponse({ status: 200, type: ApiClientDto })
  @ApiErrors(400, 404)
  getApiClient(@ProjectKey() projectKey: string, @Param('id') id: string): Promise<ApiClientDto> {
    return this.clients.get(projectKey, id);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Deletes an API client; its tokens stop working within seconds', description: WITHIN_CALLER })
  @ApiResponse({ status: 200, type: ApiClientDto })
  @ApiResponse(REFUSED)
  @ApiErrors(400, 404)
  deleteApiClient(@ProjectKey() projectKey: string, @Param('id') id: string, @CurrentPrincipal() by: Principal): Promise<ApiClientDto> {
    return this.clients.delete(projectKey, id, by);
  }
}
