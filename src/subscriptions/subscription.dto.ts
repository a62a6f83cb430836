import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsObject, IsOptional, registerDecorator, ValidateIf, ValidateNested } from 'class-validator';
import { Elements, MatchesRule, Optional, Required, rule, WholeNumber } from '../common/validation/decorators.js';
import { IndexedErrors } from '../common/validation/validation.pipe.js';
import { UpdateActions } from '../common/validation/update-actions.js';
import { Version } from '../common/array-test-type.dto.js';
import { Key, KEY_DOC, RemovableKey } from '../common/object-key.js';
import { MESSAGE_TYPES } from '../query-language/message.catalogue.js';

/*
 * The subscription's request and response shapes (docs/change-log-and-subscriptions.md#subscriptions). The class-validator decorators of
 * the request classes are the one statement of each input rule; the same classes write the OpenAPI
 * document. Rules of the stored state (at most 50 per project, a taken key, the destination's host and
 * its test notification) are the service's.
 */

export const MAX_SUBSCRIPTIONS_PER_PROJECT = 50;
export const DESTINATION_TYPES = ['HTTP', 'RabbitMQ', 'NATS'] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];
export const FORMAT_TYPES = ['Platform', 'CloudEvents'] as const;

export const HTTP_URL = /^https?:\/\/[^\s/?#@]+(\/[^\s#]*)?$/i;
const AMQP_URI = /^amqps?:\/\/[^\s/?#]+(\/[^\s?#]*)?(\?[^\s#]*)?$/i;
const NATS_URL = /^(nats|tls):\/\/[^\s/?#]+\/?$/i;
/** AMQP 0-9-1 names: up to 255 of letters, digits, hyphen, underscore, period, colon. */
const EXCHANGE = /^[A-Za-z0-9_.:-]{1,255}$/;
const ROUTING_KEY = /^[^\u0000-\u001f]{0,255}$/;
/** A NATS subject to publish to: dot-separated tokens, no wildcards or white space. */
const SUBJECT = /^[^\s.*>]+(\.[^\s.*>]+)*$/;

/** A URL of at most 2048 characters matching `pattern` whose host the URL parser accepts. */
export const UrlRule = (pattern: RegExp, reason: string): PropertyDecorator =>
  rule('destinationUrl', (value) => {
    if (typeof value !== 'string' || value.length > 2048 || !pattern.test(value)) return reason;
    try {
      return new URL(value).hostname ? undefined : reason;
    } catch {
      return reason;
    }
  });

/* ------------------------------------------------------------------ destinations */

/** Any destination; an unknown or missing `type` stays this class and fails its rule. */
export class DestinationDto {
  @Required()
  @IsIn(DESTINATION_TYPES, { message: `unknown destination type; known types: ${DESTINATION_TYPES.join(', ')}` })
  @ApiProperty({ enum: DESTINATION_TYPES })
  type: DestinationType;
}

export class HttpDestinationDto extends DestinationDto {
  declare type: 'HTTP';

  @Required()
  @UrlRule(HTTP_URL, 'must be an http:// or https:// URL of at most 2048 characters, without user information')
  @ApiProperty({ format: 'uri', maxLength: 2048, example: 'https://example.com/hooks/resources', description: 'Receives a POST per notification, signed per Standard Webhooks.' })
  url: string;
}

export class RabbitMqDestinationDto extends DestinationDto {
  declare type: 'RabbitMQ';

  @Required()
  @UrlRule(AMQP_URI, 'must be an amqp:// or amqps:// URI of at most 2048 characters')
  @ApiProperty({ format: 'uri', maxLength: 2048, example: 'amqp://user:password@rabbitmq.example.com:5672/vhost', description: 'The password is never answered back.' })
  uri: string;

  @Required()
  @MatchesRule(EXCHANGE, 'must be 1 to 255 characters of A-Z, a-z, 0-9, _ . : -')
  @ApiProperty({ pattern: EXCHANGE.source, description: 'An existing exchange.' })
  exchange: string;

  @Optional()
  @MatchesRule(ROUTING_KEY, 'must be at most 255 printable characters')
  @ApiPropertyOptional({ maxLength: 255, description: 'Default: empty.' })
  routingKey?: string;
}

export class NatsDestinationDto extends DestinationDto {
  declare type: 'NATS';

  @Required()
  @UrlRule(NATS_URL, 'must be a nats:// or tls:// URL of at most 2048 characters')
  @ApiProperty({ format: 'uri', maxLength: 2048, example: 'nats://nats.example.com:4222' })
  url: string;

  @Required()
  @MatchesRule(SUBJECT, 'must be a NATS subject: dot-separated tokens without wildcards or white space')
  @ApiProperty({ pattern: SUBJECT.source, description: 'A subject a JetStream stream captures.' })
  subject: string;
}

export const DESTINATION_CLASSES = {
  HTTP: HttpDestinationDto,
  RabbitMQ: RabbitMqDestinationDto,
  NATS: NatsDestinationDto,
} satisfies Record<DestinationType, typeof DestinationDto>;

export type Destination = HttpDestinationDto | RabbitMqDestinationDto | NatsDestinationDto;

const DESTINATION_TYPE_OPTIONS = {
  discriminator: { property: 'type', subTypes: Object.entries(DESTINATION_CLASSES).map(([name, value]) => ({ name, value })) },
  keepDiscriminatorProperty: true,
};
const DESTINATION_DOC = { oneOf: Object.values(DESTINATION_CLASSES).map((cls) => ({ $ref: getSchemaPath(cls) })) };

/* ------------------------------------------------------------------ what to deliver */

export class MessageSubscriptionDto {
  @Required()
  @IsIn(['resource'], { message: "must be 'resource'" })
  @ApiProperty({ enum: ['resource'] })
  resourceTypeId: 'resource';

  @Optional()
  @IsArray({ message: 'must be an array' })
  @ArrayMinSize(1, { message: 'must name at least one type (leave it out for every type)' })
  @Elements((value) => (MESSAGE_TYPES.includes(value as never) ? undefined : `must be one of ${MESSAGE_TYPES.join(', ')}`), { unique: true })
  @ApiPropertyOptional({ type: 'array', items: { type: 'string', enum: [...MESSAGE_TYPES] }, uniqueItems: true, description: 'Absent: every type.' })
  types?: string[];
}

export class ChangeSubscriptionDto {
  @Required()
  @IsIn(['resource'], { message: "must be 'resource'" })
  @ApiProperty({ enum: ['resource'] })
  resourceTypeId: 'resource';
}

export class FormatDto {
  @Required()
  @IsIn(FORMAT_TYPES, { message: `must be one of ${FORMAT_TYPES.join(', ')}` })
  @ApiProperty({ enum: FORMAT_TYPES })
  type: (typeof FORMAT_TYPES)[number];

  @Optional()
  @IsIn(['1.0'], { message: "must be '1.0'" })
  @ApiPropertyOptional({ enum: ['1.0'], description: 'CloudEvents only; default 1.0.' })
  cloudEventsVersion?: '1.0';
}

const nonEmpty = (value: unknown): boolean => Array.isArray(value) && value.length > 0;

/** `messages` and `changes` of a draft: at least one of them non-empty. */
const SubscribesToSomething = (): PropertyDecorator => (target, propertyName) =>
  registerDecorator({
    name: 'subscribesToSomething',
    target: target.constructor,
    propertyName: propertyName as string,
    validator: {
      validate: (value: unknown, args) => nonEmpty(value) || nonEmpty((args?.object as SubscriptionDraftDto).changes),
      defaultMessage: () => 'at least one of messages, changes must be a non-empty array',
    },
  });

const MAX_FILTERS = 10;

/** Body of POST /{projectKey}/subscriptions. */
export class SubscriptionDraftDto {
  @Optional()
  @Key()
  @ApiPropertyOptional(KEY_DOC)
  key?: string;

  @Required()
  @IsObject({ message: 'must be an object' })
  @ValidateNested()
  @Type(() => DestinationDto, DESTINATION_TYPE_OPTIONS)
  @ApiProperty(DESTINATION_DOC)
  destination: Destination;

  // Validated when given, and when `changes` is empty too (then it must be non-empty itself).
  @ValidateIf((draft: SubscriptionDraftDto) => draft.messages !== undefined || !nonEmpty(draft.changes))
  @SubscribesToSomething()
  @ArrayMaxSize(MAX_FILTERS, { message: `must have at most ${MAX_FILTERS} elements` })
  @ValidateNested({ each: true })
  @Type(() => MessageSubscriptionDto)
  @ApiPropertyOptional({ type: () => [MessageSubscriptionDto], maxItems: MAX_FILTERS, description: 'At least one of messages, changes must be non-empty.' })
  messages?: MessageSubscriptionDto[];

  @Optional()
  @IsArray({ message: 'must be an array' })
  @ArrayMaxSize(MAX_FILTERS, { message: `must have at most ${MAX_FILTERS} elements` })
  @ValidateNested({ each: true })
  @Type(() => ChangeSubscriptionDto)
  @ApiPropertyOptional({ type: () => [ChangeSubscriptionDto], maxItems: MAX_FILTERS })
  changes?: ChangeSubscriptionDto[];

  @Optional()
  @IsObject({ message: 'must be an object' })
  @ValidateNested()
  @Type(() => FormatDto)
  @ApiPropertyOptional({ type: () => FormatDto, description: 'Default: Platform.' })
  format?: FormatDto;
}

/* ------------------------------------------------------------------ update actions */

export const SUBSCRIPTION_ACTION_NAMES = ['changeDestination', 'setMessages', 'setChanges', 'setKey', 'setFormat'] as const;
export type SubscriptionActionName = (typeof SUBSCRIPTION_ACTION_NAMES)[number];

export class SubscriptionActionDto {
  @Required()
  @IsIn(SUBSCRIPTION_ACTION_NAMES, { message: `unknown action; known actions: ${SUBSCRIPTION_ACTION_NAMES.join(', ')}` })
  @ApiProperty({ enum: SUBSCRIPTION_ACTION_NAMES })
  action: SubscriptionActionName;
}

export class ChangeDestinationAction extends SubscriptionActionDto {
  declare action: 'changeDestination';

  @Required()
  @IsObject({ message: 'must be an object' })
  @ValidateNested()
  @Type(() => DestinationDto, DESTINATION_TYPE_OPTIONS)
  @ApiProperty({ ...DESTINATION_DOC, description: 'Tested like on creation; an HTTP destination gets a new secret, answered once.' })
  destination: Destination;
}

export class SetMessagesAction extends SubscriptionActionDto {
  declare action: 'setMessages';

  @IsOptional()
  @IsArray({ message: 'must be an array' })
  @ArrayMaxSize(MAX_FILTERS, { message: `must have at most ${MAX_FILTERS} elements` })
  @ValidateNested({ each: true })
  @Type(() => MessageSubscriptionDto)
  @ApiPropertyOptional({ type: () => [MessageSubscriptionDto], maxItems: MAX_FILTERS, description: 'Absent or empty: none.' })
  messages?: MessageSubscriptionDto[];
}

export class SetChangesAction extends SubscriptionActionDto {
  declare action: 'setChanges';

  @IsOptional()
  @IsArray({ message: 'must be an array' })
  @ArrayMaxSize(MAX_FILTERS, { message: `must have at most ${MAX_FILTERS} elements` })
  @ValidateNested({ each: true })
  @Type(() => ChangeSubscriptionDto)
  @ApiPropertyOptional({ type: () => [ChangeSubscriptionDto], maxItems: MAX_FILTERS, description: 'Absent or empty: none.' })
  changes?: ChangeSubscriptionDto[];
}

export class SetSubscriptionKeyAction extends SubscriptionActionDto {
  declare action: 'setKey';

  @RemovableKey()
  key?: string | null;
}

export class SetFormatAction extends SubscriptionActionDto {
  declare action: 'setFormat';

  @Required()
  @IsObject({ message: 'must be an object' })
  @ValidateNested()
  @Type(() => FormatDto)
  @ApiProperty({ type: () => FormatDto })
  format: FormatDto;
}

export const SUBSCRIPTION_ACTION_CLASSES = {
  changeDestination: ChangeDestinationAction,
  setMessages: SetMessagesAction,
  setChanges: SetChangesAction,
  setKey: SetSubscriptionKeyAction,
  setFormat: SetFormatAction,
} satisfies Record<SubscriptionActionName, typeof SubscriptionActionDto>;

export type SubscriptionAction = ChangeDestinationAction | SetMessagesAction | SetChangesAction | SetSubscriptionKeyAction | SetFormatAction;

const MAX_ACTIONS = 20;

/** Body of POST /{projectKey}/subscriptions/{id}. Errors inside an action name its index. */
@IndexedErrors({ array: 'actions', member: 'actionIndex', discriminator: 'action' })
export class SubscriptionUpdateDto {
  @Required()
  @Version()
  @ApiProperty({ type: 'integer', description: 'Expected version of the subscription; 409 on mismatch.' })
  version: number;

  @UpdateActions(SubscriptionActionDto, SUBSCRIPTION_ACTION_CLASSES, MAX_ACTIONS)
  actions: SubscriptionAction[];
}

/* ------------------------------------------------------------------ answers */

export class SubscriptionResponseDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: 'integer' }) version: number;
  @ApiPropertyOptional() key?: string;
  @ApiProperty({
    ...DESTINATION_DOC,
    description: 'An HTTP destination\'s `secret` (whsec_…) is whole only in the answers to create and changeDestination, masked afterwards; a broker URI never shows its password.',
  })
  destination: Record<string, unknown>;
  @ApiProperty({ type: () => [MessageSubscriptionDto] }) messages: MessageSubscriptionDto[];
  @ApiProperty({ type: () => [ChangeSubscriptionDto] }) changes: ChangeSubscriptionDto[];
  @ApiProperty({ type: () => FormatDto }) format: FormatDto;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) lastModifiedAt: string;
}

