import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { ErrorCode } from './error-code.js';

export class ErrorDetailDto {
  @ApiProperty({ enum: ErrorCode }) code: ErrorCode;
  @ApiProperty() message: string;
  @ApiPropertyOptional({ description: 'JSON path of the offending field.' }) field?: string;
  @ApiPropertyOptional({ description: 'The rejected value.' }) invalidValue?: unknown;
  @ApiPropertyOptional({ description: 'DuplicateField: the taken value.' }) duplicateValue?: unknown;
  @ApiPropertyOptional({ type: 'integer', description: 'ConcurrentModification: the stored version.' })
  currentVersion?: number;
  @ApiPropertyOptional({ type: 'integer', description: 'Update actions: index of the failing action.' })
  actionIndex?: number;
  @ApiPropertyOptional({ description: 'InvalidJsonInput: where parsing failed.' }) detailedErrorMessage?: string;
}

export class ErrorResponseDto {
  @ApiProperty({ type: 'integer' }) statusCode: number;
  @ApiProperty() message: string;
  @ApiProperty({ type: () => [ErrorDetailDto] }) errors: ErrorDetailDto[];
  @ApiPropertyOptional({ description: 'OAuth error (401, 403, token endpoint).' }) error?: string;
  @ApiPropertyOptional() error_description?: string;
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input (InvalidInput, InvalidJsonInput, InvalidField, RequiredField, DuplicateField, MaxResourceLimitExceeded).',
  401: 'Missing, malformed or expired access token (invalid_token).',
  403: 'The token lacks the scope or names another project (insufficient_scope).',
  404: 'Not found (ResourceNotFound).',
  406: 'The Accept header excludes application/json (NotAcceptable).',
  408: 'The request body stopped arriving (RequestTimeout).',
  409: 'Version mismatch (ConcurrentModification, with currentVersion).',
  413: 'Body too large (PayloadTooLarge).',
  415: 'Unsupported Content-Type (UnsupportedMediaType).',
  421: 'Host is not an allowed api.<region>.<cloudProvider>.<domain> (MisdirectedRequest).',
  429: 'Rate limit exceeded (TooManyRequests, with Retry-After).',
  500: 'Unexpected error (General).',
  502: 'The backend of a namespace action failed or could not be reached (BadGateway).',
  504: 'The backend of a namespace action did not answer in time (GatewayTimeout).',
  503: 'Database unreachable (ServiceUnavailable).',
};

/** Documents error responses with the envelope schema. 421, 429, 500 and 503 apply to every route. */
export function ApiErrors(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...[...new Set([...statuses, 421, 500, 503])].map((status) =>
      ApiResponse({ status, description: DESCRIPTIONS[status], type: ErrorResponseDto }),
    ),
  );
}

/** `ApiErrors` of a list route (query, search, messages, versions): its 503 also comes from the project's memory share. */
export function ApiListErrors(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiErrors(...statuses),
    ApiResponse({
      status: 503,
      type: ErrorResponseDto,
      description:
        'The list answers this project builds and sends at once hold PROJECT_MAX_RESPONSE_BYTES together (default 128 MiB), and ' +
        'not enough of it was free within 5 s; or the database is unreachable (ServiceUnavailable, with Retry-After).',
    }),
  );
}
