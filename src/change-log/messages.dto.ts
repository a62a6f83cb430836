import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayTestTypeDto } from '../common/array-test-type.dto.js';
import { MESSAGE_CATALOGUE, MESSAGE_TYPES, type MessageType } from '../query-language/message.catalogue.js';
import { PredicateQueryDto } from '../query-language/predicate-query.dto.js';
import type { SortItem } from '../query-language/sort-expand.js';
import type { ScopeName } from '../auth/scopes.js';
import { ImageDto, ModifierDto, ObjectTestTypeDto } from '../resource/resource.dto.js';

/*
 * GET /{projectKey}/messages and /messages/{id} (docs/change-log-and-subscriptions.md#change-log): the query parameters (the predicate
 * query's, over the message catalogue) and the message as the OpenAPI document shows it.
 */

/** Who may read the messages, as a page or as a live stream. */
export const MESSAGE_SCOPES: ScopeName[] = ['view_messages', 'manage_test'];

/** Without `sort`: the order the messages were written in. */
export const MESSAGE_DEFAULT_SORT: readonly SortItem[] = [
  { field: 'createdAt', direction: 'asc' },
  { field: 'sequenceNumber', direction: 'asc' },
];

export class MessageQueryDto extends PredicateQueryDto(MESSAGE_CATALOGUE, {
  whereFields:
    `Fields: ${MESSAGE_CATALOGUE.where.leaves.join(', ')}, \`resource(id = "…")\` (the resource the message is about) and ` +
    '`resourceUserProvidedIdentifiers(key = "…")` (its key when the message was written).',
  // The Swagger page's "Try it out" sends this as is: every message matches it.
  whereExample: 'sequenceNumber >= 1',
  defaultOrder: '`createdAt asc`, `sequenceNumber asc` (the order of writing)',
  sortExample: 'createdAt desc',
}) {}

export class MessageResourceReferenceDto {
  @ApiProperty({ enum: ['resource'] }) typeId: 'resource';
  @ApiProperty({ format: 'uuid' }) id: string;
}

export class ResourceIdentifiersDto {
  @ApiPropertyOptional({ description: 'The key of the resource when the message was written.' }) key?: string;
}

export const MESSAGE_EXAMPLE = {
  id: '2f1c7a52-1b0e-4a5e-9d55-3c1a4f1e9b10',
  version: 1,
  sequenceNumber: 2,
  resource: { typeId: 'resource', id: '8d5b1f0e-6c1a-4f3e-bb0a-1d2e3f4a5b6c' },
  resourceVersion: 2,
  resourceUserProvidedIdentifiers: { key: 'example-1' },
  type: 'SomePropertyChanged' satisfies MessageType,
  createdAt: '2026-11-25T10:00:00.000Z',
  lastModifiedAt: '2026-11-25T10:00:00.000Z',
  createdBy: { clientId: 'e3a1c0de-0000-4000-8000-000000000001' },
  lastModifiedBy: { clientId: 'e3a1c0de-0000-4000-8000-000000000001' },
  someProperty: 'hello',
};

/**
 * A message: the common members, then its type's own (which of them depends on `type`). Immutable:
 * `version` is always 1 and `lastModifiedAt`/`lastModifiedBy` repeat `createdAt`/`createdBy`.
 */
export class MessageDto {
  @ApiProperty({ format: 'uuid', example: MESSAGE_EXAMPLE.id }) id: string;
  @ApiProperty({ type: 'integer', enum: [1], description: 'Always 1: a message never changes.' }) version: number;
  @ApiProperty({ type: 'integer', minimum: 1, description: "The message's number among its resource's: 1 for ResourceCreated, then +1 per message, without gap.", example: 2 })
  sequenceNumber: number;
  @ApiProperty({ type: () => MessageResourceReferenceDto }) resource: MessageResourceReferenceDto;
  @ApiProperty({ type: 'integer', minimum: 1, description: 'The version the write produced (for a delete: the deleted version + 1); shared by the messages of one write.', example: 2 })
  resourceVersion: number;
  @ApiProperty({ type: () => ResourceIdentifiersDto }) resourceUserProvidedIdentifiers: ResourceIdentifiersDto;
  @ApiProperty({ enum: MESSAGE_TYPES, example: MESSAGE_EXAMPLE.type }) type: MessageType;
  @ApiProperty({ format: 'date-time', description: 'When the write happened; shared by the messages of one write.' }) createdAt: string;
  @ApiProperty({ format: 'date-time', description: 'Equal to createdAt.' }) lastModifiedAt: string;
  @ApiProperty({ type: () => ModifierDto, description: 'Who wrote: the API client of the token, and its customer when customer-bound.' }) createdBy: ModifierDto;
  @ApiProperty({ type: () => ModifierDto, description: 'Equal to createdBy.' }) lastModifiedBy: ModifierDto;
  @ApiPropertyOptional({ type: () => ObjectTestTypeDto, description: 'ResourceCreated: the resource as GET by id answered it after the write.' })
  representation?: ObjectTestTypeDto;
  @ApiPropertyOptional({ type: () => ArrayTestTypeDto, description: 'ObjectTypePropertySet: the new objectTypeProperty.' })
  objectTypeProperty?: ArrayTestTypeDto;
  @ApiPropertyOptional({ description: 'SomePropertyChanged: the new value.' }) someProperty?: string;
  @ApiPropertyOptional({ description: 'SomePropertyChanged: the value before, when there was one.' }) oldSomeProperty?: string;
  @ApiPropertyOptional({ description: 'SecondPropertyToUpdateImported: the new value.' }) secondPropertyToUpdate?: string;
  @ApiPropertyOptional({ description: 'KeySet: the new key (absent when the key was removed).' }) key?: string;
  @ApiPropertyOptional({ description: 'KeySet: the key before, when there was one.' }) oldKey?: string;
  @ApiPropertyOptional({ type: () => ImageDto, description: 'ImageAdded: the image attached.' }) image?: ImageDto;
}

export class MessagePagedQueryResponseDto {
  @ApiProperty({ type: 'integer', example: 20 }) limit: number;
  @ApiProperty({ type: 'integer', example: 0 }) offset: number;
  @ApiProperty({ type: 'integer', description: 'Number of results in this page.', example: 1 }) count: number;
  @ApiPropertyOptional({ type: 'integer', description: 'Number of matches; absent with withTotal=false.', example: 1 }) total?: number;
  @ApiProperty({ type: () => [MessageDto], example: [MESSAGE_EXAMPLE] }) results: MessageDto[];
}
