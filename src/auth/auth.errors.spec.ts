import { DomainError } from '../common/domain-error.js';
import { ErrorCode } from '../common/error-code.js';
import { asOAuthError, oauthError, rateLimited } from './auth.errors.js';

describe('asOAuthError', () => {
  it.each([
    [ErrorCode.InvalidJsonInput, 'invalid_request'],
    [ErrorCode.InvalidInput, 'invalid_request'],
    [ErrorCode.PayloadTooLarge, 'invalid_request'],
    [ErrorCode.UnsupportedMediaType, 'invalid_request'],
    [ErrorCode.InvalidClient, 'invalid_client'],
    [ErrorCode.TooManyRequests, 'temporarily_unavailable'],
    [ErrorCode.ServiceUnavailable, 'temporarily_unavailable'],
    [ErrorCode.General, 'server_error'],
  ])('%s → error %s, error_description the message', (code, error) => {
    const answered = asOAuthError(DomainError.of(code, 'what happened'));
    expect(answered.extra).toEqual({ error, error_description: 'what happened' });
    expect(answered.errors).toEqual([{ code, message: 'what happened' }]);
  });

  it('keeps the headers (Retry-After) and leaves the original error as it was', () => {
    const limited = rateLimited(7);
    const answered = asOAuthError(limited);
    expect(answered.headers).toEqual({ 'Retry-After': '7' });
    expect(answered.status).toBe(429);
    expect(limited.extra).toBeUndefined();
  });

  it('leaves an error that has its OAuth fields alone', () => {
    const scoped = oauthError(ErrorCode.InvalidScope, 'no such scope');
    expect(asOAuthError(scoped)).toBe(scoped);
  });
});
