import { randomBytes } from 'node:crypto';
import { decryptPem, encryptedWith, encryptPem, isPlaintextPem, parseEncryptionKey } from './key-encryption.js';

const PEM = '-----BEGIN PRIVATE KEY-----\nMIIE…\n-----END PRIVATE KEY-----\n';
const newKey = () => parseEncryptionKey(randomBytes(32).toString('base64'))!;

describe('signing key encryption', () => {
  it('round-trips a PEM; the stored form names its key and holds no PEM text', () => {
    const key = newKey();
    const stored = encryptPem(PEM, key);
    expect(isPlaintextPem(stored)).toBe(false);
    expect(stored).not.toContain('PRIVATE KEY');
    expect(encryptedWith(stored)).toBe(key.id);
    expect(decryptPem(stored, [key])).toBe(PEM);
    expect(encryptPem(PEM, key)).not.toBe(stored);
  });

  it('reads plaintext PEM as it is, with or without keys', () => {
    expect(decryptPem(PEM, [])).toBe(PEM);
    expect(decryptPem(PEM, [newKey()])).toBe(PEM);
    expect(encryptedWith(PEM)).toBeUndefined();
  });

  it('decrypts with whichever listed key the value names (rotation)', () => {
    const [oldKey, current] = [newKey(), newKey()];
    expect(decryptPem(encryptPem(PEM, oldKey), [current, oldKey])).toBe(PEM);
  });

  it('refuses without the key, and when the value was altered; the messages hold no secret', () => {
    const key = newKey();
    const stored = encryptPem(PEM, key);
    expect(() => decryptPem(stored, [])).toThrow(`encrypted with key ${key.id}, which SIGNING_KEY_ENCRYPTION_KEY does not hold`);
    const parts = stored.split(':');
    parts[4] = Buffer.from('tampered').toString('base64url');
    expect(() => decryptPem(parts.join(':'), [key])).toThrow('does not decrypt');
    parts[1] = 'ffffffffffffffff';
    expect(() => decryptPem(parts.join(':'), [{ ...key, id: 'ffffffffffffffff' }])).toThrow('does not decrypt');
  });

  it.each(['', 'short', randomBytes(31).toString('base64'), randomBytes(33).toString('base64'), 'not base64 at all!'])('parseEncryptionKey(%p) → undefined', (text) => {
    expect(parseEncryptionKey(text)).toBeUndefined();
  });

  it('parseEncryptionKey accepts 32 bytes in base64 and base64url', () => {
    const bytes = randomBytes(32);
    expect(parseEncryptionKey(bytes.toString('base64'))!.key.equals(bytes)).toBe(true);
    expect(parseEncryptionKey(bytes.toString('base64url'))!.id).toBe(parseEncryptionKey(bytes.toString('base64'))!.id);
  });
});
