import { ConfigError } from '@app/platform/config-error';
import { mailOutboxDir } from '@app/platform/mail-outbox';
import { DEMO_TLD, seedEntity } from '../../apps/search/src/entities/seed';
import { candidateAddresses } from '../../apps/search/src/reveals/email-verifier';
import { startDns, startSmtp, Zone } from './mail-peers';
import { ROOT } from './processes';
import { SmtpSink } from './smtp-sink';

/** Entities `npm start` seeds into an empty index (the demo corpus), all of which the sandbox knows. */
export const DEMO_CORPUS_SIZE = 6000;

/**
 * What the sandbox knows of the demo corpus's mail: domains whose MX takes mail for the listed
 * mailboxes only, catch-all domains, and domains with no mail server at all.
 */
export interface DemoMailDirectory {
  /** Domains whose mail server accepts their listed mailboxes only. */
  mailboxDomains: Set<string>;
  mailboxes: Set<string>;
  catchAll: Set<string>;
  noMail: Set<string>;
  /** Addresses of the corpus at mailbox domains that do not exist (refused with 550). */
  missing: Set<string>;
}

/** FNV-1a: a fixed, well-spread choice per name, so every run of the sandbox answers alike. */
function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * The demo corpus's mail, derived from the seed generator itself: one domain in ten has no mail
 * server, two in ten accept any address, the rest accept the mailboxes that exist there. A
 * person's mailbox is the address the corpus lists, or for a person listed without one the
 * verifier's first guess (first.last); one in five of them does not exist. (With this hash the
 * domains many people share, the institutions' and agencies', all take mail, two institutions
 * and one agency as catch-all.)
 */
export function demoMailDirectory(count = DEMO_CORPUS_SIZE): DemoMailDirectory {
  const directory: DemoMailDirectory = { mailboxDomains: new Set(), mailboxes: new Set(), catchAll: new Set(), noMail: new Set(), missing: new Set() };
  for (let n = 0; n < count; n++) {
    const entity = seedEntity(n);
    const domain = entity.domain;
    if (!domain) continue;
    const kind = fnv(`sandbox:${domain}`) % 10;
    if (kind === 0) directory.noMail.add(domain);
    else if (kind <= 2) directory.catchAll.add(domain);
    else {
      directory.mailboxDomains.add(domain);
      const address = entity.email ?? candidateAddresses(entity.first_name ?? null, entity.last_name ?? null, domain)[0];
      if (!address) continue;
      (fnv(`mailbox:${address}`) % 5 === 0 ? directory.missing : directory.mailboxes).add(address);
    }
  }
  // a shared domain (an institution, an agency) may hold a missing address that is also another person's mailbox
  for (const address of directory.mailboxes) directory.missing.delete(address);
  return directory;
}

export interface DemoSandbox {
  /** What search needs to verify against the sandbox. */
  env: { EMAIL_VERIFY_DNS_SERVERS: string; EMAIL_VERIFY_SMTP_PORT: string };
  directory: DemoMailDirectory;
  /** Every RCPT the SMTP server was asked, in order. */
  rcpts: string[];
  close: () => Promise<void>;
}

/**
 * `npm start`'s demo mail sandbox: a DNS server answering MX and A records for the demo corpus's
 * domains (names under DEMO_TLD only; every other name is REFUSED) and an SMTP server that knows
 * which of their mailboxes exist. Search's own verifier holds the whole DNS and SMTP conversation
 * with it, so a newcomer's reveals come back `revealed` (`valid`, `catch_all`, or a phone only
 * when no address survives) or `no_contact_found` as they would against real domains. Off (null) with DEMO_MAIL_SANDBOX=off or
 * when EMAIL_VERIFY_DNS_SERVERS names resolvers already.
 */
export async function startDemoSandbox(env: NodeJS.ProcessEnv, say: (line: string) => void): Promise<DemoSandbox | null> {
  const setting = env.DEMO_MAIL_SANDBOX || 'on';
  if (setting !== 'on' && setting !== 'off') throw new ConfigError(`DEMO_MAIL_SANDBOX must be on or off, got "${setting}"`);
  if (setting === 'off') return null;
  if (env.EMAIL_VERIFY_DNS_SERVERS) {
    say(`demo mail sandbox off: search verifies through EMAIL_VERIFY_DNS_SERVERS=${env.EMAIL_VERIFY_DNS_SERVERS}`);
    return null;
  }
  const directory = demoMailDirectory();
  const zone: Zone = { mx: {}, a: {}, authority: [DEMO_TLD] };
  for (const domain of [...directory.mailboxDomains, ...directory.catchAll]) {
    zone.mx![domain] = [`mx.${domain}`];
    zone.a![`mx.${domain}`] = '127.0.0.1';
  }
  const dns = await startDns(zone);
  const smtp = await startSmtp({ accept: [...directory.mailboxes], catchAll: [...directory.catchAll] }).catch(async (err) => {
    await dns.close();
    throw err;
  });
  say(
    `demo sandbox: mail for the demo corpus (${DEMO_CORPUS_SIZE.toLocaleString('en-US')} entities, domains under ${DEMO_TLD} only) ` +
      `answered by DNS ${dns.server} and SMTP 127.0.0.1:${smtp.port}: ${directory.mailboxes.size} mailboxes, ` +
      `${directory.catchAll.size} catch-all domains, ${directory.noMail.size} domains without mail; ` +
      `reveals come back revealed (valid, catch_all, or a phone only) or no_contact_found. Off: DEMO_MAIL_SANDBOX=off or EMAIL_VERIFY_DNS_SERVERS`,
  );
  return {
    env: { EMAIL_VERIFY_DNS_SERVERS: dns.server, EMAIL_VERIFY_SMTP_PORT: String(smtp.port) },
    directory,
    rcpts: smtp.rcpts,
    close: async () => {
      await smtp.close();
      await dns.close();
    },
  };
}

export interface MailOutbox {
  /** What the opt-out portal (sequences) needs to mail through the outbox. */
  env: { OPTOUT_SMTP_URL: string };
  dir: string;
  sink: SmtpSink;
  close: () => Promise<void>;
}

/**
 * `npm start`'s mail outbox: an SMTP server on 127.0.0.1 that takes every message for any
 * address and keeps it as a file in `dir` (MAIL_OUTBOX_DIR, else .data/mail/outbox), where
 * `admin mail:outbox` reads it; nothing leaves the machine. The opt-out portal mails its
 * confirmation links there unless OPTOUT_SMTP_URL names a server already (then off: null).
 */
export async function startMailOutbox(env: NodeJS.ProcessEnv, say: (line: string) => void): Promise<MailOutbox | null> {
  if (env.OPTOUT_SMTP_URL) {
    say('mail outbox off: the opt-out portal mails through OPTOUT_SMTP_URL');
    return null;
  }
  const dir = mailOutboxDir(env, ROOT);
  const sink = await SmtpSink.start({ outboxDir: dir });
  return { env: { OPTOUT_SMTP_URL: `smtp://127.0.0.1:${sink.port}` }, dir, sink, close: () => sink.close() };
}
