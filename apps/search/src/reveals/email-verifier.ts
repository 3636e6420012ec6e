import { Resolver } from 'node:dns/promises';
import { connect, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { EmailStatus } from '@app/contracts';
import { envInt } from '@app/platform/config';

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

/** How long an idle conversation is kept for the next reveal (servers keep an idle client 5 minutes at least, RFC 5321 4.5.3.2.7). */
const IDLE_MS = 30_000;
/** Idle conversations kept per mail host. */
const IDLE_PER_HOST = 4;
/**
 * A conversation is not reused once this many RCPTs were refused on it (servers slow down or
 * drop a client past an error count per connection, Postfix's soft limit being 10) or this many
 * were asked.
 */
const REFUSED_PER_CONVERSATION = 8;
const RCPTS_PER_CONVERSATION = 50;

/**
 * One SMTP conversation with one mail host: greeting and EHLO once, then for each verification
 * that uses it MAIL FROM, a RCPT for each address asked and, after the first one accepted at a
 * domain, a RCPT for a random address there (the catch-all probe, once per domain), then RSET.
 * A reveal's candidate addresses share one, and the verifier keeps it open for the next reveal at
 * that host, as a mail server sees one client asking about several mailboxes: the connection and
 * the greeting (which servers delay on purpose) are paid once, not per address.
 */
class SmtpConversation {
  private buffer = '';
  private waiting?: { resolve: (code: number) => void; reject: (err: Error) => void };
  private failure?: Error;
  private readonly catchAll = new Map<string, number | undefined>();
  private idleTimer?: NodeJS.Timeout;
  /** RCPTs asked, and refused, on this connection (a reused conversation that breaks is opened again once). */
  rcpts = 0;
  refused = 0;
  private inTransaction = false;

  private constructor(
    private readonly socket: Socket,
    readonly host: string,
  ) {
    socket.setEncoding('utf8');
    socket.setNoDelay(true);
    socket.on('data', (chunk: string) => this.onData(chunk));
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new Error('SMTP connection closed')));
  }

  /** Connected, greeted and past EHLO by `end` (epoch ms), or rejected. */
  static async open(host: string, port: number, cfg: VerifierConfig, end: number): Promise<SmtpConversation> {
    const conversation = new SmtpConversation(connect({ host, port }), host);
    try {
      const greeting = await conversation.reply(end);
      if (greeting !== 220) throw new Error(`greeting ${greeting}`);
      const ehlo = await conversation.command(`EHLO ${cfg.helo}`, end);
      if (ehlo !== 250) throw new Error(`EHLO ${ehlo}`);
      return conversation;
    } catch (err) {
      conversation.close();
      throw err;
    }
  }

  get reusable(): boolean {
    return !this.failure && !this.spent;
  }

  /** Past its share of RCPTs or refusals (see REFUSED_PER_CONVERSATION), however healthy. */
  get spent(): boolean {
    return this.refused >= REFUSED_PER_CONVERSATION || this.rcpts >= RCPTS_PER_CONVERSATION;
  }

  /** A new transaction (MAIL FROM) for one verification. */
  async begin(mailFrom: string, end: number): Promise<void> {
    const code = await this.command(`MAIL FROM:<${mailFrom}>`, end);
    if (code !== 250) throw new Error(`MAIL FROM ${code}`);
    this.inTransaction = true;
    // each verification probes for itself whether a domain takes any address
    this.catchAll.clear();
  }

  /** RCPT for `address`, and for a random address at its domain after the domain's first one accepted. */
  async probe(address: string, end: number): Promise<SmtpOutcome> {
    const domain = address.split('@')[1];
    this.rcpts++;
    const code = await this.command(`RCPT TO:<${address}>`, end);
    if (code >= 500) this.refused++;
    if (code < 200 || code >= 300 || this.catchAll.has(domain)) return { code, catchAllCode: this.catchAll.get(domain) };
    let catchAllCode: number | undefined;
    try {
      this.rcpts++;
      catchAllCode = await this.command(`RCPT TO:<${randomBytes(8).toString('hex')}-probe@${domain}>`, end);
      if (catchAllCode >= 500) this.refused++;
    } catch {
      // the address's answer stands; without the random one the domain is taken as not catch-all
    }
    this.catchAll.set(domain, catchAllCode);
    return { code, catchAllCode };
  }

  /** Ends the transaction (RSET) and waits idle, for `onIdleEnd` after IDLE_MS; false when it cannot be reused. */
  async park(onIdleEnd: () => void, end: number): Promise<boolean> {
    if (!this.reusable) return false;
    if (this.inTransaction && (await this.command('RSET', end).catch(() => 0)) !== 250) return false;
    this.inTransaction = false;
    this.socket.unref();
    this.idleTimer = setTimeout(onIdleEnd, IDLE_MS);
    this.idleTimer.unref();
    return true;
  }

  /** Taken from idle for a verification. */
  unpark(): void {
    clearTimeout(this.idleTimer);
    this.socket.ref();
  }

  close(): void {
    clearTimeout(this.idleTimer);
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

/** What one verification run shares between its addresses: its conversations by mail host, and each domain's mail hosts (looked up once). */
interface Run {
  conversations: Map<string, Promise<SmtpConversation>>;
  hosts: Map<string, Promise<string[]>>;
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
  /** Idle conversations by mail host, kept for the next verification there. */
  private readonly idle = new Map<string, SmtpConversation[]>();
  private closed = false;
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
   * returns each result, in order. One SMTP conversation per mail host serves them all (one
   * reveal's candidate patterns at one domain cost one greeting at most: none when a conversation
   * kept from an earlier reveal is open), and every check counts against the one `deadline`.
   */
  async verifyUntil(addresses: string[], deadline: number, enough: (result: Verification) => boolean): Promise<Verification[]> {
    const run: Run = { conversations: new Map(), hosts: new Map() };
    const results: Verification[] = [];
    try {
      for (const raw of addresses) {
        const result = await this.cachedOrChecked(raw, deadline, run);
        results.push(result);
        if (enough(result)) break;
      }
    } finally {
      for (const opening of run.conversations.values()) opening.then((conversation) => this.release(conversation), () => undefined);
    }
    return results;
  }

  /** How many conversations wait idle, over every host. */
  idleConversations(): number {
    return [...this.idle.values()].reduce((sum, list) => sum + list.length, 0);
  }

  /** Closes the idle conversations (at shutdown). */
  close(): void {
    this.closed = true;
    for (const list of this.idle.values()) for (const conversation of list) conversation.close();
    this.idle.clear();
  }

  /** An idle conversation with `host`, else a new one, in a new transaction by `end`. */
  private async take(host: string, end: number): Promise<SmtpConversation> {
    const list = this.idle.get(host) ?? [];
    for (let conversation = list.pop(); conversation; conversation = list.pop()) {
      conversation.unpark();
      try {
        await conversation.begin(this.cfg.mailFrom, end);
        return conversation;
      } catch {
        conversation.close(); // the server ended it while idle: the next, or a new one
      }
    }
    const conversation = await SmtpConversation.open(host, this.cfg.smtpPort, this.cfg, end);
    try {
      await conversation.begin(this.cfg.mailFrom, end);
    } catch (err) {
      conversation.close();
      throw err;
    }
    return conversation;
  }

  /**
   * Back to idle for the next verification at its host; closed when it has served its share (see
   * REFUSED_PER_CONVERSATION), and then a new one is opened in its place meanwhile, so the next
   * reveal at that host does not wait for a connection and a greeting either.
   */
  private release(conversation: SmtpConversation): void {
    if (this.closed) return conversation.close();
    if (conversation.reusable) return this.keepIdle(conversation);
    conversation.close();
    if (!conversation.spent) return; // broken: the next reveal at that host opens one, if it answers
    SmtpConversation.open(conversation.host, this.cfg.smtpPort, this.cfg, Date.now() + this.cfg.timeoutMs).then(
      (fresh) => this.keepIdle(fresh),
      () => undefined,
    );
  }

  private keepIdle(conversation: SmtpConversation): void {
    let list = this.idle.get(conversation.host);
    if (!list) this.idle.set(conversation.host, (list = []));
    if (this.closed || list.length >= IDLE_PER_HOST) return conversation.close();
    const forget = () => {
      const at = list.indexOf(conversation);
      if (at >= 0) list.splice(at, 1);
      conversation.close();
    };
    void conversation.park(forget, Date.now() + this.cfg.timeoutMs).then((parked) => {
      if (!parked || this.closed || list.length >= IDLE_PER_HOST) return conversation.close();
      list.push(conversation);
    });
  }

  private async cachedOrChecked(raw: string, deadline: number, run: Run): Promise<Verification> {
    const email = raw.trim().toLowerCase();
    const cached = this.cache.get(email);
    if (cached && Date.now() - cached.at < this.cfg.cacheTtlMs) return cached.result;
    const result = await this.check(email, deadline, run);
    // `unknown` says the check could not be made (DNS or SMTP did not answer): the next one may be
    if (result.status === 'unknown') return result;
    this.cache.set(email, { at: Date.now(), result });
    if (this.cache.size > 100_000) this.cache.delete(this.cache.keys().next().value as string);
    return result;
  }

  /** The RCPT probe of `email` on this run's conversation with `host` (taken now if it has none; a new one once if a reused one broke). */
  private async probe(host: string, email: string, deadline: number, { conversations }: Run): Promise<SmtpOutcome> {
    const end = () => Math.min(Date.now() + this.cfg.timeoutMs, deadline);
    for (let fresh = false; ; fresh = true) {
      let taking = conversations.get(host);
      if (!taking) {
        taking = this.take(host, end());
        taking.catch(() => undefined);
        conversations.set(host, taking);
      }
      const conversation = await taking.catch((err: Error) => {
        conversations.delete(host);
        throw err;
      });
      const reused = conversation.rcpts > 0;
      try {
        return await conversation.probe(email, end());
      } catch (err) {
        conversations.delete(host);
        conversation.close();
        if (!reused || fresh || deadline <= Date.now()) throw err;
      }
    }
  }

  private async check(email: string, deadline: number, run: Run): Promise<Verification> {
    const base = { email, role: false, disposable: false };
    if (!SYNTAX.test(email) || email.length > 254) return { ...base, status: 'invalid', confidence: 99, reason: 'syntax' };
    const [local, domain] = email.split('@');
    const role = isRole(local);
    const disposable = DISPOSABLE.has(domain);
    const flags = { email, role, disposable };
    let hosts: string[];
    try {
      let lookup = run.hosts.get(domain);
      if (!lookup) run.hosts.set(domain, (lookup = this.mailHosts(domain)));
      hosts = await beforeDeadline(lookup, deadline);
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
        outcome = await this.probe(host, email, deadline, run);
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
