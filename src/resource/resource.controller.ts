import { applyDecorators, Controller, Get, Head, HttpCode, Param, Patch, Post, Put, Query, Res } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { RequireScope } from '../auth/access.decorator.js';
import { RequestBody } from '../common/request-body.js';
import { ApiErrors } from '../common/error.dto.js';
import { JsonText } from '../common/json-text.js';
import { CurrentPrincipal, Principal } from '../common/principal.js';
import { ProjectKey } from '../common/project-key.js';
import type { RawQuery } from '../common/query-params.js';
import { ArrayTestTypeDto, ObjectTestTypeDraftDto, ObjectTestTypeDto } from './resource.dto.js';
import { MERGE_LIMIT, WrittenResource } from './resource.repository.js';
import { HEAD_DEFAULTS } from './resource-filter.js';
import { ResourceService } from './resource.service.js';

const FILTERS = [
  { name: 'stringParameter', type: String, description: 'arrayOfStringExample contains the value.' },
  { name: 'floatParameter', type: Number, description: 'arrayOfFloatExample contains the value.' },
  { name: 'integerParameter', type: 'integer', format: 'int64', description: 'arrayOfIntExample contains the value (exact over 64 bits).' },
  { name: 'withMarkdownDescription', type: Number, description: 'arrayOfNumberNoDefaultsExample contains the value.' },
  { name: 'objectParameter', type: String, description: 'JSON of a (partial) ObjectTestType `{version?, objectTypeProperty?}`: the resource contains it.' },
  { name: 'arrayOfString', type: [String], description: 'Repeatable: arrayOfStringExample contains all values.' },
  { name: 'arrayOfStringWithDescription', type: [String], description: 'Repeatable: arrayOfStringExample contains any value.' },
] as const;

/** A HEAD default as the document shows it: numbers as numbers. */
function headDefault(name: string): string | number | undefined {
  const value = HEAD_DEFAULTS[name];
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : value;
}

function ApiFilters(head: boolean): MethodDecorator {
  return (target, key, descriptor) => {
    for (const filter of FILTERS) {
      const isArray = Array.isArray(filter.type);
      const schema =
        filter.type === 'integer'
          ? { type: 'integer', format: 'int64', default: head ? headDefault(filter.name) : undefined }
          : { type: filter.type === Number ? 'number' : 'string', default: head ? headDefault(filter.name) : undefined };
      ApiQuery({
        name: filter.name,
        required: false,
        description: filter.description,
        ...(isArray ? { isArray: true, type: String } : { schema }),
      })(target, key, descriptor);
    }
  };
}

/** POST, PUT and PATCH /resource: a draft in, 201 with the resource and its Location out. */
function DraftWrite(summary: string, ...extraErrors: number[]): MethodDecorator {
  return applyDecorators(
    HttpCode(201),
    JsonText(),
    ApiOperation({ summary }),
    ApiBody({ type: ObjectTestTypeDraftDto }),
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
@ApiParam({ name: 'projectKey', description: '2–36 characters of a-z, 0-9 and -.' })
@Controller(':projectKey/resource')
export class ResourceController {
  constructor(private readonly resources: ResourceService) {}

  @Head()
  @RequireScope(['manage_test', 'view_test'])
  @HttpCode(200)
  @ApiOperation({ summary: 'Checks whether at least one resource matches', description: 'Absent parameters take the spec\'s defaults.' })
  @ApiFilters(true)
  @ApiQuery({ name: 'booleanParameter', required: false, schema: { type: 'boolean', default: HEAD_DEFAULTS.booleanParameter === 'true' }, description: 'true: unpublished resources only; false: published only.' })
  @ApiResponse({ status: 200, description: 'At least one resource matches (no body).' })
  @ApiResponse({ status: 404, description: 'No resource matches (no body).' })
  @ApiErrors(400)
  checkResourcesExist(@ProjectKey() projectKey: string, @Query() query: RawQuery): Promise<void> {
    return this.resources.assertAnyMatches(projectKey, query);
  }

  @Get()
  @RequireScope(['manage_test', 'view_test'])
  @JsonText()
  @ApiOperation({ summary: 'Queries resources', description: `Merges the arrays of the matching resources (first ${MERGE_LIMIT} by createdAt, id).` })
  @ApiFilters(false)
  @ApiQuery({ name: 'unionParameter', required: false, type: String, description: 'A number (any numeric array contains it), an ISO 8601 date-time (lastModifiedAt >=) or a JSON ObjectTestType (containment).' })
  @ApiResponse({ status: 200, type: ArrayTestTypeDto, headers: { 'X-Total-Count': { description: 'Number of matching resources.', schema: { type: 'integer' } } } })
  @ApiErrors(400)
  async queryResources(@ProjectKey() projectKey: string, @Query() query: RawQuery, @Res({ passthrough: true }) res: FastifyReply): Promise<string> {
    const { json, total } = await this.resources.query(projectKey, query);
    res.header('X-Total-Count', String(total));
    return json;
  }

  @Post()
  @RequireScope(['manage_test'], { customerBound: 'manage_my_profile_test' })
  @DraftWrite('Creates a resource, or updates the one with the draft\'s key', 404)
  async createResource(@ProjectKey() projectKey: string, @RequestBody() body: unknown, @CurrentPrincipal() by: Principal, @Res({ passthrough: true }) res: FastifyReply): Promise<string> {
    return setLocation(res, projectKey, await this.resources.createOrReplace(projectKey, body, by, false));
  }

  @Put()
  @RequireScope(['manage_test'])
  @DraftWrite('Creates or overwrites the resource with the draft\'s key (key required)')
  async createOrOverwriteResource(@ProjectKey() projectKey: string, @RequestBody() body: unknown, @CurrentPrincipal() by: Principal, @Res({ passthrough: true }) res: FastifyReply): Promise<string> {
    return setLocation(res, projectKey, await this.resources.createOrReplace(projectKey, body, by, true));
  }

  @Patch()
  @RequireScope(['manage_test'])
  @DraftWrite('Overwrites the existing resource with the draft\'s key (key required)', 404)
  async overwriteResource(@ProjectKey() projectKey: string, @RequestBody() body: unknown, @CurrentPrincipal() by: Principal, @Res({ passthrough: true }) res: FastifyReply): Promise<string> {
    return setLocation(res, projectKey, await this.resources.replaceExisting(projectKey, body, by));
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
