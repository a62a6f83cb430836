import { Param } from '@nestjs/common';
import { DomainError } from './domain-error.js';
import { ErrorCode } from './error-code.js';

export const PROJECT_KEY_PATTERN = /^[a-z0-9-]{2,36}$/;

export function assertProjectKey(value: string): string {
  if (!PROJECT_KEY_PATTERN.test(value)) {
    throw DomainError.of(ErrorCode.InvalidInput, `Invalid project key '${value}': 2 to 36 characters of a-z, 0-9 and -.`, {
      field: 'projectKey',
      invalidValue: value,
    });
  }
  return value;
}

/**
 * The `projectKey` path parameter. Its format (2–36 characters of `[a-z0-9-]`, docs/rules.md#addressing-and-input) is
 * checked once, by the auth module's `ScopeGuard`, after authentication and before the scope (docs/rules.md#addressing-and-input).
 */
export const ProjectKey = (): ParameterDecorator => Param('projectKey');
