import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type ErrorDetail } from './domain-error.js';
import { ErrorCode, ERROR_STATUS } from './error-code.js';
import { isDatabaseUnavailable, isDataException, isStatementTimeout } from './database-errors.js';
import { routeDeclaration } from './route-config.js';

/**
 * The code of an HttpException Nest raises itself (a guard's refusal, a route no controller declares):
 * the first code ERROR_STATUS gives its status, so this is the table read backwards, not a second one.
 * `General` is left out: a 500 never echoes an exception's message.
 */
const CODE_OF_STATUS = new Map<number, ErrorCode>();
for (const [code, status] of Object.entries(ERROR_STATUS) as [ErrorCode, number][]) {
  if (code !== ErrorCode.General && !CODE_OF_STATUS.has(status)) CODE_OF_STATUS.set(status, code);
}

/** While the database is down every request fails the same way: one warning per interval, with a count. */
const UNAVAILABLE_LOG_INTERVAL_MS = 10_000;

/**
 * Renders every error as the error envelope `{statusCode, message, errors: [{code, message, …}]}`
 * (docs/rules.md#errors). Unknown errors become a logged 500 with a generic message: no stack trace, SQL
 * text or driver message ever reaches a client.
 */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');
  private unavailableLoggedAt = -Infinity;
  private unavailableUnlogged = 0;

  catch(exception: unknown, host: ArgumentsHost): void {
    const context = host.switchToHttp();
    const response = context.getResponse<FastifyReply>();
    const request = context.getRequest<FastifyRequest>();
    const error = this.toDomainError(exception, request);
    // The route's own members (the token endpoints': OAuth's `error` and `error_description`).
    const answerError = request.routeOptions?.config ? routeDeclaration(request).answerError : undefined;
    sendErrorEnvelope(response, answerError ? answerError(error) : error);
  }

  private toDomainError(exception: unknown, request: FastifyRequest): DomainError {
    if (exception instanceof DomainError) return exception;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404) {
        return DomainError.notFound(`No route matches ${request.method} ${pathOf(request.url)}.`);
      }
      const code = CODE_OF_STATUS.get(status);
      if (code) return DomainError.of(code, exception.message);
      // A status no code has falls through: an unknown error, logged, answered 500.
    }
    const fastifyCode = (exception as { code?: string })?.code;
    if (fastifyCode === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return DomainError.of(ErrorCode.PayloadTooLarge, 'The request body is too large.');
    }
    if (typeof fastifyCode === 'string' && fastifyCode.startsWith('FST_ERR_') && (exception as { statusCode?: number }).statusCode === 400) {
      return DomainError.invalidInput('The request is malformed.');
    }
    if (isDataException(exception)) {
      return DomainError.of(ErrorCode.InvalidInput, 'A value in the request cannot be stored or compared (for example a NUL character).');
    }
    // The one mapping of a statement cancelled by DATABASE_STATEMENT_TIMEOUT_MS, for every endpoint.
    if (isStatementTimeout(exception)) {
      this.logger.warn(`${request.method} ${routePattern(request)}: cancelled by the statement timeout`);
      return DomainError.of(ErrorCode.QueryTimedOut, 'The request took longer than the database allows; narrow it (fewer or simpler predicates, filters or facets).');
    }
    if (isDatabaseUnavailable(exception)) {
      this.logUnavailable(exception as Error);
      return Object.assign(
        DomainError.of(ErrorCode.ServiceUnavailable, 'The service is temporarily unavailable.'),
        { headers: { 'Retry-After': '5' } },
      );
    }
    // The route pattern, as on every other line: the URL's path and query hold values (ids, keys,
    // filters, whatever a client put there), which a log must not collect.
    this.logger.error({
      reqId: request.id,
      msg: `${request.method} ${routePattern(request)}: ${exception instanceof Error ? exception.stack : String(exception)}`,
    });
    return DomainError.of(ErrorCode.General, 'An internal error occurred.');
  }

  private logUnavailable(error: Error): void {
    const now = Date.now();
    if (now - this.unavailableLoggedAt < UNAVAILABLE_LOG_INTERVAL_MS) {
      this.unavailableUnlogged++;
      return;
    }
    const more = this.unavailableUnlogged > 0 ? ` (${this.unavailableUnlogged} more 503s since the previous warning)` : '';
    this.logger.warn(`database unavailable, answering 503: ${error.message}${more}`);
    this.unavailableLoggedAt = now;
    this.unavailableUnlogged = 0;
  }
}

/** Sends `error` as the error envelope (the filter, and Fastify's own framework errors). */
export function sendErrorEnvelope(response: FastifyReply, error: DomainError): void {
  if (response.sent) return;
  const body: Record<string, unknown> = {
    statusCode: error.status,
    message: error.message,
    errors: error.errors.map(withBoundedEcho),
    ...error.extra,
  };
  if (error.headers) response.headers(error.headers);
  response.status(error.status).type('application/json; charset=utf-8').send(JSON.stringify(body, bigintAsString));
}

/** Route label of answers no route matched (an unknown path): never the raw URL, whose values are unbounded. */
export const UNMATCHED_ROUTE = '(unmatched)';

/** The route pattern a request matched (`/:projectKey/resource/:id`), or `UNMATCHED_ROUTE`. */
export function routePattern(request: FastifyRequest): string {
  return request.routeOptions?.url ?? UNMATCHED_ROUTE;
}

/** The path of a request URL, without its query. */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

function bigintAsString(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

const MAX_ECHO = 1_024;

/**
 * Errors echo the rejected value, but only a small one: a deeply nested or huge value is left out
 * (serialising it could exhaust the stack and turn a 400 into a 500).
 */
function withBoundedEcho(detail: ErrorDetail): ErrorDetail {
  if (!('invalidValue' in detail)) return detail;
  const value = detail.invalidValue;
  if (typeof value === 'string' && value.length > MAX_ECHO) return { ...detail, invalidValue: `${value.slice(0, MAX_ECHO)}…` };
  if (typeof value !== 'object' || value === null) return detail;
  try {
    if (JSON.stringify(value, bigintAsString).length <= MAX_ECHO) return detail;
  } catch {
    // too deep to serialise: leave it out
  }
  const { invalidValue: _omitted, ...rest } = detail;
  return rest as ErrorDetail;
}
