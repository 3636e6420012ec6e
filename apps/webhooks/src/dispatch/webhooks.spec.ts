import Stripe from 'stripe';
import { EventEnvelope } from '@app/contracts';
import { decryptSecret, encryptSecret } from '../secrets';
import { newSigningSecret, signatureHeader } from '@app/platform/webhook-signature';
import { isBlockedAddress, literalAllowed } from './address-guard';
import { MAX_ATTEMPTS, retryDelayMs, RETRY_DELAYS_S } from './delivery-rules';
import { renderEvent } from './render';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { verifySignature } = require('../../../../examples/webhook-receiver/verify.js');

const stripe = new Stripe('sk_test_unused');
const event: EventEnvelope = {
  id: 'evt_1', object: 'event', type: 'lead.created', api_version: '2026-09-28', created: '2026-10-01T09:00:00.000Z',
  workspace_id: 'ws_1', livemode: true, data: { object: { id: 'lead_1', full_name: 'Zoë "Q" Ünal' } },
};

describe('signature', () => {
  const secret = newSigningSecret();
  const body = renderEvent(event, '2026-09-28');
  const now = Math.floor(Date.now() / 1000);

  it('is the scheme the stripe verifier checks: t=,v1= HMAC-SHA256 of t.body keyed by the whole secret', () => {
    const header = signatureHeader(secret, body, now);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(stripe.webhooks.constructEvent(body, header, secret)).toMatchObject({ id: 'evt_1', data: { object: { full_name: 'Zoë "Q" Ünal' } } });
    expect(() => stripe.webhooks.constructEvent(body, header, secret.slice('whsec_'.length))).toThrow();
  });

  it('the example receiver accepts it, any v1 among several, and refuses altered bodies, other secrets and stale times', () => {
    const header = signatureHeader(secret, body, now);
    expect(verifySignature(body, header, secret)).toEqual({ ok: true });
    expect(verifySignature(Buffer.from(body), `t=${now},v1=${'0'.repeat(64)},${header.split(',')[1]}`, secret)).toEqual({ ok: true });
    expect(verifySignature(body.replace('Zoë', 'Zoe'), header, secret).ok).toBe(false);
    expect(verifySignature(body, header, newSigningSecret()).ok).toBe(false);
    expect(verifySignature(body, signatureHeader(secret, body, now - 301), secret)).toEqual({ ok: false, reason: 'timestamp outside the tolerance' });
    expect(verifySignature(body, signatureHeader(secret, body, now - 299), secret)).toEqual({ ok: true });
    expect(verifySignature(body, undefined, secret).ok).toBe(false);
  });

  it('during a roll\'s grace period: one v1 per secret, the current first; the stripe verifier and the example receiver accept either', () => {
    const previous = newSigningSecret();
    const header = signatureHeader([secret, previous], body, now);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(header.split(',').slice(0, 2).join(',')).toBe(signatureHeader(secret, body, now));
    for (const s of [secret, previous]) {
      expect(stripe.webhooks.constructEvent(body, header, s)).toMatchObject({ id: 'evt_1' });
      expect(verifySignature(body, header, s)).toEqual({ ok: true });
    }
    expect(verifySignature(body, header, newSigningSecret()).ok).toBe(false);
  });
});

describe('secrets at rest', () => {
  const key = Buffer.alloc(32, 7);
  it('round-trips, never stores the plain secret, and refuses another key or an altered value', () => {
    const secret = newSigningSecret();
    const stored = encryptSecret(secret, key);
    expect(stored).not.toContain(secret.slice(6));
    expect(decryptSecret(stored, key)).toBe(secret);
    expect(() => decryptSecret(stored, Buffer.alloc(32, 8))).toThrow();
    const parts = stored.split(':');
    parts[3] = Buffer.from('whsec_forged').toString('base64url');
    expect(() => decryptSecret(parts.join(':'), key)).toThrow();
  });
});

describe('address guard', () => {
  it.each(['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:169.254.169.254'])(
    '%s is blocked',
    (address) => expect(isBlockedAddress(address)).toBe(true),
  );
  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111'])('%s is public', (address) => expect(isBlockedAddress(address)).toBe(false));
  it('allow-listed literals pass; names are judged after resolution', () => {
    expect(literalAllowed('127.0.0.1', new Set())).toBe(false);
    expect(literalAllowed('127.0.0.1', new Set(['127.0.0.1']))).toBe(true);
    expect(literalAllowed('[::1]', new Set())).toBe(false);
    expect(literalAllowed('example.com', new Set())).toBe(true);
  });
});

describe('retry schedule', () => {
  it('about 1 min, 5 min, 30 min, 2 h, 6 h, 15 h after the previous attempt, within 10% jitter; 7 attempts in all', () => {
    expect(RETRY_DELAYS_S).toEqual([60, 300, 1800, 7200, 21_600, 54_000]);
    expect(MAX_ATTEMPTS).toBe(7);
    RETRY_DELAYS_S.forEach((s, i) => {
      expect(retryDelayMs(i + 1, 0)).toBe(Math.round(s * 900));
      expect(retryDelayMs(i + 1, 1)).toBe(Math.round(s * 1100));
    });
    expect(RETRY_DELAYS_S.reduce((a, b) => a + b, 0) / 3600).toBeCloseTo(23.6, 1);
  });
});

describe('renderEvent', () => {
  it('pins api_version and keeps every envelope field', () => {
    expect(JSON.parse(renderEvent({ ...event, api_version: 'x' as never }, '2026-09-28'))).toEqual({ ...event, api_version: '2026-09-28' });
  });
});

describe('WebhookSender outbound safety', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { WebhookSender } = require('./sender');
  const sender = new WebhookSender(new Set<string>(), 4);
  afterAll(() => sender.close());
  it.each([
    ['http://example.com/hook', 'only HTTPS'],
    ['https://127.0.0.1:9/hook', 'private or reserved'],
    ['https://[::1]:9/hook', 'private or reserved'],
    ['https://localhost:9/hook', 'private or reserved'],
  ])('%s is refused before any byte is sent', async (url, reason) => {
    const result = await sender.send({ url, body: '{}', headers: {}, timeoutMs: 2000 });
    expect(result.ok).toBe(false);
    expect(result.status_code).toBeNull();
    expect(result.error).toContain(reason);
  });
});
