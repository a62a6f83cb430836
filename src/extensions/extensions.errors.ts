import { DomainError, type ErrorDetail } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';

/** Who answered: the members every extension error names. */
export interface ExtensionRef {
  id: string;
  key: string | null;
}

const named = (e: ExtensionRef) => ({ extensionId: e.id, ...(e.key !== null ? { extensionKey: e.key } : {}) });
const label = (e: ExtensionRef) => (e.key !== null ? `'${e.key}' (${e.id})` : `'${e.id}'`);

/** The extension module's errors (docs/extensions.md), built in one place. */
export const ExtensionErrors = {
  notFound: (id: string) => DomainError.notFound(`The extension '${id}' was not found.`),
  keyNotFound: (key: string) => DomainError.notFound(`The extension with the key '${key}' was not found.`),
  duplicateKey: (key: string) => DomainError.of(ErrorCode.DuplicateField, `An extension with the key '${key}' already exists.`, { field: 'key', duplicateValue: key }),
  limitReached: (limit: number) =>
    DomainError.of(ErrorCode.MaxResourceLimitExceeded, `A project can have at most ${limit} extensions; delete one first.`, { limit }),
  hostRefused: (reason: string) => DomainError.invalidInput(`destination: ${reason}.`),
  badCondition: (field: string, reason: string) => DomainError.invalidInput(`${field}: Malformed condition: ${reason}`),
  timeoutTooLong: (field: string, value: number, max: number) =>
    DomainError.of(ErrorCode.InvalidField, `${field}: must be a whole number from 1 to ${max} (EXTENSIONS_MAX_TIMEOUT_MS).`, { field, invalidValue: value }),

  /** The extension refused the write: its errors as sent, each naming the extension. */
  refused: (e: ExtensionRef, errors: Array<Record<string, unknown>>) =>
    new DomainError(errors.map((error) => ({ ...(error as unknown as ErrorDetail), ...named(e) }))),
  actionsFailed: (e: ExtensionRef, extensionErrors: ErrorDetail[]) =>
    DomainError.of(ErrorCode.ExtensionUpdateActionsFailed, `The update actions of the extension ${label(e)} could not be applied.`, { ...named(e), extensionErrors }),
  badResponse: (e: ExtensionRef, statusCode?: number, body?: string) =>
    DomainError.of(ErrorCode.ExtensionBadResponse, `The extension ${label(e)} answered with a response the server cannot use.`, {
      ...named(e),
      ...(statusCode !== undefined ? { extensionStatusCode: statusCode } : {}),
      ...(body !== undefined && body !== '' ? { extensionBody: body } : {}),
    }),
  noResponse: (e: ExtensionRef) => DomainError.of(ErrorCode.ExtensionNoResponse, `The extension ${label(e)} did not answer in time.`, named(e)),
};
