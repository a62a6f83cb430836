import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';

/**
 * A field's error as GraphQL answers it (docs/graphql.md#errors): each detail of a REST error becomes one
 * GraphQL error whose `extensions` are the detail's members (`code`, `field`, `currentVersion`, …), with the
 * field's `path`; anything else is `General` with no internals (and is logged by the caller).
 */
export function formatErrors(errors: readonly GraphQLError[], onUnexpected: (error: unknown) => void): GraphQLFormattedError[] {
  return errors.flatMap((error) => {
    const original = error.originalError;
    const where = { ...(error.locations ? { locations: error.locations } : {}), ...(error.path ? { path: error.path } : {}) };
    if (original instanceof DomainError) {
      return original.errors.map(({ message, ...members }) => ({ message, ...where, extensions: members }));
    }
    if (original && !(original instanceof GraphQLError)) {
      onUnexpected(original);
      return [{ message: 'An internal error occurred.', ...where, extensions: { code: ErrorCode.General } }];
    }
    return [{ message: error.message, ...where, extensions: { code: ErrorCode.InvalidInput, ...error.extensions } }];
  });
}

/** Request errors (GraphQL over HTTP: the document or its variables cannot run): HTTP 400. */
export function requestErrors(errors: readonly GraphQLError[]): GraphQLFormattedError[] {
  return errors.map((error) => ({
    message: error.message,
    ...(error.locations ? { locations: error.locations } : {}),
    extensions: { code: ErrorCode.InvalidInput, ...error.extensions },
  }));
}
