import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Database } from '../database/database.js';
import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import { ApiErrors } from '../common/error.dto.js';
import { Public } from '../auth/access.decorator.js';

interface ReadyAnswer {
  status: string;
  database: string;
  replicas?: { replica: number; state: string; lagMs: number | null }[];
}

const READY_SCHEMA = {
  type: 'object',
  properties: {
    status: { type: 'string', example: 'ok' },
    database: { type: 'string', example: 'up' },
    replicas: {
      type: 'array',
      description: 'Only with DATABASE_REPLICA_URLS.',
      items: {
        type: 'object',
        properties: {
          replica: { type: 'integer', example: 1, description: 'Position in DATABASE_REPLICA_URLS, from 1.' },
          state: { type: 'string', enum: ['up', 'lagging', 'down', 'not-standby', 'unknown'], example: 'up' },
          lagMs: { type: 'integer', nullable: true, example: 12, description: 'How far behind the primary it is at most, in ms; null when unknown.' },
        },
      },
    },
  },
};

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
  @ApiOperation({
    summary: 'Readiness: the database answers',
    description:
      'Ready while the primary database answers. With DATABASE_REPLICA_URLS, `replicas` lists each read replica by its position in that list, ' +
      'with its state (`up`: answers list reads; `lagging`, `down`, `not-standby`, `unknown`: the primary answers them) and how far behind it is at most (ms). ' +
      'A replica never makes the server unready.',
  })
  @ApiResponse({ status: 200, schema: READY_SCHEMA })
  @ApiErrors(503)
  async ready(): Promise<ReadyAnswer> {
    try {
      await this.db.query('SELECT 1');
    } catch {
      throw DomainError.of(ErrorCode.ServiceUnavailable, 'The database is unreachable.');
    }
    if (!this.db.replicas) return { status: 'ok', database: 'up' };
    // By position only: this route needs no token, and the servers' addresses are not its business.
    const replicas = this.db.replicas.status().map(({ index, state, lagMs }) => ({ replica: index, state, lagMs }));
    return { status: 'ok', database: 'up', replicas };
  }
}
