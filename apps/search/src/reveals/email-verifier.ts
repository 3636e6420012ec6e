import { Resolver } from 'node:dns/promises';
import { connect, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { EmailStatus } from '@app/contracts';
import { envInt } from '@app/platform';

export interface VerifierConfig {
  /** host:port list for the resolver; empty: the system's. */
  dnsServers: string[];
  smtpProbe: boolean;
  smtpPort: number;
  timeoutMs: number;
  /** Budget of one reveal's verification (DNS, every MX host, every candidate address) */
  totalMs: number;
  helo: string;
  mailFrom: string;
  cacheTtlMs: number;
}

export function loadVerifierConfig(env: NodeJS.ProcessEnv): VerifierConfig {
  return {
    dnsServers: (env.EMAIL_VERIFY_DNS_SERVERS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    smtpProbe: (env.EMAIL_VERIFY_SMTP_PROBE ?? 'on') !== 'off',
    smtpPort: envInt(env, 'EMAIL_VERIFY_SMTP_PORT', 25, 1, 65535),
    timeoutMs: envInt(env, 'EMAIL_VERIFY_TIMEOUT_MS', 5000, 100, 600_000),
    totalMs: envInt(env, 'EMAIL_VERIFY_TOTAL_MS', 6000, 100, 600_000),
    helo: env.EMAIL_VERIFY_HELO || 'verify.lead-intelligence.local',
    mailFrom: env.EMAIL_VERIFY_MAIL_FROM || 'verify@lead-intelligence.local',
    cacheTtlMs: envInt(env, 'EMAIL_VERIFY_CACHE_TTL_MS', 24 * 3600_000, 0, Number.MAX_SAFE_INTEGER),
  };
}

export interface Verification {
  email: string;
  status: EmailStatus;
  confidence: number;
  reason: string;
  role: boolean;
  disposable: boolean;
}

const SYNTAX = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;
const ROLES = new Set(['admin', 'info', 'sales', 'support', 'contact', 'hello', 'office', 'team', 'help', 'billing', 'jobs', 'careers', 'press', 'marketing', 'noreply', 'no-reply', 'postmaster', 'webmaster', 'hr', 'abuse', 'enquiries', 'inquiries']);
const DISPOSABLE = new Set(['mailinator.com', 'guerrillamail.com', '10minutemail.com', 'tempmail.com', 'temp-mail.org', 'yopmail.com', 'trashmail.com', 'sharklasers.com', 'getnada.com', 'dispostable.com', 'maildrop.cc', 'throwawaymail.com']);

export function isRole(local: string): boolean {
  return ROLES.has(local.toLowerCase().replace(/[._+-]\d*$/, ''));
}

/** Candidate addresses for a person at a domain, most common patterns first. */
export function candidateAddresses(first: string | null, last: string | null, domain: string): string[] {
  const clean = (s: string | null) => (s ?? '').toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[^a-z]/g, '');
  const f = clean(first);
  const l = clean(last);
  const list: string[] = [];
  if (f && l) list.push(`${f}.${l}`, `${f[0]}${l}`, f, `${f}${l}`, `${f[0]}.${l}`, `${f}_${l}`, `${f}${l[0]}`, `${l}.${f}`, l);
  else if (f || l) list.push(f || l);
  return [...new Set(list)].map((local) => `${local}@${domain}`);
}

interface SmtpOutcome {
  code: number;
  catchAllCode?: number;
}

/** One SMTP conversation: greeting, EHLO, MAIL FROM, RCPT for the address, RCPT for a random one, QUIT. */
function smtpProbe(host: string, port: number, address: string, cfg: VerifierConfig, timeoutMs: number): Promise<SmtpOutcome> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect({ host, port });
    let buffer = '';
    let step = 0;
    const result: SmtpOutcome = { code: 0 };
    const domain = address.split('@')[1];
    const random = `${randomBytes(8).toString('hex')}-probe@${domain}`;
    const timer = setTimeout(() => finish(new Error('SMTP timeout')), timeoutMs);
    let done = false;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (err && result.code === 0) reject(err);
      else resolve(result);
    };
    const send = (line: string) => socket.write(`${line}\r\n`);
    socket.setEncoding('utf8');
    socket.on('error', (err) => finish(err));
    socket.on('close', () => finish(new Error('SMTP connection closed')));
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      // a reply ends with a line "NNN text" (multi-line replies use "NNN-")
      for (;;) {
        const lines = buffer.split('\r\n');
        const endIndex = lines.findIndex((l) => /^\d{3}( |$)/.test(l));
        if (endIndex < 0) return;
        const code = Number(lines[endIndex].slice(0, 3));
        buffer = lines.slice(endIndex + 1).join('\r\n');
        step++;
        if (step === 1) {
          if (code !== 220) return finish(new Error(`greeting ${code}`));
          send(`EHLO ${cfg.helo}`);
        } else if (step === 2) {
          if (code !== 250) return finish(new Error(`EHLO ${code}`));
          send(`MAIL FROM:<${cfg.mailFrom}>`);
        } else if (step === 3) {
          if (code !== 250) return finish(new Error(`MAIL FROM ${code}`));
          send(`RCPT TO:<${address}>`);
        } else if (step === 4) {
          result.code = code;
          if (code >= 200 && code < 300) send(`RCPT TO:<${random}>`);
          else {
            send('QUIT');
            return finish();
          }
        } else if (step === 5) {
          result.catchAllCode = code;
          send('QUIT');
          return finish();
        }
      }
    });
  });
}