export class SubscriptionPageDto {
  @ApiProperty({ type: 'integer' }) limit: number;
  @ApiProperty({ type: 'integer' }) offset: number;
  @ApiProperty({ type: 'integer' }) count: number;
  @ApiProperty({ type: 'integer' }) total: number;
  @ApiProperty({ type: () => [SubscriptionResponseDto] }) results: SubscriptionResponseDto[];
}

export const HEALTH_STATUSES = ['Healthy', 'TemporaryError', 'ConfigurationError'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

export class DeliveryErrorDto {
  @ApiProperty({ format: 'date-time' }) at: string;
  @ApiProperty({ description: 'Why the last attempt failed, one reason of a fixed list (see GET …/health).', example: 'could not connect' }) message: string;
}

export class SubscriptionHealthDto {
  @ApiProperty({ enum: HEALTH_STATUSES }) status: HealthStatus;
  @ApiProperty({ type: 'integer', description: 'Notifications not yet accepted by the destination.' }) pending: number;
  @ApiPropertyOptional({ format: 'date-time' }) oldestPendingAt?: string;
  @ApiPropertyOptional({ format: 'date-time' }) lastDeliveredAt?: string;
  @ApiPropertyOptional({ type: () => DeliveryErrorDto }) lastError?: DeliveryErrorDto;
}

/** Query of DELETE /{projectKey}/subscriptions/{id}. */
export class DeleteSubscriptionQueryDto {
  @Required()
  @WholeNumber(1, 2_147_483_647)
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Expected version of the subscription; 409 on mismatch.' })
  version: number;
}

export const SUBSCRIPTION_DRAFT_EXAMPLE = {
  key: 'search-indexer',
  destination: { type: 'HTTP', url: 'https://example.com/hooks/resources' },
  messages: [{ resourceTypeId: 'resource', types: ['ResourceCreated', 'ResourceDeleted'] }],
  changes: [{ resourceTypeId: 'resource' }],
  format: { type: 'CloudEvents', cloudEventsVersion: '1.0' },
};
