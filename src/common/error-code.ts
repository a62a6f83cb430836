/**
 * Every error code the service answers with (CONTRACT.md §9) and its HTTP status. The table is a
 * `Record<ErrorCode, number>`: adding a code without a status does not compile.
 */
export enum ErrorCode {
  InvalidInput = 'InvalidInput',
  InvalidJsonInput = 'InvalidJsonInput',
  InvalidField = 'InvalidField',
  RequiredField = 'RequiredField',
  DuplicateField = 'DuplicateField',
  ResourceNotFound = 'ResourceNotFound',
  ConcurrentModification = 'ConcurrentModification',
  InvalidToken = 'invalid_token',
  InvalidClient = 'invalid_client',
  InvalidRequest = 'invalid_request',
  InvalidScope = 'invalid_scope',
  UnsupportedGrantType = 'unsupported_grant_type',
  InsufficientScope = 'insufficient_scope',
  MisdirectedRequest = 'MisdirectedRequest',
  NotAcceptable = 'NotAcceptable',
  UnsupportedMediaType = 'UnsupportedMediaType',
  PayloadTooLarge = 'PayloadTooLarge',
  TooManyRequests = 'TooManyRequests',
  General = 'General',
  ServiceUnavailable = 'ServiceUnavailable',
}

export const ERROR_STATUS: Record<ErrorCode, number> = {
  [ErrorCode.InvalidInput]: 400,
  [ErrorCode.InvalidJsonInput]: 400,
  [ErrorCode.InvalidField]: 400,
  [ErrorCode.RequiredField]: 400,
  [ErrorCode.DuplicateField]: 400,
  [ErrorCode.ResourceNotFound]: 404,
  [ErrorCode.ConcurrentModification]: 409,
  [ErrorCode.InvalidToken]: 401,
  [ErrorCode.InvalidClient]: 401,
  [ErrorCode.InvalidRequest]: 400,
  [ErrorCode.InvalidScope]: 400,
  [ErrorCode.UnsupportedGrantType]: 400,
  [ErrorCode.InsufficientScope]: 403,
  [ErrorCode.MisdirectedRequest]: 421,
  [ErrorCode.NotAcceptable]: 406,
  [ErrorCode.UnsupportedMediaType]: 415,
  [ErrorCode.PayloadTooLarge]: 413,
  [ErrorCode.TooManyRequests]: 429,
  [ErrorCode.General]: 500,
  [ErrorCode.ServiceUnavailable]: 503,
};
