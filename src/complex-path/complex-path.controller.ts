import { Controller, Headers, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { RequireScope } from '../auth/access.decorator.js';
import { ApiErrors } from '../common/error.dto.js';
import { ProjectKey } from '../common/project-key.js';
import { ApiProjectKeyParam } from '../common/api-project-key-param.decorator.js';
import { ArrayTestTypeDto } from '../common/array-test-type.dto.js';
import { ComplexPathQueryDto, FORM_ECHO_SCHEMA, MAX_KEY_LENGTH, OUT_OF_ORDER_PROPERTIES_EXAMPLE, OutOfOrderPropertiesTestTypeDto } from './complex-path.dto.js';
import { ComplexPathService } from './complex-path.service.js';
import { RequestBody } from '../common/request-body.js';

const PATH_PARAMETER = `Percent-decoded; may hold \`=\` and an encoded \`/\` (%2F). 1–${MAX_KEY_LENGTH} characters.`;
const ECHO =
  'The echo of the request: arrayOfStringExample = [uriParameterOne, uriParameterTwo, queryParameterTwo (if given), then the ' +
  'body\'s id, version, key, createdAt, lastModifiedAt, createdBy.firstName, createdBy.lastName, lastModifiedBy.firstName, ' +
  'lastModifiedBy.lastName, custom, eigthProperty … fifteenthProperty]; arrayOfFloatExample = [queryParameterOne] or []; ' +
  'arrayOfTwonumbersExample = [record revision (1 on create, +1 per replace), records stored under this uriParameterOne/uriParameterTwo]; ' +
  'the other arrays empty.';

@ApiTags('complex-path')
@ApiProjectKeyParam()
@Controller(':projectKey/resource')
export class ComplexPathController {
  constructor(private readonly complexPath: ComplexPathService) {}

  @Post('artificially-complex/path/uri-parameter-one=:uriParameterOne/:uriParameterTwo')
  @RequireScope(['manage_test'])
  @ApiOperation({
    summary: 'Stores a record under a complex path and echoes how the request was decoded',
    description:
      'The body is stored under (projectKey, uriParameterOne, uriParameterTwo, id): 201 when new, 200 when it replaced a record. ' +
      'When `Accept` prefers application/x-www-form-urlencoded (q-values honoured; ties go to the more specific, then the first listed ' +
      'media range), the same echo is answered form-encoded with 203.',
  })
  @ApiParam({ name: 'uriParameterOne', description: `Given as the segment \`uri-parameter-one=<value>\`. ${PATH_PARAMETER}` })
  @ApiParam({ name: 'uriParameterTwo', description: `A plain path segment. ${PATH_PARAMETER}` })
  @ApiHeader({ name: 'Accept', required: false, description: 'application/json (default) or application/x-www-form-urlencoded (203).' })
  @ApiBody({ type: OutOfOrderPropertiesTestTypeDto, examples: { record: { summary: 'A valid OutOfOrderPropertiesTestType', value: OUT_OF_ORDER_PROPERTIES_EXAMPLE } } })
  @ApiResponse({ status: 201, description: `A new record. ${ECHO}`, type: ArrayTestTypeDto })
  @ApiResponse({ status: 200, description: `The record replaced one with the same id. ${ECHO}`, type: ArrayTestTypeDto })
  @ApiResponse({
    status: 203,
    description: 'Accept preferred application/x-www-form-urlencoded: the same echo, form-encoded (new or replaced alike; the revision tells).',
    content: { 'application/x-www-form-urlencoded': { schema: FORM_ECHO_SCHEMA } },
  })
  @ApiErrors(400, 413, 415)
  async writeComplexPathRecord(
    @ProjectKey() projectKey: string,
    @Param('uriParameterOne') uriParameterOne: string,
    @Param('uriParameterTwo') uriParameterTwo: string,
    @Query() query: ComplexPathQueryDto,
    @RequestBody() body: OutOfOrderPropertiesTestTypeDto,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<string> {
    const answer = await this.complexPath.write(projectKey, { uriParameterOne, uriParameterTwo }, query, body, accept);
    res.status(answer.status).type(answer.contentType);
    return answer.text;
  }
}
