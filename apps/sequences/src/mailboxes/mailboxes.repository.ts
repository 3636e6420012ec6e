import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { createTransport, Transporter } from 'nodemailer';
import { Pool } from 'pg';
import { CreateMailboxRequest, ID_PREFIX, Mailbox, RequestContext } from '@app/contracts';
import { DomainError, newId, PG_POOL, Queryable } from '@app/platform';
import { isValidTimeZone, parseWindow } from '../engine/schedule';
import { SEQUENCES_CONFIG, SequencesConfig } from '../sequences.config';
import { SecretBox } from './secret-box';

export interface MailboxRow {
  id: string;
  workspace_id: string;
  email: string;
  smtp_host: string;
  smtp_port: number;
  smtp_secure: boolean;
  smtp_auth_enc: string | null;
  imap_url_enc: string | null;
  imap_host: string | null;
  daily_cap: number;
  timezone: string;
  window_start: string;
  window_end: string;
  verified: boolean;
  created_at: Date;
}

const COLUMNS = `id, workspace_id, email, smtp_host, smtp_port, smtp_secure, smtp_auth_enc, imap_url_enc, imap_host, daily_cap, timezone,
  to_char(window_start, 'HH24:MI') AS window_start, to_char(window_end, 'HH24:MI') AS window_end, verified, created_at`;

export function renderMailbox(row: MailboxRow): Mailbox {
  return {
    id: row.id, object: 'mailbox', email: row.email, smtp_host: row.smtp_host, smtp_port: row.smtp_port, imap_host: row.imap_host,
    daily_cap: row.daily_cap, timezone: row.timezone, window_start: row.window_start, window_end: row.window_end, verified: row.verified,
    created_at: row.created_at.toISOString(),
  };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Connections of one mailbox's pooled SMTP transport; the engine never queues more than this per mailbox. */
export const SMTP_CONNECTIONS_PER_MAILBOX = 8;

/** Mailboxes, their encrypted credentials, and one pooled SMTP transport per mailbox. */
@Injectable()
export class MailboxesRepository implements OnApplicationShutdown {
  private readonly box: SecretBox;
  private readonly transports = new Map<string, Transporter>();

  constructor(
    @Inject(PG_POOL) readonly pool: Pool,
    @Inject(SEQUENCES_CONFIG) config: SequencesConfig,
  ) {
    this.box = new SecretBox(config.secretKey);
  }

  onApplicationShutdown(): void {
    for (const t of this.transports.values()) t.close();
  }

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
    const auth = smtp.username ? `${decodeURIComponent(smtp.username)}:${decodeURIComponent(smtp.password)}` : null;
    const { rows } = await this.pool.query<MailboxRow>(
      `INSERT INTO mailboxes (id, workspace_id, email, smtp_host, smtp_port, smtp_secure, smtp_auth_enc, imap_url_enc, imap_host, daily_cap,
         timezone, window_start, window_end)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING ${COLUMNS}`,
      [
        newId(ID_PREFIX.mailbox), ctx.workspace_id, body.email.toLowerCase(), smtp.hostname, Number(smtp.port) || (secure ? 465 : 587), secure,
        auth ? this.box.seal(auth) : null, body.imap_url ? this.box.seal(body.imap_url) : null, imapHost, cap, timezone, window.start, window.end,
      ],
    );
    return renderMailbox(await this.verify(rows[0]));
  }

  /** Connects and authenticates to the mailbox's SMTP server; records the outcome. */
  async verify(row: MailboxRow): Promise<MailboxRow> {
    const ok = await this.transportFor(row).verify().then(() => true, () => false);
    const { rows } = await this.pool.query<MailboxRow>(`UPDATE mailboxes SET verified = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [row.id, ok]);
    return rows[0];
  }

  async findMany(db: Queryable, workspaceId: string, ids: string[]): Promise<MailboxRow[]> {
    const { rows } = await db.query<MailboxRow>(`SELECT ${COLUMNS} FROM mailboxes WHERE workspace_id = $1 AND id = ANY($2) ORDER BY id`, [workspaceId, ids]);
    return rows;
  }

  async findByIds(db: Queryable, ids: string[], forUpdate = false): Promise<MailboxRow[]> {
    const { rows } = await db.query<MailboxRow>(`SELECT ${COLUMNS} FROM mailboxes WHERE id = ANY($1) ORDER BY id${forUpdate ? ' FOR UPDATE' : ''}`, [ids]);
    return rows;
  }

  transportFor(row: MailboxRow): Transporter {
    let transport = this.transports.get(row.id);
    if (!transport) {
      const auth = row.smtp_auth_enc ? this.box.open(row.smtp_auth_enc) : null;
      const colon = auth ? auth.indexOf(':') : -1;
      transport = createTransport({
        host: row.smtp_host,
        port: row.smtp_port,
        secure: row.smtp_secure,
        pool: true,
        maxConnections: SMTP_CONNECTIONS_PER_MAILBOX,
        maxMessages: Infinity,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 30_000,
        auth: auth ? { user: auth.slice(0, colon), pass: auth.slice(colon + 1) } : undefined,
        tls: { rejectUnauthorized: process.env.SMTP_TLS_REJECT_UNAUTHORIZED !== 'false' },
      });
      this.transports.set(row.id, transport);
    }
    return transport;
  }
}
