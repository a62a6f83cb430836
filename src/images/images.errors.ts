import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';

/** The images module's errors (docs/rules.md#errors), built in one place. */
export const ImageErrors = {
  resourceKeyNotFound: (sku: string) => DomainError.notFound(`No resource has the key '${sku}'.`),
  resourceGone: (sku: string) => DomainError.notFound(`The resource with the key '${sku}' was deleted during the upload.`),
  imageNotFound: (imageId: string) => DomainError.notFound(`No image has the id '${imageId}'.`),
  bytesNotAvailable: (imageId: string) => DomainError.notFound(`The bytes of image '${imageId}' are not available.`),
  unsupportedType: (type: string | undefined) =>
    DomainError.of(
      ErrorCode.UnsupportedMediaType,
      type === undefined || type === ''
        ? 'A Content-Type is required: image/jpeg, image/png or image/gif (or multipart/form-data with one such file).'
        : `Content-Type '${type}' is not supported; send image/jpeg, image/png or image/gif (or multipart/form-data with one such file).`,
    ),
  tooLarge: (maxBytes: number) => DomainError.of(ErrorCode.PayloadTooLarge, `The image exceeds the limit of ${maxBytes} bytes.`),
  stalled: (idleTimeoutMs: number) => DomainError.invalidInput(`The upload stalled: no data arrived for ${idleTimeoutMs} ms.`),
  tooSlow: (minBytesPerSecond: number) =>
    DomainError.invalidInput(`The upload is too slow: it must send at least ${minBytesPerSecond} bytes a second once it has started.`),
  noFilePart: () => DomainError.invalidInput('The multipart/form-data body has no file part.'),
  malformedMultipart: (why?: string) => DomainError.invalidInput(`The multipart/form-data body is malformed${why ? ` (${why})` : ''}.`),
  interrupted: () => DomainError.invalidInput('The upload was interrupted.'),
  unreadable: () => DomainError.invalidInput('The upload could not be read completely.'),
  empty: () => DomainError.invalidInput('The image is empty.'),
  notOfType: (type: string) => DomainError.invalidInput(`The body is not a ${type} file: its bytes do not start with that format's signature.`),
  corrupt: (type: string) => DomainError.invalidInput(`The ${type} file is corrupt: its dimensions cannot be read.`),
  /** The image's dimensions break a limit; `problem` says which (image-format.ts). */
  refusedDimensions: (problem: string) => DomainError.invalidInput(problem),
};
