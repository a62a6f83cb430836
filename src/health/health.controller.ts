import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Database } from '../database/database.js';
import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import { ApiErrors } from '../common/error.dto.js';
import { Public } from '../auth/access.decorator.js';

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly db: Database) {}

  @Get('live')
  @ApiOperation({ summary: 'Liveness: the process answers' })
  @ApiResponse({ status: 200, schema: { type: 'object', properties: { status: { type: 'string', example: 'ok' } } } })
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Readiness: the database answers' })
  @ApiResponse({ status: 200, schema: { type: 'object', properties: { status: { type: 'string', example: 'ok' }, database: { type: 'string', example: 'up' } } } })
  @ApiErrors(503)
  async ready(): Promise<{ status: string; database: string }> {
    try {
      await this.db.query('SELECT 1');
    } catch {
      throw DomainError.of(ErrorCode.ServiceUnavailable, 'The database is unreachable.');
    }
    return { status: 'ok', database: 'up' };
  }
}
