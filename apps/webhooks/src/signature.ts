import { createHmac } from 'node:crypto';

/** `Service-Signature: t=<unix>,v1=<hex>`: HMAC-SHA256 of `t.body` keyed by the whole secret. */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}
