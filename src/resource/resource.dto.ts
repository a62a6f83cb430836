import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsObject, ValidateNested } from 'class-validator';
import {
  IsBooleanValue,
  Optional,
  Required,
  rule,
  BoundedString,
} from '../common/validation/decorators.js';
import { IndexedErrors } from '../common/validation/validation.pipe.js';
import { UpdateActions } from '../common/validation/update-actions.js';
import { ArrayTestTypeDto, MAX_STRING_LENGTH, Version } from '../common/array-test-type.dto.js';
import { Key, KEY_DOC, RemovableKey } from '../common/object-key.js';

/*
 * The resource's request and response shapes. The class-validator decorators on the request classes
 * are the one statement of each input rule (docs/rules.md#addressing-and-input); the same classes write the
 * OpenAPI schemas. Its `objectTypeProperty` (the ArrayTestType, shared with the complex path) and the
 * resource's containment pattern are in common/array-test-type.dto.ts.
 */

/** Actions in one update request (POST /{projectKey}/resource/{id}). */
export const MAX_UPDATE_ACTIONS = 500;
/** The key's rule is common to every keyed object; the service checks a key in a path against it too. */

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

/** ObjectTestType: the resource. `version` and `objectTypeProperty` are the API description's; the rest are additional properties. */
export class ObjectTestTypeDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiPropertyOptional(KEY_DOC) key?: string;
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

/** The members of every draft but `key`, whose rule differs between POST and PUT/PATCH. */
abstract class DraftBase {
  @Required()
  @IsObject()
  @ValidateNested()
  @Type(() => ArrayTestTypeDto)
  @ApiProperty({ type: () => ArrayTestTypeDto })
  objectTypeProperty: ArrayTestTypeDto;

  @Optional()
  @Version()
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'Expected version when the draft updates a resource (409 on mismatch); ignored on create.' })
  version?: number;

  @Optional()
  @IsBooleanValue()
  @ApiPropertyOptional({ type: 'boolean', description: 'Whether a new resource is published; true when absent.' })
  publish?: boolean;
}

/** Body of POST /resource: `key` optional (an existing key updates that resource). */
export class ObjectTestTypeDraftDto extends DraftBase {
  @Optional()
  @Key()
  @ApiPropertyOptional({ ...KEY_DOC, description: 'Names the resource to update; absent or new → create.' })
  key?: string;
}

/** Body of PUT and PATCH /resource: `key` required. */
export class KeyedObjectTestTypeDraftDto extends DraftBase {
  @Required()
  @Key()
  @ApiProperty({ ...KEY_DOC, description: 'Names the resource to create or replace.' })
  key: string;
}

/** A valid ArrayTestType: the arrays of the request examples below, and of the tests' drafts. */
export const ARRAY_TEST_TYPE_EXAMPLE = {
  arrayOfIntExample: [1, 2, 2],
  arrayOfUniqueIntExample: [1, 2, 3],
  arrayOfTwonumbersExample: [1.5, 2.5],
  arrayOfFloatExample: [0.5, 10],
  arrayOfNumberNoDefaultsExample: [1500],
  arrayOfStringExample: ['test', 'alpha'],
  arrayOfObjectType: [{ integerExample: 1, integerExampleInt32: 2 }],
};

/** A valid ObjectTestTypeDraft (spec part 2): what "Try it out" sends to POST, PUT and PATCH /resource. */
export const DRAFT_EXAMPLE = { key: 'example-1', objectTypeProperty: ARRAY_TEST_TYPE_EXAMPLE };

/* ------------------------------------------------------------------ update actions */

export const ACTION_NAMES = [
  'doSomeThing',
  'changeSomeProperty',
  'importFooForSecondPropertyToUpdate',
  'setKey',
  'setObjectTypeProperty',
  'publish',
  'unpublish',
] as const;
export type ActionName = (typeof ACTION_NAMES)[number];

/** Any update action; an unknown or missing `action` stays this class and fails its rule. */
export class UpdateActionDto {
  @Required()
  @IsIn(ACTION_NAMES, { message: `unknown action; known actions: ${ACTION_NAMES.join(', ')}` })
  @ApiProperty({ enum: ACTION_NAMES })
  action: ActionName;
}

export class DoSomeThingAction extends UpdateActionDto {
  declare action: 'doSomeThing';
}

export class PublishAction extends UpdateActionDto {
  declare action: 'publish';
}

export class UnpublishAction extends UpdateActionDto {
  declare action: 'unpublish';
}

export class ChangeSomePropertyAction extends UpdateActionDto {
  declare action: 'changeSomeProperty';

  @Required()
  @BoundedString(MAX_STRING_LENGTH)
  @ApiProperty({ maxLength: MAX_STRING_LENGTH })
  someProperty: string;
}

export class ImportFooForSecondPropertyToUpdateAction extends UpdateActionDto {
  declare action: 'importFooForSecondPropertyToUpdate';

  @Required()
  @BoundedString(MAX_STRING_LENGTH)
  @ApiProperty({ maxLength: MAX_STRING_LENGTH })
  secondPropertyToUpdate: string;
}

export class SetKeyAction extends UpdateActionDto {
  declare action: 'setKey';

  @RemovableKey()
  key?: string | null;
}

export class SetObjectTypePropertyAction extends UpdateActionDto {
  declare action: 'setObjectTypeProperty';

  @Required()
  @IsObject()
  @ValidateNested()
  @Type(() => ArrayTestTypeDto)
  @ApiProperty({ type: () => ArrayTestTypeDto })
  objectTypeProperty: ArrayTestTypeDto;
}

export const ACTION_CLASSES = {
  doSomeThing: DoSomeThingAction,
  changeSomeProperty: ChangeSomePropertyAction,
  importFooForSecondPropertyToUpdate: ImportFooForSecondPropertyToUpdateAction,
  setKey: SetKeyAction,
  setObjectTypeProperty: SetObjectTypePropertyAction,
  publish: PublishAction,
  unpublish: UnpublishAction,
} satisfies Record<ActionName, typeof UpdateActionDto>;

export type UpdateAction =
  | DoSomeThingAction
  | ChangeSomePropertyAction
  | ImportFooForSecondPropertyToUpdateAction
  | SetKeyAction
  | SetObjectTypePropertyAction
  | PublishAction
  | UnpublishAction;

/** Body of POST /resource/{id}. Errors inside an action name its index (`actionIndex`, `actions[i]:`). */
@IndexedErrors({ array: 'actions', member: 'actionIndex', discriminator: 'action' })
export class UpdateRequestDto {
  @Required()
  @Version()
  @ApiProperty({ type: 'number', description: 'Expected version of the resource (a whole number); 409 on mismatch.' })
  version: number;

  @UpdateActions(UpdateActionDto, ACTION_CLASSES, MAX_UPDATE_ACTIONS)
  actions: UpdateAction[];
}

/** A valid body of POST /resource/{id} with both actions of the API description: the request example. */
export const UPDATE_REQUEST_EXAMPLE = {
  version: 1,
  actions: [{ action: 'doSomeThing' }, { action: 'changeSomeProperty', someProperty: 'new value' }],
};
