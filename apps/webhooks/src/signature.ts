import { createHmac } from 'node:crypto';

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
