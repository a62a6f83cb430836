import { loadConfig } from '../app-config.js';
import { HostPolicy } from './host-policy.js';
import { HostNotAllowedError } from './outbound-failure.js';

const dns: Record<string, string[]> = {
  'hooks.example.com': ['203.0.113.7'],
  'metadata.example.com': ['169.254.169.254'],
  'mapped-metadata.example.com': ['::ffff:169.254.169.254'],
  'nat64-metadata.example.com': ['203.0.113.8', '64:ff9b::a9fe:a9fe'],
  'internal.example.com': ['10.1.2.3', 'fd00::5'],
  'mixed.example.com': ['10.1.2.3', '203.0.113.9'],
  'zero.example.com': ['0.0.0.0'],
};
const resolve = async (host: string) => {
  if (!dns[host]) throw new Error('ENOTFOUND');
  return dns[host];
};
const verdictOf = async (policy: HostPolicy, host: string) => {
  const verdict = await policy.check(host);
  return 'refusal' in verdict ? verdict : undefined;
};

describe('HostPolicy', () => {
  it.each([
    ['hooks.example.com', undefined],
    ['127.0.0.1', undefined],
    ['[::1]', undefined],
    ['10.1.2.3', undefined],
    ['169.254.169.254', /link-local address 169\.254\.169\.254/],
    ['0251.0376.0251.0376', /link-local address 169\.254\.169\.254/],
    ['metadata.example.com', /link-local address 169\.254\.169\.254/],
    ['mapped-metadata.example.com', /link-local address 169\.254\.169\.254/],
    ['nat64-metadata.example.com', /link-local address 169\.254\.169\.254/],
    ['fe80::1', /link-local/],
    ['[::ffff:169.254.0.1]', /link-local/],
    ['[64:ff9b::a9fe:a9fe]', /link-local/],
    ['[2002:a9fe:a9fe::]', /link-local/],
    ['0.0.0.0', /unspecified/],
    ['[::]', /unspecified/],
    ['zero.example.com', /unspecified/],
  ])('by default allows any host but link-local and unspecified ones: %s', async (host, detail) => {
    const verdict = await verdictOf(new HostPolicy([], resolve), host);
    if (detail) expect(verdict).toEqual({ refusal: 'host not allowed', detail: expect.stringMatching(detail) });
    else expect(verdict).toBeUndefined();
  });

  it('an unresolvable name could not be connected to', async () => {
    expect(await verdictOf(new HostPolicy([], resolve), 'nowhere.example.com')).toEqual({ refusal: 'could not connect', detail: "the host 'nowhere.example.com' could not be resolved" });
  });

  it('answers the canonical addresses it checked', async () => {
    expect(await new HostPolicy([], resolve).check('0177.0.0.1')).toEqual({ addresses: ['127.0.0.1'] });
    expect(await new HostPolicy([], resolve).check('internal.example.com.')).toEqual({ addresses: ['10.1.2.3', 'fd00::5'] });
  });

  it.each([
    ['hooks.example.com', undefined],
    ['HOOKS.example.com.', undefined],
    ['internal.example.com', undefined],
    ['10.200.0.1', undefined],
    ['[::ffff:10.200.0.1]', undefined],
    ['mixed.example.com', /not among the allowed hosts/],
    ['203.0.113.7', /not among the allowed hosts/],
    ['127.0.0.1', /not among the allowed hosts/],
    ['[64:ff9b::a00:1]', /not among the allowed hosts/],
    ['metadata.example.com', /link-local/],
  ])('with a list, only its names and CIDRs: %s', async (host, detail) => {
    const verdict = await verdictOf(new HostPolicy(['hooks.example.com', '10.0.0.0/8', 'fd00::/8'], resolve), host);
    if (detail) expect(verdict).toEqual({ refusal: 'host not allowed', detail: expect.stringMatching(detail) });
    else expect(verdict).toBeUndefined();
  });

  it('a listed name resolving to a link-local address is still refused', async () => {
    expect(await verdictOf(new HostPolicy(['metadata.example.com', '169.254.0.0/16'], resolve), 'metadata.example.com')).toMatchObject({ refusal: 'host not allowed' });
  });

  describe('lookup (what clients connect through)', () => {
    const lookup = (host: string, all: boolean) =>
      new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }>((done) =>
        new HostPolicy([], resolve).lookup(host, { all }, (error, address, family) => done({ error, address, family })),
      );

    it('yields the checked addresses, one or all', async () => {
      expect(await lookup('internal.example.com', false)).toEqual({ error: null, address: '10.1.2.3', family: 4 });
      expect(await lookup('internal.example.com', true)).toMatchObject({ error: null, address: [{ address: '10.1.2.3', family: 4 }, { address: 'fd00::5', family: 6 }] });
    });

    it('fails a refused host with HostNotAllowedError, an unresolvable one with ENOTFOUND', async () => {
      const refused = await lookup('metadata.example.com', true);
      expect(refused.error).toBeInstanceOf(HostNotAllowedError);
      expect(refused.error?.message).toBe('host not allowed');
      expect((await lookup('nowhere.example.com', false)).error?.code).toBe('ENOTFOUND');
    });
  });
});

describe('OUTBOUND_DESTINATION_HOSTS', () => {
  it('defaults to no list', () => {
    expect(loadConfig({}).outbound).toEqual({ destinationHosts: [] });
  });

  it('accepts host names and CIDRs, and refuses to start on anything else, naming each bad entry', () => {
    expect(loadConfig({ OUTBOUND_DESTINATION_HOSTS: 'Hooks.Example.com, 10.0.0.0/8,fd00::/8,192.0.2.1' }).outbound.destinationHosts).toEqual([
      'hooks.example.com',
      '10.0.0.0/8',
      'fd00::/8',
      '192.0.2.1',
    ]);
    expect(() => loadConfig({ OUTBOUND_DESTINATION_HOSTS: 'ok.example.com,bad host,10.0.0.0/33' })).toThrow(
      /OUTBOUND_DESTINATION_HOSTS: 'bad host' is neither a host name nor a CIDR[\s\S]*'10\.0\.0\.0\/33'/,
    );
  });

  it('falls back to SUBSCRIPTION_DESTINATION_HOSTS, which it replaces when both are set', () => {
    expect(loadConfig({ SUBSCRIPTION_DESTINATION_HOSTS: '10.0.0.0/8' }).outbound.destinationHosts).toEqual(['10.0.0.0/8']);
    expect(loadConfig({ SUBSCRIPTION_DESTINATION_HOSTS: '10.0.0.0/8', OUTBOUND_DESTINATION_HOSTS: 'hooks.example.com' }).outbound.destinationHosts).toEqual(['hooks.example.com']);
    expect(() => loadConfig({ SUBSCRIPTION_DESTINATION_HOSTS: 'bad host' })).toThrow(/SUBSCRIPTION_DESTINATION_HOSTS: 'bad host'/);
  });
});
