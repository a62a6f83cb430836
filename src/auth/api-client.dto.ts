import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { StoredApiClient } from './api-clients.repository.js';

export class ApiClientDraftDto {
  @ApiProperty({ maxLength: 256 }) name: string;
  @ApiProperty({ description: 'Space-separated scopes of this project, e.g. "manage_test:my-project view_test:my-project".' })
  scope: string;
  @ApiPropertyOptional({ description: 'Makes the client customer-bound: its tokens also carry customer_id_test:<customerId>.' })
  customerId?: string;
}

export class ApiClientDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty() scope: string;
  @ApiPropertyOptional() customerId?: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiPropertyOptional({ format: 'date-time' }) lastUsedAt?: string;
}

export class CreatedApiClientDto extends ApiClientDto {
  @ApiProperty({ description: 'Shown once; stored only as a hash.' }) secret: string;
}

export class ApiClientPageDto {
  @ApiProperty({ type: 'integer' }) limit: number;
  @ApiProperty({ type: 'integer' }) offset: number;
  @ApiProperty({ type: 'integer' }) count: number;
  @ApiProperty({ type: 'integer' }) total: number;
  @ApiProperty({ type: () => [ApiClientDto] }) results: ApiClientDto[];
}

/** The response object: listed fields only, never the secret hash. */
export function toApiClientDto(client: StoredApiClient): ApiClientDto {
  const dto: ApiClientDto = { id: client.id, name: client.name, scope: client.scope, createdAt: client.createdAt };
  if (client.customerId) dto.customerId = client.customerId;
  if (client.lastUsedAt) dto.lastUsedAt = client.lastUsedAt;
  return dto;
}
