import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, KeyObject } from 'node:crypto';
import { authConfig, type AuthConfig } from './auth.config.js';
import { Database } from '../database/database.js';
import { decryptPem, encryptedWith, encryptPem } from './key-encryption.js';

interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: JsonWebKey;
}

/**
 * RS256 signing keys. From AUTH_PRIVATE_KEY when given; otherwise generated once and stored in the
 * database, so every replica and every restart signs and verifies with the same keys. Replicas
 * starting together may each insert one: all of them sign with the oldest, and all verify with any.
 *
 * At rest (docs/authentication.md#signing-keys-at-rest): with SIGNING_KEY_ENCRYPTION_KEY the stored private keys
 * are AES-256-GCM ciphertext (key-encryption.ts). At start-up every row not encrypted with the first
 * listed key (plaintext PEM from before, or an older key while rotating) is rewritten under it; rows
 * stay readable whatever their form as long as their key is listed.
 */
@Injectable()
export class SigningKeysService implements OnModuleInit {
  private readonly logger = new Logger('SigningKeys');
  private current: SigningKey;
  private readonly byKid = new Map<string, SigningKey>();

  constructor(
    @Inject(authConfig.KEY) private readonly config: AuthConfig,
    private readonly db: Database,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.config.privateKeyPem) {
      this.current = await toSigningKey(createPrivateKey(this.config.privateKeyPem));
      this.byKid.set(this.current.kid, this.current);
      return;
    }
    let rows = await this.load();
    if (rows.length === 0) {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const key = await toSigningKey(privateKey);
      await this.db.query(
        'INSERT INTO signing_key (kid, private_key, public_jwk) VALUES ($1, $2, $3) ON CONFLICT (kid) DO NOTHING',
        [key.kid, this.seal(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string), JSON.stringify(key.publicJwk)],
      );
      rows = await this.load();
    }
    for (const row of rows) {
      const pem = decryptPem(row.private_key, this.config.signingKeyEncryption);
      const key = await toSigningKey(createPrivateKey(pem));
      this.byKid.set(key.kid, key);
      await this.reseal(row.kid, row.private_key, pem);
    }
    this.current = this.byKid.get(rows[0].kid)!;
  }

  get signingKey(): SigningKey {
    return this.current;
  }

  /** The key for a token's `kid`; reloads once from the database for a key another replica added. */
  async find(kid: string): Promise<SigningKey | undefined> {
    const known = this.byKid.get(kid);
    if (known || this.config.privateKeyPem) return known;
    const row = await this.db.one<{ private_key: string }>('SELECT private_key FROM signing_key WHERE kid = $1', [kid]);
    if (!row) return undefined;
    const key = await toSigningKey(createPrivateKey(decryptPem(row.private_key, this.config.signingKeyEncryption)));
    this.byKid.set(kid, key);
    return key;
  }

  jwks(): { keys: JsonWebKey[] } {
    return { keys: [...this.byKid.values()].map((key) => key.publicJwk) };
  }

  /** A PEM as it is stored: encrypted under the first SIGNING_KEY_ENCRYPTION_KEY, or plaintext without one. */
  private seal(pem: string): string {
    const [current] = this.config.signingKeyEncryption;
    return current ? encryptPem(pem, current) : pem;
  }

  /**
   * Rewrites a row not encrypted with the current key (plaintext, or an older key while rotating).
   * The update matches the value read, so replicas starting together rewrite it once.
   */
  private async reseal(kid: string, stored: string, pem: string): Promise<void> {
    const [current] = this.config.signingKeyEncryption;
    if (!current || encryptedWith(stored) === current.id) return;
    const updated = await this.db.query('UPDATE signing_key SET private_key = $1 WHERE kid = $2 AND private_key = $3 RETURNING kid', [this.seal(pem), kid, stored]);
    if (updated.length > 0) this.logger.log(`signing key ${kid} is now stored encrypted with key ${current.id}`);
  }

  private load() {
    return this.db.query<{ kid: string; private_key: string }>('SELECT kid, private_key FROM signing_key ORDER BY created_at, kid');
  }
}

/** The key with its public JWK; the key id is the JWK's RFC 7638 SHA-256 thumbprint. */
async function toSigningKey(privateKey: KeyObject): Promise<SigningKey> {
  const publicKey = createPublicKey(privateKey);
  const { e, kty, n } = publicKey.export({ format: 'jwk' });
  const kid = createHash('sha256').update(JSON.stringify({ e, kty, n })).digest('base64url');
  return { kid, privateKey, publicKey, publicJwk: { kty, n, e, kid, alg: 'RS256', use: 'sig' } };
}
