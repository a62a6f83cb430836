import { configSection } from '../config/env-reader.js';
import { PROJECT_KEY_PATTERN } from '../common/project-key.js';
import { type EncryptionKey, parseEncryptionKey } from './key-encryption.js';

interface BootstrapClientConfig {
  projectKey: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
}

export interface AuthConfig {
  /** `iss` and `aud` of the tokens this server issues. */
  issuer: string;
  tokenTtlSeconds: number;
  /** PEM (PKCS#8) RSA private key; absent → a key generated once and stored in the database. */
  privateKeyPem?: string;
  /**
   * SIGNING_KEY_ENCRYPTION_KEY: the keys stored signing keys are encrypted with (AES-256-GCM), the
   * first encrypting, the others (while rotating) still decrypting; empty → stored as plaintext PEM.
   */
  signingKeyEncryption: EncryptionKey[];
  /** How long a replica trusts that a client still exists (a deleted client's tokens fail within this). */
  clientCheckSeconds: number;
  /** Tokens of an external issuer, verified against its JWKS. */
  external?: { jwksUrl: string; issuer: string; audience: string };
  bootstrap?: BootstrapClientConfig;
  /** Create and print a demo client on an empty embedded database. */
  demoClient: boolean;
  rateLimitPerMinute: number;
  /** Requests a minute to POST /oauth/token and /oauth/introspect, per client id and per remote address. */
  rateLimitTokenPerMinute: number;
  /** Requests a minute, per remote address, that fail to authenticate on routes needing a token; past it → 429. */
  rateLimitUnauthenticatedPerMinute: number;
  /** Client secrets verified (scrypt) at once by the token endpoints; the rest wait (at most HASH_QUEUE_PER_SLOT each). */
  hashConcurrency: number;
}

export const authConfig = configSection('auth', (read): AuthConfig => {
  const auth: AuthConfig = {
    issuer: read.string('AUTH_TOKEN_ISSUER', 'resource-api'),
    tokenTtlSeconds: read.int('AUTH_TOKEN_TTL_SECONDS', 172_800, 60, 31_536_000),
    privateKeyPem: read.string('AUTH_PRIVATE_KEY')?.replace(/\\n/g, '\n'),
    signingKeyEncryption: [],
    clientCheckSeconds: read.int('AUTH_CLIENT_CHECK_SECONDS', 3, 0, 5),
    external: undefined,
    bootstrap: undefined,
    demoClient: read.bool('AUTH_DEMO_CLIENT', true),
    rateLimitPerMinute: read.int('RATE_LIMIT_PER_MINUTE', 60_000, 0, 100_000_000),
    rateLimitTokenPerMinute: read.int('RATE_LIMIT_TOKEN_PER_MINUTE', 600, 0, 100_000_000),
    rateLimitUnauthenticatedPerMinute: read.int('RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE', 1_200, 0, 100_000_000),
    hashConcurrency: read.int('AUTH_HASH_CONCURRENCY', 2, 1, 64),
  };
  const encryptionKeys = read.list('SIGNING_KEY_ENCRYPTION_KEY').map(parseEncryptionKey);
  if (encryptionKeys.some((key) => key === undefined)) {
    read.problems.push('SIGNING_KEY_ENCRYPTION_KEY: each comma-separated key must be 32 random bytes in base64 (openssl rand -base64 32)');
  } else {
    auth.signingKeyEncryption = encryptionKeys as EncryptionKey[];
  }
  const external = [read.url('AUTH_JWKS_URL', ['http:', 'https:']), read.string('AUTH_ISSUER'), read.string('AUTH_AUDIENCE')];
  if (external.every(Boolean)) {
    auth.external = { jwksUrl: external[0]!, issuer: external[1]!, audience: external[2]! };
  } else if (external.some(Boolean)) {
    read.problems.push('AUTH_JWKS_URL, AUTH_ISSUER and AUTH_AUDIENCE: set all three or none');
  }
  const bootstrap = ['BOOTSTRAP_PROJECT_KEY', 'BOOTSTRAP_CLIENT_ID', 'BOOTSTRAP_CLIENT_SECRET', 'BOOTSTRAP_SCOPES'].map((n) => read.string(n));
  if (bootstrap.every(Boolean)) {
    const [projectKey, clientId, clientSecret, scopes] = bootstrap as string[];
    auth.bootstrap = { projectKey, clientId, clientSecret, scopes };
    if (!PROJECT_KEY_PATTERN.test(projectKey)) read.problems.push('BOOTSTRAP_PROJECT_KEY: 2 to 36 characters of a-z, 0-9 and -');
    if (clientSecret.length < 16) read.problems.push('BOOTSTRAP_CLIENT_SECRET: at least 16 characters');
  } else if (bootstrap.some(Boolean)) {
    read.problems.push('BOOTSTRAP_PROJECT_KEY, BOOTSTRAP_CLIENT_ID, BOOTSTRAP_CLIENT_SECRET and BOOTSTRAP_SCOPES: set all four or none');
  }
  return auth;
});
