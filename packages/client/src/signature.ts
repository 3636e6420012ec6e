import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The spec's tolerance between a delivery's `t` and the receiver's clock. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export type SignatureVerdict = { ok: true; timestamp: number } | { ok: false; reason: string };

export interface VerifyOptions {
  /** Seconds `t` may differ from `now`; default 300 (the spec's). */
  toleranceSeconds?: number;
  /** The receiver's clock in Unix seconds; default the current time. */
  now?: number;
}

/**
 * Checks a `Service-Signature` header as the spec tells receivers to (Events > Signature): split
 * on commas, read `t` and every `v1`, reject when `t` differs from the receiver's clock by more
 * than the tolerance, compute HMAC-SHA256 of `t` + `.` + the raw body keyed by the whole secret
 * (`whsec_` included), and compare with each `v1` in constant time; any match accepts. Pass the
 * body exactly as received (the bytes, before any JSON parsing), and during a secret roll either
 * secret, or both as an array.
 */
export function verifySignature(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): SignatureVerdict {
  const tolerance = options.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (typeof header !== 'string' || header.trim() === '') return { ok: false, reason: 'no Service-Signature header' };
  let t: string | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === 't') t = value;
    else if (name === 'v1') v1.push(value);
  }
  if (!t || !/^\d+$/.test(t)) return { ok: false, reason: 'no timestamp' };
  const timestamp = Number(t);
  if (Math.abs(now - timestamp) > tolerance) return { ok: false, reason: 'timestamp outside the tolerance' };
  if (v1.length === 0) return { ok: false, reason: 'no v1 signature' };
  const secrets = typeof secret === 'string' ? [secret] : secret;
  for (const key of secrets) {
    const expected = createHmac('sha256', key).update(`${t}.`).update(rawBody).digest();
    for (const candidate of v1) {
      if (/^[0-9a-f]{64}$/i.test(candidate) && timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) return { ok: true, timestamp };
    }
  }
  return { ok: false, reason: 'no signature matches' };
}

/** A new signing secret as the webhooks service makes them: `whsec_` and 32 random bytes, base64url. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * A `Service-Signature` header for `body` signed at `timestamp` (Unix seconds), as the webhooks
 * service signs a delivery: `t=<timestamp>,v1=<hex HMAC-SHA256 of "t.body" keyed by the whole
 * secret>`, one `v1` per secret given. For sending a signed event to a receiver of one's own (a
 * test, or `lim listen` forwarding), never needed to receive one.
 */
export function signatureHeader(secrets: string | readonly string[], body: string | Uint8Array, timestamp = Math.floor(Date.now() / 1000)): string {
  const v1 = (typeof secrets === 'string' ? [secrets] : secrets)
    .map((secret) => `,v1=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`);
  return `t=${timestamp}${v1.join('')}`;
}
