import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsObject, IsOptional, ValidateNested } from 'class-validator';
import { Elements, Optional, Required, rule, WholeNumber, WholeNumberValue } from '../common/validation/decorators.js';
import { IndexedErrors } from '../common/validation/validation.pipe.js';
import { UpdateActions } from '../common/validation/update-actions.js';
import { Version } from '../common/array-test-type.dto.js';
import { WHERE_LIMITS } from '../query-language/where-parser.js';
import { HTTP_URL, UrlRule } from '../subscriptions/subscription.dto.js';
import { Key, KEY_DOC, RemovableKey } from '../common/object-key.js';

/*
 * The extension's request and response shapes (docs/extensions.md). The class-validator decorators of the
 * request classes are the one statement of each input rule and write the OpenAPI document. Rules of the
 * stored state or of the settings (at most 25 per project, a taken key, the destination's host, a
 * condition of the query language, timeoutInMs up to EXTENSIONS_MAX_TIMEOUT_MS) are the service's.
 */

export const MAX_EXTENSIONS_PER_PROJECT = 25;
export const MAX_TRIGGERS = 10;
/** The hard bound of `timeoutInMs` and of EXTENSIONS_MAX_TIMEOUT_MS. */
export const TIMEOUT_CEILING_MS = 10_000;
export const DEFAULT_TIMEOUT_MS = 2_000;
export const TRIGGER_ACTIONS = ['Create', 'Update'] as const;
export type TriggerAction = (typeof TRIGGER_ACTIONS)[number];
const MAX_HEADER_VALUE = 4_096;
/** Visible characters and spaces: what an HTTP header value may carry. */
const HEADER_VALUE = /^[\x21-\x7e][\x20-\x7e]*$/;


export class ExtensionAuthenticationDto {
  @Required()
  @IsIn(['AuthorizationHeader'], { message: 'must be AuthorizationHeader' })
  @ApiProperty({ enum: ['AuthorizationHeader'] })
  type: 'AuthorizationHeader';

  @Required()
  @rule('headerValue', (v) => (typeof v === 'string' && v.length <= MAX_HEADER_VALUE && HEADER_VALUE.test(v) ? undefined : `must be 1 to ${MAX_HEADER_VALUE} visible ASCII characters or spaces`))
  @ApiProperty({ maxLength: MAX_HEADER_VALUE, example: 'Bearer s3cr3t-t0ken', description: 'Sent as the `Authorization` header of every call; answered back masked (`****` and its last 4 characters).' })
  headerValue: string;
}

export class ExtensionDestinationDto {
  @Required()
  @IsIn(['HTTP'], { message: 'unknown destination type; known types: HTTP' })
  @ApiProperty({ enum: ['HTTP'] })
  type: 'HTTP';

  @Required()
  @UrlRule(HTTP_URL, 'must be an http:// or https:// URL of at most 2048 characters, without user information')
  @ApiProperty({ format: 'uri', maxLength: 2048, example: 'https://example.com/extensions/resources', description: 'Receives a POST before each write the triggers select.' })
  url: string;

  @Optional()
  @IsObject({ message: 'must be an object' })
  @ValidateNested()
  @Type(() => ExtensionAuthenticationDto)
  @ApiPropertyOptional({ type: () => ExtensionAuthenticationDto })
  authentication?: ExtensionAuthenticationDto;
}

export class ExtensionTriggerDto {
  @Required()
  @IsIn(['resource'], { message: 'must be resource' })
  @ApiProperty({ enum: ['resource'] })
  resourceTypeId: 'resource';

  @Required()
  @IsArray({ message: 'must be an array' })
  @ArrayMinSize(1, { message: 'must have 1 or 2 elements' })
  @ArrayMaxSize(2, { message: 'must have 1 or 2 elements' })
  @Elements((v) => (TRIGGER_ACTIONS.includes(v as TriggerAction) ? undefined : `must be one of ${TRIGGER_ACTIONS.join(', ')}`), { unique: true })
  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...TRIGGER_ACTIONS] }, minItems: 1, maxItems: 2, uniqueItems: true })
  actions: TriggerAction[];

  @Optional()
  @rule('condition', (v) => (typeof v === 'string' && v.length >= 1 && v.length <= WHERE_LIMITS.length ? undefined : `must be a predicate of 1 to ${WHERE_LIMITS.length} characters`))
  @ApiPropertyOptional({
    maxLength: WHERE_LIMITS.length,
    example: 'someProperty is not defined or objectTypeProperty(arrayOfIntExample contains any (1, 2))',
    description: 'A predicate of the query language over the resource as the client\'s request would leave it; checked when stored (400 InvalidInput naming line and column).',
  })
  condition?: string;
}

const TRIGGERS_RULES = (): PropertyDecorator[] => [
  IsArray({ message: 'must be an array' }),
  ArrayMinSize(1, { message: `must have 1 to ${MAX_TRIGGERS} elements` }),
  ArrayMaxSize(MAX_TRIGGERS, { message: `must have 1 to ${MAX_TRIGGERS} elements` }),
  ValidateNested({ each: true }),
  Type(() => ExtensionTriggerDto) as PropertyDecorator,
  ApiProperty({ type: () => [ExtensionTriggerDto], minItems: 1, maxItems: MAX_TRIGGERS }),
];
const apply = (decorators: PropertyDecorator[]): PropertyDecorator => (target, key) => decorators.forEach((d) => d(target, key));

const TIMEOUT_DOC = {
  type: 'integer' as const,
  minimum: 1,
  maximum: TIMEOUT_CEILING_MS,
  description: `How long the server waits for an answer (default ${DEFAULT_TIMEOUT_MS}; at most EXTENSIONS_MAX_TIMEOUT_MS, itself at most ${TIMEOUT_CEILING_MS}).`,
};

