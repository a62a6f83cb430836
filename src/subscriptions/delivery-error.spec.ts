import { HostNotAllowedError } from '../outbound/outbound-failure.js';
import { asDeliveryError, shownReason } from './delivery-error.js';

describe('asDeliveryError', () => {
  it.each([
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:5432'), { code: 'ECONNREFUSED' }), 'TemporaryError', 'could not connect'],
    ['a closed socket', new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) }), 'TemporaryError', 'could not connect'],
    ['an OpenSSL error', Object.assign(new Error('C0:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/ssl/record/ssl3_record.c:354:'), { code: 'ERR_SSL_WRONG_VERSION_NUMBER' }), 'TemporaryError', 'TLS failed'],
    ['a certificate error', Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }), 'TemporaryError', 'TLS failed'],
    ['an abort on timeout', new DOMException('The operation was aborted due to timeout', 'TimeoutError'), 'TemporaryError', 'timed out'],
    ["amqplib's connect timeout", new Error('connect ETIMEDOUT'), 'TemporaryError', 'timed out'],
    ['a lookup the policy refused', new Error('connect', { cause: new HostNotAllowedError('the host is the link-local address 169.254.169.254') }), 'ConfigurationError', 'host not allowed'],
    ['a string', 'a string', 'TemporaryError', 'could not connect'],
  ])('%s → %s: %s; what was thrown goes to the detail only', (_name, thrown, kind, reason) => {
    const error = asDeliveryError(thrown);
    expect({ kind: error.kind, message: error.message }).toEqual({ kind, message: reason });
    expect(error.detail).toBeTruthy();
  });

  it('keeps no line break or URL credentials in the detail', () => {
    expect(asDeliveryError(new Error('refused\r\nby amqp://guest:secret@broker:5672')).detail).toBe('refused by amqp://broker:5672');
  });
});

describe('shownReason (what health shows of a stored failure)', () => {
  it.each([
    ['could not connect', 'could not connect'],
    ['answered HTTP 503', 'answered HTTP 503'],
    ['the exchange does not exist', 'the exchange does not exist'],
    ['NATS destinations are not supported by this server', 'NATS destinations are not supported by this server'],
    // What an older server stored.
    ['connection failed: ECONNREFUSED', 'could not connect'],
    ['connection failed: other side closed', 'could not connect'],
    ['connection failed: C0:error:0A00010B:SSL routines:../deps/openssl/ssl/record/ssl3_record.c:354:', 'could not connect'],
    ['the destination answered HTTP 302 (redirects are not followed)', 'answered HTTP 302'],
    ["the host 'x' is not allowed (SUBSCRIPTION_DESTINATION_HOSTS)", 'host not allowed'],
    ['no answer within 10 s', 'timed out'],
    ["no stream captures the subject 'a.b' (503)", 'no stream captures the subject'],
    ['Channel closed by server: 404 (NOT-FOUND) with message "NOT_FOUND - no exchange"', 'the exchange does not exist'],
  ])('%s → %s', (stored, shown) => {
    expect(shownReason(stored)).toBe(shown);
  });
});
