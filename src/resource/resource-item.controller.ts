import { Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../auth/access.decorator.js';
import { RequestBody } from '../common/request-body.js';
import { ApiErrors } from '../common/error.dto.js';
import { JsonText } from '../common/json-text.js';
import { CurrentPrincipal, type Principal } from '../common/principal.js';
import { ProjectKey } from '../common/project-key.js';
import { ApiProjectKeyParam } from '../common/api-project-key-param.decorator.js';
import { ParamPatterns, UUID_PATTERN } from '../common/route-params.js';
import { ACTION_CLASSES, ObjectTestTypeDto, UPDATE_REQUEST_EXAMPLE, UpdateRequestDto } from './resource.dto.js';
import { DeleteResourceQueryDto, GetResourceQueryDto } from './resource-item.dto.js';
import { ResourceService } from './resource.service.js';

/**
 * Routes on `/{projectKey}/resource/{id}`. A static path under /resource is never taken for an id:
 * the router prefers static segments to parameters, and `{id}` matches UUIDs only (`@ParamPatterns`);
 * a test checks that every static path is answered by its own route.
 */
@ApiTags('resource')
@ApiExtraModels(...Object.values(ACTION_CLASSES))
@ApiProjectKeyParam()
@ApiParam({ name: 'id', format: 'uuid', description: 'A UUID; any other segment matches no route (404).' })
@ParamPatterns({ id: UUID_PATTERN })
@Controller(':projectKey/resource')
export class ResourceItemController {
  constructor(private readonly resources: ResourceService) {}

  @Get(':id')
  @RequireScope(['manage_test', 'view_test'])
  @JsonText()
  @ApiOperation({ summary: 'Gets a resource by id', description: 'The optional query parameters are accepted and do not change the result.' })
  @ApiResponse({ status: 200, type: ObjectTestTypeDto })
  @ApiErrors(400, 404)
  getResourceById(@ProjectKey() projectKey: string, @Param('id') id: string, @Query() _query: GetResourceQueryDto): Promise<string> {
    return this.resources.getById(projectKey, id);
  }

  @Post(':id')
  @HttpCode(200)
  @RequireScope(['manage_test'])
  @JsonText()
  @ApiOperation({ summary: 'Updates a resource with update actions', description: 'Actions: doSomeThing, changeSomeProperty, importFooForSecondPropertyToUpdate, setKey, setObjectTypeProperty, publish, unpublish. All or nothing; +1 version when at least one action.' })
  @ApiBody({ type: UpdateRequestDto, examples: { specActions: { summary: 'Both actions of the API description', value: UPDATE_REQUEST_EXAMPLE } } })
  @ApiResponse({ status: 200, type: ObjectTestTypeDto })
  @ApiErrors(400, 404, 409, 413, 415)
  updateResource(@ProjectKey() projectKey: string, @Param('id') id: string, @RequestBody() request: UpdateRequestDto, @CurrentPrincipal() by: Principal): Promise<string> {
    return this.resources.update(projectKey, id, request, by);
  }

  @Delete(':id')
  @RequireScope(['manage_test'])
  @JsonText()
  @ApiOperation({ summary: 'Deletes a resource' })
  @ApiResponse({ status: 200, type: ObjectTestTypeDto })
  @ApiErrors(400, 404, 409)
  deleteResource(@ProjectKey() projectKey: string, @Param('id') id: string, @Query() query: DeleteResourceQueryDto, @CurrentPrincipal() by: Principal): Promise<string> {
    return this.resources.delete(projectKey, id, query.version, by);
  }
}
