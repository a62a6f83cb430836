import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { ACTION_NAMES, MAX_ACTIONS } from './update-actions.js';
import { MAX_ARRAY_LENGTH, MAX_STRING_LENGTH } from './array-test-type.validator.js';

/*
 * OpenAPI shapes of the resource endpoints. Bodies are checked by the hand-written validators beside
 * them (exact 64-bit integers and the contract's error paths need more than class-validator gives);
 * these classes describe the same rules for the document.
 */

const INT64 = { type: 'integer', format: 'int64' } as const;
const arrayOf = (items: object, description: string, extra: object = {}): ApiPropertyOptions =>
  ({ type: 'array', items, maxItems: MAX_ARRAY_LENGTH, description, ...extra }) as ApiPropertyOptions;

export class ObjectTypeItemDto {
  @ApiProperty({ ...INT64, description: 'Signed 64-bit integer; exact over the full range.', example: 9223372036854775807 })
  integerExample: number;

  @ApiProperty({ type: 'integer', format: 'int32', example: 2147483647 })
  integerExampleInt32: number;
}

export class ArrayTestTypeDto {
  @ApiProperty(arrayOf(INT64, 'Signed 64-bit integers; repeated values allowed.'))
  arrayOfIntExample: number[];

  @ApiProperty(arrayOf(INT64, 'Signed 64-bit integers without duplicates.', { uniqueItems: true }))
  arrayOfUniqueIntExample: number[];

  @ApiProperty({ type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2, description: 'Exactly two numbers.' })
  arrayOfTwonumbersExample: number[];

  @ApiProperty(arrayOf({ type: 'number' }, 'Numbers.'))
  arrayOfFloatExample: number[];

  @ApiProperty(arrayOf({ type: 'number' }, 'Numbers.'))
  arrayOfNumberNoDefaultsExample: number[];

  @ApiProperty(arrayOf({ type: 'string', maxLength: MAX_STRING_LENGTH }, 'Strings.'))
  arrayOfStringExample: string[];

  @ApiProperty({ type: () => [ObjectTypeItemDto], maxItems: MAX_ARRAY_LENGTH })
  arrayOfObjectType: ObjectTypeItemDto[];
}

export class ModifierDto {
  @ApiProperty({ description: 'ID of the API client of the access token.' })
  clientId: string;

  @ApiPropertyOptional({ description: 'Customer of a customer-bound client.' })
  customerId?: string;
}

export class ImageDto {
  @ApiProperty() id: string;
  @ApiProperty() url: string;
  @ApiProperty() filename: string;
  @ApiProperty({ enum: ['image/jpeg', 'image/png', 'image/gif'] }) contentType: string;
  @ApiProperty({ type: 'integer' }) width: number;
  @ApiProperty({ type: 'integer' }) height: number;
  @ApiProperty({ type: 'integer' }) size: number;
  @ApiProperty({ type: 'integer', minimum: 1 }) variant: number;
  @ApiProperty() staged: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

const KEY = { pattern: '^[A-Za-z0-9_-]{2,256}$', description: 'Unique within the project.' };

/** ObjectTestType: the resource. `version` and `objectTypeProperty` are the spec's; the rest are additional properties. */
export class ObjectTestTypeDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiPropertyOptional(KEY) key?: string;
  @ApiProperty({ type: 'integer', minimum: 1, description: '1 on create; +1 on every successful write.' })
  version: number;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) lastModifiedAt: string;
  @ApiProperty({ type: () => ModifierDto }) createdBy: ModifierDto;
  @ApiProperty({ type: () => ModifierDto }) lastModifiedBy: ModifierDto;
  @ApiProperty({ description: 'Whether the resource is published (searchable with staged=false).' })
  published: boolean;
  @ApiProperty({ type: () => ArrayTestTypeDto }) objectTypeProperty: ArrayTestTypeDto;
  @ApiPropertyOptional() someProperty?: string;
  @ApiPropertyOptional() secondPropertyToUpdate?: string;
  @ApiProperty({ type: () => [ImageDto] }) images: ImageDto[];
}

export class ObjectTestTypeDraftDto {
  @ApiProperty({ type: () => ArrayTestTypeDto }) objectTypeProperty: ArrayTestTypeDto;
  @ApiPropertyOptional({ ...KEY, description: 'Names the resource to update (POST) or replace (PUT, PATCH; required there).' })
  key?: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'Expected version when the draft updates a resource (409 on mismatch); ignored on create.' })
  version?: number;
  @ApiPropertyOptional({ default: true, description: 'Whether a new resource is published.' })
  publish?: boolean;
}

export class UpdateActionDto {
  @ApiProperty({ enum: ACTION_NAMES }) action: string;
  @ApiPropertyOptional({ description: 'Field of changeSomeProperty.' }) someProperty?: string;
  @ApiPropertyOptional({ description: 'Field of importFooForSecondPropertyToUpdate.' }) secondPropertyToUpdate?: string;
  @ApiPropertyOptional({ ...KEY, description: 'Field of setKey; absent removes the key.' }) key?: string;
  @ApiPropertyOptional({ type: () => ArrayTestTypeDto, description: 'Field of setObjectTypeProperty.' })
  objectTypeProperty?: ArrayTestTypeDto;
}

export class UpdateRequestDto {
  @ApiProperty({ type: 'number', description: 'Expected version of the resource (a whole number); 409 on mismatch.' })
  version: number;
  @ApiProperty({ type: () => [UpdateActionDto], maxItems: MAX_ACTIONS, description: 'Applied in order, all or nothing.' })
  actions: UpdateActionDto[];
}
