import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Signing keys at rest (`signing_key.private_key`): AES-256-GCM under `SIGNING_KEY_ENCRYPTION_KEY`
 * when it is set. Pure functions; SigningKeysService applies them.
 *
 * Stored form: `aes256gcm:<key id>:<iv>:<tag>:<ciphertext>` (base64url parts; the key id is the first
 * 16 hex digits of the SHA-256 of the encryption key, so a row names the key that decrypts it). A row
 * starting with `-----BEGIN` is plaintext PEM, as written before encryption existed or without a key.
 */
export interface EncryptionKey {
  id: string;
  key: Buffer;
}

const PREFIX = 'aes256gcm';

/** An encryption key from its base64 (or base64url) text: exactly 32 bytes, else undefined. */
export function parseEncryptionKey(text: string): EncryptionKey | undefined {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) return undefined;
  const key = Buffer.from(trimmed, 'base64');
  if (key.length !== 32) return undefined;
  return { id: createHash('sha256').update(key).digest('hex').slice(0, 16), key };
}

export function isPlaintextPem(stored: string): boolean {
  return stored.startsWith('-----BEGIN');
}

/** The id of the key a stored value was encrypted with; undefined for plaintext. */
export function encryptedWith(stored: string): string | undefined {
  return stored.startsWith(`${PREFIX}:`) ? stored.split(':')[1] : undefined;
}

export function encryptPem(pem: string, { id, key }: EncryptionKey): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`${PREFIX}:${id}`));
  const ciphertext = Buffer.concat([cipher.update(pem, 'utf8'), cipher.final()]);
  return [PREFIX, id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join(':');
}

/**
 * The PEM of a stored value: plaintext as it is, ciphertext with the key it names among `keys`.
 * Throws (without the key's bytes or the PEM in the message) when no key fits or the value was altered.
 */
export function decryptPem(stored: string, keys: readonly EncryptionKey[]): string {
  if (isPlaintextPem(stored)) return stored;
  const [prefix, id, iv, tag, ciphertext] = stored.split(':');
  if (prefix !== PREFIX || !ciphertext) throw new Error('a signing key is stored in an unknown form');
  const match = keys.find((k) => k.id === id);
  if (!match) {
    throw new Error(
      `a signing key is encrypted with key ${id}, which SIGNING_KEY_ENCRYPTION_KEY does not hold (set it, listing the old key after the new one while rotating)`,
    );
  }
  const decipher = createDecipheriv('aes-256-gcm', match.key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(`${PREFIX}:${id}`));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  try {
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new Error(`a signing key encrypted with key ${id} does not decrypt: the stored value or the key is wrong`);
  }
}
