import { Controller, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { exemptFromRequestTimeout } from '../../common/http-limits.js';
import { RequireScope } from '../../auth/access.decorator.js';
import { ApiErrors } from '../../common/error.dto.js';
import { CurrentPrincipal, type Principal } from '../../common/principal.js';
import { ProjectKey } from '../../common/project-key.js';
import { ApiProjectKeyParam } from '../../common/api-project-key-param.decorator.js';
import { ApiQueryVariables, QueryVariables } from '../../query-language/predicate-query.dto.js';
import type { Variables } from '../../query-language/where-sql.js';
import { ObjectTestTypeDto } from '../resource.dto.js';
import { ExportQueryDto, ExportSummaryDto, ImportResultDto, ImportSummaryDto, NDJSON } from './bulk.dto.js';
import { ExportService } from './export.service.js';
import { ImportBody } from './import-body.decorator.js';
import { IMPORT_BATCH_SIZE, type ImportRequestBody, ImportService } from './import.service.js';

const NDJSON_TEXT = `${NDJSON}; charset=utf-8`;

const EXPORT_DESCRIPTION = [
  'Streams the matching resources as `application/x-ndjson`: one resource per line exactly as GET by id answers it, ordered by id, ',
  'then the line `{"summary":{"count":N}}`. Memory stays constant whatever the count, and a slow reader only slows the export down. ',
  'A failure after the answer has begun cuts the stream without its summary line: an answer that does not end with it is incomplete. ',
  'Not a snapshot: a resource written while the export runs may or may not be in it.',
].join('');

const IMPORT_DESCRIPTION = [
  'Reads an `application/x-ndjson` body as a stream: one draft `{key, objectTypeProperty, publish?, version?}` per line, each a PUT by key ',
  '(create, or overwrite with `version` checked when given) validated by the same rules, atomic on its own. A line equal to the stored ',
  'resource (same `objectTypeProperty`, same `published`) changes nothing: 200 with `unchanged: true`, no new version, no message. ',
  'Blank lines are skipped; a line that is not JSON or breaks a rule is a 400 result, not the end of the import; of two lines with the same key the later wins and both are answered. ',
  'A line holding text the database cannot store (a NUL character or a lone UTF-16 surrogate such as `\\ud800`, in a value or a member name) ',
  'is a 400 result (`InvalidJsonInput`, `detailedErrorMessage` saying where) and never joins a batch. A batch the database refuses for any other reason ',
  'is written again line by line: a line it still refuses is its own result (400 for a value it cannot store, 503 while the database is unavailable, ',
  '500 for an internal error; none of them written) and the import goes on to its summary. ',
  `Lines are written in batches of up to ${IMPORT_BATCH_SIZE}; the answer streams one result per line, in the body's order, as each batch commits, `,
  'then `{"summary":{"lines","created","updated","unchanged","failed"}}`. ',
  'Refused before anything is written: another Content-Type (415), a Content-Length over IMPORT_MAX_BYTES (413), a body without a line (400). ',
  'A body that passes IMPORT_MAX_BYTES without declaring it ends the answer with an error line (413 envelope) instead of the summary; ',
  'the lines answered before it are written. So does a body from which nothing arrives for IMPORT_IDLE_TIMEOUT_MS (408 envelope; before the first line, a 408 answer). ',
  'HTTP_REQUEST_TIMEOUT_MS does not apply: the body may take as long as its lines do. The connection closes after the answer. ',
  'A client that goes away leaves written what was answered (and at most the batch in flight), never part of a line.',
].join('');

/** GET /{projectKey}/resource/export and POST /{projectKey}/resource/import (docs/bulk-and-cli.md). */
@ApiTags('resource')
@ApiProjectKeyParam()
@ApiExtraModels(ObjectTestTypeDto, ExportSummaryDto, ImportResultDto, ImportSummaryDto)
@Controller(':projectKey/resource')
export class BulkController {
  constructor(
    private readonly exports: ExportService,
    private readonly imports: ImportService,
  ) {}

  @Get('export')
  @RequireScope(['manage_test', 'view_test'])
  @ApiOperation({ summary: 'Exports resources as NDJSON', description: EXPORT_DESCRIPTION })
  @ApiQueryVariables('where=key in :keys&var.keys=alpha&var.keys=beta')
  @ApiResponse({
    status: 200,
    description: 'One resource per line (as GET by id), then the summary line.',
    content: {
      [NDJSON]: {
        schema: { oneOf: [{ $ref: getSchemaPath(ObjectTestTypeDto) }, { $ref: getSchemaPath(ExportSummaryDto) }] },
        example: '{"id":"…","key":"first","version":1,…}\n{"summary":{"count":1}}\n',
      },
    },
  })
  @ApiErrors(400)
  async exportResources(@ProjectKey() projectKey: string, @Query() query: ExportQueryDto, @QueryVariables() variables: Variables, @Res() res: FastifyReply): Promise<void> {
    res.type(NDJSON_TEXT).send(await this.exports.export(projectKey, query, variables));
  }

  @Post('import')
  @RequireScope(['manage_test'])
  @HttpCode(200)
  @ApiOperation({
    summary: 'Imports resources from NDJSON (each line a PUT by key)',
    description: IMPORT_DESCRIPTION,
    requestBody: {
      required: true,
      content: {
        [NDJSON]: {
          schema: { type: 'string', description: 'One ObjectTestTypeDraft with its key per line.' },
          example: '{"key":"first","objectTypeProperty":{…}}\n{"key":"second","objectTypeProperty":{…},"publish":false}\n',
        },
      },
    },
  })
  @ApiResponse({
    status: 200,
    description: 'One result per non-blank line, then the summary line (or, past IMPORT_MAX_BYTES or IMPORT_IDLE_TIMEOUT_MS, an error envelope as the last line).',
    content: {
      [NDJSON]: {
        schema: { oneOf: [{ $ref: getSchemaPath(ImportResultDto) }, { $ref: getSchemaPath(ImportSummaryDto) }] },
        example: '{"line":1,"status":201,"id":"…","version":1}\n{"line":2,"status":200,"id":"…","version":4,"unchanged":true}\n{"summary":{"lines":2,"created":1,"updated":0,"unchanged":1,"failed":0}}\n',
      },
    },
  })
  @ApiErrors(400, 408, 413, 415)
  async importResources(
    @ProjectKey() projectKey: string,
    @ImportBody() body: ImportRequestBody,
    @CurrentPrincipal() by: Principal,
    @Req() req: FastifyRequest,
    @Res() res: FastifyReply,
  ): Promise<void> {
    // An authorized import takes as long as its body does; IMPORT_IDLE_TIMEOUT_MS bounds a stalled one.
    exemptFromRequestTimeout(req.raw.socket);
    // The answer streams as the lines are written: 200 once it starts, whatever each line's own status.
    res.status(200).type(NDJSON_TEXT).send(await this.imports.import(projectKey, body, by));
  }
}