/** Body of POST /{projectKey}/extensions. */
export class ExtensionDraftDto {
  @Optional()
  @Key()
  @ApiPropertyOptional(KEY_DOC)
  key?: string;

  @Required()
  @IsObject({ message: 'must be an object' })
  @ValidateNested()
  @Type(() => ExtensionDestinationDto)
  @ApiProperty({ type: () => ExtensionDestinationDto })
  destination: ExtensionDestinationDto;

  @Required()
  @apply(TRIGGERS_RULES())
  triggers: ExtensionTriggerDto[];

  @Optional()
  @WholeNumberValue(1, TIMEOUT_CEILING_MS)
  @ApiPropertyOptional(TIMEOUT_DOC)
  timeoutInMs?: number;
}

/* ------------------------------------------------------------------ update actions */

export const EXTENSION_ACTION_NAMES = ['changeDestination', 'changeTriggers', 'setKey', 'setTimeoutInMs'] as const;
export type ExtensionActionName = (typeof EXTENSION_ACTION_NAMES)[number];

export class ExtensionActionDto {
  @Required()
  @IsIn(EXTENSION_ACTION_NAMES, { message: `unknown action; known actions: ${EXTENSION_ACTION_NAMES.join(', ')}` })
  @ApiProperty({ enum: EXTENSION_ACTION_NAMES })
  action: ExtensionActionName;
}

export class ChangeExtensionDestinationAction extends ExtensionActionDto {
  declare action: 'changeDestination';

  @Required()
  @IsObject({ message: 'must be an object' })
  @ValidateNested()
  @Type(() => ExtensionDestinationDto)
  @ApiProperty({ type: () => ExtensionDestinationDto })
  destination: ExtensionDestinationDto;
}

export class ChangeTriggersAction extends ExtensionActionDto {
  declare action: 'changeTriggers';

  @Required()
  @apply(TRIGGERS_RULES())
  triggers: ExtensionTriggerDto[];
}

export class SetExtensionKeyAction extends ExtensionActionDto {
  declare action: 'setKey';

  @RemovableKey()
  key?: string | null;
}

export class SetTimeoutInMsAction extends ExtensionActionDto {
  declare action: 'setTimeoutInMs';

  @IsOptional()
  @WholeNumberValue(1, TIMEOUT_CEILING_MS)
  @ApiPropertyOptional({ ...TIMEOUT_DOC, nullable: true, description: `Absent or null: the default, ${DEFAULT_TIMEOUT_MS}.` })
  timeoutInMs?: number | null;
}

export const EXTENSION_ACTION_CLASSES = {
  changeDestination: ChangeExtensionDestinationAction,
  changeTriggers: ChangeTriggersAction,
  setKey: SetExtensionKeyAction,
  setTimeoutInMs: SetTimeoutInMsAction,
} satisfies Record<ExtensionActionName, typeof ExtensionActionDto>;

export type ExtensionAction = ChangeExtensionDestinationAction | ChangeTriggersAction | SetExtensionKeyAction | SetTimeoutInMsAction;

const MAX_ACTIONS = 20;

/** Body of POST /{projectKey}/extensions/{id}. Errors inside an action name its index. */
@IndexedErrors({ array: 'actions', member: 'actionIndex', discriminator: 'action' })
export class ExtensionUpdateDto {
  @Required()
  @Version()
  @ApiProperty({ type: 'integer', description: 'Expected version of the extension; 409 on mismatch.' })
  version: number;

  @UpdateActions(ExtensionActionDto, EXTENSION_ACTION_CLASSES, MAX_ACTIONS)
  actions: ExtensionAction[];
}

/* ------------------------------------------------------------------ answers */

export class ExtensionResponseDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: 'integer' }) version: number;
  @ApiPropertyOptional() key?: string;
  @ApiProperty({ type: () => ExtensionDestinationDto, description: '`authentication.headerValue` is always masked: `****` and its last 4 characters.' })
  destination: ExtensionDestinationDto;
  @ApiProperty({ type: () => [ExtensionTriggerDto] }) triggers: ExtensionTriggerDto[];
  @ApiProperty({ type: 'integer' }) timeoutInMs: number;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) lastModifiedAt: string;
}

export class ExtensionPageDto {
  @ApiProperty({ type: 'integer' }) limit: number;
  @ApiProperty({ type: 'integer' }) offset: number;
  @ApiProperty({ type: 'integer' }) count: number;
  @ApiProperty({ type: 'integer' }) total: number;
  @ApiProperty({ type: () => [ExtensionResponseDto] }) results: ExtensionResponseDto[];
}

/** Query of DELETE /{projectKey}/extensions/{id}. */
export class DeleteExtensionQueryDto {
  @Required()
  @WholeNumber(1, 2_147_483_647)
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Expected version of the extension; 409 on mismatch.' })
  version: number;
}

export const EXTENSION_DRAFT_EXAMPLE = {
  key: 'resource-rules',
  destination: { type: 'HTTP', url: 'https://example.com/extensions/resources', authentication: { type: 'AuthorizationHeader', headerValue: 'Bearer s3cr3t-t0ken' } },
  triggers: [{ resourceTypeId: 'resource', actions: ['Create', 'Update'], condition: 'published = true' }],
  timeoutInMs: 1000,
};

export const EXTENSION_UPDATE_EXAMPLE = {
  version: 1,
  actions: [{ action: 'setTimeoutInMs', timeoutInMs: 500 }, { action: 'changeTriggers', triggers: [{ resourceTypeId: 'resource', actions: ['Create'] }] }],
};
