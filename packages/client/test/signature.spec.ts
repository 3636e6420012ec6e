import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SIGNATURE_TOLERANCE_SECONDS, verifySignature } from '../src';

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
});
