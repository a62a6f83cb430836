import { applyDecorators, Controller, Get, Post, Put, Res } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiHeader, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { RequireScope } from '../auth/access.decorator.js';
import { ApiErrors } from '../common/error.dto.js';
import { ProjectKey } from '../common/project-key.js';
import { ApiProjectKeyParam } from '../common/api-project-key-param.decorator.js';
import { ACTION_ENDPOINTS } from './action-declaration.js';
import { CurrentActionRequest } from './action-request.decorator.js';
import type { ActionAnswer } from './backend-client.js';
import { CartDto } from './namespace-actions.dto.js';
import { type ActionRequest, NamespaceActionsService } from './namespace-actions.service.js';

const [POST_ACTION, GET_ACTION, GET_WITH_EXAMPLE, GET_WITH_HEADERS, PUT_PRIMITIVE] = ACTION_ENDPOINTS;

const DECLARED =
  'The answer is defined by the action declared for this endpoint (ACTIONS_FILE: a static answer, the project\'s ' +
  'key-value store, or an HTTP backend); ';

/** A declared action answers whatever its declaration says: any JSON value, any status it declares. */
function ActionAnswers(defaultBehaviour: string, success: object, errors: number[] = []): MethodDecorator {
  return applyDecorators(
    ApiResponse({
      status: 200,
      description: `${DECLARED}by default: ${defaultBehaviour} A static action may declare another status; a forward action relays its backend's 2xx and 4xx answers.`,
      headers: { ETag: { description: 'Store actions: the version of the stored value, `"<n>"`.', schema: { type: 'string' } } },
      content: { 'application/json': success },
    }),
    ApiErrors(...errors, 502, 504),
  );
}

const ANY_JSON = { description: 'Any JSON value: object, array, string, number (64-bit integers exact), boolean or null.' };

function send(res: FastifyReply, answer: ActionAnswer): string {
  res.status(answer.status).headers(answer.headers).type('application/json; charset=utf-8');
  return answer.json;
}

/**
 * The namespace-action endpoints (docs/rules.md#namespace-actions). Static paths under /resource: the
 * router prefers them to `{id}`.
 */
@ApiTags('namespace-actions')
@ApiExtraModels(CartDto)
@ApiProjectKeyParam()
@Controller(':projectKey/resource')
export class NamespaceActionsController {
  constructor(private readonly actions: NamespaceActionsService) {}

  @Post(POST_ACTION.path)
  @RequireScope(['manage_test'])
  @ApiOperation({ summary: 'Writes data to a backend system (namespace action)' })
  @ApiBody({ required: false, schema: { ...ANY_JSON, example: { note: 'any JSON' } } })
  @ActionAnswers('stores the JSON body (no body → null) in the project\'s key-value store and answers it.', { schema: ANY_JSON }, [400, 413, 415])
  async writeNamespaceAction(@ProjectKey() projectKey: string, @CurrentActionRequest() request: ActionRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<string> {
    return send(res, await this.actions.run(POST_ACTION, projectKey, request));
  }

  @Get(GET_ACTION.path)
  @RequireScope(['manage_test', 'view_test'])
  @ApiOperation({ summary: 'Lets a frontend fetch data asynchronously (namespace action)' })
  @ActionAnswers('answers the value last stored by POST namespace-action, or null.', { schema: ANY_JSON })
  async readNamespaceAction(@ProjectKey() projectKey: string, @CurrentActionRequest() request: ActionRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<string> {
    return send(res, await this.actions.run(GET_ACTION, projectKey, request));
  }

  @Get(GET_WITH_EXAMPLE.path)
  @RequireScope(['manage_test', 'view_test'])
  @ApiOperation({ summary: 'Fetches data asynchronously; the example answer is a cart (namespace action)' })
  @ActionAnswers('answers the example cart of the API description.', { schema: { $ref: getSchemaPath(CartDto) } })
  async getNamespaceActionWithExample(@ProjectKey() projectKey: string, @CurrentActionRequest() request: ActionRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<string> {
    return send(res, await this.actions.run(GET_WITH_EXAMPLE, projectKey, request));
  }

  @Get(GET_WITH_HEADERS.path)
  @RequireScope(['manage_test', 'view_test'])
  @ApiOperation({
    summary: 'Fetches data from a backend system, checking its headers (namespace action)',
    description:
      'Checks, in this order: `Accept` must allow application/json (absent counts as application/json; 406 otherwise); ' +
      'then `Test-Header` and `Path-Header` are required, `Path-Header` must match `^/.*$` and `Test-Header` must be JSON of a ' +
      'possibly partial ObjectTestType `{version?, objectTypeProperty?}` whose present fields are valid (400, every problem listed); ' +
      "a `Path-Header` containing `..`, `;`, `%2e`, `%2f`, `%5c` (any case) or a backslash is 400 InvalidField. " +
      'A forward action calls its backend at its URL\'s path followed by `Path-Header`.',
  })
  @ApiHeader({ name: 'Accept', required: false, description: 'Must allow application/json.', schema: { type: 'string', pattern: 'application/json', default: 'application/json' } })
  @ApiHeader({
    name: 'Test-Header',
    required: true,
    description: 'JSON of a possibly partial ObjectTestType, e.g. `{"version":1,"objectTypeProperty":{"arrayOfIntExample":[1]}}`.',
    schema: { type: 'string', example: '{"version":1}' },
  })
  @ApiHeader({ name: 'Path-Header', required: true, description: "Begins with a slash; the backend path of a forward action. No `..`, `;`, `%2e`, `%2f`, `%5c` or backslash.", schema: { type: 'string', pattern: '^/.*$', example: '/carts/current' } })
  @ActionAnswers('answers the example cart of the API description.', { schema: { $ref: getSchemaPath(CartDto) } }, [400, 406])
  async getNamespaceActionWithHeaders(@ProjectKey() projectKey: string, @CurrentActionRequest() request: ActionRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<string> {
    return send(res, await this.actions.runWithHeaders(GET_WITH_HEADERS, projectKey, request));
  }

  @Put(PUT_PRIMITIVE.path)
  @RequireScope(['manage_test'])
  @ApiOperation({ summary: 'Writes any JSON-serializable value to a backend system (namespace action)' })
  @ApiBody({ required: false, description: 'Any JSON value; no body counts as null.', schema: { ...ANY_JSON, example: 'raw string' } })
  @ActionAnswers('stores the value in the project\'s key-value store and answers it (a bare JSON string answers that string).', {
    schema: ANY_JSON,
    example: 'raw string',
  }, [400, 413, 415])
  async putJsonSerializablePrimitive(@ProjectKey() projectKey: string, @CurrentActionRequest() request: ActionRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<string> {
    return send(res, await this.actions.run(PUT_PRIMITIVE, projectKey, request));
  }
}

