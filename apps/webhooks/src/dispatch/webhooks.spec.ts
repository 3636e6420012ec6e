import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Stripe from 'stripe';
import { EventEnvelope } from '@app/contracts';
import { decryptSecret, encryptSecret } from '../secrets';
import { newSigningSecret, signatureHeader } from '@app/platform/webhook-signature';
import { isBlockedAddress, literalAllowed, NOT_PUBLIC_ADDRESS } from './address-guard';
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

describe('the signature test vectors (docs/webhook-signature-vectors.json)', () => {
  const vectors = JSON.parse(readFileSync(join(__dirname, '../../../../docs/webhook-signature-vectors.json'), 'utf8')) as {
    cases: { name: string; secret: string; body: string; header: string; now: number; valid: boolean }[];
  };
  const t = (header: string) => Number(/(?:^|,)\s*t=(\d+)/.exec(header)?.[1]);

  it('the signer makes the header of every case signed with one or two secrets as listed', () => {
    const valid = vectors.cases.find((c) => c.name === 'valid')!;
    expect(signatureHeader(valid.secret, valid.body, t(valid.header))).toBe(valid.header);
    const rolled = vectors.cases.filter((c) => c.name.startsWith('two v1'));
    expect(signatureHeader([rolled[0].secret, rolled[1].secret], rolled[0].body, t(rolled[0].header))).toBe(rolled[0].header);
  });

  it.each(vectors.cases.map((c) => [c.name, c] as const))('%s: the example receiver agrees', (_name, c) => {
    expect({ receiver: verifySignature(c.body, c.header, c.secret, c.now).ok }).toEqual({ receiver: c.valid });
  });

  it("the stripe verifier accepts the valid cases signed as the service signs (its clock is the machine's: the tolerance reaches back to t)", () => {
    for (const c of vectors.cases.filter((v) => v.valid && !v.header.includes(' ') && !v.header.includes('v1=0000'))) {
      const tolerance = Math.floor(Date.now() / 1000) - t(c.header) + 60;
      expect(stripe.webhooks.constructEvent(c.body, c.header, c.secret, tolerance)).toMatchObject({ id: JSON.parse(c.body).id });
    }
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
  // Every special-purpose block of the IANA IPv4 and IPv6 registries, each IPv6 form that embeds an
  // IPv4 address (whatever it embeds), and odd spellings of internal addresses.
  const refused: [string, string][] = [
    ['this network 0.0.0.0/8', '0.0.0.0'], ['this network 0.0.0.0/8', '0.1.2.3'],
    ['private 10/8', '10.1.2.3'], ['private 172.16/12', '172.16.0.1'], ['private 172.16/12', '172.31.255.255'], ['private 192.168/16', '192.168.1.1'],
    ['shared (CGNAT) 100.64/10', '100.64.0.1'], ['shared (CGNAT) 100.64/10', '100.127.255.254'],
    ['loopback 127/8', '127.0.0.1'], ['loopback 127/8', '127.255.255.254'],
    ['link-local, cloud metadata', '169.254.169.254'],
    ['IETF protocol assignments 192.0.0/24', '192.0.0.8'], ['IETF protocol assignments 192.0.0/24', '192.0.0.170'],
    ['documentation TEST-NET-1', '192.0.2.1'], ['documentation TEST-NET-2', '198.51.100.1'], ['documentation TEST-NET-3', '203.0.113.1'],
    ['AS112', '192.31.196.1'], ['AS112', '192.175.48.1'], ['AMT', '192.52.193.1'],
    ['6to4 relay anycast 192.88.99/24', '192.88.99.1'],
    ['benchmarking 198.18/15', '198.18.0.1'], ['benchmarking 198.18/15', '198.19.255.255'],
    ['multicast', '224.0.0.1'], ['multicast', '239.255.255.250'], ['reserved 240/4', '240.0.0.1'], ['limited broadcast', '255.255.255.255'],
    ['decimal 127.0.0.1', '2130706433'], ['hex 127.0.0.1', '0x7f.1'], ['hex 127.0.0.1', '0x7f000001'], ['octal 127.0.0.1', '0177.0.0.1'],
    ['short 127.0.0.1', '127.1'], ['hex 10.0.0.1', '0xa.0.0.1'], ['decimal 192.168.1.1', '3232235777'],
    ['unspecified ::', '::'], ['loopback ::1', '::1'], ['loopback ::1, bracketed', '[::1]'], ['loopback ::1, long', '0:0:0:0:0:0:0:1'],
    ['IPv4-compatible ::127.0.0.1', '::127.0.0.1'], ['IPv4-compatible ::127.0.0.1', '::7f00:1'], ['IPv4-compatible ::10.0.0.1', '::a00:1'],
    ['IPv4-mapped ::ffff:0:0/96', '::ffff:127.0.0.1'], ['IPv4-mapped ::ffff:0:0/96', '::ffff:7f00:1'], ['IPv4-mapped ::ffff:0:0/96', '::ffff:169.254.169.254'],
    ['IPv4-mapped, even of a public address', '::ffff:8.8.8.8'],
    ['IPv4-translated ::ffff:0:0:0/96', '::ffff:0:7f00:1'], ['IPv4-translated ::ffff:0:0:0/96', '::ffff:0:808:808'],
    ['NAT64 64:ff9b::/96', '64:ff9b::7f00:1'], ['NAT64 64:ff9b::/96', '64:ff9b::127.0.0.1'], ['NAT64 64:ff9b::/96, even of a public address', '64:ff9b::808:808'],
    ['local-use NAT64 64:ff9b:1::/48', '64:ff9b:1::a00:1'],
    ['6to4 2002::/16', '2002:7f00:1::1'], ['6to4 2002::/16, even of a public address', '2002:808:808::1'],
    ['Teredo 2001::/32', '2001::1'], ['Teredo 2001::/32', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['site-local fec0::/10', 'fec0::1'], ['unique local fc00::/7', 'fc00::1'], ['unique local fc00::/7', 'fd00::1'],
    ['link-local fe80::/10', 'fe80::1'], ['link-local with a zone', 'fe80::1%eth0'], ['multicast ff00::/8', 'ff02::1'],
    ['discard-only 100::/64', '100::1'], ['IETF protocol assignments 2001::/23', '2001:1::1'], ['benchmarking 2001:2::/48', '2001:2::1'],
    ['AMT 2001:3::/32', '2001:3::1'], ['AS112 2001:4:112::/48', '2001:4:112::1'], ['AS112 2620:4f:8000::/48', '2620:4f:8000::1'],
    ['ORCHID 2001:10::/28', '2001:10::1'], ['ORCHIDv2 2001:20::/28', '2001:20::1'], ['DRIP 2001:30::/28', '2001:30::1'],
    ['documentation 2001:db8::/32', '2001:db8::1'], ['documentation 3fff::/20', '3fff::1'], ['segment routing 5f00::/16', '5f00::1'],
    ['outside global unicast 2000::/3', '4000::1'], ['outside global unicast 2000::/3', '1::1'],
    ['not an address', 'example.com'], ['not an address', ''],
  ];
  it.each(refused)('%s: %s is not public', (_range, address) => {
    expect({ address, blocked: isBlockedAddress(address) }).toEqual({ address, blocked: true });
  });

  it.each([
    '93.184.216.34', '8.8.8.8', '1.1.1.1', '100.63.255.255', '100.128.0.1', '172.15.255.255', '172.32.0.1', '198.17.255.255', '198.20.0.1',
    '2606:4700::1111', '2001:4860:4860::8888', '2a00:1450:4001:81c::200e', '2001:200::1',
  ])('%s is public', (address) => expect({ address, blocked: isBlockedAddress(address) }).toEqual({ address, blocked: false }));

  // what EndpointsService and the sender judge: the host of the URL as WHATWG URL reads it
  it.each([
    'https://2130706433/', 'https://0x7f.1/', 'https://0177.0.0.1/', 'https://127.1/', 'https://127.0.0.1./', 'https://%31%32%37.0.0.1/',
    'https://0x7f000001./', 'https://0/', 'https://[::127.0.0.1]/', 'https://[::ffff:7f00:1]/', 'https://[0:0:0:0:0:ffff:127.0.0.1]/',
    'https://[::ffff:0:7f00:1]/', 'https://[64:ff9b::7f00:1]/', 'https://[64:ff9b:1::a00:1]/', 'https://[2002:a00:1::]/', 'https://[2001::a00:1]/',
    'https://[fec0::1]/', 'https://192.88.99.1/', 'https://198.18.0.1/', 'https://100.64.0.1/', 'https://[::]/',
  ])('the URL %s names an address that is refused', (url) => {
    expect({ url, host: new URL(url).hostname, allowed: literalAllowed(new URL(url).hostname, new Set()) }).toEqual({ url, host: expect.any(String), allowed: false });
  });

  it('allow-listed literals pass; names are judged after resolution', () => {
    expect(literalAllowed('127.0.0.1', new Set())).toBe(false);
    expect(literalAllowed('127.0.0.1', new Set(['127.0.0.1']))).toBe(true);
    expect(literalAllowed('[::1]', new Set())).toBe(false);
    expect(literalAllowed('[2606:4700::1111]', new Set())).toBe(true);
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
    ['http://example.com/hook', 'only HTTPS URLs are delivered to'],
    ['https://127.0.0.1:9/hook', NOT_PUBLIC_ADDRESS],
    ['https://2130706433:9/hook', NOT_PUBLIC_ADDRESS],
    ['https://[::1]:9/hook', NOT_PUBLIC_ADDRESS],
    ['https://[::ffff:7f00:1]:9/hook', NOT_PUBLIC_ADDRESS],
    ['https://[64:ff9b::7f00:1]:9/hook', NOT_PUBLIC_ADDRESS],
    ['https://localhost:9/hook', NOT_PUBLIC_ADDRESS],
  ])('%s is refused before any byte is sent', async (url, reason) => {
    const result = await sender.send({ url, body: '{}', headers: {}, timeoutMs: 2000 });
    expect(result).toEqual({ ok: false, status_code: null, error: reason, latency_ms: expect.any(Number) });
  });
});
