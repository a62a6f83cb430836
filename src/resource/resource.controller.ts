import { applyDecorators, Controller, Get, Head, HttpCode, Param, Patch, Post, Put, Query, Res } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiResponse, ApiTags, type ExamplesObject } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { RequireScope } from '../auth/access.decorator.js';
import { RequestBody } from '../common/request-body.js';
import { AnswerSent, type WhenSent } from '../common/answer-sent.js';
import { ApiErrors, ApiListErrors } from '../common/error.dto.js';
import { JsonText } from '../common/json-text.js';
import { CurrentPrincipal, type Principal } from '../common/principal.js';
import { ProjectKey } from '../common/project-key.js';
import { ApiProjectKeyParam } from '../common/api-project-key-param.decorator.js';
import { ArrayTestTypeDto } from '../common/array-test-type.dto.js';
import { DRAFT_EXAMPLE, KeyedObjectTestTypeDraftDto, ObjectTestTypeDraftDto, ObjectTestTypeDto } from './resource.dto.js';
import { MERGE_LIMIT, type WrittenResource } from './resource.repository.js';
import { GetResourcesQueryDto, HeadResourcesQueryDto } from './resource-filter.js';
import { ResourceService } from './resource.service.js';

/** POST, PUT and PATCH /resource: a draft in (with its request examples), 201 with the resource and its Location out. */
function DraftWrite(summary: string, body: typeof ObjectTestTypeDraftDto | typeof KeyedObjectTestTypeDraftDto, examples: ExamplesObject, ...extraErrors: number[]): MethodDecorator {
  return applyDecorators(
    HttpCode(201),
    JsonText(),
    ApiOperation({ summary }),
    ApiBody({ type: body, examples }),
    ApiResponse({ status: 201, type: ObjectTestTypeDto, headers: { Location: { schema: { type: 'string' } } } }),
    ApiErrors(400, ...extraErrors, 409, 413, 415),
  );
}

function setLocation(res: FastifyReply, projectKey: string, written: WrittenResource): string {
  res.header('Location', `/${projectKey}/resource/${written.id}`);
  return written.json;
}

/** Collection routes and the by-key read. Registered before `ResourceItemController` (see AppModule). */
@ApiTags('resource')
@ApiProjectKeyParam()
@Controller(':projectKey/resource')
export class ResourceController {
  constructor(private readonly resources: ResourceService) {}

  @Head()
  @RequireScope(['manage_test', 'view_test'])
  @HttpCode(200)
  @ApiOperation({ summary: 'Checks whether at least one resource matches', description: 'Absent parameters take the API description\'s defaults.' })
  @ApiResponse({ status: 200, description: 'At least one resource matches (no body).' })
  @ApiResponse({ status: 404, description: 'No resource matches (no body).' })
  @ApiErrors(400)
  checkResourcesExist(@ProjectKey() projectKey: string, @Query() query: HeadResourcesQueryDto): Promise<void> {
    return this.resources.assertAnyMatches(projectKey, query);
  }

  @Get()
  @RequireScope(['manage_test', 'view_test'])
  @JsonText()
  @ApiOperation({ summary: 'Queries resources', description: `Merges the arrays of the matching resources (first ${MERGE_LIMIT} by createdAt, id).` })
  @ApiResponse({ status: 200, type: ArrayTestTypeDto, headers: { 'X-Total-Count': { description: 'Number of matching resources.', schema: { type: 'integer' } } } })
  @ApiListErrors(400)
  async queryResources(
    @ProjectKey() projectKey: string,
    @Query() query: GetResourcesQueryDto,
    @AnswerSent() whenSent: WhenSent,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<string> {
    const { json, total } = await this.resources.merge(projectKey, query, whenSent);
    res.header('X-Total-Count', String(total));
    return json;
  }

  @Post()
  @RequireScope(['manage_test'], { customerBound: 'manage_my_profile_test' })
  @DraftWrite('Creates a resource, or updates the one with the draft\'s key', ObjectTestTypeDraftDto, {
    draft: { summary: 'A valid ObjectTestTypeDraft (key optional; publish defaults to true)', value: DRAFT_EXAMPLE },
    minimal: { summary: 'Without optional members', value: { objectTypeProperty: DRAFT_EXAMPLE.objectTypeProperty } },
  }, 404)
  async createResource(@ProjectKey() projectKey: string, @RequestBody() draft: ObjectTestTypeDraftDto, @CurrentPrincipal() by: Principal, @Res({ passthrough: true }) res: FastifyReply): Promise<string> {
    return setLocation(res, projectKey, await this.resources.createOrReplace(projectKey, draft, by));
  }

  @Put()
  @RequireScope(['manage_test'])
  @DraftWrite('Creates or overwrites the resource with the draft\'s key (key required)', KeyedObjectTestTypeDraftDto, {
    draft: { summary: 'A valid ObjectTestTypeDraft with its key', value: DRAFT_EXAMPLE },
  })
  async createOrOverwriteResource(@ProjectKey() projectKey: string, @RequestBody() draft: KeyedObjectTestTypeDraftDto, @CurrentPrincipal() by: Principal, @Res({ passthrough: true }) res: FastifyReply): Promise<string> {
    return setLocation(res, projectKey, await this.resources.createOrReplace(projectKey, draft, by));
  }

  @Patch()
  @RequireScope(['manage_test'])
  @DraftWrite('Overwrites the existing resource with the draft\'s key (key required)', KeyedObjectTestTypeDraftDto, {
    draft: { summary: 'A valid ObjectTestTypeDraft with its key', value: { ...DRAFT_EXAMPLE, version: 1 } },
  }, 404)
  async overwriteResource(@ProjectKey() projectKey: string, @RequestBody() draft: KeyedObjectTestTypeDraftDto, @CurrentPrincipal() by: Principal, @Res({ passthrough: true }) res: FastifyReply): Promise<string> {
    return setLocation(res, projectKey, await this.resources.replaceExisting(projectKey, draft, by));
  }

  @Get('key=:key')
  @RequireScope(['manage_test', 'view_test'])
  @JsonText()
  @ApiOperation({ summary: 'Gets a resource by key' })
  @ApiParam({ name: 'key' })
  @ApiResponse({ status: 200, type: ObjectTestTypeDto })
  @ApiErrors(400, 404)
  getResourceByKey(@ProjectKey() projectKey: string, @Param('key') key: string): Promise<string> {
    return this.resources.getByKey(projectKey, key);
  }
}
