import { cloudEventsSequence, renderNotification, renderTestNotification } from './notification-format.js';
import { retryDelay } from './retry-delay.js';
import { maskWebhookSecret, signWebhook } from './webhook-signature.js';
import { classifyHttpStatus } from './delivery-error.js';

describe('signWebhook', () => {
  it('matches the Standard Webhooks specification\'s test vector', () => {
    expect(signWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('masks a secret to its prefix and last 4 characters', () => {
    expect(maskWebhookSecret('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toBe('whsec_****LaSw');
  });
});

describe('retryDelay', () => {
  it.each([
    [1, 1_000],
    [2, 2_000],
    [3, 4_000],
    [10, 512_000],
    [11, 600_000],
    [50, 600_000],
  ])('attempt %i waits up to %i ms, at least 75 %% of it', (attempt, full) => {
    expect(retryDelay(attempt, 1_000, 600_000, () => 1)).toBe(full);
    expect(retryDelay(attempt, 1_000, 600_000, () => 0)).toBe(Math.round(full * 0.75));
  });
});

describe('classifyHttpStatus', () => {
  it.each([
    [200, undefined],
    [204, undefined],
    [301, 'ConfigurationError'],
    [400, 'ConfigurationError'],
    [401, 'ConfigurationError'],
    [404, 'ConfigurationError'],
    [408, 'TemporaryError'],
    [429, 'TemporaryError'],
    [500, 'TemporaryError'],
    [503, 'TemporaryError'],
  ])('%i → %s', (status, kind) => expect(classifyHttpStatus(status)).toBe(kind));
});

describe('renderNotification', () => {
  const message = {
    id: '5b0f6a3e-1111-4222-8333-444455556666',
    projectKey: 'demo',
    resourceId: '9c1e0000-0000-4000-8000-000000000001',
    type: 'message.SomePropertyChanged',
    sequenceNumber: 12,
    createdAt: '2026-11-25T10:00:00.000Z',
    payload: '{"notificationType":"Message","projectKey":"demo","big":9223372036854775807}',
  };

  it('Platform: the payload as stored, byte for byte (64-bit integers exact)', () => {
    expect(renderNotification({ type: 'Platform' }, message, 'ns')).toEqual({ id: message.id, body: message.payload, contentType: 'application/json' });
  });

  it('CloudEvents: the structured envelope with the payload as data, dataref for messages only', () => {
    const rendered = renderNotification({ type: 'CloudEvents', cloudEventsVersion: '1.0' }, message, 'org.example');
    expect(rendered.contentType).toBe('application/cloudevents+json');
    expect(rendered.body).toBe(
      '{"specversion":"1.0","id":"5b0f6a3e-1111-4222-8333-444455556666","type":"org.example.resource.message.SomePropertyChanged",' +
        '"source":"/demo/resource","subject":"9c1e0000-0000-4000-8000-000000000001","time":"2026-11-25T10:00:00.000Z",' +
        '"sequence":"0000000000000000012","dataref":"/demo/messages/5b0f6a3e-1111-4222-8333-444455556666",' +
        '"data":{"notificationType":"Message","projectKey":"demo","big":9223372036854775807}}',
    );
    const change = JSON.parse(renderNotification({ type: 'CloudEvents' }, { ...message, type: 'change.Updated' }, 'org.example').body);
    expect(change.type).toBe('org.example.resource.change.Updated');
    expect(change.dataref).toBeUndefined();
  });

  it('pads the sequence to 19 digits', () => {
    expect(cloudEventsSequence(1)).toBe('0000000000000000001');
    expect(cloudEventsSequence(2_147_483_647)).toBe('0000000002147483647');
  });

  it('the test notification names the subscription', () => {
    const test = { id: 't-1', projectKey: 'demo', subscriptionId: 's-1', time: '2026-11-25T10:00:00.000Z' };
    expect(JSON.parse(renderTestNotification({ type: 'Platform' }, test, 'ns').body)).toEqual({
      notificationType: 'ResourceCreated',
      projectKey: 'demo',
      resource: { typeId: 'subscription', id: 's-1' },
    });
    expect(JSON.parse(renderTestNotification({ type: 'CloudEvents' }, test, 'ns').body)).toMatchObject({ specversion: '1.0', id: 't-1', subject: 's-1', data: { resource: { id: 's-1' } } });
  });
});
