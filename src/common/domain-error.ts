import { ErrorCode, ERROR_STATUS } from './error-code.js';

/** One entry of the envelope's `errors` array: a code, a message, and code-specific members. */
export interface ErrorDetail {
  code: ErrorCode;
  message: string;
  [member: string]: unknown;
}

/**
 * A failure the client caused or can act on. The global filter renders it as
 * `{statusCode, message, errors}`; the status comes from the code of the first detail.
 */
export class DomainError extends Error {
  readonly status: number;
  /** Extra response headers (for example `Retry-After`, `WWW-Authenticate`). */
  headers?: Record<string, string>;
  /** Extra top-level members of the envelope (OAuth's `error`, `error_description`). */
  extra?: Record<string, unknown>;

  constructor(
    readonly errors: ErrorDetail[],
    message = errors[0]?.message ?? 'Error',
  ) {
    super(message);
    this.status = ERROR_STATUS[errors[0].code];
  }

  static of(code: ErrorCode, message: string, members: Record<string, unknown> = {}): DomainError {
    return new DomainError([{ code, message, ...members }]);
  }

  static notFound(message = 'The resource was not found.'): DomainError {
    return DomainError.of(ErrorCode.ResourceNotFound, message);
  }

  static invalidInput(message: string): DomainError {
    return DomainError.of(ErrorCode.InvalidInput, message);
  }

  static concurrentModification(currentVersion: number): DomainError {
    return DomainError.of(
      ErrorCode.ConcurrentModification,
      `Object version mismatch. The current version is ${currentVersion}.`,
      { currentVersion },
    );
  }
}
