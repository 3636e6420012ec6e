import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { createTransport, Transporter } from 'nodemailer';
import { Pool } from 'pg';
import { Mailbox } from '@app/contracts';
import { PG_POOL, Queryable } from '@app/platform';
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

/** A mailbox to insert, its credentials in the clear (the repository seals them). */
export type NewMailbox = Pick<MailboxRow, 'id' | 'workspace_id' | 'email' | 'smtp_host' | 'smtp_port' | 'smtp_secure' | 'imap_host' | 'daily_cap' | 'timezone' | 'window_start' | 'window_end'> & {
  /** `user:password` of SMTP AUTH, if any. */
  smtp_auth: string | null;
  imap_url: string | null;
};

/** Connections of one mailbox's pooled SMTP transport; the engine never queues more than this per mailbox. */
export const SMTP_CONNECTIONS_PER_MAILBOX = 8;

/** Mailboxes, their encrypted credentials, and one pooled SMTP transport per mailbox. */
@Injectable()
export class MailboxesRepository implements OnApplicationShutdown {
  private readonly box: SecretBox;
  private readonly transports = new Map<string, Transporter>();

  constructor(
    @Inject(PG_POOL) readonly pool: Pool,
    @Inject(SEQUENCES_CONFIG) private readonly config: SequencesConfig,
  ) {
    this.box = new SecretBox(config.secretKey);
  }

  onApplicationShutdown(): void {
    for (const t of this.transports.values()) t.close();
  }

  /** A new mailbox, its credentials sealed; not yet verified. */
  async insert(mailbox: NewMailbox): Promise<MailboxRow> {
    const { rows } = await this.pool.query<MailboxRow>(
      `INSERT INTO mailboxes (id, workspace_id, email, smtp_host, smtp_port, smtp_secure, smtp_auth_enc, imap_url_enc, imap_host, daily_cap,
         timezone, window_start, window_end)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING ${COLUMNS}`,
      [
        mailbox.id, mailbox.workspace_id, mailbox.email, mailbox.smtp_host, mailbox.smtp_port, mailbox.smtp_secure,
        mailbox.smtp_auth ? this.box.seal(mailbox.smtp_auth) : null, mailbox.imap_url ? this.box.seal(mailbox.imap_url) : null, mailbox.imap_host,
        mailbox.daily_cap, mailbox.timezone, mailbox.window_start, mailbox.window_end,
      ],
    );
    return rows[0];
  }

  async setVerified(id: string, verified: boolean): Promise<MailboxRow> {
    const { rows } = await this.pool.query<MailboxRow>(`UPDATE mailboxes SET verified = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [id, verified]);
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
        tls: { rejectUnauthorized: this.config.smtpTlsRejectUnauthorized },
      });
      this.transports.set(row.id, transport);
    }
    return transport;
  }
}
