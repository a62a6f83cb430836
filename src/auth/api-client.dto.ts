import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MatchesRule, Optional, Required } from '../common/validation/decorators.js';
import type { StoredApiClient } from './api-clients.repository.js';

const NAME = /^[^\u0000-\u001f]{1,256}$/;
const SCOPE = /^[\w:\- ]{1,2048}$/;
const CUSTOMER_ID = /^[A-Za-z0-9_.@-]{1,256}$/;

/** Body of POST /{projectKey}/api-clients (docs/authentication.md#api-clients); the scopes must be the project's (checked by the service). */
export class ApiClientDraftDto {
  @Required()
  @MatchesRule(NAME, 'must be 1 to 256 printable characters')
  @ApiProperty({ maxLength: 256, pattern: NAME.source })
  name: string;

  @Required()
  @MatchesRule(SCOPE, 'must be space-separated scopes')
  @ApiProperty({ maxLength: 2048, description: 'Space-separated scopes of this project, e.g. "manage_test:my-project view_test:my-project".' })
  scope: string;

  @Optional()
  @MatchesRule(CUSTOMER_ID, 'must be 1 to 256 characters of A-Z, a-z, 0-9, _ . @ -')
  @ApiPropertyOptional({ pattern: CUSTOMER_ID.source, description: 'Makes the client customer-bound: its tokens also carry customer_id_test:<customerId>. A customer-bound client may hold neither manage_test nor manage_api_clients.' })
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
