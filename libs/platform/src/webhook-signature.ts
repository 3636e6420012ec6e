import { createHmac, randomBytes } from 'node:crypto';

/** A new signing secret: `whsec_` and 32 random bytes, base64url. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * `Service-Signature: t=<unix>,v1=<hex>`: HMAC-SHA256 of `t.body` keyed by the whole secret; one
 * `v1` per secret given (the spec's header allows several: a rolled secret's predecessor signs
 * beside it during its grace period), the current secret's first.
 */
export function signatureHeader(secrets: string | readonly string[], body: string, unixSeconds: number): string {
  const v1 = (typeof secrets === 'string' ? [secrets] : secrets)
    .map((secret) => `,v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`);
  return `t=${unixSeconds}${v1.join('')}`;
}
