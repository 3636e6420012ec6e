import { startDns } from '../../../../tools/mesh/mail-peers';
import { guardedLookup, NOT_PUBLIC_ADDRESS } from './address-guard';

/** The outbound guard at connection, resolving names through a real local DNS server (the tests' peer). */
describe('guardedLookup, at connection', () => {
  let dns: { server: string; close: () => Promise<void> };
  beforeAll(async () => {
    dns = await startDns({
      a: { 'public.test': '93.184.216.34', 'internal.test': '10.0.0.5', 'metadata.test': '169.254.169.254', 'loopback.test': '127.0.0.1', 'receiver.test': '127.0.0.1' },
      authority: ['.test'],
    });
  });
  afterAll(() => dns.close());
  const look = (host: string, allowed = new Set<string>(), all = false) =>
    new Promise<{ err: string | null; address: unknown }>((resolve) =>
      guardedLookup(allowed, [dns.server])(host, { all }, (err, address) => resolve({ err: err ? err.message : null, address })));

  it('answers the public addresses of a name', async () => {
    expect(await look('public.test')).toEqual({ err: null, address: '93.184.216.34' });
    expect(await look('public.test', new Set(), true)).toEqual({ err: null, address: [{ address: '93.184.216.34', family: 4 }] });
  });

  it('a name resolving only to internal addresses and a name that does not resolve fail alike, naming neither the name nor an address', async () => {
    const outcomes = await Promise.all(['internal.test', 'metadata.test', 'loopback.test', 'missing.test'].map((h) => look(h)));
    expect(outcomes).toEqual(Array(4).fill({ err: NOT_PUBLIC_ADDRESS, address: '' }));
  });

  it('an allow-listed name or address passes (WEBHOOK_ALLOWED_HOSTS)', async () => {
    expect(await look('receiver.test', new Set(['receiver.test']))).toEqual({ err: null, address: '127.0.0.1' });
    expect(await look('receiver.test', new Set(['127.0.0.1']))).toEqual({ err: null, address: '127.0.0.1' });
  });
});
