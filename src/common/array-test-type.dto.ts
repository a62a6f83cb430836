import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsObject, ValidateNested } from 'class-validator';
import {
  boundedString,
  Elements,
  type ElementRule,
  int64Element,
  IsInt32,
  IsInt64,
  numberElement,
  Optional,
  Required,
  rule,
  WholeNumberValue,
} from './validation/decorators.js';

/*
 * The API description's ArrayTestType, the `objectTypeProperty` of every resource and the body the
 * complex path echoes, and the containment pattern of a resource (`objectParameter`, `unionParameter`,
 * a namespace action's `Test-Header`). Each input rule is stated once, in `ArrayField`, for the full
 * type and its pattern alike; the same classes write the OpenAPI schemas.
 */

/** Size limits of one ArrayTestType (documented in docs/rules.md#limits and the OpenAPI document). */
export const MAX_ARRAY_LENGTH = 10_000;
export const MAX_STRING_LENGTH = 10_000;
const MAX_VERSION = 2_147_483_647;

const INT64 = { type: 'integer', format: 'int64' } as const;
const NUMBER = { type: 'number' } as const;
const STRING = { type: 'string', maxLength: MAX_STRING_LENGTH } as const;

/** Required in a draft; optional in a containment pattern (`objectParameter`, `Test-Header`). */
const Presence = (partial: boolean): PropertyDecorator => (partial ? Optional() : Required());

interface ArrayFieldOptions {
  /** Optional, and no uniqueness or exact-size rule: a containment pattern. */
  partial: boolean;
  element: ElementRule;
  /** OpenAPI schema of an element. */
  items: object;
  description: string;
  unique?: boolean;
  /** `arrayOfTwonumbersExample`: exactly two elements (at most two in a pattern). */
  pair?: boolean;
}

/** One array of an ArrayTestType: at most MAX_ARRAY_LENGTH elements, each satisfying `element`. */
function ArrayField({ partial, element, items, description, unique = false, pair = false }: ArrayFieldOptions): PropertyDecorator {
  const sizes = pair ? (partial ? { maxItems: 2 } : { minItems: 2, maxItems: 2 }) : { maxItems: MAX_ARRAY_LENGTH };
  return applyDecorators(
    Presence(partial),
    IsArray(),
    ArrayMaxSize(MAX_ARRAY_LENGTH, { message: `must have at most ${MAX_ARRAY_LENGTH} elements` }),
    ...(pair ? [PairSize(partial)] : []),
    Elements(element, { unique: unique && !partial }),
    (partial ? ApiPropertyOptional : ApiProperty)({ type: 'array', items, description, ...sizes, ...(unique && !partial ? { uniqueItems: true } : {}) } as ApiPropertyOptions),
  );
}

/** `arrayOfTwonumbersExample`: exactly two numbers (at most two in a pattern). */
const PairSize = (partial: boolean): PropertyDecorator =>
  rule('pairSize', (value) =>
    !Array.isArray(value) || (partial ? value.length <= 2 : value.length === 2)
      ? undefined
      : partial
        ? 'must have at most two numbers'
        : 'must have exactly two numbers',
  );

const stringElement = boundedString(MAX_STRING_LENGTH);

export class ObjectTypeItemDto {
  @Required()
  @IsInt64()
  @ApiProperty({ ...INT64, description: 'Signed 64-bit integer; exact over the full range.', example: 9223372036854775807 })
  integerExample: number;

  @Required()
  @IsInt32()
  @ApiProperty({ type: 'integer', format: 'int32', example: 2147483647 })
  integerExampleInt32: number;
}

export class ArrayTestTypeDto {
  @ArrayField({ partial: false, element: int64Element, items: INT64, description: 'Signed 64-bit integers; repeated values allowed.' })
  arrayOfIntExample: number[];

  @ArrayField({ partial: false, element: int64Element, items: INT64, description: 'Signed 64-bit integers without duplicates.', unique: true })
  arrayOfUniqueIntExample: number[];

  @ArrayField({ partial: false, element: numberElement, items: NUMBER, description: 'Exactly two numbers.', pair: true })
  arrayOfTwonumbersExample: number[];

  @ArrayField({ partial: false, element: numberElement, items: NUMBER, description: 'Numbers.' })
  arrayOfFloatExample: number[];

  @ArrayField({ partial: false, element: numberElement, items: NUMBER, description: 'Numbers.' })
  arrayOfNumberNoDefaultsExample: number[];

  @ArrayField({ partial: false, element: stringElement, items: STRING, description: 'Strings.' })
  arrayOfStringExample: string[];

  @Required()
  @IsArray()
  @ArrayMaxSize(MAX_ARRAY_LENGTH, { message: `must have at most ${MAX_ARRAY_LENGTH} elements` })
  @ValidateNested({ each: true })
  @Type(() => ObjectTypeItemDto)
  @ApiProperty({ type: () => [ObjectTypeItemDto], maxItems: MAX_ARRAY_LENGTH })
  arrayOfObjectType: ObjectTypeItemDto[];
}

/** An element of `arrayOfObjectType` in a containment pattern: both members optional. */
export class ObjectTypeItemPatternDto {
  @Optional()
  @IsInt64()
  @ApiPropertyOptional(INT64)
  integerExample?: number;

  @Optional()
  @IsInt32()
  @ApiPropertyOptional({ type: 'integer', format: 'int32' })
  integerExampleInt32?: number;
}

/** A partial ArrayTestType used as a containment pattern: every array optional, values as in a draft. */
export class ArrayTestTypePatternDto {
  @ArrayField({ partial: true, element: int64Element, items: INT64, description: 'Contains these integers.' })
  arrayOfIntExample?: number[];

  @ArrayField({ partial: true, element: int64Element, items: INT64, description: 'Contains these integers.' })
  arrayOfUniqueIntExample?: number[];

  @ArrayField({ partial: true, element: numberElement, items: NUMBER, description: 'Contains these numbers (at most two).', pair: true })
  arrayOfTwonumbersExample?: number[];

  @ArrayField({ partial: true, element: numberElement, items: NUMBER, description: 'Contains these numbers.' })
  arrayOfFloatExample?: number[];

  @ArrayField({ partial: true, element: numberElement, items: NUMBER, description: 'Contains these numbers.' })
  arrayOfNumberNoDefaultsExample?: number[];

  @ArrayField({ partial: true, element: stringElement, items: STRING, description: 'Contains these strings.' })
  arrayOfStringExample?: string[];

  @Optional()
  @IsArray()
  @ArrayMaxSize(MAX_ARRAY_LENGTH, { message: `must have at most ${MAX_ARRAY_LENGTH} elements` })
  @ValidateNested({ each: true })
  @Type(() => ObjectTypeItemPatternDto)
  @ApiPropertyOptional({ type: () => [ObjectTypeItemPatternDto], maxItems: MAX_ARRAY_LENGTH })
  arrayOfObjectType?: ObjectTypeItemPatternDto[];
}

/** A resource version: a whole number from 1 within int32 (`3.0` counts). */
export const Version = (): PropertyDecorator => WholeNumberValue(1, MAX_VERSION);

/** A possibly partial ObjectTestType as a containment pattern (`objectParameter`, `unionParameter`, `Test-Header`). */
export class ObjectTestTypePatternDto {
  @Optional()
  @Version()
  @ApiPropertyOptional({ type: 'integer', minimum: 1 })
  version?: number;

  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => ArrayTestTypePatternDto)
  @ApiPropertyOptional({ type: () => ArrayTestTypePatternDto })
  objectTypeProperty?: ArrayTestTypePatternDto;
}

