import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';

/** The subscription module's errors (docs/rules.md#errors), built in one place. */
export const SubscriptionErrors = {
  notFound: (id: string) => DomainError.notFound(`The subscription '${id}' was not found.`),
  keyNotFound: (key: string) => DomainError.notFound(`The subscription with the key '${key}' was not found.`),
  duplicateKey: (key: string) => DomainError.of(ErrorCode.DuplicateField, `A subscription with the key '${key}' already exists.`, { field: 'key', duplicateValue: key }),
  limitReached: (limit: number) =>
    DomainError.of(ErrorCode.MaxResourceLimitExceeded, `A project can have at most ${limit} subscriptions; delete one first.`, { limit }),
  hostRefused: (reason: string) => DomainError.invalidInput(`destination: ${reason}.`),
  unsupported: (type: string) => DomainError.invalidInput(`destination: ${type} destinations are not supported by this server yet.`),
  testRefused: (reason: string) => DomainError.invalidInput(`destination: the test notification was not accepted: ${reason}.`),
  nothingSubscribed: () => DomainError.invalidInput('At least one of messages, changes must be non-empty.'),
};
