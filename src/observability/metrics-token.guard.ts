import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { invalidToken } from '../auth/auth.errors.js';
import { bearerToken } from '../common/bearer-token.js';
import { metricsConfig, type MetricsConfig } from './observability.config.js';

/** `/metrics` answers only `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time), else 401. */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  private readonly expected: Buffer;

  constructor(@Inject(metricsConfig.KEY) config: MetricsConfig) {
    this.expected = digest(config.token ?? '');
  }

  canActivate(context: ExecutionContext): boolean {
    const header = context.switchToHttp().getRequest<FastifyRequest>().headers.authorization ?? '';
    const given = bearerToken(header);
    // Digests have one length whatever was sent, so the comparison's time says nothing about the token.
    if (given === undefined || !timingSafeEqual(digest(given), this.expected)) {
      throw invalidToken('The metrics token is missing or wrong (Authorization: Bearer <METRICS_TOKEN>).');
    }
    return true;
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
