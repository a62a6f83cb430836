import { generateSecret, hashSecret, verifySecret } from './secret-hash.js';

describe('generateSecret', () => {
  it('gives 43 base64url characters that never start with a dash (a command line would read an option)', () => {
    // One plain base64url secret in 64 starts with "-": among 2,000 at least one would, all but surely.
    const secrets = Array.from({ length: 2_000 }, generateSecret);
    expect(secrets.filter((secret) => !/^[A-Za-z0-9_][A-Za-z0-9_-]{42}$/.test(secret))).toEqual([]);
    expect(new Set(secrets).size).toBe(secrets.length);
  });

  it('verifies against its own hash and not against another secret', async () => {
    const secret = generateSecret();
    const hash = await hashSecret(secret);
    expect(await verifySecret(secret, hash)).toBe(true);
    expect(await verifySecret(generateSecret(), hash)).toBe(false);
  });
});
