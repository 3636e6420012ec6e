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

/**
 * One SMTP conversation with one mail host about one domain: greeting, EHLO, MAIL FROM, then a
 * RCPT for each address asked, and after the first accepted one a RCPT for a random address at
 * the domain (the catch-all probe, once per conversation), then QUIT. A reveal's candidate
 * addresses share it, as a mail server sees one client asking about several mailboxes: one
 * connection and one greeting (which servers delay on purpose) instead of one per candidate.
 */
class SmtpConversation {
  private buffer = '';
  private waiting?: { resolve: (code: number) => void; reject: (err: Error) => void };
  private failure?: Error;
  private catchAllCode?: number;
  /** RCPTs asked so far (a reused conversation that breaks is opened again once). */
  rcpts = 0;

  private constructor(
    private readonly socket: Socket,
    private readonly domain: string,
  ) {
    socket.setEncoding('utf8');
    socket.setNoDelay(true);
    socket.on('data', (chunk: string) => this.onData(chunk));
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new Error('SMTP connection closed')));
  }

  /** Connected, greeted and past MAIL FROM by `end` (epoch ms), or rejected. */
  static async open(host: string, port: number, domain: string, cfg: VerifierConfig, end: number): Promise<SmtpConversation> {
    const conversation = new SmtpConversation(connect({ host, port }), domain);
    try {
      const greeting = await conversation.reply(end);
      if (greeting !== 220) throw new Error(`greeting ${greeting}`);
      const ehlo = await conversation.command(`EHLO ${cfg.helo}`, end);
      if (ehlo !== 250) throw new Error(`EHLO ${ehlo}`);
      const from = await conversation.command(`MAIL FROM:<${cfg.mailFrom}>`, end);
      if (from !== 250) throw new Error(`MAIL FROM ${from}`);
      return conversation;
    } catch (err) {
      conversation.close();
      throw err;
    }
  }

  /** RCPT for `address`, and for a random address at the domain after the first one accepted. */
  async probe(address: string, end: number): Promise<SmtpOutcome> {
    this.rcpts++;
    const code = await this.command(`RCPT TO:<${address}>`, end);
    if (code < 200 || code >= 300 || this.catchAllCode !== undefined) return { code, catchAllCode: this.catchAllCode };
    try {
      this.catchAllCode = await this.command(`RCPT TO:<${randomBytes(8).toString('hex')}-probe@${this.domain}>`, end);
    } catch {
      // the address's answer stands; without the random one the domain is taken as not catch-all, as before
    }
    return { code, catchAllCode: this.catchAllCode };
  }

  close(): void {
    if (!this.failure && this.socket.writable) this.socket.write('QUIT\r\n');
    this.fail(new Error('SMTP conversation closed'));
    this.socket.destroy();
  }

  private command(line: string, end: number): Promise<number> {
    if (this.failure) return Promise.reject(this.failure);
    this.socket.write(`${line}\r\n`);
    return this.reply(end);
  }

  /** The next reply's code; a reply ends with a line "NNN text" (multi-line replies use "NNN-"). */
  private reply(end: number): Promise<number> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new Error('SMTP timeout')), Math.max(0, end - Date.now()));
      this.waiting = {
        resolve: (code) => (clearTimeout(timer), resolve(code)),
        reject: (err) => (clearTimeout(timer), reject(err)),
      };
      this.onData('');
    });
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    if (!this.waiting) return;
    const lines = this.buffer.split('\r\n');
    const endIndex = lines.findIndex((l) => /^\d{3}( |$)/.test(l));
    if (endIndex < 0) return;
    this.buffer = lines.slice(endIndex + 1).join('\r\n');
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting.resolve(Number(lines[endIndex].slice(0, 3)));
  }

  private fail(err: Error): void {
    this.failure ??= err;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(err);
    this.socket.destroy();
  }
}

/** The open conversations of one verification run, by mail host and domain. */
type Conversations = Map<string, Promise<SmtpConversation>>;

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
    return (await this.verifyUntil([raw], deadline, () => true))[0];
  }

  /**
   * Verifies `addresses` in order until one's result satisfies `enough` (or all are done), and
   * returns each result, in order. One SMTP conversation per mail host and domain serves them all
   * (one reveal's candidate patterns at one domain cost one connection and one greeting), and
   * every check counts against the one `deadline`.
   */
  async verifyUntil(addresses: string[], deadline: number, enough: (result: Verification) => boolean): Promise<Verification[]> {
    const conversations: Conversations = new Map();
    const results: Verification[] = [];
    try {
      for (const raw of addresses) {
        const result = await this.cachedOrChecked(raw, deadline, conversations);
        results.push(result);
        if (enough(result)) break;
      }
    } finally {
      for (const opening of conversations.values()) opening.then((conversation) => conversation.close(), () => undefined);
    }
    return results;
  }

  private async cachedOrChecked(raw: string, deadline: number, conversations: Conversations): Promise<Verification> {
    const email = raw.trim().toLowerCase();
    const cached = this.cache.get(email);
    if (cached && Date.now() - cached.at < this.cfg.cacheTtlMs) return cached.result;
    const result = await this.check(email, deadline, conversations);
    // `unknown` says the check could not be made (DNS or SMTP did not answer): the next one may be
    if (result.status === 'unknown') return result;
    this.cache.set(email, { at: Date.now(), result });
    if (this.cache.size > 100_000) this.cache.delete(this.cache.keys().next().value as string);
    return result;
  }

  /** The RCPT probe of `email` on this run's conversation with `host` (opened now if it has none; opened again once if a reused one broke). */
  private async probe(host: string, domain: string, email: string, deadline: number, conversations: Conversations): Promise<SmtpOutcome> {
    const key = `${host} ${domain}`;
    const end = () => Math.min(Date.now() + this.cfg.timeoutMs, deadline);
    for (let fresh = false; ; fresh = true) {
      let opening = conversations.get(key);
      if (!opening) {
        opening = SmtpConversation.open(host, this.cfg.smtpPort, domain, this.cfg, end());
        opening.catch(() => undefined);
        conversations.set(key, opening);
      }
      const conversation = await opening.catch((err: Error) => {
        conversations.delete(key);
        throw err;
      });
      const reused = conversation.rcpts > 0;
      try {
        return await conversation.probe(email, end());
      } catch (err) {
        conversations.delete(key);
        conversation.close();
        if (!reused || fresh || deadline <= Date.now()) throw err;
      }
    }
  }

  private async check(email: string, deadline: number, conversations: Conversations): Promise<Verification> {
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
        outcome = await this.probe(host, domain, email, deadline, conversations);
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
