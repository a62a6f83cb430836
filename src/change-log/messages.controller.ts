import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../auth/access.decorator.js';
import { AnswerSent, type WhenSent } from '../common/answer-sent.js';
import { ApiErrors, ApiListErrors, ErrorResponseDto } from '../common/error.dto.js';
import { JsonText } from '../common/json-text.js';
import { ProjectKey } from '../common/project-key.js';
import { ApiProjectKeyParam } from '../common/api-project-key-param.decorator.js';
import { ParamPatterns, UUID_PATTERN } from '../common/route-params.js';
import { ApiQueryVariables, QueryVariables } from '../query-language/predicate-query.dto.js';
import type { Variables } from '../query-language/where-sql.js';
import { ApiLiveChanges } from '../live/live.dto.js';
import { MESSAGE_EXAMPLE, MESSAGE_SCOPES, MessageDto, MessagePagedQueryResponseDto, MessageQueryDto } from './messages.dto.js';
import { MessagesService } from './messages.service.js';

export const BAD_MESSAGE_WHERE =
  'Malformed parameter: where: expected a field (id, sequenceNumber, resourceVersion, type, createdAt, resource, resourceUserProvidedIdentifiers) but found unknown field "colour" (line 1, column 1)';

/** GET /{projectKey}/messages and /messages/{id}: the change log's messages (docs/change-log-and-subscriptions.md#change-log). */
@ApiTags('change-log')
@ApiProjectKeyParam()
@Controller(':projectKey/messages')
export class MessagesController {
  constructor(private readonly messages: MessagesService) {}

  @Get()
  @RequireScope(MESSAGE_SCOPES)
  @JsonText()
  @ApiOperation({
    summary: 'Queries the messages of the change log',
    description:
      'Answers `{limit, offset, count, total?, results}`: one message per change of a resource, in the order they were written ' +
      '(`createdAt asc, sequenceNumber asc`) unless `sort` says otherwise. `where`, `var.<name>`, `sort`, `limit`, `offset` and `withTotal` ' +
      'work as for `sorted-query-parameters`. Messages are kept `MESSAGES_RETENTION_DAYS` (default 15). ' +
      'A resource\'s messages in order: `where=resource(id = "<id>")&sort=sequenceNumber asc`. ' +
      'With `Accept: text/event-stream` (what EventSource sends), the same `where` answers a live stream of the messages as they commit ' +
      '(the `text/event-stream` answer below).',
  })
  @ApiQueryVariables('where=type in :types and createdAt >= :since&var.types=KeySet&var.types=ResourceDeleted&var.since=2026-11-01')
  @ApiResponse({ status: 200, type: MessagePagedQueryResponseDto, description: 'A page of the matching messages, in the requested order (ties by id).' })
  @ApiResponse({
    status: 400,
    type: ErrorResponseDto,
    description: 'Malformed `where` (InvalidInput, with line and column), `sort`, `limit`, `offset` or `withTotal` (InvalidField).',
    example: { statusCode: 400, message: BAD_MESSAGE_WHERE, errors: [{ code: 'InvalidInput', message: BAD_MESSAGE_WHERE }] },
  })
  @ApiListErrors()
  @ApiLiveChanges()
  queryMessages(@ProjectKey() projectKey: string, @Query() query: MessageQueryDto, @QueryVariables() variables: Variables, @AnswerSent() whenSent: WhenSent): Promise<string> {
    return this.messages.query(projectKey, query, variables, whenSent);
  }

  @Get(':id')
  @ParamPatterns({ id: UUID_PATTERN })
  @RequireScope(MESSAGE_SCOPES)
  @JsonText()
  @ApiOperation({ summary: 'Gets a message by id' })
  @ApiParam({ name: 'id', format: 'uuid', description: 'A UUID; any other segment matches no route (404).' })
  @ApiResponse({ status: 200, type: MessageDto, example: MESSAGE_EXAMPLE })
  @ApiErrors(404)
  getMessageById(@ProjectKey() projectKey: string, @Param('id') id: string): Promise<string> {
    return this.messages.getById(projectKey, id);
  }
}
