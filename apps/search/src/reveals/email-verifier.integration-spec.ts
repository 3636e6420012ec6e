import { createSocket } from 'node:dgram';
import { AddressInfo, createServer } from 'node:net';
import { startDns, startSmtp, startTarpit } from '../../../../tools/mesh/mail-peers';
import { freePort } from '../../../../tools/mesh/processes';
import { MAIL_ZONE } from '../../../../test/support/mail-zone';
import { candidateAddresses, EmailVerifier, VerifierConfig } from './email-verifier';
import { allowance } from '../../../../test/support/timing';

describe('EmailVerifier against a local DNS and SMTP server', () => {
  let dns: Awaited<ReturnType<typeof startDns>>;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let cfg: VerifierConfig;

  beforeAll(async () => {
    dns = await startDns(MAIL_ZONE);
    smtp = await startSmtp({ accept: ['jane@good.test', 'info@good.test', 'alee@good.test', 'max@aonly.test', 'temp@mailinator.com'], catchAll: ['catchall.test'] });
    cfg = { dnsServers: [dns.server], smtpProbe: true, smtpPort: smtp.port, timeoutMs: 3000, totalMs: 6000, helo: 'test.local', mailFrom: 'probe@test.local', cacheTtlMs: 60_000 };
  });
  // every verifier a test makes, closed after it (an idle conversation would hold the SMTP server's close)
  const made: EmailVerifier[] = [];
  const verifier = (config: VerifierConfig) => {
    const v = new EmailVerifier(config);
    made.push(v);
    return v;
  };
  afterEach(() => {
    for (const v of made.splice(0)) v.close();
  });
  afterAll(async () => {
    await smtp?.close();
    await dns?.close();
  });

  it('valid: the mailbox is accepted and a random address is refused', async () => {
    const r = await verifier(cfg).verify('Jane@Good.test');
    expect(r).toMatchObject({ email: 'jane@good.test', status: 'valid', confidence: 95, role: false });
    expect(smtp.rcpts.filter((a) => a.endsWith('-probe@good.test'))).toHaveLength(1);
  });

  it('invalid: RCPT refused, no mail server, bad syntax', async () => {
    const v = verifier(cfg);
    expect((await v.verify('nobody@good.test')).status).toBe('invalid');
    expect(await v.verify('x@nomail.test')).toMatchObject({ status: 'invalid', reason: expect.stringMatching(/no mail server/) });
    expect(await v.verify('not an address')).toMatchObject({ status: 'invalid', reason: 'syntax' });
  });

  it('catch_all when the random address is accepted on the same connection', async () => {
    expect(await verifier(cfg).verify('anyone@catchall.test')).toMatchObject({ status: 'catch_all', confidence: 50 });
  });

  it('falls back to the A record without MX', async () => {
    expect((await verifier(cfg).verify('max@aonly.test')).status).toBe('valid');
  });

  it('role and disposable addresses are risky', async () => {
    const v = verifier(cfg);
    expect(await v.verify('info@good.test')).toMatchObject({ status: 'risky', role: true });
    expect(await v.verify('temp@mailinator.com')).toMatchObject({ status: 'risky', disposable: true });
  });

  it('unknown when the SMTP server does not answer; at most risky with probing off', async () => {
    expect((await verifier({ ...cfg, smtpPort: 1 }).verify('jane@good.test')).status).toBe('unknown');
    expect(await verifier({ ...cfg, smtpProbe: false }).verify('jane@good.test')).toMatchObject({ status: 'risky', confidence: 50 });
    expect((await verifier({ ...cfg, smtpProbe: false }).verify('x@nomail.test')).status).toBe('invalid');
  });

  it('unknown, not invalid, when the DNS server refuses the name (a sandbox answering for its own names only)', async () => {
    const scoped = await startDns({ ...MAIL_ZONE, authority: ['.test'] });
    try {
      const v = verifier({ ...cfg, dnsServers: [scoped.server] });
      expect(await v.verify('someone@example.com')).toMatchObject({ status: 'unknown', reason: expect.stringMatching(/^dns: .*EREFUSED/) });
      expect((await v.verify('jane@good.test')).status).toBe('valid');
      expect((await v.verify('x@nomail.test')).status).toBe('invalid');
    } finally {
      await scoped.close();
    }
  });

  it('mail servers that accept and never answer, and a resolver that never answers, are unknown within the budget', async () => {
    const port = await freePort();
    const tarpit = await startTarpit(['127.0.0.2', '127.0.0.3', '127.0.0.4'], port);
    const zone = await startDns({
      mx: { 'tarpit.test': ['mx1.tarpit.test', 'mx2.tarpit.test', 'mx3.tarpit.test'] },
      a: { 'mx1.tarpit.test': '127.0.0.2', 'mx2.tarpit.test': '127.0.0.3', 'mx3.tarpit.test': '127.0.0.4' },
    });
    // a resolver that takes every question and answers none: its own retries (2 s, twice) outlast the budget
    const deafResolver = createSocket('udp4').on('message', () => undefined);
    await new Promise<void>((resolve) => deafResolver.bind(0, '127.0.0.1', resolve));
    const silent = `127.0.0.1:${deafResolver.address().port}`;
    try {
      // each conversation's own deadline (5 s) is longer than the whole budget
      const v = verifier({ ...cfg, dnsServers: [zone.server], smtpPort: port, timeoutMs: 5000, totalMs: 1500 });
      let started = Date.now();
      const deadline = v.deadline();
      expect(await v.verify('ann.lee@tarpit.test', deadline)).toMatchObject({ status: 'unknown', reason: 'smtp: verification budget spent' });
      expect(await v.verify('alee@tarpit.test', deadline)).toMatchObject({ status: 'unknown' });
      expect(Date.now() - started).toBeLessThan(1500 + allowance(500));
      expect(tarpit.connections()).toBeGreaterThanOrEqual(1);
      started = Date.now();
      const deaf = verifier({ ...cfg, dnsServers: [silent], totalMs: 1000 });
      expect(await deaf.verify('jane@good.test')).toMatchObject({ status: 'unknown', reason: 'dns: verification budget spent' });
      expect(Date.now() - started).toBeLessThan(1000 + allowance(500));
    } finally {
      await zone.close();
      await tarpit.close();
      deafResolver.close();
    }
  });

  it('caches per address for the TTL', async () => {
    const v = verifier(cfg);
    const before = smtp.rcpts.length;
    await v.verify('jane@good.test');
    await v.verify('JANE@good.test');
    expect(smtp.rcpts.length - before).toBe(2); // one conversation: the address and the random probe
    const expired = verifier({ ...cfg, cacheTtlMs: 0 });
    await expired.verify('jane@good.test');
    await expired.verify('jane@good.test');
    expect(smtp.rcpts.length - before).toBe(6);
  });

  const idle = async (v: EmailVerifier, count: number) => {
    for (let i = 0; i < 100 && v.idleConversations() !== count; i++) await new Promise((r) => setTimeout(r, 10));
    expect(v.idleConversations()).toBe(count);
  };

  it("one conversation serves a reveal's candidates at a domain, in order, until one is enough, then the next reveal at that host; past its share of refusals another takes its place", async () => {
    const v = verifier(cfg);
    const rcptsBefore = smtp.rcpts.length;
    const connectionsBefore = smtp.connections();
    const candidates = candidateAddresses('Ann', 'Lee', 'good.test');
    const results = await v.verifyUntil(candidates, v.deadline(), (r) => r.status === 'valid');
    expect(results.map((r) => [r.email, r.status])).toEqual([['ann.lee@good.test', 'invalid'], ['alee@good.test', 'valid']]);
    expect(smtp.rcpts.slice(rcptsBefore)).toEqual(['ann.lee@good.test', 'alee@good.test', expect.stringMatching(/-probe@good\.test$/)]);
    expect(smtp.connections() - connectionsBefore).toBe(1);
    // kept open (after RSET) for the next verification at that mail host
    await idle(v, 1);
    const refused = await v.verifyUntil(candidateAddresses('Zed', 'Nobody', 'good.test'), v.deadline(), (r) => r.status === 'valid');
    expect(refused.every((r) => r.status === 'invalid')).toBe(true);
    expect(refused).toHaveLength(candidateAddresses('Zed', 'Nobody', 'good.test').length);
    expect(smtp.connections() - connectionsBefore).toBe(1);
    // ten refusals on it now, past the count a server tolerates per connection: closed, and a new one opened in its place meanwhile
    await idle(v, 1);
    expect(smtp.connections() - connectionsBefore).toBe(2);
    expect((await v.verify('jane@good.test')).status).toBe('valid');
    expect(smtp.connections() - connectionsBefore).toBe(2);
  });

  it('a second domain at the same mail host is asked on the same conversation, with its own catch-all probe', async () => {
    const v = verifier(cfg);
    const connectionsBefore = smtp.connections();
    const rcptsBefore = smtp.rcpts.length;
    const results = await v.verifyUntil(['someone@catchall.test', 'jane@good.test'], v.deadline(), () => false);
    expect(results.map((r) => r.status)).toEqual(['catch_all', 'valid']);
    expect(smtp.rcpts.slice(rcptsBefore)).toEqual([
      'someone@catchall.test', expect.stringMatching(/-probe@catchall\.test$/), 'jane@good.test', expect.stringMatching(/-probe@good\.test$/),
    ]);
    expect(smtp.connections() - connectionsBefore).toBe(1);
  });

  it('a conversation the server ends after one RCPT is opened again for the next address', async () => {
    // a mail server that refuses each RCPT and hangs up after the first (as servers limiting errors
    // per connection do): after its last reply it reads nothing more, so a command the client sent
    // before the hang-up reached it is not asked of this server
    let connections = 0;
    const rcpts: string[] = [];
    const server = createServer((socket) => {
      connections++;
      let ended = false;
      socket.write('220 strict.test ESMTP\r\n');
      socket.on('data', (chunk) => {
        for (const line of chunk.toString().split('\r\n').filter(Boolean)) {
          if (ended) return;
          if (/^RCPT/i.test(line)) {
            rcpts.push(line);
            ended = true;
            socket.end('550 5.1.1 no such user\r\n');
          } else if (/^QUIT/i.test(line)) socket.end('221 bye\r\n');
          else socket.write('250 ok\r\n');
        }
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const v = verifier({ ...cfg, smtpPort: (server.address() as AddressInfo).port });
      const results = await v.verifyUntil(['ann.lee@good.test', 'alee@good.test'], v.deadline(), () => false);
      expect(results.map((r) => r.status)).toEqual(['invalid', 'invalid']);
      expect(rcpts).toEqual(['RCPT TO:<ann.lee@good.test>', 'RCPT TO:<alee@good.test>']);
      expect(connections).toBe(2);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('candidate patterns, most common first', () => {
    expect(candidateAddresses('Ann', 'Lee', 'good.test').slice(0, 4)).toEqual(['ann.lee@good.test', 'alee@good.test', 'ann@good.test', 'annlee@good.test']);
    expect(candidateAddresses('José', "O'Neil", 'x.test')[0]).toBe('jose.oneil@x.test');
  });
});
