import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;
const PARAMS = { N: 16_384, r: 8, p: 1 };
const KEY_LENGTH = 32;

/**
 * A fresh client secret: 32 random bytes, base64url, never starting with `-` (one in 64 would, and a command
 * line would read it as an option).
 */
export function generateSecret(): string {
  for (;;) {
    const secret = randomBytes(32).toString('base64url');
    if (!secret.startsWith('-')) return secret;
  }
}

/** `scrypt$N$r$p$salt$hash`; the secret itself is never stored. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(secret, salt, KEY_LENGTH, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/**
 * A hash of the same cost as every stored one, whose secret nobody knows: verifying against it makes
 * an unknown client id take as long as a known one with a wrong secret (no timing tells ids apart).
 */
export const DUMMY_SECRET_HASH = 'scrypt$16384$8$1$NlaBuwA8i7-bfmIQZ9eNaw$vgwkiLSy84H8VWbxTwjmwZHyRMTrAjBMECaUiataYJ4';

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptAsync(secret, Buffer.from(salt, 'base64url'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(actual, expected);
}
