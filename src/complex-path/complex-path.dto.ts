import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, isISO8601, ValidateNested } from 'class-validator';
import { BoundedString, Optional, QueryNumber, QueryString, Required, rule } from '../common/validation/decorators.js';

/*
 * The complex-path POST (docs/api-guide.md#complex-path): its body
 * OutOfOrderPropertiesTestType, every field required and typed, unknown members refused, and its
 * query parameters. These classes are the one statement of those rules (validated by the global pipe)
 * and of their OpenAPI schemas.
 */

/** Longest string field of the body. */
const MAX_FIELD_LENGTH = 10_000;
/** Longest `id` and path parameter: together they key a record (a btree entry stays within its limit). */
export const MAX_KEY_LENGTH = 200;

/** RFC 3339, the profile of ISO 8601 that OpenAPI's `date-time` names: date, time with seconds, zone. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

export function dateTimeProblem(value: unknown): string | undefined {
  return typeof value === 'string' && DATE_TIME.test(value) && isISO8601(value, { strict: true, strictSeparator: true })
    ? undefined
    : 'must be an ISO 8601 date-time with seconds and a zone, such as 2026-01-31T12:00:00.000Z';
}

const IsDateTime = (): PropertyDecorator => rule('isDateTime', dateTimeProblem);

const TEXT = { maxLength: MAX_FIELD_LENGTH };

export class PersonNameDto {
  @ApiProperty({ ...TEXT, example: 'Ada' })
  @Required()
  @BoundedString(MAX_FIELD_LENGTH)
  firstName: string;

  @ApiProperty({ ...TEXT, example: 'Lovelace' })
  @Required()
  @BoundedString(MAX_FIELD_LENGTH)
  lastName: string;
}

/** Every field required; the field names are the API description's, `eigthProperty` and `eleventhPropery` included. */
export class OutOfOrderPropertiesTestTypeDto {
  @ApiProperty({ maxLength: MAX_KEY_LENGTH, description: 'Identifies the record under the two path parameters.', example: 'record-1' })
  @Required()
  @BoundedString(MAX_KEY_LENGTH)
  id: string;

  @ApiProperty({ ...TEXT, example: '1' }) @Required() @BoundedString(MAX_FIELD_LENGTH) version: string;
  @ApiProperty({ ...TEXT, example: 'key-1' }) @Required() @BoundedString(MAX_FIELD_LENGTH) key: string;

  @ApiProperty({ format: 'date-time', example: '2026-01-31T12:00:00.000Z' }) @Required() @IsDateTime() createdAt: string;
  @ApiProperty({ format: 'date-time', example: '2026-01-31T12:30:00.000Z' }) @Required() @IsDateTime() lastModifiedAt: string;

  @ApiProperty({ type: () => PersonNameDto })
  @Required()
  @IsObject()
  @ValidateNested()
  @Type(() => PersonNameDto)
  createdBy: PersonNameDto;

  @ApiProperty({ type: () => PersonNameDto })
  @Required()
  @IsObject()
  @ValidateNested()
  @Type(() => PersonNameDto)
  lastModifiedBy: PersonNameDto;

  @ApiProperty(TEXT) @Required() @BoundedString(MAX_FIELD_LENGTH) custom: string;
  @ApiProperty(TEXT) @Required() @BoundedString(MAX_FIELD_LENGTH) eigthProperty: string;
  @ApiProperty(TEXT) @Required() @BoundedString(MAX_FIELD_LENGTH) ninthProperty: string;
  @ApiProperty(TEXT) @Required() @BoundedString(MAX_FIELD_LENGTH) tenthProperty: string;
  @ApiProperty(TEXT) @Required() @BoundedString(MAX_FIELD_LENGTH) eleventhPropery: string;
  @ApiProperty(TEXT) @Required() @BoundedString(MAX_FIELD_LENGTH) twelthProperty: string;
  @ApiProperty(TEXT) @Required() @BoundedString(MAX_FIELD_LENGTH) thirteenthProperty: string;
  @ApiProperty(TEXT) @Required() @BoundedString(MAX_FIELD_LENGTH) fourteenthProperty: string;
  @ApiProperty(TEXT) @Required() @BoundedString(MAX_FIELD_LENGTH) fifteenthProperty: string;
}

/** A valid OutOfOrderPropertiesTestType: the request example, and the tests' body. */
export const OUT_OF_ORDER_PROPERTIES_EXAMPLE = {
  id: 'record-1',
  version: 'v1',
  key: 'key-1',
  createdAt: '2026-01-31T12:00:00.000Z',
  lastModifiedAt: '2026-02-01T08:30:00+02:00',
  createdBy: { firstName: 'Ada', lastName: 'Lovelace' },
  lastModifiedBy: { firstName: 'Grace', lastName: 'Hopper' },
  custom: 'custom value',
  eigthProperty: 'p8',
  ninthProperty: 'p9',
  tenthProperty: 'p10',
  eleventhPropery: 'p11',
  twelthProperty: 'p12',
  thirteenthProperty: 'p13',
  fourteenthProperty: 'p14',
  fifteenthProperty: 'p15',
};

export class ComplexPathQueryDto {
  @ApiPropertyOptional({ type: 'number', description: 'A number; echoed in arrayOfFloatExample.', example: 1.5 })
  @Optional()
  @QueryNumber()
  queryParameterOne?: string;

  @ApiPropertyOptional({ description: 'Echoed in arrayOfStringExample (third, after the path parameters).' })
  @Optional()
  @QueryString()
  queryParameterTwo?: string;
}

/**
 * The 203 answer: the same ArrayTestType as application/x-www-form-urlencoded. Arrays are repeated
 * keys, objects `arrayOfObjectType[0][integerExample]=1`, an empty array `name=`.
 */
export const FORM_ECHO_SCHEMA = {
  type: 'object',
  description:
    'The ArrayTestType form-encoded: every array as repeated keys (`arrayOfStringExample=a&arrayOfStringExample=b`), ' +
    'objects as `arrayOfObjectType[0][integerExample]=1`, an empty array as `name=` with no value.',
  properties: {
    arrayOfIntExample: { type: 'array', items: { type: 'integer', format: 'int64' } },
    arrayOfUniqueIntExample: { type: 'array', items: { type: 'integer', format: 'int64' } },
    arrayOfTwonumbersExample: { type: 'array', items: { type: 'number' } },
    arrayOfFloatExample: { type: 'array', items: { type: 'number' } },
    arrayOfNumberNoDefaultsExample: { type: 'array', items: { type: 'number' } },
    arrayOfStringExample: { type: 'array', items: { type: 'string' } },
    arrayOfObjectType: {
      type: 'array',
      items: { type: 'object', properties: { integerExample: { type: 'integer', format: 'int64' }, integerExampleInt32: { type: 'integer', format: 'int32' } } },
    },
  },
};

