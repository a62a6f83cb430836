import { ConfigError, loadConfig } from '../app-config.js';
import { DestinationHosts } from './destination-hosts.js';

const dns: Record<string, string[]> = {
  'hooks.example.com': ['203.0.113.7'],
  'metadata.example.com': ['169.254.169.254'],
  'internal.example.com': ['10.1.2.3', 'fd00::5'],
  'mixed.example.com': ['10.1.2.3', '203.0.113.9'],
};
const resolve = async (host: string) => {
  if (!dns[host]) throw new Error('ENOTFOUND');
  return dns[host];
};

describe('DestinationHosts', () => {
  it.each([
    ['hooks.example.com', undefined],
    ['127.0.0.1', undefined],
    ['[::1]', undefined],
    ['169.254.169.254', /link-local/],
    ['metadata.example.com', /link-local address 169\.254\.169\.254/],
    ['fe80::1', /link-local/],
    ['::ffff:169.254.0.1', /link-local/],
    ['nowhere.example.com', /could not be resolved/],
  ])('by default allows any host but link-local: %s', async (host, refusal) => {
    const verdict = await new DestinationHosts([], resolve).refusal(host);
    if (refusal) expect(verdict).toMatch(refusal);
    else expect(verdict).toBeUndefined();
  });

  it.each([
    ['hooks.example.com', undefined],
    ['HOOKS.example.com.', undefined],
    ['internal.example.com', undefined],
    ['10.200.0.1', undefined],
    ['mixed.example.com', /not allowed/],
    ['203.0.113.7', /not allowed/],
    ['127.0.0.1', /not allowed/],
    ['metadata.example.com', /link-local/],
  ])('with SUBSCRIPTION_DESTINATION_HOSTS, only its names and CIDRs: %s', async (host, refusal) => {
    const verdict = await new DestinationHosts(['hooks.example.com', '10.0.0.0/8', 'fd00::/8'], resolve).refusal(host);
    if (refusal) expect(verdict).toMatch(refusal);
    else expect(verdict).toBeUndefined();
  });
});

describe('SUBSCRIPTION_* settings', () => {
  it('default to the contract\'s values', () => {
    expect(loadConfig({}).subscriptions).toEqual({
      destinationHosts: [],
      deliveryTimeoutMs: 10_000,
      pollIntervalMs: 100,
      sweepIntervalMs: 60_000,
      lookbackMs: 60_000,
      retryBaseMs: 1_000,
      retryMaxMs: 600_000,
      concurrency: 64,
      cloudEventsNamespace: 'org.resource-api',
    });
  });

  it('accept host names and CIDRs, and refuse to start on anything else, naming each bad entry', () => {
    expect(loadConfig({ SUBSCRIPTION_DESTINATION_HOSTS: 'Hooks.Example.com, 10.0.0.0/8,fd00::/8,192.0.2.1' }).subscriptions.destinationHosts).toEqual([
      'hooks.example.com',
      '10.0.0.0/8',
      'fd00::/8',
      '192.0.2.1',
    ]);
    expect(() => loadConfig({ SUBSCRIPTION_DESTINATION_HOSTS: 'ok.example.com,bad host,10.0.0.0/33' })).toThrow(
      /'bad host' is neither a host name nor a CIDR[\s\S]*'10\.0\.0\.0\/33'/,
    );
    expect(() => loadConfig({ SUBSCRIPTION_DELIVERY_TIMEOUT_MS: '0' })).toThrow(ConfigError);
  });
});
