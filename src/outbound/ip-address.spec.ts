import fc from 'fast-check';
import { forbiddenRange, parseIpAddress } from './ip-address.js';

describe('parseIpAddress', () => {
  it.each([
    // IPv4, as the system resolver reads it.
    ['169.254.169.254', '169.254.169.254', undefined],
    ['0251.0376.0251.0376', '169.254.169.254', undefined],
    ['0xa9.0xfe.0xa9.0xfe', '169.254.169.254', undefined],
    ['0xA9FEA9FE', '169.254.169.254', undefined],
    ['2852039166', '169.254.169.254', undefined],
    ['169.254.43518', '169.254.169.254', undefined],
    ['169.16689662', '169.254.169.254', undefined],
    ['0', '0.0.0.0', undefined],
    ['127.1', '127.0.0.1', undefined],
    ['169.254.169.254.', '169.254.169.254', undefined],
    // IPv6, canonical text and the IPv4 address it carries.
    ['[::1]', '::1', undefined],
    ['::', '::', undefined],
    ['FE80::1', 'fe80::1', undefined],
    ['fe80::1%eth0', 'fe80::1', undefined],
    ['::ffff:169.254.1.1', '::ffff:a9fe:101', '169.254.1.1'],
    ['::ffff:a9fe:a9fe', '::ffff:a9fe:a9fe', '169.254.169.254'],
    ['[::FFFF:A9FE:A9FE]', '::ffff:a9fe:a9fe', '169.254.169.254'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', '::ffff:a9fe:a9fe', '169.254.169.254'],
    ['::ffff:0:a9fe:a9fe', '::ffff:0:a9fe:a9fe', '169.254.169.254'],
    ['::a9fe:a9fe', '::a9fe:a9fe', '169.254.169.254'],
    ['::169.254.169.254', '::a9fe:a9fe', '169.254.169.254'],
    ['64:ff9b::a9fe:a9fe', '64:ff9b::a9fe:a9fe', '169.254.169.254'],
    ['0064:FF9B:0000::169.254.169.254', '64:ff9b::a9fe:a9fe', '169.254.169.254'],
    ['64:ff9b:1::a9fe:a9fe', '64:ff9b:1::a9fe:a9fe', '169.254.169.254'],
    ['2002:a9fe:a9fe::', '2002:a9fe:a9fe::', '169.254.169.254'],
    ['2002:A9FE:A9FE:1:2:3:4:5', '2002:a9fe:a9fe:1:2:3:4:5', '169.254.169.254'],
    ['2001:0:4136:e378:8000:63bf:5601:5601', '2001:0:4136:e378:8000:63bf:5601:5601', '169.254.169.254'],
    ['2001:db8::1', '2001:db8::1', undefined],
    ['1:0:0:1:0:0:0:1', '1:0:0:1::1', undefined],
  ])('%s → %s (embeds %s)', (input, text, embedded) => {
    const address = parseIpAddress(input);
    expect(address?.text).toBe(text);
    expect(address?.embedded).toBe(embedded);
  });

  it.each(['example.com', 'localhost', '256.1.1.1', '1.2.3.4.5', '08.1.1.1', '1.2.3.256', '0x', ':::1', '[fe80::1', '', 'a9fe:a9fe'])('%s is not an address', (input) => {
    expect(parseIpAddress(input)).toBeUndefined();
  });

  it('reads every IPv4 address written in dotted decimal as itself, and its IPv4-mapped form as embedding it', () => {
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        expect(parseIpAddress(v4)?.text).toBe(v4);
        expect(parseIpAddress(`::ffff:${v4}`)).toMatchObject({ embedded: v4, sameHost: true });
      }),
    );
  });
});

describe('forbiddenRange', () => {
  it.each([
    '169.254.169.254',
    '169.254.0.1',
    '0251.0376.0251.0376',
    'fe80::1',
    'febf:ffff::1',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '::ffff:0:a9fe:a9fe',
    '::a9fe:a9fe',
    '::169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::a9fe:a9fe',
    '2002:a9fe:a9fe::',
    '2001:0:4136:e378:8000:63bf:5601:5601',
    '0.0.0.0',
    '0.1.2.3',
    '::',
    '::ffff:0.0.0.0',
  ])('%s is refused', (input) => {
    expect(forbiddenRange(parseIpAddress(input)!)).toMatch(/link-local|unspecified/);
  });

  it.each(['127.0.0.1', '::1', '10.1.2.3', '192.168.0.1', 'fd00::1', '203.0.113.7', '::ffff:127.0.0.1', '64:ff9b::cb00:7107', '2002:cb00:7107::', 'fec0::1', '170.254.0.1'])(
    '%s is not',
    (input) => {
      expect(forbiddenRange(parseIpAddress(input)!)).toBeUndefined();
    },
  );
});
