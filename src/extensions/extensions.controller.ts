import { Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiProjectKeyParam } from '../common/api-project-key-param.decorator.js';
import { ApiErrors } from '../common/error.dto.js';
import { PageQueryDto } from '../common/page-query.dto.js';
import { ProjectKey } from '../common/project-key.js';
import { RequestBody } from '../common/request-body.js';
import { RequireScope } from '../auth/access.decorator.js';
import {
  DeleteExtensionQueryDto,
  EXTENSION_ACTION_CLASSES,
  EXTENSION_DRAFT_EXAMPLE,
  EXTENSION_UPDATE_EXAMPLE,
  ExtensionDraftDto,
  ExtensionPageDto,
  ExtensionResponseDto,
  ExtensionUpdateDto,
  MAX_EXTENSIONS_PER_PROJECT,
} from './extension.dto.js';
import { ExtensionsService } from './extensions.service.js';

const SCOPE = ['manage_extensions'] as const;

const CHECKS =
  'The destination\'s host must be allowed (the same rules as webhooks: OUTBOUND_DESTINATION_HOSTS if set, never a link-local or "this host" address under any spelling), ' +
  'else 400 `destination: host not allowed.`; each trigger\'s `condition` must be a predicate of the query language over the resource ' +
  '(400 InvalidInput naming line and column); `timeoutInMs` at most EXTENSIONS_MAX_TIMEOUT_MS. `authentication.headerValue` is answered masked (`****` and its last 4 characters).';

@ApiTags('extensions')
@ApiProjectKeyParam()
@ApiExtraModels(...Object.values(EXTENSION_ACTION_CLASSES))
@Controller(':projectKey/extensions')
export class ExtensionsController {
  constructor(private readonly extensions: ExtensionsService) {}

  @Post()
  @HttpCode(201)
  @RequireScope([...SCOPE])
  @ApiOperation({ summary: 'Creates an extension', description: `${CHECKS} At most ${MAX_EXTENSIONS_PER_PROJECT} extensions per project (MaxResourceLimitExceeded).` })
  @ApiBody({ type: ExtensionDraftDto, examples: { checks: { summary: 'Called before creates and updates of published resources', value: EXTENSION_DRAFT_EXAMPLE } } })
  @ApiResponse({ status: 201, type: ExtensionResponseDto })
  @ApiErrors(400, 413, 415)
  createExtension(@ProjectKey() projectKey: string, @RequestBody() draft: ExtensionDraftDto): Promise<ExtensionResponseDto> {
    return this.extensions.create(projectKey, draft);
  }

  @Get()
  @RequireScope([...SCOPE])
  @ApiOperation({ summary: 'Lists the project\'s extensions, oldest first' })
  @ApiResponse({ status: 200, type: ExtensionPageDto })
  @ApiErrors(400)
  listExtensions(@ProjectKey() projectKey: string, @Query() query: PageQueryDto): Promise<ExtensionPageDto> {
    return this.extensions.list(projectKey, query);
  }

  @Get('key=:key')
  @RequireScope([...SCOPE])
  @ApiOperation({ summary: 'Gets an extension by key' })
  @ApiParam({ name: 'key' })
  @ApiResponse({ status: 200, type: ExtensionResponseDto })
  @ApiErrors(400, 404)
  getExtensionByKey(@ProjectKey() projectKey: string, @Param('key') key: string): Promise<ExtensionResponseDto> {
    return this.extensions.getByKey(projectKey, key);
  }

  @Get(':id')
  @RequireScope([...SCOPE])
  @ApiOperation({ summary: 'Gets an extension' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiResponse({ status: 200, type: ExtensionResponseDto })
  @ApiErrors(400, 404)
  getExtension(@ProjectKey() projectKey: string, @Param('id') id: string): Promise<ExtensionResponseDto> {
    return this.extensions.get(projectKey, id);
  }

  @Post(':id')
  @HttpCode(200)
  @RequireScope([...SCOPE])
  @ApiOperation({ summary: 'Updates an extension with update actions', description: `Actions: changeDestination, changeTriggers, setKey, setTimeoutInMs. All or nothing; 409 when \`version\` is not the current one. ${CHECKS}` })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiBody({ type: ExtensionUpdateDto, examples: { actions: { summary: 'A shorter timeout, creates only', value: EXTENSION_UPDATE_EXAMPLE } } })
  @ApiResponse({ status: 200, type: ExtensionResponseDto })
  @ApiErrors(400, 404, 409, 413, 415)
  updateExtension(@ProjectKey() projectKey: string, @Param('id') id: string, @RequestBody() request: ExtensionUpdateDto): Promise<ExtensionResponseDto> {
    return this.extensions.update(projectKey, id, request);
  }

  @Delete(':id')
  @RequireScope([...SCOPE])
  @ApiOperation({ summary: 'Deletes an extension' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiResponse({ status: 200, type: ExtensionResponseDto })
  @ApiErrors(400, 404, 409)
  deleteExtension(@ProjectKey() projectKey: string, @Param('id') id: string, @Query() query: DeleteExtensionQueryDto): Promise<ExtensionResponseDto> {
    return this.extensions.delete(projectKey, id, query.version);
  }
}
