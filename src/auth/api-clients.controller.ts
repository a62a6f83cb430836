import { Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { RequestBody } from '../common/request-body.js';
import { ApiErrors } from '../common/error.dto.js';
import { PageQueryDto } from '../common/page-query.dto.js';
import { ProjectKey } from '../common/project-key.js';
import { ApiProjectKeyParam } from '../common/api-project-key-param.decorator.js';
import { RequireScope } from './access.decorator.js';
import { ApiClientDraftDto, ApiClientDto, ApiClientPageDto, CreatedApiClientDto } from './api-client.dto.js';
import { ApiClientsService, toNewClient } from './api-clients.service.js';

@ApiTags('api-clients')
@ApiProjectKeyParam()
@RequireScope(['manage_api_clients'])
@Controller(':projectKey/api-clients')
export class ApiClientsController {
  constructor(private readonly clients: ApiClientsService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Creates an API client; the secret is shown once' })
  @ApiBody({ type: ApiClientDraftDto })
  @ApiResponse({ status: 201, type: CreatedApiClientDto })
  @ApiErrors(400, 413, 415)
  createApiClient(@ProjectKey() projectKey: string, @RequestBody() draft: ApiClientDraftDto): Promise<CreatedApiClientDto> {
    return this.clients.create(projectKey, toNewClient(draft, projectKey));
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
  @ApiOperation({ summary: 'Deletes an API client; its tokens stop working within seconds' })
  @ApiResponse({ status: 200, type: ApiClientDto })
  @ApiErrors(400, 404)
  deleteApiClient(@ProjectKey() projectKey: string, @Param('id') id: string): Promise<ApiClientDto> {
    return this.clients.delete(projectKey, id);
  }
}
