import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../auth/access.decorator.js';
import { AnswerSent, type WhenSent } from '../common/answer-sent.js';
import { ApiErrors, ApiListErrors } from '../common/error.dto.js';
import { JsonText } from '../common/json-text.js';
import { PageQueryDto } from '../common/page-query.dto.js';
import { ProjectKey } from '../common/project-key.js';
import { ApiProjectKeyParam } from '../common/api-project-key-param.decorator.js';
import { ParamPatterns, UUID_PATTERN } from '../common/route-params.js';
import { ObjectTestTypeDto } from '../resource/resource.dto.js';
import { ResourceVersionsPageDto } from './versions.dto.js';
import { VersionsService } from './versions.service.js';

/** A version in the path: digits (at most 10: no stored version is larger). */
const VERSION_PATTERN = /^[0-9]{1,10}$/;

/**
 * GET /{projectKey}/resource/{id}/versions[/{version}] (docs/change-log-and-subscriptions.md#change-log). Two segments under /resource
 * that no other route has; `{id}` matches UUIDs only and `{version}` digits only (`@ParamPatterns`).
 */
@ApiTags('change-log')
@ApiProjectKeyParam()
@ApiParam({ name: 'id', format: 'uuid', description: 'A UUID; any other segment matches no route (404).' })
@ParamPatterns({ id: UUID_PATTERN })
@Controller(':projectKey/resource')
export class VersionsController {
  constructor(private readonly versions: VersionsService) {}

  @Get(':id/versions')
  @RequireScope(['view_audit_log', 'view_test'])
  @JsonText()
  @ApiOperation({
    summary: "Lists a resource's versions",
    description:
      'Answers `{limit, offset, count, total, results}`, newest first: each version with who wrote it, when, and the message types of the write. ' +
      'A deleted resource keeps its history (a delete adds no version). Versions are kept `HISTORY_RETENTION_DAYS` (default 90); ' +
      '404 when the project holds no version of that id.',
  })
  @ApiResponse({ status: 200, type: ResourceVersionsPageDto })
  @ApiListErrors(400, 404)
  listResourceVersions(@ProjectKey() projectKey: string, @Param('id') id: string, @Query() query: PageQueryDto, @AnswerSent() whenSent: WhenSent): Promise<string> {
    return this.versions.list(projectKey, id, query, whenSent);
  }

  @Get(':id/versions/:version')
  @ParamPatterns({ id: UUID_PATTERN, version: VERSION_PATTERN })
  @RequireScope(['view_audit_log', 'view_test'])
  @JsonText()
  @ApiOperation({
    summary: 'Gets a resource as it was at a version',
    description: 'The resource exactly as GET by id answered it right after the write of that version (also after a delete); 404 when that version is not kept.',
  })
  @ApiParam({ name: 'version', schema: { type: 'integer', minimum: 1 }, description: 'A version number; any other segment matches no route (404).' })
  @ApiResponse({ status: 200, type: ObjectTestTypeDto })
  @ApiErrors(404)
  getResourceVersion(@ProjectKey() projectKey: string, @Param('id') id: string, @Param('version') version: string): Promise<string> {
    return this.versions.get(projectKey, id, version);
  }
}