const BUDGET_SPENT = 'verification budget spent';

/** `work`, or a rejection when the deadline passes first (the work itself finishes unobserved). */
function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(BUDGET_SPENT)), Math.max(0, deadline - Date.now()));
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * Checks an address: syntax, MX (else A) look-up, an SMTP RCPT probe with a random-address
 * catch-all probe on the same connection, role and disposable detection. Results are cached per
 * address for the TTL, except `unknown` ones.
 *
 * Every check runs against a deadline (`EMAIL_VERIFY_TOTAL_MS` from the first address of a
 * reveal): mail servers that accept TCP and never answer, or a resolver that never answers, would
 * otherwise hold a reveal past the gateway's RPC deadline (two MX hosts at 5 s each already
 * reach it). What the budget could not check is `unknown`, as any check that could not be made.
 */
export class EmailVerifier {
  private readonly cache = new Map<string, { at: number; result: Verification }>();
  private readonly resolver = new Resolver({ timeout: 2000, tries: 2 });

  constructor(private readonly cfg: VerifierConfig) {
    if (cfg.dnsServers.length > 0) this.resolver.setServers(cfg.dnsServers);
  }

  /** The deadline of a verification starting now; pass it to every `verify` of one reveal. */
  deadline(): number {
    return Date.now() + this.cfg.totalMs;
  }

  async verify(raw: string, deadline = this.deadline()): Promise<Verification> {
    const email = raw.trim().toLowerCase();
    const cached = this.cache.get(email);
    if (cached && Date.now() - cached.at < this.cfg.cacheTtlMs) return cached.result;
    const result = await this.check(email, deadline);
    // `unknown` says the check could not be made (DNS or SMTP did not answer): the next one may be
    if (result.status === 'unknown') return result;
    this.cache.set(email, { at: Date.now(), result });
    if (this.cache.size > 100_000) this.cache.delete(this.cache.keys().next().value as string);
    return result;
  }

  private async check(email: string, deadline: number): Promise<Verification> {
    const base = { email, role: false, disposable: false };
    if (!SYNTAX.test(email) || email.length > 254) return { ...base, status: 'invalid', confidence: 99, reason: 'syntax' };
    const [local, domain] = email.split('@');
    const role = isRole(local);
    const disposable = DISPOSABLE.has(domain);
    const flags = { email, role, disposable };
    let hosts: string[];
    try {
      hosts = await beforeDeadline(this.mailHosts(domain), deadline);
    } catch (err) {
      return { ...flags, status: 'unknown', confidence: 20, reason: `dns: ${(err as Error).message}` };
    }
    if (hosts.length === 0) return { ...flags, status: 'invalid', confidence: 95, reason: 'no mail server (no MX, no A)' };
    if (disposable) return { ...flags, status: 'risky', confidence: 10, reason: 'disposable domain' };
    if (!this.cfg.smtpProbe) return { ...flags, status: 'risky', confidence: role ? 30 : 50, reason: 'domain accepts mail; mailbox not probed' };
    let outcome: SmtpOutcome | undefined;
    let lastError = '';
    for (const host of hosts.slice(0, 2)) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        lastError = BUDGET_SPENT;
        break;
      }
      try {
        outcome = await smtpProbe(host, this.cfg.smtpPort, email, this.cfg, Math.min(this.cfg.timeoutMs, remaining));
        if (outcome.code >= 400 && outcome.code < 500) continue; // greylisted or busy: try the next host
        break;
      } catch (err) {
        lastError = (err as Error).message;
      }
    }
    if (!outcome) return { ...flags, status: 'unknown', confidence: 30, reason: `smtp: ${lastError}` };
    if (outcome.code >= 500) return { ...flags, status: 'invalid', confidence: 90, reason: `RCPT ${outcome.code}` };
    if (outcome.code >= 400) return { ...flags, status: 'unknown', confidence: 30, reason: `RCPT ${outcome.code}` };
    if (outcome.catchAllCode !== undefined && outcome.catchAllCode >= 200 && outcome.catchAllCode < 300) {
      return { ...flags, status: 'catch_all', confidence: 50, reason: 'domain accepts any address' };
    }
    if (role) return { ...flags, status: 'risky', confidence: 70, reason: 'role address' };
    return { ...flags, status: 'valid', confidence: 95, reason: `RCPT ${outcome.code}` };
  }

  /** MX hosts by preference; without MX records the domain's A record (the domain itself); none: []. */
  private async mailHosts(domain: string): Promise<string[]> {
    const absent = (err: unknown) => ['ENODATA', 'ENOTFOUND', 'NXDOMAIN'].includes((err as { code?: string }).code ?? '');
    try {
      const mx = await this.resolver.resolveMx(domain);
      const hosts = mx.filter((r) => r.exchange && r.exchange !== '.').sort((a, b) => a.priority - b.priority).map((r) => r.exchange);
      if (hosts.length > 0) return this.addressesOf(hosts);
    } catch (err) {
      if (!absent(err)) throw err;
    }
    try {
      const a = await this.resolver.resolve4(domain);
      return a.length > 0 ? [a[0]] : [];
    } catch (err) {
      if (absent(err)) return [];
      throw err;
    }
  }

  /** MX names resolved through the same resolver (the probe must not ask the system's). */
  private async addressesOf(hosts: string[]): Promise<string[]> {
    const out: string[] = [];
    for (const host of hosts) {
      try {
        const a = await this.resolver.resolve4(host);
        if (a[0]) out.push(a[0]);
      } catch {
        // an MX without an address is skipped
      }
    }
    return out;
  }
}
