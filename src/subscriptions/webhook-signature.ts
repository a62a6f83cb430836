import { createHmac, randomBytes } from 'node:crypto';

/*
 * Standard Webhooks signatures (https://www.standardwebhooks.com): `webhook-signature` is
 * `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, keyed with the base64-decoded
 * part of the `whsec_` secret. This is node:crypto rather than the `standardwebhooks` package: the
 * scheme is these few lines, and the package computes SHA-256 in JavaScript (fast-sha256), several times
 * slower than OpenSSL on the delivery path. The tests verify signatures independently, per the Standard Webhooks text.
 */

const SECRET_PREFIX = 'whsec_';

/** A new secret: 32 random bytes, base64, with the `whsec_` prefix. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The secret as answered after creation: its prefix and last 4 characters. */
export function maskWebhookSecret(secret: string): string {
  return `${SECRET_PREFIX}****${secret.slice(-4)}`;
}

export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}
