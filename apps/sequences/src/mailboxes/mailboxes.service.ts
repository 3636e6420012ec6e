import { Injectable } from '@nestjs/common';
import { CreateMailboxRequest, ID_PREFIX, Mailbox, RequestContext } from '@app/contracts';
import { DomainError, newId } from '@app/platform';
import { isValidTimeZone, parseWindow } from '../engine/schedule';
import { MailboxesRepository, MailboxRow, renderMailbox } from './mailboxes.repository';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Connecting a workspace's mailbox: its settings checked, its SMTP server tried. */
@Injectable()
export class MailboxesService {
  constructor(private readonly mailboxes: MailboxesRepository) {}

  async create(ctx: RequestContext, body: CreateMailboxRequest): Promise<Mailbox> {
    if (!EMAIL.test(body.email ?? '')) throw DomainError.invalid('email', 'email must be an email address');
    let smtp: URL;
    try {
      smtp = new URL(body.smtp_url);
    } catch {
      throw DomainError.invalid('smtp_url', 'smtp_url must be smtp://user:pass@host:port or smtps://…');
    }
    if (!['smtp:', 'smtps:'].includes(smtp.protocol) || !smtp.hostname) throw DomainError.invalid('smtp_url', 'smtp_url must use smtp or smtps');
    let imapHost: string | null = null;
    if (body.imap_url) {
      try {
        const imap = new URL(body.imap_url);
        if (!['imap:', 'imaps:'].includes(imap.protocol)) throw new Error();
        imapHost = imap.hostname;
      } catch {
        throw DomainError.invalid('imap_url', 'imap_url must be imaps://user:pass@host:port (or imap:// with STARTTLS when offered, for on-premise servers and tests)');
      }
    }
    const timezone = body.timezone ?? 'UTC';
    if (!isValidTimeZone(timezone)) throw DomainError.invalid('timezone', `unknown time zone '${timezone}'`);
    const window = parseWindow(body.window ?? '00:00-00:00');
    if (!window) throw DomainError.invalid('window', 'window must be HH:MM-HH:MM');
    const cap = body.daily_cap ?? 200;
    if (!Number.isInteger(cap) || cap < 1 || cap > 100_000) throw DomainError.invalid('daily_cap', 'daily_cap must be an integer from 1 to 100000');
    const secure = smtp.protocol === 'smtps:';
    const row = await this.mailboxes.insert({
      id: newId(ID_PREFIX.mailbox), workspace_id: ctx.workspace_id, email: body.email.toLowerCase(), smtp_host: smtp.hostname,
      smtp_port: Number(smtp.port) || (secure ? 465 : 587), smtp_secure: secure,
      smtp_auth: smtp.username ? `${decodeURIComponent(smtp.username)}:${decodeURIComponent(smtp.password)}` : null,
      imap_url: body.imap_url || null, imap_host: imapHost, daily_cap: cap, timezone, window_start: window.start, window_end: window.end,
    });
    return renderMailbox(await this.verify(row));
  }

  /** Connects and authenticates to the mailbox's SMTP server; records the outcome. */
  async verify(row: MailboxRow): Promise<MailboxRow> {
    const ok = await this.mailboxes.transportFor(row).verify().then(() => true, () => false);
    return this.mailboxes.setVerified(row.id, ok);
  }
}
