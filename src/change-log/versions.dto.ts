import { ApiProperty } from '@nestjs/swagger';
import { ModifierDto } from '../resource/resource.dto.js';
import { MESSAGE_TYPES, type MessageType } from '../query-language/message.catalogue.js';

/** One version of a resource's history (docs/change-log-and-subscriptions.md#change-log): who wrote it, when, and what the write did. */
export class ResourceVersionDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 2 }) version: number;
  @ApiProperty({ format: 'date-time', description: 'When the write that produced this version happened.' }) modifiedAt: string;
  @ApiProperty({ type: () => ModifierDto }) modifiedBy: ModifierDto;
  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...MESSAGE_TYPES] }, description: 'The message types of the write, in order.', example: ['SomePropertyChanged'] })
  types: MessageType[];
}

export class ResourceVersionsPageDto {
  @ApiProperty({ type: 'integer', example: 20 }) limit: number;
  @ApiProperty({ type: 'integer', example: 0 }) offset: number;
  @ApiProperty({ type: 'integer', description: 'Number of results in this page.', example: 2 }) count: number;
  @ApiProperty({ type: 'integer', description: 'Number of versions kept.', example: 2 }) total: number;
  @ApiProperty({
    type: () => [ResourceVersionDto],
    description: 'Newest first.',
    example: [
      { version: 2, modifiedAt: '2026-11-25T10:05:00.000Z', modifiedBy: { clientId: 'e3a1c0de-0000-4000-8000-000000000001' }, types: ['SomePropertyChanged'] },
      { version: 1, modifiedAt: '2026-11-25T10:00:00.000Z', modifiedBy: { clientId: 'e3a1c0de-0000-4000-8000-000000000001' }, types: ['ResourceCreated'] },
    ],
  })
  results: ResourceVersionDto[];
}
