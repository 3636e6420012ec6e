import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { newSigningSecret, SIGNATURE_TOLERANCE_SECONDS, signatureHeader, verifySignature } from '../src';

/** The webhook signature test vectors of docs/webhook-signature-vectors.json. */
const vectors = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'docs', 'webhook-signature-vectors.json'), 'utf8')) as {
  tolerance_seconds: number;
  cases: { name: string; secret: string; body: string; header: string; now: number; valid: boolean }[];
};

describe('verifySignature against the webhook signature test vectors', () => {
  it('the vectors hold valid and invalid cases, with the spec\'s tolerance', () => {
    expect(vectors.tolerance_seconds).toBe(SIGNATURE_TOLERANCE_SECONDS);
    expect(vectors.cases.filter((c) => c.valid).length).toBeGreaterThan(3);
    expect(vectors.cases.filter((c) => !c.valid).length).toBeGreaterThan(5);
  });

  it.each(vectors.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const verdict = verifySignature(c.body, c.header, c.secret, { now: c.now });
    expect({ valid: verdict.ok }).toEqual({ valid: c.valid });
    // the same bytes as a Buffer: what a receiver has before parsing
    expect(verifySignature(Buffer.from(c.body, 'utf8'), c.header, c.secret, { now: c.now }).ok).toBe(c.valid);
  });

  it('during a roll a receiver may hold both secrets: either one in the header verifies', () => {
    const rolled = vectors.cases.find((c) => c.name.includes('previous secret verifies'))!;
    const current = vectors.cases.find((c) => c.name === 'valid')!;
    expect(verifySignature(current.body, current.header, [rolled.secret, current.secret], { now: current.now })).toEqual({ ok: true, timestamp: current.now });
  });

  it('says why it refuses', () => {
    const c = vectors.cases.find((v) => v.name === 'valid')!;
    expect(verifySignature(c.body, undefined, c.secret)).toEqual({ ok: false, reason: 'no Service-Signature header' });
    expect(verifySignature(c.body, c.header, c.secret, { now: c.now + 301 })).toEqual({ ok: false, reason: 'timestamp outside the tolerance' });
    expect(verifySignature(c.body, c.header, c.secret, { now: c.now + 301, toleranceSeconds: 600 }).ok).toBe(true);
    expect(verifySignature(`${c.body} `, c.header, c.secret, { now: c.now })).toEqual({ ok: false, reason: 'no signature matches' });
  });

  it('signatureHeader signs as the webhooks service does: the valid vector\'s header from its secret, body and time; a fresh secret verifies what it signs', () => {
    const c = vectors.cases.find((v) => v.name === 'valid')!;
    expect(signatureHeader(c.secret, c.body, c.now)).toBe(c.header);
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(verifySignature(c.body, signatureHeader(secret, c.body), secret)).toEqual({ ok: true, timestamp: expect.any(Number) });
    expect(verifySignature(c.body, signatureHeader([secret, c.secret], c.body, c.now), c.secret, { now: c.now }).ok).toBe(true);
  });
});
