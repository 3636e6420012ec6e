import { startDns, startSmtp } from '../../../../tools/mesh/mail-peers';
import { MAIL_ZONE } from '../../../../test/support/mail-zone';
import { candidateAddresses, EmailVerifier, VerifierConfig } from './email-verifier';

describe('EmailVerifier against a local DNS and SMTP server', () => {
  let dns: Awaited<ReturnType<typeof startDns>>;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let cfg: VerifierConfig;

  beforeAll(async () => {
    dns = await startDns(MAIL_ZONE);
    smtp = await startSmtp({ accept: ['jane@good.test', 'info@good.test', 'alee@good.test', 'max@aonly.test', 'temp@mailinator.com'], catchAll: ['catchall.test'] });
    cfg = { dnsServers: [dns.server], smtpProbe: true, smtpPort: smtp.port, timeoutMs: 3000, helo: 'test.local', mailFrom: 'probe@test.local', cacheTtlMs: 60_000 };
  });
  afterAll(async () => {
    await smtp?.close();
    await dns?.close();
  });

  it('valid: the mailbox is accepted and a random address is refused', async () => {
    const r = await new EmailVerifier(cfg).verify('Jane@Good.test');
    expect(r).toMatchObject({ email: 'jane@good.test', status: 'valid', confidence: 95, role: false });
    expect(smtp.rcpts.filter((a) => a.endsWith('-probe@good.test'))).toHaveLength(1);
  });

  it('invalid: RCPT refused, no mail server, bad syntax', async () => {
    const v = new EmailVerifier(cfg);
    expect((await v.verify('nobody@good.test')).status).toBe('invalid');
    expect(await v.verify('x@nomail.test')).toMatchObject({ status: 'invalid', reason: expect.stringMatching(/no mail server/) });
    expect(await v.verify('not an address')).toMatchObject({ status: 'invalid', reason: 'syntax' });
  });

  it('catch_all when the random address is accepted on the same connection', async () => {
    expect(await new EmailVerifier(cfg).verify('anyone@catchall.test')).toMatchObject({ status: 'catch_all', confidence: 50 });
  });

  it('falls back to the A record without MX', async () => {
    expect((await new EmailVerifier(cfg).verify('max@aonly.test')).status).toBe('valid');
  });

  it('role and disposable addresses are risky', async () => {
    const v = new EmailVerifier(cfg);
    expect(await v.verify('info@good.test')).toMatchObject({ status: 'risky', role: true });
    expect(await v.verify('temp@mailinator.com')).toMatchObject({ status: 'risky', disposable: true });
  });

  it('unknown when the SMTP server does not answer; at most risky with probing off', async () => {
    expect((await new EmailVerifier({ ...cfg, smtpPort: 1 }).verify('jane@good.test')).status).toBe('unknown');
    expect(await new EmailVerifier({ ...cfg, smtpProbe: false }).verify('jane@good.test')).toMatchObject({ status: 'risky', confidence: 50 });
    expect((await new EmailVerifier({ ...cfg, smtpProbe: false }).verify('x@nomail.test')).status).toBe('invalid');
  });

  it('unknown, not invalid, when the DNS server refuses the name (a sandbox answering for its own names only)', async () => {
    const scoped = await startDns({ ...MAIL_ZONE, authority: ['.test'] });
    try {
      const v = new EmailVerifier({ ...cfg, dnsServers: [scoped.server] });
      expect(await v.verify('someone@example.com')).toMatchObject({ status: 'unknown', reason: expect.stringMatching(/^dns: .*EREFUSED/) });
      expect((await v.verify('jane@good.test')).status).toBe('valid');
      expect((await v.verify('x@nomail.test')).status).toBe('invalid');
    } finally {
      await scoped.close();
    }
  });

  it('caches per address for the TTL', async () => {
    const v = new EmailVerifier(cfg);
    const before = smtp.rcpts.length;
    await v.verify('jane@good.test');
    await v.verify('JANE@good.test');
    expect(smtp.rcpts.length - before).toBe(2); // one conversation: the address and the random probe
    const expired = new EmailVerifier({ ...cfg, cacheTtlMs: 0 });
    await expired.verify('jane@good.test');
    await expired.verify('jane@good.test');
    expect(smtp.rcpts.length - before).toBe(6);
  });

  it('candidate patterns, most common first', () => {
    expect(candidateAddresses('Ann', 'Lee', 'good.test').slice(0, 4)).toEqual(['ann.lee@good.test', 'alee@good.test', 'ann@good.test', 'annlee@good.test']);
    expect(candidateAddresses('José', "O'Neil", 'x.test')[0]).toBe('jose.oneil@x.test');
  });
});
