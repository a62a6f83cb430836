import { ConfigError, loadConfig } from '../app-config.js';

describe('SUBSCRIPTION_* settings', () => {
  it("default to the documented values", () => {
    expect(loadConfig({}).subscriptions).toEqual({
      deliveryTimeoutMs: 10_000,
      pollIntervalMs: 100,
      sweepIntervalMs: 60_000,
      lookbackMs: 60_000,
      retryBaseMs: 1_000,
      retryMaxMs: 600_000,
      concurrency: 64,
      cloudEventsNamespace: 'org.resource-api',
    });
    expect(() => loadConfig({ SUBSCRIPTION_DELIVERY_TIMEOUT_MS: '0' })).toThrow(ConfigError);
  });
});
