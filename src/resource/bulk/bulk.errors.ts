import { DomainError } from '../../common/domain-error.js';
import { ErrorCode } from '../../common/error-code.js';

/** The bulk import's errors (docs/rules.md#errors): of the request, and of one line of its answer. Built in one place. */
export const BulkErrors = {
  unsupportedType: (contentType: string | undefined, ndjson: string) =>
    DomainError.of(
      ErrorCode.UnsupportedMediaType,
      contentType ? `Content-Type '${contentType}' is not supported; send ${ndjson}.` : `A Content-Type is required: ${ndjson}.`,
    ),
  tooLarge: (maxBytes: number) => DomainError.of(ErrorCode.PayloadTooLarge, `The import body exceeds IMPORT_MAX_BYTES (${maxBytes} bytes).`),
  stalled: (idleTimeoutMs: number) =>
    DomainError.of(ErrorCode.RequestTimeout, `No bytes of the import body arrived for IMPORT_IDLE_TIMEOUT_MS (${idleTimeoutMs} ms).`),
  interrupted: (message: string) => DomainError.invalidInput(message),
  noLine: (ndjson: string) => DomainError.invalidInput(`The body holds no line: send one draft per line ({key, objectTypeProperty, publish?, version?}) as ${ndjson}.`),
  lineTooLong: (bytes: number) =>
    DomainError.of(ErrorCode.InvalidInput, `The line has ${bytes} bytes; a line may have at most HTTP_BODY_LIMIT_BYTES, as a JSON body.`),
  lineNotJson: (detail: string) => DomainError.of(ErrorCode.InvalidJsonInput, 'The line is not valid JSON.', { detailedErrorMessage: detail }),
  lineUnstorableText: (detail: string) =>
    DomainError.of(ErrorCode.InvalidJsonInput, 'The line holds text the database cannot store (NUL characters and lone UTF-16 surrogates are refused).', {
      detailedErrorMessage: detail,
    }),
  lineUnstorableValue: () =>
    DomainError.of(ErrorCode.InvalidJsonInput, 'The line holds a value the database cannot store.', {
      detailedErrorMessage: 'The database refused a value of the line (for example text it cannot encode).',
    }),
  keyChurn: () => DomainError.of(ErrorCode.ConcurrentModification, 'Other writers kept creating and deleting this key; try the line again.'),
  databaseUnavailable: () => DomainError.of(ErrorCode.ServiceUnavailable, 'The database is unavailable; the line was not written. Try it again.'),
  lineFailed: () => DomainError.of(ErrorCode.General, 'An internal error occurred; the line was not written. Try it again.'),
};
