import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import { tooLarge } from '../database/bounded-list.js';

/** The resource module's errors (docs/rules.md#errors), built in one place. */
export const ResourceErrors = {
  notFound: (id: string) => DomainError.notFound(`The resource with ID '${id}' was not found.`),
  keyNotFound: (key: string) => DomainError.notFound(`The resource with key '${key}' was not found.`),
  /** A create-or-replace whose key other writers kept taking and freeing, and which never saw its resource. */
  gone: () => DomainError.notFound(),
  noMatch: () => DomainError.notFound('No resource matches the query.'),
  mergeTooLarge: (maxBytes: number) => tooLarge(maxBytes, 'narrow the filter so that fewer resources are merged'),
  malformedUnionParameter: (text: string) =>
    DomainError.of(ErrorCode.InvalidField, 'Malformed parameter: unionParameter: must be a number, an ISO 8601 date-time or a JSON object.', {
      field: 'unionParameter',
      invalidValue: text,
    }),
  malformedPattern: (name: string, text: string) =>
    DomainError.of(ErrorCode.InvalidField, `Malformed parameter: ${name}: must be JSON of an ObjectTestType.`, { field: name, invalidValue: text }),
};
